"""Variable selection (Section 5.2, Appendix C.3): the SMC baseline and the helpers of notebook 30.

Baseline. A thin wrapper of `particles` 0.4: waste-free adaptive-tempering SMC on {0,1}^d
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
function as LSVI (`lsvi.experiments.variable_selection.log_posterior`, checked against
``BayesianVS.loglik`` to 1e-8 in tests/test_variable_selection.py), so that the runtime
comparison of Table 1 compares the algorithms, not two implementations of the target (the
authors also used one evaluator, ``BayesianVS.loglik``, for both). ``evaluator="particles"``
uses ``BayesianVS.loglik`` itself (SciPy loop; numba with ``evaluator="numba"``).

Command-line interface: notebook 30 runs each method in a fresh process (`run_cli`), so
that the wall time of each repetition and the maximum resident set size of the process
(Table 1) are those of that method alone::

    python -m lsvi.experiments.smc lsvi --num-samples 50000 --num-steps 25 --eps 1.0 --runs 100 --out lsvi.npz
    python -m lsvi.experiments.smc smc --num-particles 100000 --len-chain 10000 --runs 3 --out smc.npz

prints one JSON line {"method", "times_s", "compile_s", "max_rss_gib", ...} and writes the
results (LSVI: final probabilities of each repetition; SMC: particles, weights, marginals
and log-evidence of each run) to the .npz.
"""
from __future__ import annotations

import argparse
import contextlib
import io
import json
import sys
import time
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

import lsvi  # noqa: F401  (float64)
from lsvi.core import algorithms, kernel
from lsvi.core import quadrature as exact
from lsvi.core import step_size
from lsvi.core.families import bernoulli
from lsvi.core.families.bernoulli import bernoulli_probabilities, bernoulli_to_natural
from lsvi.pipeline import timing
from lsvi.pipeline.paths import DATA_DIR
from lsvi.experiments.variable_selection import VSPosterior, log_posterior, vs_posterior


def log_pi(post: VSPosterior, gammas):
    """log π*(γ) = `lsvi.experiments.variable_selection.log_posterior`, one γ at a time on CPU.

    On the CPU backend (jax/jaxlib 0.10.2, 2-core machine) the default batched map
    (``batch_size=512``: a loop over vmapped Cholesky factorisations) deadlocks
    intermittently inside XLA (every thread idle in a futex wait, reproducible within a
    few calls), while the unbatched ``lax.map`` has never hung and is ~4x faster (one
    92 x 92 LAPACK call at a time). On an accelerator a sequential map would launch one
    kernel per γ, so there we keep batches (untested here: no GPU)."""
    batch = None if jax.default_backend() == "cpu" else 4096
    return log_posterior(post, gammas, batch)


# ----------------------------------------------------------------------------------------
# SMC baseline (particles)


