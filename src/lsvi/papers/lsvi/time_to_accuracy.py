"""Time to accuracy of LSVI and its baselines on one footing (issue 17, part 2).

Every method's run becomes a `MethodTrace`: Gaussian iterates q_k recorded at loop times
τ_k (seconds of the optimisation loop since its start, compilation and set-up apart in
``compile_s``; the time spent recording and scoring excluded). All iterates are then scored
by ONE estimator with the SAME base draws (common random numbers):

    L̂(q) = (1/M) Σ_j [log q(X_j) − log π̃(X_j)],   X_j = μ + L Z_j,  Z_j ~ N(0, I_d) fixed,

the KL(q ‖ π) up to the constant log Z(π) (`lsvi.core.losses.kl_trace` in the full-covariance
family, or in the mean-field family when every method is mean field, e.g. MNIST). A
mean-field iterate scored in the full-covariance family is the same Gaussian (L diagonal)
with the same draws. Because log Z cancels in differences, the gap L̂(q_k) − min L̂ over all
methods and iterates is a KL difference in nats, and `time_to_threshold` reads the first
loop time at which a method comes within δ (1 and 0.1 nat) of the best any method reached.

`lsvi_trace` runs an LSVI/NGD kernel one step at a time (the compiled step of
`lsvi.core.kernel`), so that its records carry true per-iteration times; the library baselines
(`lsvi.baselines`) already return `GaussianTrace`s with per-record elapsed times.
"""
from __future__ import annotations

from typing import NamedTuple, Optional

import jax
import jax.numpy as jnp
import numpy as np

from lsvi.baselines import GaussianTrace, thin
from lsvi.core import kernel as lsvi_kernel
from lsvi.core import losses, step_size
from lsvi.core.families import gaussian_fullcov, gaussian_meanfield
from lsvi.core.families.gaussian import (fullcov_from_natural, fullcov_to_natural, meanfield_from_natural,
                                         meanfield_to_natural)
from lsvi.core import clock


class MethodTrace(NamedTuple):
    """One run of one method: label; config (a line saying what ran); iterations (K,);
    elapsed (K,) loop seconds at each record (0 for the initial q); mean (K, d);
    cov (K, d, d) full covariances, or (K, d) variances when ``meanfield``; loop_s; compile_s;
    error ("" when none)."""

    label: str
    config: str
    iterations: np.ndarray
    elapsed: np.ndarray
    mean: np.ndarray
    cov: np.ndarray
    meanfield: bool
    loop_s: float
    compile_s: float
    error: str = ""


def from_gaussian_trace(label: str, config: str, tr: GaussianTrace, num_records: int = 80) -> MethodTrace:
    """A library baseline's `lsvi.baselines.GaussianTrace` as a `MethodTrace`, its records
    thinned to about ``num_records`` (log-spaced, `lsvi.baselines.thin`; first and last kept)."""
    keep = thin(len(tr.iterations) - 1, num_records)
    return MethodTrace(label, config, np.asarray(tr.iterations)[keep], np.asarray(tr.elapsed, float)[keep],
                       np.asarray(tr.mean)[keep], np.asarray(tr.cov)[keep], bool(tr.meanfield), float(tr.loop_s),
                       float(tr.compile_s), str(tr.info.get("error") or ""))


def _moments(family, etas):
    """(means (K, d), covs (K, d, d) or variances (K, d)) of natural parameters etas (K, m)."""
    d = family.dim
    if family.name == "gaussian_meanfield":
        m, v = jax.vmap(lambda e: meanfield_from_natural(e, d))(jnp.asarray(etas))
    else:
        m, v = jax.vmap(lambda e: fullcov_from_natural(e, d))(jnp.asarray(etas))
    return np.asarray(m), np.asarray(v)


class LSVIRun(NamedTuple):
    """One LSVI/NGD run of `lsvi_run`: trace (its `MethodTrace`, records only); etas (T + 1, m) every
    iterate η̂_0..η̂_T; eps (T,) the step sizes used (after Algorithm 4's halvings, `LSVIInfo.eps`)."""

    trace: MethodTrace
    etas: np.ndarray
    eps: np.ndarray


