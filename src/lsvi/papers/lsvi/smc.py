"""Variable selection (Section 5.2, Appendix C.3): the SMC benchmark, waste-free tempering SMC.

A thin wrapper of `particles` 0.4: waste-free adaptive-tempering SMC on {0,1}^d
(Schäfer & Chopin 2013; Dau & Chopin 2022) with the independent Metropolis kernel whose
proposal is a nested-logistic model fitted to the current particles
(`particles.binary_smc.BinaryMetropolis`). Nothing of the SMC itself is re-implemented.

How "N = 10⁵ particles, chain length P = 10⁴" (Appendix C.3) maps to `particles`
    In waste-free SMC (Dau & Chopin 2022) N is the *total* number of particles and P the
    length of the MCMC chains: at every tempering step M = N/P particles are resampled and
    each is moved through P − 1 MCMC steps, *all* P states being kept, so that N = M·P
    particles carry the next target. In `particles` the argument ``SMC(N=...)`` is M (the
    number of resampled particles) and ``len_chain`` is P: ``FKSMCsampler.M0`` draws
    ``N * len_chain`` particles from the prior and ``MCMCSequenceWF`` concatenates the P
    states of M chains. Hence ``run_tempering_smc(num_particles=N, len_chain=P)`` calls
    ``particles.SMC(fk=AdaptiveTempering(..., len_chain=P), N=N // P)``: the paper's
    setting is N = 10⁵, P = 10⁴, i.e. M = 10 chains. (The authors' script
    ``experiments/bayesianSelectionVariable/concrete/concrete.py`` of ylefay/LSVI uses
    N = 10⁵, P = 10³, M = 100 and ``multiSMC(nruns=3, nprocs=0)``.) Every tempering step
    thus costs about N evaluations of the likelihood (M new states at each of P − 1 steps),
    plus N at initialisation; the final particle system has N weighted particles.

Prior and intercept. The paper's prior is π(γ) = U({0,1}^d) on all d = 92 coordinates,
the intercept (our last column) included, and the authors' SMC (prior
``IID(Bernoulli(0.5), 92)``) and LSVI (start p = 1/2 on all 92 coordinates) both treat the
intercept as an ordinary coordinate. We do the same for both methods: nothing is forced in.
Because the response is not centred, the posterior puts probability ≈ 1 on the intercept
(LSVI then saturates at the clipping bound 1 − ε of `lsvi.core.families.bernoulli`). Only the
reference distribution i) of Figure 8, p = (1, ½, …, ½), forces the intercept in.

Likelihood evaluator. By default the SMC evaluates log π(γ | D) with the same JAX
function as LSVI (`lsvi.papers.lsvi.variable_selection.log_posterior`, checked against
``BayesianVS.loglik`` to 1e-8 in tests/test_variable_selection.py), so that the runtime
comparison of Table 1 compares the algorithms, not two implementations of the target (the
authors also used one evaluator, ``BayesianVS.loglik``, for both). ``evaluator="particles"``
uses ``BayesianVS.loglik`` itself (SciPy loop; numba with ``evaluator="numba"``).

References
----------
Schäfer, C. and Chopin, N. (2013). Sequential Monte Carlo on large binary sampling spaces.
Statistics and Computing 23(2), 163–184.
Dau, H.-D. and Chopin, N. (2022). Waste-free sequential Monte Carlo. Journal of the Royal
Statistical Society: Series B 84(1), 114–148.
Chopin, N. and Papaspiliopoulos, O. (2020). An Introduction to Sequential Monte Carlo.
Springer (the ``particles`` package).
"""
from __future__ import annotations

import contextlib
import io
import sys
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

import lsvi  # noqa: F401  (float64)
from lsvi.papers.lsvi.variable_selection import log_pi, vs_posterior
from lsvi.core import clock


class SMCResult(NamedTuple):
    """Output of one waste-free tempering SMC run.

    theta (N, d) bool: final particles; W (N,): their normalised weights;
    marginals (d,): Σ_n W_n θ_n, the posterior inclusion probabilities;
    log_evidence: estimate of log Σ_γ exp(log π*(γ)) for the unnormalised target
    π* = exp(log_posterior) (i.e. particles' logLt + d log 2, undoing the U({0,1}^d) prior);
    logLt: particles' estimate of log Σ_γ 2^{-d} exp(log π*(γ));
    seconds (on `lsvi.core.clock`), num_evaluations (γ's at which log π* was evaluated), num_steps
    (tempering steps), exponents (tempering exponents), acceptance (mean Metropolis
    acceptance rate of each move), M and P (resampled particles and chain length).
    """

    theta: np.ndarray
    W: np.ndarray
    marginals: np.ndarray
    log_evidence: float
    logLt: float
    seconds: float
    num_evaluations: int
    num_steps: int
    exponents: list
    acceptance: list
    M: int
    P: int


def num_chains(num_particles: int, len_chain: int) -> int:
    """M = N / P, the argument ``N`` of ``particles.SMC`` in waste-free mode."""
    if num_particles % len_chain or num_particles < len_chain:
        raise ValueError(f"num_particles={num_particles} must be a positive multiple of len_chain={len_chain}")
    return num_particles // len_chain


