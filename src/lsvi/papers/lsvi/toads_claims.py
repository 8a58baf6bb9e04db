"""Bayesian synthetic likelihood for the toads (Section 5.3, Appendix C.4): what notebook 31 reads
from its runs — the approximations' moments over the iterations, the MCMC summary, Table 1's BSL
rows and the claims.

Notebook 31 runs the two LSVI variants (`lsvi.core.kernel.run_sequential`) and the random-walk
MCMC (`lsvi.baselines.rwmh`) on the model of `lsvi.papers.lsvi.toads`, and hands the outputs to
the functions below. The claims come as dicts of the keyword arguments of
`lsvi.pipeline.notebook.Run.claim`, with the criteria that the notebook's markdown states before
its claims cell.

The model and the papers it follows: `lsvi.papers.lsvi.toads`.
"""
from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
import pandas as pd

from lsvi.baselines import rwmh
from lsvi.core.families.gaussian import fullcov_from_natural
from lsvi.core.families.truncated_gaussian import truncated_moments
from lsvi.exact.intervals import t_interval
from lsvi.papers.lsvi import toads, toads_reference
from lsvi.pipeline import timing

REFERENCE_RHAT_MAX = 1.1  # the MCMC run is a reference when max R-hat < 1.1 ...
REFERENCE_ESS_MIN = 50  # ... and min bulk ESS >= 50 (Monte Carlo s.e. of its mean <= 0.14 sd)
PAPER_ACCEPTANCE, ACCEPTANCE_TOL = 0.31, 0.1  # "roughly 31%", read as |rate - 0.31| < 0.1
MIN_ITERATIONS = 40  # T at which the rows on the final approximation are assessable (Fig. 3 shows T = 50)
ACCEPTANCE_BATCHES = 10  # batch means for the interval of the acceptance rate of a (correlated) chain


class Settings(NamedTuple):
    """The parameters of notebook 31 that the table and the claims quote."""

    num_samples: int
    num_iterations: int
    num_sims: int
    mcmc_steps: int
    mcmc_burn_in: int
    mcmc_chains: int
    mcmc_sigma: float
    mcwm_steps: int

    @property
    def evaluations(self) -> dict:
        """Synthetic-likelihood evaluations per run of each method (MCMC: one estimate at each
        chain's start, then one per step)."""
        lsvi = self.num_samples * self.num_iterations
        return {"LSVI Gaussian": lsvi, "LSVI truncated MF": lsvi, "MCMC": self.mcmc_chains * (self.mcmc_steps + 1)}


class Moments(NamedTuple):
    """mean, sd (T+1, 3): the approximation's moments in θ-space at every iterate."""

    mean: np.ndarray
    sd: np.ndarray


def truncated_mf_moments(etas) -> Moments:
    """Exact moments of the truncated mean-field Gaussian iterates ``etas`` (T+1, 6) on Θ."""
    lower, upper = jnp.asarray(toads.LOWER), jnp.asarray(toads.UPPER)
    mean, var = jax.vmap(lambda e: truncated_moments(e, lower, upper))(jnp.asarray(etas))
    return Moments(np.asarray(mean), np.sqrt(np.asarray(var)))


def fullcov_moments(etas, num_draws: int = 4000, seed: int = 12345):
    """Moments in θ-space of the full-covariance Gaussian iterates ``etas`` (T+1, m) on ξ: Monte
    Carlo with ``num_draws`` common random numbers across iterates
    (`lsvi.papers.lsvi.toads.gaussian_xi_to_theta`). Returns (Moments, draws of the last iterate
    (num_draws, 3))."""
    z = jax.random.normal(jax.random.PRNGKey(seed), (num_draws, 3))
    draws = jax.vmap(lambda e: toads.gaussian_xi_to_theta(e, z))(jnp.asarray(etas))  # (T+1, num_draws, 3)
    return Moments(np.asarray(draws.mean(1)), np.asarray(draws.std(1, ddof=1))), np.asarray(draws[-1])