def lsvi_run(label: str, family, kern, eta0, schedule: int, num_steps: int, seed: int = 0,
             budget_s: float = np.inf, num_records: int = 60, config: str = "") -> LSVIRun:
    """Run ``kern`` (`lsvi.core.kernel` signature ``(key, state, ε, u²)``, e.g. from
    `lsvi.papers.lsvi.logistic.kernel`) from ``eta0`` with Table 3 schedule ``schedule`` for
    ``num_steps`` steps or until the loop has run ``budget_s`` seconds, whichever comes first.

    The step is compiled ahead of time (``compile_s``); the loop dispatches one compiled step
    per iteration and blocks only at the records (``thin(num_steps, num_records)`` and the
    last step run), whose loop time is then read. Step t uses ε_t of the schedule and the key
    ``jax.random.split(PRNGKey(seed), num_steps)[t]`` (as `lsvi.core.kernel.run`). Every iterate
    and step size is kept (device arrays, read after the loop) for `averaged`."""
    sched = step_size.table3(schedule)
    eps = np.asarray(lsvi_kernel.step_sizes(sched, num_steps))
    state = lsvi_kernel.init(eta0)
    u2 = jnp.asarray(sched.u2, state.eta.dtype)
    keys = jax.random.split(jax.random.PRNGKey(seed), num_steps)
    t0 = clock.seconds()
    step = jax.jit(kern).lower(keys[0], state, jnp.asarray(eps[0], state.eta.dtype), u2).compile()
    compile_s = clock.seconds() - t0
    eps = [jnp.asarray(e, state.eta.dtype) for e in eps]
    jax.block_until_ready((keys, eps))
    record_set = set(int(i) for i in thin(num_steps, num_records))
    its, elapsed, all_etas, used = [0], [0.0], [state.eta], []
    start = clock.seconds()
    t = 0
    for t in range(1, num_steps + 1):
        state, info = step(keys[t - 1], state, eps[t - 1], u2)
        all_etas.append(state.eta), used.append(info.eps)
        if t in record_set or t == num_steps:
            state.eta.block_until_ready()
            now = clock.seconds() - start
            its.append(t), elapsed.append(now)
            if now > budget_s:
                break
    loop_s = elapsed[-1]
    etas = np.stack([np.asarray(e) for e in all_etas])
    mean, cov = _moments(family, etas[np.asarray(its)])
    error = "" if np.all(np.isfinite(etas[-1])) else "non-finite final iterate"
    trace = MethodTrace(label, config or f"{num_steps} steps max, Table 3 schedule {schedule}", np.asarray(its),
                        np.asarray(elapsed), mean, cov, family.name == "gaussian_meanfield", loop_s, compile_s, error)
    return LSVIRun(trace, etas, np.asarray([float(e) for e in used]))


def lsvi_trace(label: str, family, kern, eta0, schedule: int, num_steps: int, seed: int = 0,
               budget_s: float = np.inf, num_records: int = 60, config: str = "") -> MethodTrace:
    """The `MethodTrace` of `lsvi_run`."""
    return lsvi_run(label, family, kern, eta0, schedule, num_steps, seed, budget_s, num_records, config).trace


def averaged(run: LSVIRun, family, label: str, mu: float = 0.0) -> MethodTrace:
    """Theorem 3.4's weighted average ω̄_k of ``run``'s iterates (`lsvi.papers.lsvi.averaged_iterate`,
    weights c_t from the step sizes the run used, relative strong convexity ``mu``), at the same records
    and loop times as its last iterate: ω̄_k is available at iteration k for O(m) more work per step
    (a running sum in moment space), which the loop time does not count."""
    from lsvi.papers.lsvi.averaged_iterate import average_trace

    tr = run.trace
    T = len(run.eps)
    bar = average_trace(family, run.etas[None, : T + 1], run.eps[None], mu)[0]  # (T + 1, m), index 0 = η̂_0
    mean, cov = _moments(family, bar[np.asarray(tr.iterations)])
    error = "" if np.all(np.isfinite(bar[-1])) else "non-finite final average"
    return tr._replace(label=label, config=tr.config + f"; ω̄_k of Thm 3.4 (μ = {mu:g})", mean=mean, cov=cov,
                       error=error)


def aggregate(rows: list[dict], deltas=(1.0, 0.1)) -> list[dict]:
    """Rows of `summary` for several runs of each method (same ``method`` label) combined: the number of
    runs; medians of iterations, loop and compile seconds; final gap median, min and max; for each δ the
    median, min and max of t(δ) over the runs that reached it and how many did (``reached_δ``: the median
    is over those runs only, so read it with the count); gold distances' medians where present."""
    out = []
    for method in dict.fromkeys(r["method"] for r in rows):
        mine = [r for r in rows if r["method"] == method]
        agg = dict(method=method, config=mine[0]["config"], runs=len(mine),
                   iterations=float(np.median([r["iterations"] for r in mine])),
                   loop_s=float(np.median([r["loop_s"] for r in mine])),
                   compile_s=float(np.median([r["compile_s"] for r in mine])),
                   errors=sorted({r["error"] for r in mine if r["error"]}))
        gaps = np.array([r["final_gap"] for r in mine], float)
        agg.update(final_gap=float(np.median(gaps)), final_gap_min=float(gaps.min()), final_gap_max=float(gaps.max()))
        for delta in deltas:
            t = [r[f"t_{delta:g}"] for r in mine if r[f"t_{delta:g}"] is not None]
            agg[f"reached_{delta:g}"] = len(t)
            agg[f"t_{delta:g}"] = float(np.median(t)) if t else None
            agg[f"t_{delta:g}_min"] = float(np.min(t)) if t else None
            agg[f"t_{delta:g}_max"] = float(np.max(t)) if t else None
        for k in ("gold_mean", "gold_logsd"):
            if all(k in r for r in mine):
                agg[k] = float(np.median([r[k] for r in mine]))
        out.append(agg)
    return out