class SMCResult(NamedTuple):
    """Output of one waste-free tempering SMC run.

    theta (N, d) bool: final particles; W (N,): their normalised weights;
    marginals (d,): Σ_n W_n θ_n, the posterior inclusion probabilities;
    log_evidence: estimate of log Σ_γ exp(log π*(γ)) for the unnormalised target
    π* = exp(log_posterior) (i.e. particles' logLt + d log 2, undoing the U({0,1}^d) prior);
    logLt: particles' estimate of log Σ_γ 2^{-d} exp(log π*(γ));
    wall_time (s), num_evaluations (γ's at which log π* was evaluated), num_steps
    (tempering steps), exponents (tempering exponents), acceptance (mean Metropolis
    acceptance rate of each move), M and P (resampled particles and chain length).
    """

    theta: np.ndarray
    W: np.ndarray
    marginals: np.ndarray
    log_evidence: float
    logLt: float
    wall_time: float
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
    blas_threads: OpenBLAS threads during the run (``threadpoolctl``; None: unchanged). The
    nested-logistic proposal fits up to d small logistic regressions (sklearn, L-BFGS) per
    tempering step; with a multi-threaded BLAS on a loaded machine these tiny problems run
    ~4x slower than single-threaded (measured on the 2-core CI machine), so we default to 1.
    The run is seeded through NumPy's global generator, which particles uses.
    """
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
    t0 = time.perf_counter()
    with _particles_compat(verbose), threadpool_limits(limits=blas_threads):
        smc.run()
    wall = time.perf_counter() - t0
    theta, W = np.asarray(smc.X.theta, bool), np.asarray(smc.W)
    marg = np.average(theta, axis=0, weights=W)
    acc = [float(np.mean(a)) for a in smc.X.shared.get("acc_rates", [])]
    return SMCResult(theta, W, marg, float(smc.logLt + d * np.log(2.0)), float(smc.logLt), wall,
                     int(model.num_evaluations), int(smc.t), list(map(float, smc.X.shared["exponents"])), acc,
                     M, len_chain)


# ----------------------------------------------------------------------------------------
# LSVI (Algorithm 1) with the product-of-Bernoulli family


class LSVIResult(NamedTuple):
    """probs (R, d): inclusion probabilities of the final iterate of each of R repetitions;
    etas (R, T+1, d+1): traces of η; times (R,): wall time of each repetition (s);
    compile_time (s); num_evaluations (per repetition, N·T); accepted (R, T): whether each
    step was taken. A step is rejected (η unchanged) when the regression has no finite
    solution, e.g. when a coordinate is constant over the N draws (p at the clipping bound
    with N·p ≲ 1): a run whose last steps were rejected has frozen, not converged."""

    probs: np.ndarray
    etas: np.ndarray
    times: np.ndarray
    compile_time: float
    num_evaluations: int
    accepted: np.ndarray


def lsvi_kernel(post: VSPosterior, num_samples: int, clip: float = 1e-3):
    """(family, kernel) of Algorithm 1 for the target log π(γ | D) and Bernoulli products.

    ``clip``: probabilities are kept in [clip, 1 − clip]; 1e-3 is the bound the authors'
    sampler applies (``sampling_method_numpy(..., eps=1e-3)`` in ylefay/LSVI).
    """
    d = post.gram.shape[0]
    family = bernoulli(d, clip)
    return family, algorithms.build_kernel("alg1", family, lambda key, g: log_pi(post, g), num_samples)


def initial_eta(d: int, p0: float = 0.5):
    return bernoulli_to_natural(jnp.full(d, p0))


def run_lsvi(post: VSPosterior, num_samples: int, num_steps: int, schedule, num_reps: int, seed: int = 0,
             clip: float = 1e-3, p0: float = 0.5) -> LSVIResult:
    """``num_reps`` independent runs of Algorithm 1 from p = (p0, …, p0), one after the other
    (a vmap over repetitions would hold num_reps × N × d draws in memory at once)."""
    family, kern = lsvi_kernel(post, num_samples, clip)
    state = kernel.init(initial_eta(family.dim, p0))
    keys = jax.random.split(jax.random.PRNGKey(seed), num_reps)
    runs = kernel.run_sequential(keys, kern, state, schedule, num_steps)
    probs = np.array([np.asarray(bernoulli_probabilities(jnp.asarray(e[-1]))) for e in runs.etas])
    return LSVIResult(probs, runs.etas, runs.times, runs.compile_time, num_samples * num_steps,
                      np.asarray(runs.infos.accepted, bool))


# ----------------------------------------------------------------------------------------
# Exact computations by enumeration (small d)


def exact_marginals(post: VSPosterior):
    """Posterior inclusion probabilities by enumeration of {0,1}^d; returns (marginals, log Z*)."""
    d = post.gram.shape[0]
    grid = exact.binary_grid(d)
    lp = log_pi(post, grid)
    logz = jax.scipy.special.logsumexp(lp)
    return np.asarray(jnp.exp(lp - logz) @ grid), float(logz)


def exact_lsvi(post: VSPosterior, num_steps: int, schedule, clip: float = 1e-3, p0: float = 0.5):
    """Algorithm 1 with exact expectations (enumeration of {0,1}^d): the iteration that the
    Monte Carlo LSVI estimates, with the same step-size schedule and clipping.

    Returns the trace of the inclusion probabilities (num_steps + 1, d)."""
    d = post.gram.shape[0]
    family = bernoulli(d, clip)
    grid = exact.binary_grid(d)
    f = log_pi(post, grid)

    def regression(key, eta):
        p = bernoulli_probabilities(eta)
        w = jnp.exp(bernoulli_log_q(grid, p))
        return grid, f, exact.lsvi_map(family, f, grid, w)

    kern = kernel.build_kernel(family, regression)
    _, trace, _ = kernel.run_schedule(jax.random.PRNGKey(0), kern, kernel.init(initial_eta(d, p0)), schedule, num_steps)
    return np.asarray(jax.vmap(bernoulli_probabilities)(trace))


def kl_bernoulli_to_posterior(post: VSPosterior, p):
    """KL(q_p ‖ π(· | D)) by enumeration (small d)."""
    d = post.gram.shape[0]
    grid = exact.binary_grid(d)
    lp = log_pi(post, grid)
    logz = jax.scipy.special.logsumexp(lp)
    lq = bernoulli_log_q(grid, jnp.asarray(p))
    q = jnp.exp(lq)
    return float(jnp.sum(jnp.where(q > 0, q * (lq - (lp - logz)), 0.0)))


# ----------------------------------------------------------------------------------------
# Scores of Figure 8: log π*(γ) − log q(γ)


def bernoulli_log_q(gammas, p):
    """log q(γ | p) (N,) for γ (N, d) in {0,1}, with 0·log 0 = 0 (p may hold exact 0s and 1s)."""
    gammas = jnp.asarray(gammas, jnp.float64)
    p = jnp.asarray(p, jnp.float64)
    on = jnp.where(gammas > 0, jnp.log(jnp.where(p > 0, p, 1.0)) + jnp.where(p > 0, 0.0, -jnp.inf), 0.0)
    off = jnp.where(gammas > 0, 0.0, jnp.log(jnp.where(p < 1, 1.0 - p, 1.0)) + jnp.where(p < 1, 0.0, -jnp.inf))
    return jnp.sum(on + off, axis=-1)


def bernoulli_scores(post: VSPosterior, p, num_draws: int, seed: int = 0):
    """log π*(γ) − log q(γ | p) for γ_1..num_draws i.i.d. ~ q(· | p) (Bernoulli product)."""
    p = jnp.asarray(p, jnp.float64)
    g = jax.random.bernoulli(jax.random.PRNGKey(seed), p, (num_draws, p.shape[0])).astype(jnp.float64)
    return np.asarray(log_pi(post, g) - bernoulli_log_q(g, p))


def empirical_measure(theta, W):
    """The SMC empirical measure π̂* = Σ_n W_n δ_{θ_n}: distinct γ's (K, d) and masses (K,)."""
    theta = np.asarray(theta, bool)
    uniq, inverse = np.unique(theta, axis=0, return_inverse=True)
    mass = np.bincount(inverse.ravel(), weights=np.asarray(W), minlength=uniq.shape[0])
    return uniq, mass


