"""Fig. 2 of the RABVI paper (Welandawe et al.) repeated over seeds: RABVI (avgAdam, mean field, RMSProp warm start)
at several accuracy thresholds ξ on one posteriordb posterior, one independent run per (seed, ξ), against a reference
computed once (`rabvi_posteriordb.reference_for`). The runs are those of `rabvi_posteriordb.study_posterior` with the
same keys (seed s, ξ number i: ``fold_in(PRNGKey(s), 1000 + i)``), so seed s here reproduces that study's RABVI curves
at seed s; the baselines of the figure are not repeated (they carry no claim of Fig. 2).

References
----------
M. Welandawe, M. R. Andersen, A. Vehtari, J. H. Huggins (2024). A framework for improving the reliability of
black-box variational inference. JMLR 25. (Fig. 2.)
"""
from __future__ import annotations

import jax
import jax.numpy as jnp

from lsvi.core.bbvi import families, kernel, optimizers
from lsvi.papers.rabvi import posteriordb_models as pm
from lsvi.papers.rabvi import posteriordb_study as rp


def xi_repeats(name: str, reference: rp.UReference, xis, seeds, *, k_max: int, num_samples: int = 10) -> list[dict]:
    """[{ξ: `rabvi_posteriordb.Curve`} for each seed in ``seeds``]: RABVI MF (rule off up to ``k_max``, trigger
    recorded) at every ξ of ``xis`` (≥ 2 values), errors against ``reference``."""
    seeds = list(seeds)
    if not seeds:
        return []
    model = pm.build(name)
    fam = families.meanfield(model.dim)
    bb = kernel.build(fam, model.logdensity, optimizers.get("avg_adam"), num_samples)
    warm = kernel.build(fam, model.logdensity, optimizers.get("rmsprop"), num_samples)
    out = []
    for s in seeds:
        key = jax.random.PRNGKey(s)
        out.append({float(xi): rp.rabvi_curve(f"RABVI MF ξ={xi:g}", bb, fam, jnp.zeros(fam.num_params),
                                              jax.random.fold_in(key, 1000 + i), reference, k_max=k_max, xi=xi,
                                              warm_start=warm)
                    for i, xi in enumerate(xis)})
    return out