def natural_parameters(tr: MethodTrace, meanfield: bool):
    """Natural parameters (K, m) of ``tr``'s iterates in the scoring family: full covariance
    (a mean-field iterate gets its diagonal covariance) or, with ``meanfield``, mean field
    (then every trace must be mean field)."""
    mean = jnp.asarray(tr.mean, jnp.float64)
    cov = jnp.asarray(tr.cov, jnp.float64)
    if meanfield:
        if not tr.meanfield:
            raise ValueError(f"{tr.label}: a full-covariance trace cannot be scored in the mean-field family")
        return jax.vmap(meanfield_to_natural)(mean, cov)
    if tr.meanfield:
        cov = jax.vmap(jnp.diag)(cov)
    return jax.vmap(fullcov_to_natural)(mean, cov)


def kl_up_to_log_z(traces, log_target, d: int, num_draws: int, meanfield: bool = False, seed: int = 1) -> dict:
    """{label: L̂ (K,)} for every `MethodTrace`: `lsvi.core.losses.kl_trace` with ONE key for
    all methods and iterates (same base draws Z), in the full-covariance family (or mean
    field). ``log_target(key, X (N, d)) -> (N,)``: the unnormalised log posterior.
    A non-finite iterate (a diverged run) gets +inf."""
    family = gaussian_meanfield(d) if meanfield else gaussian_fullcov(d)
    etas = [natural_parameters(tr, meanfield) for tr in traces]
    # one call (one compilation) for all iterates of all methods
    est, _ = losses.kl_trace(jax.random.PRNGKey(seed), family, jnp.concatenate(etas), log_target, num_draws)
    est = np.asarray(est, float)
    est = np.where(np.isfinite(est), est, np.inf)
    bounds = np.cumsum([0] + [len(e) for e in etas])
    return {tr.label: est[a:b] for tr, a, b in zip(traces, bounds[:-1], bounds[1:])}


def time_to_threshold(elapsed, kl, level: float, sustained: bool = False) -> Optional[float]:
    """Loop time of the first record with kl ≤ level (None if never). With ``sustained``,
    the first record from which kl stays ≤ level up to the end of the run."""
    ok = np.asarray(kl, float) <= level
    if not ok.any():
        return None
    if not sustained:
        return float(np.asarray(elapsed)[np.argmax(ok)])
    if not ok[-1]:
        return None
    bad = np.flatnonzero(~ok)
    return float(np.asarray(elapsed)[0 if len(bad) == 0 else bad[-1] + 1])


def summary(traces, kls: dict, deltas=(1.0, 0.1), gold=None) -> list[dict]:
    """One row per method: loop and compile seconds, iterations run, final and best L̂ minus the
    best L̂ of ANY method (nats), the loop time to come within each δ of that best (first
    record; and sustained to the end), and, with ``gold`` = (mean (d,), sd (d,)) of NUTS, the
    final iterate's `lsvi.papers.lsvi.logistic.gold_standard_distance`."""
    from lsvi.papers.lsvi.logistic import gold_standard_distance

    best = min(float(np.min(k)) for k in kls.values())
    rows = []
    for tr in traces:
        kl = kls[tr.label]
        row = dict(method=tr.label, config=tr.config, iterations=int(tr.iterations[-1]), loop_s=tr.loop_s,
                   compile_s=tr.compile_s, final_gap=float(kl[-1] - best), best_gap=float(np.min(kl) - best),
                   error=tr.error)
        for delta in deltas:
            row[f"t_{delta:g}"] = time_to_threshold(tr.elapsed, kl, best + delta)
            row[f"t_{delta:g}_sustained"] = time_to_threshold(tr.elapsed, kl, best + delta, sustained=True)
        if gold is not None:
            var = tr.cov[-1] if tr.meanfield else np.diag(tr.cov[-1])
            row["gold_mean"], row["gold_logsd"] = gold_standard_distance(tr.mean[-1], np.sqrt(var), *gold)
        rows.append(row)
    return rows
