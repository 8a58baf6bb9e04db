"""Beyond the paper (issue 13): RABVI's termination rule applied to LSVI-MF and LSVI-FC.

The LSVI paper runs Algorithms 2 (LSVI-MF) and 3 (LSVI-FC) for a fixed number of iterations T
with a decreasing schedule (Table 3). RABVI (Welandawe et al., Algorithms 1–2) stops a
fixed-learning-rate stochastic optimiser by (i) detecting stationarity of the iterates with the
adaptive split-R̂ window (eq. 27), (ii) averaging the iterates over that window, (iii) decreasing
the learning rate γ ← ργ and restarting from the average, (iv) measuring the closed-form SKL
between successive averages, fitting eq. 21 (log δ = log C + 2 log(1/ρ^κ − 1) + 2κ log γ,
weights eq. 25) and eq. 26 (log K_γ = α log γ + β), and (v) terminating when the predicted
relative SKL improvement times the relative iteration increase exceeds τ, RSKL^·RI^ > τ (never
before the third learning rate).

Here the optimiser is LSVI at a *constant* step ε (Algorithm 4 with u² = ∞ only backtracks
into V): η_{t+1} = ε η̂'_{t+1} + (1 − ε) η_t, eq. (10). **The map ε ↔ γ is the identity:**
RABVI's learning rate γ_t = γ_0 ρ^t is passed as LSVI's ε. Near a fixed point η* = φ(η*),
η_{t+1} − η* = (1 − ε)(η_t − η*) + ε(φ(η_t) − η*) + ε ξ_t with ξ_t the Monte Carlo error of
η̂' (mean ~0, covariance V/N): the iterates form an AR(1)-like chain with autocorrelation
≈ 1 − ε(1 − ‖Dφ‖), stationary covariance ≈ ε/(2 − ε)·V/N, and a stationary mean η*_ε that differs
from η* by the curvature of φ times that covariance, O(ε) — hence ‖λ̄_γ − λ*‖ ≈ Cγ (κ = 1) and
SKL(λ̄_γ, λ̄_{ργ}) ∝ (γ − ργ)² ∝ γ²: Prop. 4.4's slope 2 is what RABVI assumes (κ fixed at 1);
whether LSVI's averages follow it is measured (`skl_slope`), not assumed.

How the pieces are reused: `lsvi_bbvi` wraps an LSVI kernel in RABVI's `BBVI` interface
(``init``, ``run(key, state, γ, n) -> (state, iterates (n, P), info)``), recording each iterate in
RABVI's flat parameter λ of `lsvi.core.bbvi.families` (mean field: (μ, log σ); full covariance:
(μ, lower triangle of chol Σ with log diagonal)). `lsvi.core.bbvi.rabvi.rabvi` (hence FASO,
split-R̂, ESS/MCSE, eq. 21/25/26, the rule) then runs unchanged. Averages are taken in λ (FASO's
choice); the restart is η(λ̄) (`natural_from_lambda`).

The run is `rabvi` with τ = ∞ up to k_max iterations; the rule is replayed on its epochs
(`lsvi.core.bbvi.rabvi.stop_epoch`: RSKL^_t and RI^_t depend on epochs ≤ t only, so this is where RABVI with threshold
τ stops on the same random stream), and the epochs after the stop measure the SKL slope and
whether stopping was premature. `run_fixed` runs the paper's fixed T (a Table 3 schedule with
u² = ∞) through the same adapter, so that both share one compilation at equal N.

Choices where neither paper speaks: γ_0 (LSVI's ε at the first epoch; ε = 1 is plain LSVI),
N per LSVI iteration in the RABVI run, the Algorithm-4 bound u² = ∞ (a step-size cap would make
the effective learning rate data dependent), the estimator (``centre=True``, the control variate
f − f̄ of Algorithms 2–3, is what makes a constant-ε LSVI stationary at moderate N: the paper's
eq. 20 carries |E f| into every coefficient), FASO's cost ratio r (pass ``r=`` for reproducible
runs), and the accuracy measure (the Monte Carlo KL up to log Z with common random numbers,
`lsvi.papers.lsvi.logistic.kl_curves`).

References
----------
M. Welandawe, M. R. Andersen, A. Vehtari, J. H. Huggins (2024). A framework for improving the
reliability of black-box variational inference. arXiv:2203.15945.
"""
from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from lsvi.core import kernel as lsvi_kernel
from lsvi.core import step_size
from lsvi.core.bbvi import families as bbvi_families
from lsvi.core.bbvi.kernel import BBVI
from lsvi.core.bbvi.rabvi import RabviResult, rabvi, stop_epoch  # noqa: F401  (stop_epoch: the rule, replayed)
from lsvi.core.families import gaussian_fullcov, gaussian_meanfield
from lsvi.core.families.gaussian import fullcov_from_natural, fullcov_to_natural, meanfield_from_natural, meanfield_to_natural
from lsvi.papers.lsvi import logistic
from lsvi.core import clock


