"""lsvi: Least Squares Variational Inference (Le Fay, Chopin, Barthelmé, NeurIPS 2025).

The package has six areas, each importing only the ones before it:

* `lsvi.core`         the algorithm library of the five papers (LSVI: families, the LSVI step,
                      Algorithms 1–4, NGD; RABVI / FASO in `core.bbvi`; Wu & Gardner's NGVI in
                      `core.ngvi`; Alquier's online methods in `core.online`); imports nothing else
* `lsvi.pipeline`     configuration, claims, report, figures, paths, timing, the notebook run
                      context (imports nothing else either)
* `lsvi.baselines`    thin wrappers of the libraries the experiments compare with
* `lsvi.exact`        the exact toolkit of the theorem checks (quadrature maps, rates, statistics)
* `lsvi.data`         the data sets shared by the papers' experiments
* `lsvi.papers`       one folder per paper (lsvi, rabvi, ngvi, alquier; lsvi_rabvi for notebook 44):
                      its experiments, checks, claims and figures

For your own model, one call (see `lsvi.fit`)::

    result = lsvi.fit(log_density, lsvi.families.gaussian_fullcov(d), num_samples=10_000,
                      num_steps=50, schedule=lsvi.schedules.harmonic())

float64 is switched on at import, as in the paper (Appendix C.1); call
``jax.config.update("jax_enable_x64", False)`` afterwards to work in float32.
"""
import jax

jax.config.update("jax_enable_x64", True)

from lsvi.core import families  # noqa: E402
from lsvi.core import step_size as schedules  # noqa: E402
from lsvi.core.api import Fit, fit  # noqa: E402

__all__ = ["fit", "Fit", "families", "schedules"]
__version__ = "0.2.0"