def xi_correlation(eta) -> np.ndarray:
    """Correlation matrix (3, 3) of the full-covariance Gaussian on ξ with natural parameter ``eta``."""
    _, cov = fullcov_from_natural(jnp.asarray(eta), 3)
    cov = np.asarray(cov)
    return cov / np.sqrt(np.outer(np.diag(cov), np.diag(cov)))


class MCMCSummary(NamedTuple):
    """The MCMC benchmark after burn-in (first timed repetition): xi (chains, kept, 3) and theta
    (chains, kept, 3) chains, draws (chains·kept, 3) in θ-space, their mean and sd (3,), the
    acceptance rate and the ArviZ diagnostics {name: {"rhat", "ess_bulk", "ess_tail"}}."""

    xi: np.ndarray
    theta: np.ndarray
    draws: np.ndarray
    mean: np.ndarray
    sd: np.ndarray
    acceptance: float
    diagnostics: dict

    @property
    def max_rhat(self) -> float:
        return max(d["rhat"] for d in self.diagnostics.values())

    @property
    def min_ess(self) -> float:
        return min(d["ess_bulk"] for d in self.diagnostics.values())


def mcmc_summary(traces: rwmh.ChainTrace, burn_in: int) -> MCMCSummary:
    """`MCMCSummary` of the first repetition of ``traces`` (`lsvi.baselines.rwmh.TimedChains.traces`)."""
    xi = np.asarray(traces.positions[0][:, burn_in:])
    theta = np.asarray(toads.from_unconstrained(jnp.asarray(xi)))
    draws = theta.reshape(-1, 3)
    return MCMCSummary(xi, theta, draws, draws.mean(0), draws.std(0, ddof=1),
                       float(np.mean(traces.is_accepted[0][:, burn_in:])),
                       rwmh.diagnostics(theta, 0, toads.PARAM_NAMES))


def reference_summary(reference: toads_reference.Reference) -> MCMCSummary:
    """`MCMCSummary` of the committed MCMC reference (`lsvi.papers.lsvi.toads_reference`): its draws, moments,
    mean acceptance rate and diagnostics, computed here from the draws (not read from its provenance record)."""
    draws = reference.theta.reshape(-1, 3)
    return MCMCSummary(reference.xi, reference.theta, draws, draws.mean(0), draws.std(0, ddof=1),
                       float(np.mean(reference.acceptance)), toads_reference.diagnostics(reference.theta))


def moments_table(mcmc: MCMCSummary, fc: Moments, mf: Moments, reference: MCMCSummary | None = None) -> pd.DataFrame:
    """Final mean and sd of each coordinate: the MCMC reference (when given), the MCMC benchmark, LSVI full
    covariance, LSVI truncated MF."""
    rows = {**({"MCMC reference": (reference.mean, reference.sd)} if reference is not None else {}),
            "MCMC benchmark": (mcmc.mean, mcmc.sd), "LSVI full cov.": (fc.mean[-1], fc.sd[-1]),
            "LSVI trunc. MF": (mf.mean[-1], mf.sd[-1])}
    return pd.DataFrame({name: {**{f"{n} mean": m[j] for j, n in enumerate(toads.PARAM_NAMES)},
                                **{f"{n} sd": s[j] for j, n in enumerate(toads.PARAM_NAMES)}}
                         for name, (m, s) in rows.items()}).T


class MCWM(NamedTuple):
    """One chain of the authors' variant (current state re-estimated at every step): acceptance
    rate after ``burn_in`` steps (NaN when no chain was run), its draws (kept, 3) in θ-space and
    the acceptance indicators of the kept steps (kept,)."""

    acceptance: float
    burn_in: int
    theta: np.ndarray
    accepted: np.ndarray = np.empty(0, bool)


def acceptance_interval(accepted, num_batches: int = ACCEPTANCE_BATCHES, level: float = 0.95) -> tuple:
    """(rate, lo, hi): the acceptance rate of the indicators ``accepted`` (kept,) and its t-interval
    from ``num_batches`` batch means (the indicators of a Markov chain are correlated: batch means
    carry that into the interval). (rate, NaN, NaN) with fewer than 2 steps per batch."""
    a = np.asarray(accepted, float).ravel()
    rate = float(a.mean()) if a.size else np.nan
    size = a.size // num_batches
    if size < 2:
        return rate, np.nan, np.nan
    means = a[: size * num_batches].reshape(num_batches, size).mean(axis=1)
    _, lo, hi = t_interval(means, level)
    return rate, lo, hi