def smc_scores(post: VSPosterior, theta, W):
    """Scores log π*(γ) − log π̂*(γ) of the SMC empirical measure (Appendix C.3, Figure 8).

    Returns (scores (K,), masses (K,)) over the K distinct particles; the distribution of the
    score under γ ~ π̂* is the weighted histogram of ``scores`` with weights ``masses``.
    The authors (ylefay/LSVI, output/read.ipynb) use the unweighted frequencies of the
    pooled particles of 3 runs; we use the weights W of one run (the final particle system
    of adaptive tempering is weighted)."""
    uniq, mass = empirical_measure(theta, W)
    keep = mass > 0
    uniq, mass = uniq[keep], mass[keep]
    lp = np.asarray(log_pi(post, jnp.asarray(uniq, jnp.float64)))
    return lp - np.log(mass), mass


def weighted_mean(x, w):
    return float(np.sum(np.asarray(x) * np.asarray(w)) / np.sum(w))


class ScoreSummary(NamedTuple):
    """Summary of the scores s(γ) = log π*(γ) − log q(γ), γ ~ q (Figure 8).

    elbo: their mean, E_q[log π*] + H(q) = log Z* − KL(q ‖ π), the ELBO of q;
    sd: their standard deviation; se: standard error of ``elbo`` (sd/√n for i.i.d. draws,
    NaN for a weighted empirical measure, whose mean is exact over its support);
    log_evidence_is: log((1/n) Σ exp s_i), the importance-sampling estimate of log Z* with
    proposal q (NaN with weights). exp(log_evidence_is) is unbiased for Z*, so
    P(log_evidence_is ≥ log Z* + c) ≤ e^{−c} (Markov), and log_evidence_is ≥ elbo (Jensen);
    n: number of points."""

    elbo: float
    sd: float
    se: float
    log_evidence_is: float
    n: int


def score_summary(scores, weights=None) -> ScoreSummary:
    """`ScoreSummary` of scores (n,) of i.i.d. draws from q, or of the K distinct points of
    an empirical measure with masses ``weights`` (K,) (`smc_scores`)."""
    s = np.asarray(scores, np.float64)
    if weights is None:
        mu, sd = float(s.mean()), float(s.std(ddof=1)) if s.size > 1 else float("nan")
        lse = float(np.log(np.mean(np.exp(s - s.max()))) + s.max())
        return ScoreSummary(mu, sd, sd / np.sqrt(s.size), lse, int(s.size))
    w = np.asarray(weights, np.float64)
    mu = weighted_mean(s, w)
    return ScoreSummary(mu, float(np.sqrt(weighted_mean((s - mu) ** 2, w))), float("nan"), float("nan"), int(s.size))