def bbvi_family(family):
    """RABVI's flat-parameter family (`lsvi.core.bbvi.families`) matching an LSVI Gaussian family."""
    if family.name == "gaussian_meanfield":
        return bbvi_families.meanfield(family.dim)
    if family.name == "gaussian_fullcov":
        return bbvi_families.fullrank(family.dim)
    raise ValueError(f"RABVI stopping is set up for the Gaussian families, not {family.name!r}")


def lambda_from_natural(family, eta):
    """λ (P,) of `bbvi_family` from LSVI's natural parameter η (m,)."""
    d = family.dim
    if family.name == "gaussian_meanfield":
        m, v = meanfield_from_natural(eta, d)
        return jnp.concatenate([m, 0.5 * jnp.log(v)])
    m, cov = fullcov_from_natural(eta, d)
    return bbvi_family(family).init(m, cov)


def natural_from_lambda(family, lam):
    """LSVI's η (m,) from λ (P,) (inverse of `lambda_from_natural`)."""
    m, cov = bbvi_family(family).mean_cov(jnp.asarray(lam))
    if family.name == "gaussian_meanfield":
        return meanfield_to_natural(m, jnp.diag(cov))
    return fullcov_to_natural(m, cov)


def lsvi_bbvi(family, kern) -> BBVI:
    """An LSVI kernel (`lsvi.core.kernel.build_kernel`) behind RABVI's `BBVI` interface.

    ``init(λ) -> LSVIState``; ``run(key, state, γ, n)`` runs n LSVI steps with ε = γ (a scalar:
    RABVI's constant learning rate; or an array (n,): a schedule, e.g. the paper's fixed-T runs)
    and u² = ∞, and returns (state, iterates λ (n, P), `LSVIInfo` with leaves (n,)). One
    compilation serves every γ and schedule of the same length n. ``step`` is one step."""

    @jax.jit
    def run_steps(key, state, eps):
        final, etas, info = lsvi_kernel.run(key, kern, state, eps, jnp.inf)
        return final, jax.vmap(lambda e: lambda_from_natural(family, e))(etas[1:]), info

    def init(position):
        return lsvi_kernel.init(natural_from_lambda(family, jnp.asarray(position, jnp.float64)))

    def step(key, state, gamma):
        return kern(key, state, gamma, jnp.inf)

    def run(key, state, gamma, num_steps: int):
        return run_steps(key, state, jnp.broadcast_to(jnp.asarray(gamma, jnp.float64), (int(num_steps),)))

    return BBVI(init, jax.jit(step), run)


def with_family(prob: logistic.Problem, family: str) -> logistic.Problem:
    """``prob`` with the "meanfield" or "fullcov" Gaussian family, started at N(0, I) (Appendix C.2's
    initial q for Pima and Sonar)."""
    d = prob.d
    if family == "meanfield":
        return prob._replace(family=gaussian_meanfield(d), eta0=meanfield_to_natural(jnp.zeros(d), jnp.ones(d)))
    if family == "fullcov":
        return prob._replace(family=gaussian_fullcov(d), eta0=fullcov_to_natural(jnp.zeros(d), jnp.eye(d)))
    raise ValueError(f"family must be 'meanfield' or 'fullcov', not {family!r}")


ALGORITHM_OF = {"meanfield": "alg2", "fullcov": "alg3"}  # LSVI-MF (Algorithm 2), LSVI-FC (Algorithm 3)


def tag(dataset: str, family: str) -> str:
    """Name of a (dataset, family) run in table files: the family alone for Pima (the first dataset of notebook
    44, whose file names predate the others), else ``<dataset>_<family>``."""
    return family if dataset == "pima" else f"{dataset}_{family}"

_ADAPTERS: dict = {}


def adapter(prob: logistic.Problem, algorithm: str, num_samples: int, centre: bool = False) -> BBVI:
    """`lsvi_bbvi` of ``algorithm`` on ``prob`` with N = ``num_samples``, built once per
    (problem, algorithm, N, centre) so that the RABVI run and a fixed-T run share compilations."""
    k = (id(prob), prob.name, prob.family.name, algorithm, int(num_samples), bool(centre))
    if k not in _ADAPTERS:
        _ADAPTERS[k] = (prob, lsvi_bbvi(prob.family, logistic.kernel(prob, algorithm, num_samples, centre=centre)))
    return _ADAPTERS[k][1]


