"""Claims rows of notebook 41 for δ_t and κ̂ against the learning rate on the Section 7.1 Gaussian targets (RABVI,
Welandawe et al.: Fig. 3a / C.2 left, Figs C.6, C.7), from `rate_exponent.rule_off_run` runs (one per target and
optimiser, the rule off up to K_max, as the paper's figures show one run per target).

Criteria, fixed before the runs (the same bands as notebook 40's rows on a 2-d target, `claims.kappa_claims`):

* `figC6_kappa_rmsprop_about_half` (RMSProp, caption "κ is approximately 0.5"): per target, the 95 % credible
  interval of κ after the last epoch (`rate_exponent.kappa_posterior`, eqs 21–25) *agrees* when it meets [0.4, 0.6]
  and lies below 0.8 (κ = 1, plain SGD's value, excluded), *disagrees* when it misses [0.4, 0.6].
* `figC7_kappa_adam_about_0p6` (Adam, "all point estimates close to 0.6"): the same with [0.5, 0.7].
* `figC7_kappa_adam_below_0p8` (Adam, "κ is less than 0.8"): agrees when the interval lies below 0.8, disagrees when it
  lies above.
* `fig3a_delta_slope2_avgadam` (avgAdam, κ = 1: "the log of the learning rate and symmetrized KL divergence have
  approximately a linear relationship", the fit lines of slope 2κ = 2): per target the OLS slope of log δ_t on
  log γ_t over ≥ 3 points agrees when it lies in [1.7, 2.3], disagrees otherwise (notebook 40's `prop4.4` band).

Each row: PASS when every target agrees, FAIL when a strict majority disagrees, NOT ASSESSABLE otherwise or with
fewer than `min_targets` targets that have enough points (κ: ≥ 2 δ_t; slope: ≥ 3).
"""
from __future__ import annotations

import numpy as np

from lsvi.exact.statistics import loglog_fit

SRC = "Welandawe et al. (RABVI)"


def _verdict(states: dict, min_targets: int) -> tuple[bool, bool, str]:
    """(passed, assessable, why) from {target: True (agrees) / False (disagrees) / None (unsettled)}."""
    n = len(states)
    bad = sum(v is False for v in states.values())
    if n < min_targets:
        return False, False, f"{n} target(s) with enough points < {min_targets}"
    if all(v is True for v in states.values()):
        return True, True, ""
    if bad > n / 2:
        return False, True, ""
    return False, False, f"{bad} of {n} targets disagree, {sum(v is None for v in states.values())} unsettled"


def _about(band, below):
    """Agrees when [lo, hi] meets ``band`` and lies below ``below``; disagrees when it misses ``band``."""
    def state(lo, hi):
        if hi < band[0] or lo > band[1]:
            return False
        return True if hi < below else None
    return state


def _below(limit):
    """Agrees when [lo, hi] lies below ``limit``; disagrees when it lies above."""
    return lambda lo, hi: True if hi < limit else (False if lo > limit else None)


KAPPA_ROWS = (  # optimiser, id, figure, the paper's words, per-target state, the criterion in words
    ("rmsprop", "figC6_kappa_rmsprop_about_half", "Fig. C.6",
     "Fig. C.6 caption: “The estimates suggest κ is approximately 0.5” (RMSProp, Gaussian targets)",
     _about((0.4, 0.6), 0.8), "agrees when the interval meets [0.4, 0.6] and lies below 0.8, disagrees when it misses "
                              "[0.4, 0.6]"),
    ("adam", "figC7_kappa_adam_about_0p6", "Fig. C.7",
     "Fig. C.7 caption: “all point estimates close to 0.6” (Adam, Gaussian targets)",
     _about((0.5, 0.7), 0.8), "agrees when the interval meets [0.5, 0.7] and lies below 0.8, disagrees when it misses "
                              "[0.5, 0.7]"),
    ("adam", "figC7_kappa_adam_below_0p8", "Fig. C.7",
     "Fig. C.7 caption: “The estimates suggest κ is less than 0.8” (Adam, Gaussian targets)",
     _below(0.8), "agrees when the interval lies below 0.8, disagrees when it lies above 0.8"),
)


def rate_exponent_claims(runs, kappa_final: dict, min_targets: int = 3) -> list[dict]:
    """``runs``: `rate_exponent.RuleOffRun`s; ``kappa_final`` {(optimizer, target): (median, lo, hi)} from
    `kappa_posterior` on every point of that run (absent: fewer than 2 points)."""
    out = []
    targets = sorted({r.name for r in runs})
    points = {(r.optimizer, r.name): r.gamma.size for r in runs}
    for opt, cid, fig, paper, state, words in KAPPA_ROWS:
        if not any(r.optimizer == opt for r in runs):
            continue
        have = {t: kappa_final[opt, t] for t in targets if (opt, t) in kappa_final}
        passed, assessable, why = _verdict({t: state(lo, hi) for t, (_, lo, hi) in have.items()}, min_targets)
        out.append(dict(
            id=cid, source=f"{SRC}, {fig} and Section 4.3 (eqs 21–25)", kind="paper", paper=paper,
            measured="κ after the last epoch, posterior median [95 % CI]: " + "; ".join(
                f"{t} {m:.2f} [{lo:.2f}, {hi:.2f}] ({points[opt, t]} δ_t)" for t, (m, lo, hi) in have.items()),
            criterion=(f"per target, the 95 % credible interval of κ {words}; PASS if every target agrees, FAIL if a "
                       f"strict majority disagrees; ≥ {min_targets} targets with ≥ 2 δ_t"),
            passed=passed, assessable=assessable,
            note=(why + "; " if why else "") + "one run per target (the paper's figures show one), rule off to K_max; "
                 "κ's posterior by quadrature (priors eqs 23–24, eq. 25 weights) where the paper ran Stan"))
    slopes = {}
    for r in runs:
        if r.optimizer == "avg_adam" and r.gamma.size >= 3:
            slopes[r.name] = loglog_fit(r.gamma, r.delta)
    if any(r.optimizer == "avg_adam" for r in runs):
        states = {t: bool(1.7 <= f.slope <= 2.3) for t, f in slopes.items()}
        passed, assessable, why = _verdict(states, min_targets)
        out.append(dict(
            id="fig3a_delta_slope2_avgadam", source=f"{SRC}, Fig. 3a, Fig. C.2 (left) and Section 4.3",
            kind="paper",
            paper=("avgAdam: “the log of the learning rate and symmetrized KL divergence have approximately a linear "
                   "relationship” (fit lines with κ = 1, i.e. slope 2)"),
            measured="OLS slope of log δ_t on log γ_t [95 % CI]: " + "; ".join(
                f"{t} {f.slope:.2f} [{f.lo:.2f}, {f.hi:.2f}]" for t, f in slopes.items()),
            criterion=(f"per target (≥ 3 points), agrees when the slope lies in [1.7, 2.3] (notebook 40's band); PASS if "
                       f"every target agrees, FAIL if a strict majority disagrees; ≥ {min_targets} targets"),
            passed=passed, assessable=assessable,
            note=(why + "; " if why else "") + "one run per target, rule off to K_max, the converged epochs"))
    return out