def mcwm_chain(log_target_xi, cfg: Settings, key, x0) -> MCWM:
    """Run ``cfg.mcwm_steps`` steps of the authors' variant (``refresh_current=True``) from ``x0``
    (1, 3); burn-in min(cfg.mcmc_burn_in, steps/2). No chain when cfg.mcwm_steps is 0."""
    if cfg.mcwm_steps <= 0:
        return MCWM(np.nan, 0, np.empty((0, 3)))
    sampler = rwmh.build_sampler(log_target_xi, cfg.mcmc_sigma * jnp.ones(3), cfg.mcwm_steps, refresh_current=True)
    trace = jax.block_until_ready(sampler(key, x0))
    burn = min(cfg.mcmc_burn_in, cfg.mcwm_steps // 2)
    accepted = np.asarray(trace.is_accepted)[0, burn:]
    return MCWM(float(np.mean(accepted)), burn, np.asarray(toads.from_unconstrained(trace.positions[0, burn:])), accepted)


def table1(runs: dict, rss: dict, cfg: Settings) -> pd.DataFrame:
    """Table 1's BSL rows measured at this scale, next to the paper's (`toads.PAPER_TABLE1`).

    runs: {"LSVI Gaussian", "LSVI truncated MF", "MCMC": (algorithm label, output with ``times``
    (R,) and ``compile_time``)}; rss: {same names: peak RSS (GiB) of the process after that stage}."""
    rows = []
    for name, (alg, r) in runs.items():
        paper_alg, p_mean, p_sd, p_min, p_max, p_rss = toads.PAPER_TABLE1[name]
        t = np.asarray(r.times)
        sims = toads.simulator_calls(cfg.evaluations[name], cfg.num_sims)
        rows.append({"experiment": f"BSL {name}", "algorithm": alg, "P": cfg.num_sims,
                     "SL evaluations": cfg.evaluations[name], "simulated data sets": sims,
                     **timing.runtime_summary(t), "compile (s)": r.compile_time, "peak RSS so far (GiB)": rss[name],
                     "ms per simulated data set": 1e3 * t.mean() / sims, "paper: algorithm": paper_alg,
                     "paper runtime mean (s)": p_mean, "paper runtime sd (s)": p_sd, "paper runtime min (s)": p_min,
                     "paper runtime max (s)": p_max, "paper max RSS (GB, as printed)": p_rss})
    return pd.DataFrame(rows)


def _fmt(v) -> str:
    return "(" + ", ".join(f"{x:.3g}" for x in v) + ")"


def claims(mf: Moments, fc: Moments, mcmc: MCMCSummary, mcwm: MCWM, table: pd.DataFrame, cfg: Settings,
           reference: MCMCSummary | None = None, reference_num_sims: int | None = None) -> list:
    """The claims of notebook 31, criteria as its markdown states them:

    * the posterior the LSVI approximations are measured against is ``reference`` (the committed MCMC reference,
      `reference_summary`) when given, a reference when max split-R-hat <= 1.01 and min bulk ESS >= 400
      (``bsl-mcmc-reference-converged``) and when its P (``reference_num_sims``) is this run's (the BSL posterior
      depends on P); without it, the benchmark chain ``mcmc``, a reference when it has >= 2 chains, max R-hat < 1.1
      and min bulk ESS >= 50;
    * ``bsl-lsvi-{mf,fc}-converges``: over the last w = min(10, ⌊T/2⌋) iterations every mean moves
      by < 0.5 posterior sd (assessable with a converged reference and T ≥ 40);
    * ``bsl-fc-matches-mcmc-{mean,sd}``: |mean_FC − mean_post| < 0.5 sd_post; sd ratios in [0.5, 2] (assessable
      with a converged reference and T ≥ 40, as the convergence rows: the statement is about the fixed point);
    * ``bsl-lsvi-fraction-of-mcmc-cost``, ``bsl-mcmc-slowest``: measured run times, assessable at the
      paper's evaluation budget ratio (± 10 %) with runs of ≥ 10 s;
    * ``bsl-mcmc-acceptance``: the authors' variant at P = 100, σ = 0.1, |rate − 0.31| < 0.1 decided on
      the 95 % batch-means interval of the rate (`acceptance_interval`): PASS when the interval lies
      inside (0.21, 0.41), FAIL when it lies outside, NOT ASSESSABLE when it straddles a limit;
    * ``bsl-mcmc-benchmark-rhat``: the benchmark chain at the paper's budget, max R-hat < 1.1 and min bulk
      ESS ≥ 50 (≥ 2 chains).
    """
    T = cfg.num_iterations
    max_rhat, min_ess = mcmc.max_rhat, mcmc.min_ess
    if reference is not None:
        post, ref_rhat, ref_ess = reference, reference.max_rhat, reference.min_ess
        converged = reference_ok = toads_reference.converged(reference.diagnostics)
        ref_p = cfg.num_sims if reference_num_sims is None else reference_num_sims
        chains, kept = reference.theta.shape[:2]
        post_name = f"the MCMC reference ({chains} chains x {kept}, max R-hat {ref_rhat:.3g}, min bulk ESS {ref_ess:.0f})"
        no_reference = (f"; the MCMC reference is not converged (max R-hat {ref_rhat:.3g}, min bulk ESS {ref_ess:.0f}; "
                        f"needs R-hat <= {toads_reference.RHAT_MAX} and ESS >= {toads_reference.ESS_MIN})")
        if reference_num_sims is not None and reference_num_sims != cfg.num_sims:
            no_reference = (f"; the MCMC reference is the posterior at P = {reference_num_sims}, this run's synthetic "
                            f"likelihood uses P = {cfg.num_sims}")
            reference_ok = False
    else:
        post = mcmc
        reference_ok = cfg.mcmc_chains >= 2 and max_rhat < REFERENCE_RHAT_MAX and min_ess >= REFERENCE_ESS_MIN
        post_name = f"the MCMC benchmark ({cfg.mcmc_chains} chains)"
        no_reference = (f"; the MCMC reference is not converged at this scale (max R-hat {max_rhat:.3g}, min bulk ESS "
                        f"{min_ess:.0f}; needs R-hat < 1.1 and ESS >= 50)")
    post_mean, post_sd, diag = post.mean, post.sd, post.diagnostics
    w = max(1, min(10, T // 2))
    drift = {"mf": np.abs(mf.mean[-1] - mf.mean[-1 - w]) / post_sd, "fc": np.abs(fc.mean[-1] - fc.mean[-1 - w]) / post_sd}
    dmean = np.abs(fc.mean[-1] - post_mean) / post_sd
    sd_ratio = fc.sd[-1] / post_sd
    dmean_mf = np.abs(mf.mean[-1] - post_mean) / post_sd
    times = dict(zip(table["experiment"], table["runtime mean (s)"]))
    t_fc, t_mf, t_mc = times["BSL LSVI Gaussian"], times["BSL LSVI truncated MF"], times["BSL MCMC"]
    ev = cfg.evaluations
    budget = ev["LSVI Gaussian"] / ev["MCMC"]
    paper = toads.PAPER_SETTINGS
    paper_budget = paper["num_samples"] * paper["num_iterations"] / (paper["mcmc_steps"] + 1)
    timing_ok = abs(budget / paper_budget - 1) <= 0.1 and min(t_fc, t_mf) >= 10
    no_timing = (f"; evaluation budget LSVI/MCMC {budget:.3g} (paper {paper_budget:.3g}) and fastest run "
                 f"{min(t_fc, t_mf):.1f} s: needs the paper's budget ratio within 10 % and runs of at least 10 s")
    ms_per_sim = dict(zip(table["experiment"], table["ms per simulated data set"]))
    setting = (f"N={cfg.num_samples}, T={T}, P={cfg.num_sims}; MCMC {cfg.mcmc_chains}x{cfg.mcmc_steps}, "
               f"burn-in {cfg.mcmc_burn_in}")
    p_fc, p_mf, p_mc = (toads.PAPER_TABLE1[k][1] for k in ("LSVI Gaussian", "LSVI truncated MF", "MCMC"))
    converges_ok = reference_ok and T >= MIN_ITERATIONS  # also the condition of the rows on the final approximation
    short = "" if T >= MIN_ITERATIONS else (f"; T = {T} < {MIN_ITERATIONS}: the final iterate may still be on its way "
                                            "to the fixed point the paper's statement is about")
    rows = [dict(id=f"bsl-lsvi-{k}-converges", source="Sec. 5.3, Fig. 3 (left)", paper="both LSVI algorithms converge quickly",
                 measured=f"last-{w}-iteration drift of the means / posterior sd = {_fmt(drift[k])}",
                 criterion="max drift < 0.5 posterior sd", passed=bool(np.all(drift[k] < 0.5)), assessable=converges_ok,
                 note=f"{variant}; {setting}" + ("" if reference_ok else no_reference) + short)
            for k, variant in (("mf", "truncated mean-field, Alg. 1, u^2=1, eps_t=1/(t+1)"),
                               ("fc", "full covariance on logit(theta), Alg. 3, u^2=1"))]
    rows += [
        dict(id="bsl-fc-matches-mcmc-mean", source="Sec. 5.3, Fig. 3 (right)",
             paper="full-covariance LSVI matches the MCMC posterior",
             measured=f"|mean_LSVI - mean_MCMC| / sd_MCMC = {_fmt(dmean)}", criterion="max < 0.5",
             passed=bool(np.all(dmean < 0.5)), assessable=converges_ok,
             note=f"posterior: {post_name}; its mean {_fmt(post_mean)}, sd {_fmt(post_sd)}, Monte Carlo s.e. of its mean 1/sqrt(ESS) = "
                  f"{_fmt([1 / np.sqrt(diag[n]['ess_bulk']) for n in toads.PARAM_NAMES])} sd; LSVI-FC mean "
                  f"{_fmt(fc.mean[-1])}; truncated MF |dmean|/sd {_fmt(dmean_mf)}" + ("" if reference_ok else no_reference)
                  + short),
        dict(id="bsl-fc-matches-mcmc-sd", source="Sec. 5.3, Fig. 3 (right)",
             paper="full-covariance LSVI matches the MCMC posterior", measured=f"sd_LSVI / sd_MCMC = {_fmt(sd_ratio)}",
             criterion="all in [0.5, 2]", passed=bool(np.all((sd_ratio >= 0.5) & (sd_ratio <= 2))),
             assessable=converges_ok,
             note=f"LSVI-FC sd {_fmt(fc.sd[-1])}; posterior: {post_name}; {setting}" + ("" if reference_ok else no_reference)
                  + short),
        dict(id="bsl-lsvi-fraction-of-mcmc-cost", source="Sec. 5.3, Table 1",
             paper=f"LSVI Gaussian {p_fc} s vs MCMC {p_mc} s (ratio {p_fc / p_mc:.2f}), 5000 vs 10001 evaluations",
             measured=f"measured LSVI-FC / MCMC run time {t_fc / t_mc:.3g} ({t_fc:.1f} s vs {t_mc:.1f} s)",
             criterion="measured ratio < 1 at the paper's budget ratio", passed=bool(t_fc < t_mc), assessable=timing_ok,
             note=f"{ev['LSVI Gaussian']} vs {ev['MCMC']} evaluations of P={cfg.num_sims} simulations; ms per simulated "
                  f"data set: FC {ms_per_sim['BSL LSVI Gaussian']:.3g}, MCMC {ms_per_sim['BSL MCMC']:.3g}; 2 shared CPU "
                  "cores, not an A100" + ("" if timing_ok else no_timing)),
        dict(id="bsl-mcmc-slowest", source="Table 1", paper=f"MCMC {p_mc} s > LSVI truncated MF {p_mf} s > LSVI Gaussian {p_fc} s",
             measured=f"measured: MCMC {t_mc:.1f} s, MF {t_mf:.1f} s, FC {t_fc:.1f} s",
             criterion="measured MCMC run time > both LSVI run times", passed=bool(t_mc > max(t_fc, t_mf)),
             assessable=timing_ok,
             note="the paper's MF/FC ordering is not a claim (an implementation detail); same hardware for all three rows"
                  + ("" if timing_ok else no_timing)),
    ]
    mcwm_ok = cfg.mcwm_steps > 0 and cfg.num_sims == paper["num_sims"] and cfg.mcmc_sigma == 0.1
    rate, a_lo, a_hi = acceptance_interval(mcwm.accepted)
    low, high = PAPER_ACCEPTANCE - ACCEPTANCE_TOL, PAPER_ACCEPTANCE + ACCEPTANCE_TOL
    inside = bool(np.isfinite(a_lo) and low < a_lo and a_hi < high)
    outside = bool(np.isfinite(a_lo) and (a_hi <= low or a_lo >= high))
    why = ([] if mcwm_ok else ["needs the authors' variant (mcwm_steps > 0) at P = 100, sigma = 0.1"]) + (
        [] if not mcwm_ok or inside or outside else
        [f"the interval straddles a limit of ({low:.2f}, {high:.2f}): too few kept steps to decide"])
    rows += [
        dict(id="bsl-mcmc-acceptance", source="App. C.4", paper="acceptance rate roughly 31% (authors' chain, 1e4 steps after 1e3)",
             measured=f"{rate:.3g}, 95% interval [{a_lo:.3g}, {a_hi:.3g}] (authors' variant, {mcwm.accepted.size} steps "
                      f"after {mcwm.burn_in}; {ACCEPTANCE_BATCHES} batch means)",
             criterion=f"|rate - 0.31| < 0.1: the 95% interval inside ({low:.2f}, {high:.2f}) (FAIL if entirely outside, "
                       "else NOT ASSESSABLE)",
             passed=inside, assessable=not why, kind="paper",
             note=f"the pseudo-marginal benchmark chain (current estimate kept) accepts {mcmc.acceptance:.3g}; Blackjax "
                  f"sigma={cfg.mcmc_sigma} in xi-space" + ("; " + "; ".join(why) if why else "")),
        dict(id="bsl-mcmc-benchmark-rhat", source="App. C.4 (benchmark quality)", paper="MCMC benchmark (no R-hat reported)",
             measured=f"max R-hat {max_rhat:.3g}, min bulk ESS {min_ess:.0f}", criterion="max R-hat < 1.1 and min bulk ESS >= 50",
             passed=bool(max_rhat < REFERENCE_RHAT_MAX and min_ess >= REFERENCE_ESS_MIN), assessable=cfg.mcmc_chains >= 2,
             kind="reference",
             note=f"{cfg.mcmc_chains} chains x {cfg.mcmc_steps - cfg.mcmc_burn_in} kept, P={cfg.num_sims}; the paper's "
                  "benchmark chain at this scale's budget (Table 1), not the reference the LSVI rows are measured against"
                  + ("" if reference is None else " (bsl-mcmc-reference-converged)")),
    ]
    if reference is not None:
        rows.append(dict(
            id="bsl-mcmc-reference-converged", source="Sec. 5.3, Fig. 3 (the posterior LSVI is compared with)",
            paper="the posterior obtained via MCMC", kind="reference",
            measured=f"max split-R-hat {ref_rhat:.4g}, min bulk ESS {ref_ess:.0f} ({chains} chains x {kept} draws)",
            criterion=f"max split-R-hat <= {toads_reference.RHAT_MAX} and min bulk ESS >= {toads_reference.ESS_MIN}",
            passed=bool(converged), assessable=True,
            note=f"committed reference (lsvi.papers.lsvi.toads_reference): pseudo-marginal RWMH on xi, P={ref_p} "
                 f"as the paper's MCMC, proposal adapted from a pilot run; mean acceptance {reference.acceptance:.3g}; "
                 "diagnostics computed here from the draws"))
    return [{"kind": "paper", **r} for r in rows]