class StopResult(NamedTuple):
    """A RABVI run on LSVI, continued past its stopping point.

    result: the `RabviResult` of `rabvi` run with τ = ∞ (never terminates; its epochs carry
    RSKL^ and RI^ as RABVI computes them); stop_epoch: the first epoch t ≥ 2 with RSKL^·RI^ > τ
    (`stop_epoch`; None: the rule never fired); eta (m,): the average returned at the stop (as η;
    the last average if the rule never fired); iterations / evaluations (= N × iterations) used up
    to the stop; num_samples N; seconds: time (`lsvi.core.clock`) of the whole run (compilation included)."""

    result: RabviResult
    stop_epoch: int | None
    eta: np.ndarray
    iterations: int
    evaluations: int
    num_samples: int
    seconds: float


def run_stopping(prob: logistic.Problem, algorithm: str, num_samples: int, key, *, gamma0: float = 1.0,
                 rho: float = 0.5, w_min: int = 200, xi: float = 0.1, tau: float = 1.0, k_max: int = 20_000,
                 centre: bool = False, **rabvi_kwargs) -> StopResult:
    """RABVI (Algorithm 2, κ fixed at 1, eq. 21 by weighted least squares) on LSVI ``algorithm``
    ("alg2" or "alg3") with ``num_samples`` draws per iteration from the problem's N(0, I), run
    until ``k_max`` iterations in all (so that the epochs after the stop measure the SKL slope);
    the stop is `stop_epoch` with threshold ``tau``. ``centre``: the control variate f - mean(f)
    of Algorithms 2-3 (`lsvi.core.algorithms.lsvi_fc.estimate_gamma`, beyond the paper)."""
    import warnings

    fam = bbvi_family(prob.family)
    lam0 = np.asarray(lambda_from_natural(prob.family, prob.eta0))
    t0 = clock.seconds()
    with warnings.catch_warnings():  # k_max is reached by design (τ = ∞); a FASO failure shows in the epochs
        warnings.simplefilter("ignore", RuntimeWarning)
        res = rabvi(adapter(prob, algorithm, num_samples, centre), fam, lam0, key, gamma0=gamma0, rho=rho,
                    w_min=w_min, xi=xi, tau=np.inf, k_max=k_max, **rabvi_kwargs)
    seconds = clock.seconds() - t0
    t_stop = stop_epoch(res.epochs, tau)
    last = t_stop if t_stop is not None else len(res.epochs) - 1
    iterations = int(sum(e.iterations for e in res.epochs[:last + 1]))
    eta = np.asarray(natural_from_lambda(prob.family, res.epochs[last].position))
    return StopResult(res, t_stop, eta, iterations, iterations * int(num_samples), int(num_samples), seconds)


class FixedResult(NamedTuple):
    """Fixed-T runs: etas (R, m) final iterates; evaluations = N × T per run; seconds (R,) per run (`lsvi.core.clock`)."""

    etas: np.ndarray
    evaluations: int
    seconds: np.ndarray


def run_fixed(prob: logistic.Problem, algorithm: str, num_samples: int, num_steps: int, num_reps: int, seed: int = 0,
              schedule: int = 2, centre: bool = False) -> FixedResult:
    """``num_reps`` runs of T = ``num_steps`` iterations with a Table 3 schedule without a
    residual bound (u² = ∞: schedules 2, 3, 5), through the same `adapter` as the RABVI run
    (keys split from ``seed``)."""
    sched = step_size.table3(schedule)
    if np.isfinite(sched.u2):
        raise ValueError(f"schedule {schedule} bounds the residual variance (u² = {sched.u2}); use one with u² = ∞")
    bb = adapter(prob, algorithm, num_samples, centre)
    lam0 = np.asarray(lambda_from_natural(prob.family, prob.eta0))
    eps = lsvi_kernel.step_sizes(sched, num_steps)
    etas, secs = [], []
    for key in jax.random.split(jax.random.PRNGKey(seed), num_reps):
        t0 = clock.seconds()
        _, trace, _ = bb.run(key, bb.init(lam0), eps, num_steps)
        etas.append(np.asarray(natural_from_lambda(prob.family, trace[-1])))
        secs.append(clock.seconds() - t0)
    return FixedResult(np.array(etas), int(num_samples) * int(num_steps), np.array(secs))


