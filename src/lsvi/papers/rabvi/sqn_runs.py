"""SQN inside RABVI for Fig. C.10 of the RABVI paper (Section 7.1; Appendix B.5), next to the optimisers that
`rabvi_gaussian.study_target` runs.

`study_target` has `rabvi_gaussian.study_target`'s signature and result and accepts "sqn" in `rabvi_optimizers`: the
other optimisers run there unchanged (that module is shared with other notebooks and is not edited), then RABVI runs
with the SQN direction (`lsvi.core.bbvi.sqn`, m = 10, B = 20, 100 draws per y, avgRMSProp direction before the first pair; κ estimated, as for the other
non-averaged optimisers) on the same target, family, seed and RABVI defaults, and its entry
out["rabvi"]["sqn"] = {"result", rabvi_diagnostics...} is added after the others (the figure and the claims read it
like the others). The y draws come from PRNGKey(seed) folded with a fixed tag, independent of the kernel's draws.

References
----------
M. Welandawe, M. R. Andersen, A. Vehtari, J. H. Huggins (2024). A framework for improving the reliability of
black-box variational inference. arXiv:2203.15945.
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from lsvi.core import targets
from lsvi.core.bbvi import families, kernel, rabvi, sqn
from lsvi.papers.rabvi import gaussian as rg

SQN_TAG = 0x5351  # folded into the seed's key for the y draws ("SQ")


def rabvi_sqn_run(name: str, d: int, *, seed: int = 0, num_samples: int = 10, regression=None, k_max: int = 100_000,
                  num_samples_y: int = 100, memory_size: int = 10, block_size: int = 20) -> dict:
    """RABVI with SQN on N(0, V_name) in dimension d, mean-field family, from λ^(0) = 0 with the key of
    `rg.study_target` (PRNGKey(seed)): {"result": RabviResult, **rg.rabvi_diagnostics}."""
    V = rg.covariance(name, d)
    log_target = targets.gaussian_logdensity(jnp.asarray(np.linalg.inv(V)))
    fam = families.meanfield(d)
    lam_star = rg.q_star(fam, V)
    key = jax.random.PRNGKey(seed)
    opt = sqn.sqn_for(fam, log_target, jax.random.fold_in(key, SQN_TAG), num_samples_y=num_samples_y,
                      memory_size=memory_size, block_size=block_size)
    bb = kernel.build(fam, log_target, opt, num_samples)
    reg = {} if regression is None else {"regression": regression}
    res = rabvi.rabvi(bb, fam, jnp.zeros(2 * d), key, r=1.0, k_max=k_max, fix_kappa=False, **reg)
    return {"result": res, **rg.rabvi_diagnostics(res, fam, lam_star)}


def study_target(name: str, d: int, *, rabvi_optimizers=("avg_adam",), seed: int = 0, regression=None,
                 num_samples: int = 10, k_max: int = 100_000, sqn_targets=None, **kwargs) -> dict:
    """`rg.study_target` with "sqn" allowed in `rabvi_optimizers` (module docstring); SQN runs only when `name` is in
    `sqn_targets` (None: every target); other arguments passed on."""
    others = [o for o in rabvi_optimizers if o != "sqn"]
    out = rg.study_target(name, d, rabvi_optimizers=others or ("avg_adam",), seed=seed, regression=regression,
                          num_samples=num_samples, k_max=k_max, **kwargs)
    if "sqn" in rabvi_optimizers and (sqn_targets is None or name in sqn_targets):
        out["rabvi"]["sqn"] = rabvi_sqn_run(name, d, seed=seed, num_samples=num_samples, regression=regression,
                                            k_max=k_max)
    return out
