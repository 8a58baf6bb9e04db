"""The algorithm library: exponential families, the LSVI step and its algorithms, step-size
control, losses, quadrature and log targets. It imports nothing else of the project.

* `lsvi.core.families`     exponential families (Gaussian full covariance and mean field,
                           Bernoulli product, truncated Gaussian), with their sampling transform
* `lsvi.core.kernel`       the one LSVI step (eq. 10) and the runners (`run`, `run_schedule`, …)
* `lsvi.core.algorithms`   Algorithms 1–3 and NGD as regressions of that step, and their registry
* `lsvi.core.step_size`    Algorithm 4 and the schedules of Table 3 / Theorem 3.4
* `lsvi.core.losses`       the Monte Carlo "KL up to a constant" and exact Gaussian KLs
* `lsvi.core.quadrature`   Gauss–Hermite and enumeration expectations (exact LSVI maps)
* `lsvi.core.targets`      logistic-regression log targets (full data and eq. 21)
* `lsvi.core.api`          `fit`: LSVI on a log density in one call
"""