def epochs_table(stop: StopResult, kl=None):
    """One row per learning rate: γ (= LSVI's ε), iterations, cumulative target evaluations,
    k_conv, FASO success, SKL δ to the previous average, Ĉ, κ̂, RSKL^, RI^, their product, whether
    it is the stopping epoch, and (``kl`` (E,)) the KL up to log Z of the epoch's average."""
    import pandas as pd

    cum = np.cumsum([e.iterations for e in stop.result.epochs]) * stop.num_samples
    rows = [dict(epoch=t, gamma=e.gamma, iterations=e.iterations, evaluations=int(cum[t]), k_conv=e.k_conv,
                 success=e.success, skl=e.delta, C_hat=e.C_hat, kappa_hat=e.kappa_hat, rskl=e.rskl, ri=e.ri,
                 rskl_x_ri=e.rskl * e.ri, stop=t == stop.stop_epoch)
            for t, e in enumerate(stop.result.epochs)]
    df = pd.DataFrame(rows)
    if kl is not None:
        df["kl"] = np.asarray(kl)[:len(df)]
    return df


def epoch_etas(prob: logistic.Problem, stop: StopResult) -> np.ndarray:
    """The average of every epoch as η (E, m)."""
    return np.stack([np.asarray(natural_from_lambda(prob.family, e.position)) for e in stop.result.epochs])


def skl_slope(stop: StopResult):
    """Log–log slope of δ_t = SKL(λ̄_{t−1}, λ̄_t) against γ_t over the epochs t ≥ 1 whose FASO call
    succeeded (ordinary least squares; Prop. 4.4 / eq. 21 with κ = 1 predict 2). Returns (slope,
    number of points, γ_max/γ_min); slope nan with fewer than 2 points."""
    ep = [e for e in stop.result.epochs[1:] if e.success and np.isfinite(e.delta) and e.delta > 0]
    if len(ep) < 2:
        return float("nan"), len(ep), 1.0
    g = np.array([e.gamma for e in ep], float)
    dl = np.array([e.delta for e in ep], float)
    return float(np.polyfit(np.log(g), np.log(dl), 1)[0]), len(ep), float(g.max() / g.min())


def kl_values(prob: logistic.Problem, etas, num_draws: int, seed: int = 1):
    """Monte Carlo KL up to log Z (`logistic.kl_curves`, common random numbers) of etas (K, m):
    (estimates (K,), standard errors (K,))."""
    est, se = logistic.kl_curves(prob, np.asarray(etas), num_draws, seed)
    return np.asarray(est), np.asarray(se)


# The paper's budget N T of the fixed-T runs (Table 3: Algorithm 2 N = 10⁴, Algorithm 3 N = 10⁵; T = 100)
PAPER_EVALUATIONS = {"meanfield": 10_000 * 100, "fullcov": 100_000 * 100}


def run_summary(runs: dict):
    """One row per (data set, family) of what notebook 44's text reads: ``runs`` {(data set, family label):
    (`StopResult`, `epochs_table` with its ``kl`` column, {variant: fixed-T KLs (R,)}, family name)}.
    Columns: where the rule fired ("no" if it never did), iterations to the stop, evaluations against the paper's
    N T (`PAPER_EVALUATIONS`), the first window's iterations, FASO successes, the spread of the successful epochs'
    KLs, the KL of the returned average minus the fixed-T centred mean, and the fixed-T paper minus centred means."""
    import pandas as pd

    rows = []
    for (data, label), (stop, tab, fixed_kl, fam) in runs.items():
        done = tab[tab["success"]]
        at_stop = tab[tab["stop"]] if stop.stop_epoch is not None else tab.iloc[[-1]]  # the returned average
        mean = {v: float(np.mean(k)) for v, k in fixed_kl.items()}
        rows.append({
            "data set": data, "family": label,
            "rule fired at epoch": "no" if stop.stop_epoch is None else int(stop.stop_epoch),
            "iterations to the stop": int(stop.iterations),
            "evaluations / paper's NT": stop.evaluations / PAPER_EVALUATIONS[fam],
            "first window (iterations)": int(tab["iterations"].iloc[0]),
            "FASO successes": int(len(done)),
            "KL spread over successful epochs": float(done["kl"].max() - done["kl"].min()) if len(done) else np.nan,
            "KL returned - fixed-T centred": float(at_stop["kl"].iloc[0]) - mean.get("centred", np.nan),
            "fixed-T paper - centred": mean.get("paper", np.nan) - mean.get("centred", np.nan),
        })
    return pd.DataFrame(rows)
