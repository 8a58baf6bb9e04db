"""lsvi: Least Squares Variational Inference (Le Fay, Chopin, Barthelmé, NeurIPS 2025).

A small JAX library: exponential families (`lsvi.families`), the LSVI algorithms
(`lsvi.generic` = Algorithm 1, `lsvi.gaussian_meanfield` = Algorithm 2,
`lsvi.gaussian_fullcov` = Algorithm 3), step-size control (`lsvi.step_size_control`,
Algorithm 4 and Table 3), the natural-gradient baseline (`lsvi.ngd`), log targets
(`lsvi.targets`) and losses (`lsvi.losses`); plus the replication plumbing used by the
notebooks (`lsvi.claims`, `lsvi.figures`, `lsvi.config`, `lsvi.datasets`).

float64 is switched on at import, as in the paper (Appendix C.1); call
``jax.config.update("jax_enable_x64", False)`` afterwards to work in float32.
"""
import jax

jax.config.update("jax_enable_x64", True)

__version__ = "0.1.0"
