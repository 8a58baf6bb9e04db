"""Black-box variational inference with fixed-learning-rate stochastic optimisation and the
RABVI framework of Welandawe, Andersen, Vehtari & Huggins, *Robust, automated, and accurate
black-box variational inference* (JMLR 2024; `shared/papers/rabvi-reliable-black-box-vi.txt`).

* `families`    mean-field and full-rank Gaussian families, reparameterisation, closed-form SKL
* `optimizers`  SGD / RMSProp / Adam from optax and the averaged avgRMSProp / avgAdam of eq. 18
* `kernel`      one BBVI step (reparameterisation gradient, M draws) in Blackjax style
* `faso`        Algorithm 1 (FASO): adaptive split-R̂ convergence detection, MCSE/ESS accuracy check
* `rabvi`       Algorithm 2 (RABVI): learning-rate decreases and the inefficiency termination rule
* `detection`   stationarity detectors compared in Fig. 6 (adaptive / fixed-window R̂, SASA+, ΔELBO, distance rule)

References
----------
M. Welandawe, M. R. Andersen, A. Vehtari, J. H. Huggins (2024). A framework for improving the
reliability of black-box variational inference. arXiv:2203.15945.
"""
from lsvi.core.bbvi import detection, faso, families, kernel, optimizers, rabvi  # noqa: F401