def marginal_gap(p, q) -> tuple[float, float, int]:
    """|p_i − q_i| over the coordinates of two vectors of inclusion probabilities (d,):
    (mean, max, index of the max)."""
    a = np.abs(np.asarray(p, np.float64) - np.asarray(q, np.float64))
    return float(a.mean()), float(a.max()), int(a.argmax())


# ----------------------------------------------------------------------------------------
# Command-line interface: timing and memory in a fresh process


def load_concrete(data_dir: str = DATA_DIR, subset: int | None = None):
    """Concrete design Z (1030, 92) (intercept last) and response y; with ``subset=k`` only
    the first k predictors and the intercept (d = k + 1)."""
    from lsvi.experiments import datasets

    ds = datasets.load("concrete", data_dir)
    Z = np.asarray(ds.X)
    if subset:
        Z = np.concatenate([Z[:, :subset], Z[:, -1:]], axis=1)
    return Z, np.asarray(ds.y)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m lsvi.experiments.smc", description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="method", required=True)
    a = sub.add_parser("lsvi", help="Algorithm 1 (Bernoulli products) on Concrete, one repetition after the other")
    a.add_argument("--num-samples", type=int, default=50_000)
    a.add_argument("--num-steps", type=int, default=25)
    a.add_argument("--eps", type=float, default=1.0, help="constant step size (1: schedule 3 of Table 3)")
    a.add_argument("--clip", type=float, default=1e-3)
    s = sub.add_parser("smc", help="waste-free tempering SMC on Concrete, one run after the other")
    s.add_argument("--num-particles", type=int, default=100_000)
    s.add_argument("--len-chain", type=int, default=10_000)
    s.add_argument("--evaluator", default="jax", choices=("jax", "particles", "numba"))
    for p in (a, s):
        p.add_argument("--runs", type=int, default=5, help="repetitions (LSVI) or runs (SMC)")
        p.add_argument("--seed", type=int, default=0)
        p.add_argument("--data-dir", default=DATA_DIR)
        p.add_argument("--subset", type=int, default=None, help="first k predictors + intercept only")
        p.add_argument("--out", default=None, help="write the results to this .npz")
    args = ap.parse_args(argv)
    Z, y = load_concrete(args.data_dir, args.subset)
    out = {"method": args.method, "d": int(Z.shape[1]), "runs": args.runs}
    arrays = {}
    if args.method == "lsvi":
        post = vs_posterior(Z, y)
        res = run_lsvi(post, args.num_samples, args.num_steps, step_size.constant(args.eps), args.runs,
                       args.seed, clip=args.clip)
        out.update(times_s=res.times.tolist(), compile_s=res.compile_time, evaluations_per_run=res.num_evaluations,
                   num_samples=args.num_samples, num_steps=args.num_steps, eps=args.eps)
        arrays = dict(probs=res.probs, etas=res.etas, times=res.times, accepted=res.accepted)
    else:
        runs = [run_tempering_smc(Z, y, args.num_particles, args.len_chain, seed=args.seed + r,
                                  evaluator=args.evaluator) for r in range(args.runs)]
        out.update(times_s=[r.wall_time for r in runs], compile_s=0.0,
                   evaluations_per_run=[r.num_evaluations for r in runs], num_steps=[r.num_steps for r in runs],
                   num_particles=args.num_particles, len_chain=args.len_chain, evaluator=args.evaluator,
                   log_evidence=[r.log_evidence for r in runs])
        arrays = dict(marginals=np.array([r.marginals for r in runs]), theta=np.array([r.theta for r in runs]),
                      W=np.array([r.W for r in runs]), times=np.array([r.wall_time for r in runs]),
                      log_evidence=np.array([r.log_evidence for r in runs]),
                      num_evaluations=np.array([r.num_evaluations for r in runs]),
                      num_steps=np.array([r.num_steps for r in runs]))
    out["max_rss_gib"] = timing.max_rss_gb()  # GiB (2**30 bytes), see lsvi.pipeline.timing
    if args.out:
        np.savez_compressed(args.out, **arrays, info=json.dumps(out))
    print(json.dumps(out))
    return 0


def run_cli(method: str, out: str, **options) -> dict:
    """Run ``python -m lsvi.experiments.smc <method> --out <out> --<option> <value> ...`` in a fresh
    process; return its JSON summary (with ``max_rss_gib``, the peak RSS of that process
    in GiB) and arrays."""
    info = timing.run_module("lsvi.experiments.smc", (method,), out=out, **options)
    with np.load(out) as f:
        arrays = {k: f[k] for k in f.files if k != "info"}
    return {**info, **arrays}


if __name__ == "__main__":
    sys.exit(main())