def _vs_model_class():
    from particles import binary_smc

    class CountingBayesianVS(binary_smc.BayesianVS):
        """`particles.binary_smc.BayesianVS` that counts likelihood evaluations and can
        evaluate them with the JAX function shared with LSVI."""

        def __init__(self, data, prior, nu, lamb, iv2, post=None, evaluator="jax"):
            super().__init__(data=data, prior=prior, nu=nu, lamb=lamb, iv2=iv2, jitted=evaluator == "numba")
            self.num_evaluations = 0
            self.evaluator = evaluator
            if evaluator == "jax":
                self._jax_loglik = jax.jit(lambda g: log_pi(post, g))

        def loglik(self, gamma, t=None):
            self.num_evaluations += gamma.shape[0]
            if self.evaluator == "jax":
                return np.asarray(self._jax_loglik(jnp.asarray(gamma, jnp.float64)))
            return super().loglik(gamma, t)

    return CountingBayesianVS


class _UnpenalisedLogit:
    """Stand-in for ``sklearn.linear_model.LogisticRegression(penalty=None)`` inside
    ``particles.binary_smc.NestedLogistic.fit``: particles 0.4 stores ``reg.intercept_``
    (shape (1,)) into a matrix entry, an error under NumPy >= 2.4, and sklearn 1.8
    deprecated ``penalty=None`` (now ``C=inf``). Same fit, scalar intercept."""

    def __init__(self, penalty=None):
        from sklearn.linear_model import LogisticRegression

        self._reg = LogisticRegression(C=np.inf)

    def fit(self, X, y, sample_weight=None):
        self._reg.fit(X, y, sample_weight=sample_weight)
        self.intercept_ = float(self._reg.intercept_[0])
        self.coef_ = self._reg.coef_[0]
        return self


@contextlib.contextmanager
def _particles_compat(verbose: bool):
    """Run particles' binary SMC under NumPy 2 / sklearn 1.9 (see `_UnpenalisedLogit`), and
    silence NestedLogistic.fit, which prints the marginals at every step, unless verbose."""
    import warnings

    from particles import binary_smc

    saved = binary_smc.LogisticRegression
    binary_smc.LogisticRegression = _UnpenalisedLogit
    try:
        with warnings.catch_warnings(), contextlib.redirect_stdout(sys.stdout if verbose else io.StringIO()):
            warnings.simplefilter("ignore")
            yield
    finally:
        binary_smc.LogisticRegression = saved


def run_tempering_smc(Z, y, num_particles: int, len_chain: int, seed: int = 0, lamb: float | None = None,
                      v2: float | None = None, w: float = 4.0, evaluator: str = "jax", ess_rmin: float = 0.5,
                      blas_threads: int | None = 1, verbose: bool = False) -> SMCResult:
    """Waste-free adaptive-tempering SMC for π(γ | D) ∝ exp(log_posterior), γ ∈ {0,1}^d.

    Z (n, d), y (n,): design and response; lamb, v2: hyper-parameters of Appendix C.3
    (defaults λ = σ̂²₁, v² = 10/λ as in `vs_posterior`); w = 4 (``nu`` in particles);
    num_particles N and len_chain P as in the paper (N total particles, M = N/P chains);
    evaluator: "jax" (default, shared with LSVI), "particles" (SciPy) or "numba".
    blas_threads: OpenBLAS threads during the run (``threadpoolctl``; None: unchanged; default 1:
    the nested-logistic proposal fits up to d small logistic regressions per tempering step).
    The run is seeded through NumPy's global generator, which particles uses.
    """
    # blas_threads=1: with a multi-threaded BLAS on a loaded 2-core machine the tiny sklearn
    # (L-BFGS) fits of the nested-logistic proposal ran ~4x slower than single-threaded.
    from threadpoolctl import threadpool_limits

    from particles import binary_smc
    from particles import core as particles_core
    from particles import distributions as dists
    from particles import smc_samplers as ssps

    if evaluator not in ("jax", "particles", "numba"):
        raise ValueError(f"unknown evaluator {evaluator!r}")
    Z, y = np.asarray(Z, np.float64), np.asarray(y, np.float64)
    post = vs_posterior(Z, y, w=w, lamb=lamb, v2=v2)
    d = Z.shape[1]
    M = num_chains(num_particles, len_chain)
    prior = dists.IID(binary_smc.Bernoulli(0.5), d)
    # numpy 2: particles needs Python floats for lamb / iv2
    model = _vs_model_class()((Z, y), prior, float(w), float(post.lamb), float(1.0 / post.v2), post, evaluator)
    move = ssps.MCMCSequenceWF(mcmc=binary_smc.BinaryMetropolis(), len_chain=len_chain)
    fk = ssps.AdaptiveTempering(model, len_chain=len_chain, wastefree=True, move=move, ESSrmin=ess_rmin)
    np.random.seed(seed)
    smc = particles_core.SMC(fk=fk, N=M, verbose=verbose)
    t0 = clock.seconds()
    with _particles_compat(verbose), threadpool_limits(limits=blas_threads):
        smc.run()
    wall = clock.seconds() - t0
    theta, W = np.asarray(smc.X.theta, bool), np.asarray(smc.W)
    marg = np.average(theta, axis=0, weights=W)
    acc = [float(np.mean(a)) for a in smc.X.shared.get("acc_rates", [])]
    return SMCResult(theta, W, marg, float(smc.logLt + d * np.log(2.0)), float(smc.logLt), wall,
                     int(model.num_evaluations), int(smc.t), list(map(float, smc.X.shared["exponents"])), acc,
                     M, len_chain)
