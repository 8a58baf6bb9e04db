"""The claims of the logistic-regression notebooks 20–24 (Section 5.1, Appendix C.1–C.2), as rows.

Each function reads the measurements of one notebook and returns its claims, one dict per
claim with the keys of `lsvi.pipeline.notebook.Run.claim` (id, source, paper, measured,
criterion, passed, note, assessable, kind); the notebook records them with
``for c in rows: run.claim(**c)``. The criteria are stated in the notebooks' markdown,
above the claims cell; the thresholds are here, next to the code that applies them.

Rules every builder follows (issue 26, "every verdict is evidence"):

* **Symmetric assessability.** Whether a row counts is decided by the run's settings (the
  paper's N and T, enough repetitions, a reliable reference), never by its outcome: a PASS
  and a FAIL count under the same conditions.
* **Statements about methods** ("A ≤ B", "A less noisy than B", "cost linear in N", "A
  cheaper than B") are decided on an interval fixed before the run: at least `MIN_REPS`
  independent repetitions per method (timings: repeats interleaved in one process, paired
  by repeat), a 95 % interval (Welch t for a difference of means, F for a ratio of
  variances, paired t on log ratios for timings, Newcombe for a difference of proportions,
  OLS t for a log–log slope), Bonferroni-adjusted when a row makes k comparisons. PASS when
  the interval lies inside the region the statement allows, FAIL when it lies outside it,
  NOT ASSESSABLE when it straddles the boundary (the run cannot settle the statement) or
  when there are fewer repetitions.

``curves`` are {label: (iterations (K,), KL estimates (R, K))} from
`lsvi.papers.lsvi.logistic.kl_curves`; ``anchor`` a `lsvi.papers.lsvi.logistic.Anchor`;
``gold`` a `lsvi.baselines.nuts` result.
"""
from __future__ import annotations

import math

import numpy as np
from scipy import stats

from lsvi.exact import statistics
from lsvi.papers.lsvi import logistic

PIMA_TOL = 0.05  # nats: the band around L° within which a mean curve counts as converged (notebook 20)
MIN_REPS = 5     # independent repetitions (or interleaved timing repeats) a statement about methods needs
LEVEL = 0.95     # the level of every interval (family-wise over the comparisons of one row)


def _row(id, source, paper, measured, criterion, passed, note="", assessable=True, kind="paper") -> dict:
    """A claim row with the arguments of `lsvi.pipeline.notebook.Run.claim`."""
    return dict(id=id, source=source, paper=paper, measured=measured, criterion=criterion,
                passed=bool(passed) and bool(assessable), note=note, assessable=bool(assessable), kind=kind)


# ----------------------------------------------------------------------------------------
# Intervals (fixed before the run) and the three-way decision they give


def _finite(x) -> np.ndarray:
    x = np.asarray(x, dtype=float).ravel()
    return x[np.isfinite(x)]


def welch_interval(a, b, level: float = LEVEL) -> tuple[float, float, float]:
    """mean(a) − mean(b) with its Welch t interval (independent samples; non-finite values
    dropped). (nan, nan, nan) with fewer than 2 values on a side."""
    a, b = _finite(a), _finite(b)
    if len(a) < 2 or len(b) < 2:
        return float("nan"), float("nan"), float("nan")
    d = a.mean() - b.mean()
    va, vb = a.var(ddof=1) / len(a), b.var(ddof=1) / len(b)
    se = math.sqrt(va + vb)
    if se == 0.0:
        return float(d), float(d), float(d)
    dof = (va + vb) ** 2 / ((va ** 2 / (len(a) - 1) if va else 0.0) + (vb ** 2 / (len(b) - 1) if vb else 0.0))
    q = stats.t.ppf(0.5 + level / 2, dof)
    return float(d), float(d - q * se), float(d + q * se)


def sd_ratio_interval(a, b, level: float = LEVEL) -> tuple[float, float, float]:
    """sd(a) / sd(b) with the F interval of the variance ratio (normal samples)."""
    a, b = _finite(a), _finite(b)
    if len(a) < 2 or len(b) < 2:
        return float("nan"), float("nan"), float("nan")
    va, vb = a.var(ddof=1), b.var(ddof=1)
    if vb == 0.0:
        return float("inf") if va > 0 else float("nan"), float("nan"), float("nan")
    f = va / vb
    d1, d2 = len(a) - 1, len(b) - 1
    lo = f / stats.f.ppf(0.5 + level / 2, d1, d2)
    hi = f / stats.f.ppf(0.5 - level / 2, d1, d2)
    return float(math.sqrt(f)), float(math.sqrt(lo)), float(math.sqrt(hi))


def ratio_interval(num, den, level: float = LEVEL) -> tuple[float, float, float]:
    """Geometric mean of num[r] / den[r] over paired repeats r (timings interleaved in one
    process) with the t interval of the mean log ratio. (nan, nan, nan) with fewer than 2
    finite pairs."""
    num, den = np.asarray(num, float).ravel(), np.asarray(den, float).ravel()
    ok = np.isfinite(num) & np.isfinite(den) & (num > 0) & (den > 0)
    r = np.log(num[ok] / den[ok])
    if len(r) < 2:
        return float("nan"), float("nan"), float("nan")
    m, se = r.mean(), r.std(ddof=1) / math.sqrt(len(r))
    q = stats.t.ppf(0.5 + level / 2, len(r) - 1)
    return float(math.exp(m)), float(math.exp(m - q * se)), float(math.exp(m + q * se))


def _wilson(k: int, n: int, level: float) -> tuple[float, float]:
    z = stats.norm.ppf(0.5 + level / 2)
    p = k / n
    c = (p + z * z / (2 * n)) / (1 + z * z / n)
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return c - h, c + h


def proportion_difference_interval(k1: int, n1: int, k2: int, n2: int, level: float = LEVEL) -> tuple[float, float, float]:
    """k1/n1 − k2/n2 with Newcombe's hybrid score interval (from the two Wilson intervals)."""
    p1, p2 = k1 / n1, k2 / n2
    l1, u1 = _wilson(k1, n1, level)
    l2, u2 = _wilson(k2, n2, level)
    d = p1 - p2
    return float(d), float(d - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2)), float(d + math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2))


def decide_at_most(lo: float, hi: float, bound: float):
    """"value ≤ bound" from its interval: True (hi ≤ bound), False (lo > bound), None (straddles or nan)."""
    if not (np.isfinite(lo) and np.isfinite(hi)):
        return None
    return True if hi <= bound else (False if lo > bound else None)


def decide_within(lo: float, hi: float, lower: float, upper: float):
    """"lower ≤ value ≤ upper" from its interval: True (inside), False (disjoint), None (overlaps the edge)."""
    if not (np.isfinite(lo) and np.isfinite(hi)):
        return None
    if lower <= lo and hi <= upper:
        return True
    return False if (hi < lower or lo > upper) else None


def _ci(x: tuple, fmt: str = ".3g", level: float = LEVEL) -> str:
    return f"{x[0]:{fmt}} ({100 * level:.3g}% CI [{x[1]:{fmt}}, {x[2]:{fmt}}])"


def _status(decision, *requirements) -> tuple[bool, bool, str]:
    """(passed, assessable, reason) from a decision (True/False/None) and (condition, reason if
    not) requirements on the run's settings: the settings decide first, the interval second."""
    missing = [why for cond, why in requirements if not cond]
    if missing:
        return False, False, "; ".join(missing)
    if decision is None:
        return False, False, "the interval straddles the criterion's boundary: this run cannot settle it"
    return bool(decision), True, ""


def _join(*parts) -> str:
    return "; ".join(p for p in parts if p)


def nuts_reliable(gold) -> bool:
    """The NUTS gold standard's check: R-hat < 1.01 and bulk ESS >= 400."""
    return gold.rhat_max < 1.01 and gold.ess_bulk_min >= 400


# ----------------------------------------------------------------------------------------
# Notebook 20: Pima, Figure 1


def _per_rep_converged_at(Y, ref: float, tol: float, T: int) -> np.ndarray:
    """First t from which each repetition's curve stays in the band (`logistic.converged_at`),
    T + 1 when it does not end in it (not converged by T)."""
    return np.array([(lambda t: T + 1 if t is None else t)(logistic.converged_at(y, ref, tol)) for y in Y], float)


def pima_fig1(curves: dict, anchor, gold, errors: dict, centred: str, p: dict) -> list[dict]:
    """Figure 1 claims of notebook 20 (Pima, full covariance).

    ``centred``: the label of the centred Algorithm 3 run; ``errors`` {baseline label: error};
    ``p``: the notebook's parameters (num_reps, alg1_num_samples, alg1_num_steps, alg3_num_reps,
    alg3_num_samples, alg3_num_steps, ngd_num_samples, ngd_num_steps, baseline_reps,
    advi_num_iterations, gmmvi_num_samples, gmmvi_num_steps, kl_draws, nuts_chains, nuts_draws).
    A claim is assessable when its methods ran at the paper's N and T (and, for a comparison
    of methods, with >= `MIN_REPS` repetitions each), whatever its outcome."""
    TOL, out = PIMA_TOL, []
    A1, A3s1, A3s2, NG = (lab for lab, _, _ in logistic.METHODS["pima"])
    A1s4 = logistic.EXTRA_METHODS["pima"][0][0]
    final = {k: Y[:, -1] for k, (_, Y) in curves.items()}
    mean = {k: Y.mean(0) for k, (_, Y) in curves.items()}
    gold_ok = nuts_reliable(gold)
    anchor_ok = gold_ok and anchor.resolution <= TOL / 2  # the anchor resolves the 0.05-nat band
    anchor_why = (anchor_ok, "the NUTS anchor L° is unreliable (R-hat/ESS check or resolution > 0.025 nats)")
    anchor_note = (f"L° = {anchor.value:.4f} (NUTS {p['nuts_chains']}x{p['nuts_draws']}, ESS {gold.ess_bulk_min:.0f}, "
                   f"resolution {anchor.resolution:.2g}); lowest final mean KL - L° = "
                   f"{np.nanmin([v.mean() for v in final.values()]) - anchor.value:.3g}")
    alg1_full = p["alg1_num_samples"] >= 10_000 and p["alg1_num_steps"] >= 10
    alg3_full = p["alg3_num_steps"] >= 100 and p["alg3_num_samples"] >= 100_000
    alg3_why = (alg3_full, f"Alg. 3 ran below the paper's N = 1e5, T = 100 (N = {p['alg3_num_samples']}, "
                           f"T = {p['alg3_num_steps']})")
    setting = (f"reps {p['num_reps']} (Alg. 3: {p['alg3_num_reps']}); Alg. 1 N={p['alg1_num_samples']}, "
               f"T={p['alg1_num_steps']}; Alg. 3 N={p['alg3_num_samples']}, T={p['alg3_num_steps']}; "
               f"KL draws {p['kl_draws']}; {anchor_note}")
    m1 = mean[A1]
    frac = (m1[0] - m1[1]) / (m1[0] - anchor.value)
    t1 = logistic.converged_at(m1, anchor.value, TOL)
    ok = frac >= 0.99 and t1 is not None and t1 <= 2
    out.append(_row(
        "fig1-alg1-one-step", "Sec. 5.1, Fig. 1", "LSVI (Algorithm 1) converges essentially in one step",
        f"fraction of L_0 - L° removed at t=1: {frac:.5f}; L_2 - L° = {m1[min(2, len(m1) - 1)] - anchor.value:.3g} "
        f"nats; within the band from t = {t1}", f">= 0.99 and L_t <= L° + {TOL} for all t >= 2", ok,
        note=setting, assessable=anchor_ok and p["alg1_num_steps"] >= 2))

    t_conv = {lab: logistic.converged_at(mean[lab], anchor.value, TOL) for lab in (A3s1, A3s2, centred)}
    ex = {lab: mean[lab][-1] - anchor.value for lab in (A3s1, A3s2, centred)}
    ok, assessable, why = _status(t_conv[A3s2] is not None and t_conv[A3s2] <= 100, anchor_why, alg3_why)
    out.append(_row(
        "fig1-alg3-sch2-within-100", "Sec. 5.1, Fig. 1",
        "LSVI-FC (Algorithm 3) converges in less than 100 steps for linearly decreasing step sizes",
        f"schedule 2 at T={p['alg3_num_steps']}: L_T - L° = {ex[A3s2]:.3g} nats (sd over reps {final[A3s2].std():.3g}), "
        f"{100 * ex[A3s2] / (mean[A3s2][0] - anchor.value):.2g} % of L_0 - L°; in the band from t = {t_conv[A3s2]}",
        f"the mean curve is in the band L_t <= L° + {TOL} from some t <= 100 to T (assessable only at the paper's "
        f"N = 1e5, T = 100)", ok, assessable=assessable,
        note=_join(why, f"schedule 1 (u2=10, eps=1): L_T - L° = {ex[A3s1]:.3g}, in the band from t = {t_conv[A3s1]}",
                   setting)))

    n1, n3 = len(final[A1]), len(final[A3s2])
    r1 = _per_rep_converged_at(curves[A1][1], anchor.value, TOL, p["alg1_num_steps"])
    r3 = _per_rep_converged_at(curves[A3s2][1], anchor.value, TOL, p["alg3_num_steps"])
    decision = True if r1.max() < r3.min() else (False if r3.max() < r1.min() else None)
    ok, assessable, why = _status(decision, anchor_why, alg3_why,
                                  (alg1_full, "Alg. 1 ran below the paper's N = 1e4, T = 10"),
                                  (min(n1, n3) >= MIN_REPS, f"{min(n1, n3)} < {MIN_REPS} repetitions"))
    fmt = lambda r, T: "[" + ", ".join("never" if v > T else f"{int(v)}" for v in np.sort(r)) + "]"
    out.append(_row(
        "fig1-alg1-faster-than-alg3", "Sec. 5.1", "LSVI (Alg. 1) remains competitive with LSVI-FC since it converges faster",
        f"per repetition, first iteration in the band for good: Alg. 1 {fmt(r1, p['alg1_num_steps'])}, Alg. 3 sch. 2 "
        f"{fmt(r3, p['alg3_num_steps'])} ('never': not in the band at T)",
        f"every Alg. 1 repetition enters the band for good before every Alg. 3 sch. 2 repetition (exact rank test, "
        f"one-sided p = 1/C(n1+n2, n2) <= 0.004 with >= {MIN_REPS} each); FAIL if every Alg. 3 one is before every "
        f"Alg. 1 one; NOT ASSESSABLE if they overlap", ok, assessable=assessable,
        note=_join(why, f"mean curves in the band from t = {t1} (Alg. 1), {t_conv[A3s2]} (Alg. 3 sch. 2), "
                        f"{t_conv[A3s1]} (sch. 1)", setting)))

    for name, key in (("NGD", NG), ("GMMVI", "GMMVI (1 component)")):
        if key not in final:
            out.append(_row(f"fig1-lsvi-comparable-{name.lower()}", "Sec. 5.1, Fig. 1", f"LSVI performs comparably to {name}",
                            f"{name} did not run: {errors.get(key, 'missing')}", "final mean KLs within 0.1 nats", False))
            out.append(_row(f"fig1-lsvi-less-noisy-{name.lower()}", "Sec. 5.1, Fig. 1", f"LSVI is less noisy than {name}",
                            f"{name} did not run: {errors.get(key, 'missing')}", f"sd over reps of final KL: LSVI < {name}",
                            False))
            continue
        base_setting = (f"{name} N={p['ngd_num_samples']}, T={p['ngd_num_steps']}, {len(final[key])} reps" if name == "NGD"
                        else f"GMMVI N={p['gmmvi_num_samples']}, T={p['gmmvi_num_steps']}, {len(final[key])} reps")
        full = alg1_full and (p["ngd_num_samples"] >= 10_000 and p["ngd_num_steps"] >= 100 if name == "NGD" else
                              p["gmmvi_num_samples"] >= 10_000 and p["gmmvi_num_steps"] >= 10)
        reps = min(len(final[A1]), len(final[A1s4]), len(final[key]))
        settings_why = [(full, f"Alg. 1 or {name} ran below the paper's N and T"),
                        (reps >= MIN_REPS, f"{reps} < {MIN_REPS} repetitions on a side")]
        diff = welch_interval(final[key], final[A1])
        ok, assessable, why = _status(decide_within(diff[1], diff[2], -0.1, 0.1), *settings_why)
        out.append(_row(f"fig1-lsvi-comparable-{name.lower()}", "Sec. 5.1, Fig. 1", f"LSVI performs comparably to {name}",
                        f"final mean KL {name} - LSVI = {_ci(diff)} nats",
                        "the 95% Welch interval of the difference of final mean KLs lies inside (-0.1, 0.1) nats; FAIL if "
                        f"it lies outside; >= {MIN_REPS} repetitions each, the paper's N and T",
                        ok, assessable=assessable, note=_join(why, base_setting, setting)))
        s3 = sd_ratio_interval(final[A1], final[key], 1 - (1 - LEVEL) / 2)
        s4 = sd_ratio_interval(final[A1s4], final[key], 1 - (1 - LEVEL) / 2)
        d3, d4 = decide_at_most(s3[1], s3[2], 1.0), decide_at_most(s4[1], s4[2], 1.0)
        decision = True if (d3 and d4) else (False if (d3 is False or d4 is False) else None)
        ok, assessable, why = _status(decision, *settings_why)
        out.append(_row(f"fig1-lsvi-less-noisy-{name.lower()}", "Sec. 5.1, Fig. 1",
                        f"LSVI is less noisy than {name} (with or without an adaptive schedule 4)",
                        f"sd over repetitions of the final KL: LSVI sch. 3 {final[A1].std(ddof=1):.3g}, sch. 4 "
                        f"{final[A1s4].std(ddof=1):.3g}, {name} {final[key].std(ddof=1):.3g}; sd ratio LSVI / {name}: "
                        f"sch. 3 {_ci(s3, level=0.975)}, sch. 4 {_ci(s4, level=0.975)}",
                        f"the F intervals (Bonferroni, 97.5% each) of both sd ratios LSVI / {name} lie below 1; FAIL if "
                        f"one lies above 1; >= {MIN_REPS} repetitions each, the paper's N and T", ok,
                        assessable=assessable, note=_join(why, base_setting, setting)))
    advi = "PyMC ADVI (full rank)"
    if advi in final:
        ex_advi = final[advi].mean() - anchor.value
        ok, assessable, why = _status(
            ex_advi < 0.5, (gold_ok and anchor.resolution <= 0.25, "the NUTS anchor is unreliable"),
            (p["advi_num_iterations"] >= 10_000, f"ADVI ran {p['advi_num_iterations']} < 1e4 iterations"))
        out.append(_row(
            "fig1-advi-final", "Fig. 1", "PyMC ADVI (full rank, 1e4 iterations) shown converging towards the same minimum",
            f"final mean KL ADVI - L° = {ex_advi:.3g} nats after {p['advi_num_iterations']} iterations",
            "< 0.5 nats (assessable at the paper's 1e4 iterations)", ok, assessable=assessable,
            note=_join(why, f"{len(final[advi])} reps; {anchor_note}")))
    else:
        out.append(_row("fig1-advi-final", "Fig. 1", "PyMC ADVI (full rank) runs on Pima", f"failed: {errors.get(advi)}",
                        "runs", False))
    ok, assessable, why = _status(t_conv[centred] is not None and t_conv[centred] <= 100, anchor_why, alg3_why)
    out.append(_row(
        "beyond-alg3-centred", "beyond paper (eq. 20 control variate)",
        "LSVI-FC with the centred estimator converges within 100 steps (schedule 2)",
        f"L_T - L° = {ex[centred]:.3g} nats (uncentred: {ex[A3s2]:.3g}); sd over reps {final[centred].std():.3g} "
        f"(uncentred {final[A3s2].std():.3g}); in the band from t = {t_conv[centred]}",
        f"the mean curve is in the band L_t <= L° + {TOL} from some t <= 100 to T (the paper's N and T)", ok,
        assessable=assessable, note=_join(why, setting), kind="beyond"))
    return out


def gold_standard(gold_table, gold, ids: dict, full: dict, note: str) -> list[dict]:
    """The check of the NUTS gold standard itself (``gold-nuts-converged``, kind "reference"),
    then, for each label of ``ids`` {label: claim id}, the question (ours, kind "beyond") whether
    its final iterate is close to the posterior: both distances of ``gold_table``
    (`lsvi.papers.lsvi.logistic.gold_standard_table`) below 0.1. NOT ASSESSABLE when NUTS fails
    its check or the method ran short of the paper's N or T (``full`` {label: False}), whatever
    the outcome."""
    gold_ok = nuts_reliable(gold)
    out = [_row("gold-nuts-converged", "beyond paper (NUTS)", "gold standard is reliable",
                f"R-hat max {gold.rhat_max:.3f}, ESS bulk min {gold.ess_bulk_min:.0f}, divergences {gold.divergences}",
                "R-hat < 1.01 and ESS bulk >= 400", gold_ok, kind="reference")]
    for label, cid in ids.items():
        dm, ds = gold_table.loc[label]
        ok, assessable, why = _status(dm < 0.1 and ds < 0.1, (gold_ok, "NUTS fails its check"),
                                      (full[label], "run below the paper's N or T"))
        out.append(_row(cid, "beyond paper (NUTS)", f"{label} is close to the posterior (mean, marginal sd)",
                        f"max |dmean|/sd* = {dm:.3g}, max |log sd/sd*| = {ds:.3g}", "both < 0.1", ok,
                        assessable=assessable, note=_join(why, note), kind="beyond"))
    return out


# ----------------------------------------------------------------------------------------
# Notebook 21: Sonar, Figure 4


def cost_slope(Ns, S, band: tuple, min_sizes: int = 3, min_decades: float = 1.0):
    """Log–log slope of the mean cost per iteration ``S`` (K, R) against ``Ns`` (K,) with its
    OLS t interval (`lsvi.exact.statistics.loglog_fit`: residual scatter, so curvature widens
    it) and its decision against ``band``: (fit, decision, reason if the grid cannot show a
    slope). decision: True (interval inside the band), False (disjoint), None."""
    Ns = np.asarray(Ns, float)
    span = float(np.log10(Ns.max() / Ns.min())) if len(Ns) >= 2 else 0.0
    reasons = []
    if len(Ns) < min_sizes:
        reasons.append(f"{len(Ns)} sizes < {min_sizes}")
    if span < min_decades - 1e-9:
        reasons.append(f"the sizes span {span:.2g} decades < {min_decades:g}")
    if len(Ns) < 3:
        return statistics.SlopeFit(float("nan"), float("nan"), float("nan"), float("nan"), float("nan")), None, \
            "; ".join(reasons) or "fewer than 3 sizes"
    fit = statistics.loglog_fit(Ns, np.asarray(S, float).reshape(len(Ns), -1).mean(1), level=LEVEL)
    return fit, decide_within(fit.lo, fit.hi, *band), "; ".join(reasons)


def sonar_fig4(curves: dict, runs: dict, cost: dict, advi_label: str, advi_error, residual_z: str, p: dict) -> list[dict]:
    """Figure 4 claims of notebook 21 (Sonar, full covariance).

    ``runs`` {label: `lsvi.core.kernel.TimedRuns`} (Algorithm 3, schedules 1 and 2, and the
    schedule-1 run with the authors' residual s(Z), label ``residual_z``); ``cost`` {label:
    (N grid (K,), seconds per iteration (K, R))}; ``advi_label``: the key of PyMC ADVI in
    ``curves`` (absent if it failed with ``advi_error``); ``p``: the notebook's parameters
    (num_samples, num_steps, num_reps, advi_num_iterations, baseline_reps, cost_reps,
    cost_num_steps). Claims on the KL curves are assessable only at the paper's N = 10⁵ and
    T = 100 (and comparisons with >= `MIN_REPS` repetitions per method), whatever their outcome."""
    out = []
    final = {k: Y[:, -1] for k, (_, Y) in curves.items()}
    blown = {k: logistic.blow_ups(Y) for k, (_, Y) in curves.items() if k != advi_label}
    full = p["num_steps"] >= 100 and p["num_samples"] >= 100_000
    full_why = (full, f"run below the paper's N = 1e5, T = 100")
    setting = f"N={p['num_samples']}, T={p['num_steps']}, reps={p['num_reps']}"
    labs = [lab for lab, _, _ in logistic.METHODS["sonar"]]
    short = lambda lab: lab.split('sch. ')[1].rstrip(')')
    half = p["num_steps"] // 2
    for label in labs:
        m = curves[label][1].mean(0)
        total, drift = m[0] - m[-1], abs(m[-1] - m[half])
        ok, assessable, why = _status(bool(total > 0 and drift < 0.01 * total), full_why)
        out.append(_row(f"fig4-settles-{short(label)}", "Fig. 4 (right)", f"{label} converges",
                        f"|L_T - L_(T/2)| = {drift:.3g} nats vs total decrease L_0 - L_T = {total:.3g}",
                        "drift over the second half < 0.01 x decrease, decrease > 0 (the paper's N and T)", ok,
                        assessable=assessable,
                        note=_join(why, f"{setting}; {int(blown[label].sum())} of {len(final[label])} reps blow up")))
    reps = min(len(final[labs[0]]), len(final[labs[1]]))
    gap = welch_interval(final[labs[0]], final[labs[1]])
    ok, assessable, why = _status(decide_within(gap[1], gap[2], -0.5, 0.5), full_why,
                                  (reps >= MIN_REPS, f"{reps} < {MIN_REPS} repetitions per schedule"))
    out.append(_row("fig4-schedules-agree", "Fig. 4 (right)", "schedules 1 and 2 reach the same minimum",
                    f"final mean KL sch. 1 - sch. 2 = {_ci(gap)} nats",
                    f"the 95% Welch interval of the difference lies inside (-0.5, 0.5) nats; FAIL if outside; "
                    f">= {MIN_REPS} repetitions per schedule, the paper's N and T", ok, assessable=assessable,
                    note=_join(why, setting)))
    if advi_label in curves:
        k = len(labs)
        diffs = {lab: welch_interval(final[lab], final[advi_label], 1 - (1 - LEVEL) / k) for lab in labs}
        dec = [decide_at_most(d[1], d[2], 0.5) for d in diffs.values()]
        decision = True if any(dec) else (False if all(x is False for x in dec) else None)
        reps = min(len(final[advi_label]), *(len(final[lab]) for lab in labs))
        ok, assessable, why = _status(decision, full_why,
                                      (p["advi_num_iterations"] >= 10_000, "ADVI ran fewer than its 1e4 iterations"),
                                      (reps >= MIN_REPS, f"{reps} < {MIN_REPS} repetitions on a side"))
        out.append(_row("fig4-lsvi-vs-advi", "Fig. 4 (right)", "LSVI-FC reaches at least as low a KL as ADVI",
                        "final mean KL LSVI-FC - ADVI: " + ", ".join(f"sch. {short(lab)} {_ci(d, level=1 - (1 - LEVEL) / k)}" for lab, d in diffs.items())
                        + " nats",
                        f"for some schedule the Welch interval (Bonferroni over the {k} schedules) lies at or below 0.5 "
                        f"nats; FAIL if it lies above for every schedule; >= {MIN_REPS} repetitions each, the paper's "
                        f"N and T, ADVI's 1e4 iterations", ok, assessable=assessable,
                        note=_join(why, f"ADVI {p['advi_num_iterations']} iterations, {len(final[advi_label])} reps; {setting}")))
    else:
        out.append(_row("fig4-lsvi-vs-advi", "Fig. 4 (right)", "PyMC ADVI runs on Sonar", f"failed: {advi_error}", "runs",
                        False))
    for label in labs:  # the slope over the sizes N >= 10^4 (at least 3 of them, over a decade)
        Ns, S = cost[label]
        big = np.asarray(Ns) >= 10_000
        fit, decision, reason = cost_slope(np.asarray(Ns)[big], np.asarray(S)[big], (0.7, 1.2))
        ok, assessable, why = _status(decision, (not reason, reason))
        out.append(_row(f"fig4-cost-linear-{short(label)}", "Fig. 4 (left)",
                        "cost per iteration grows linearly with N",
                        f"log-log slope {fit.slope:.3g} (95% CI [{fit.lo:.3g}, {fit.hi:.3g}]) over {int(big.sum())} sizes "
                        f"N >= 1e4 (grid {list(map(int, Ns))})",
                        "the 95% interval of the slope lies inside [0.7, 1.2]; FAIL if outside it; >= 3 sizes N >= 1e4 "
                        "over >= 1 decade", ok, assessable=assessable,
                        note=_join(why, f"{p['cost_reps']} runs of {p['cost_num_steps']} iterations per N")))
    bX, bZ = int(blown[labs[0]].sum()), int(blown[residual_z].sum())
    nX, nZ = len(blown[labs[0]]), len(blown[residual_z])
    iX, iZ = runs[labs[0]].infos, runs[residual_z].infos
    diff = proportion_difference_interval(bX, nX, bZ, nZ)
    decision = None if not np.isfinite(diff[1]) else (True if diff[1] > 0 else (False if diff[2] <= 0 else None))
    ok, assessable, why = _status(decision, full_why, (min(nX, nZ) >= MIN_REPS, f"{min(nX, nZ)} < {MIN_REPS} repetitions"))
    out.append(_row(
        "beyond-sch1-residual-z", "authors' code (beyond paper)",
        "the authors' residual s(Z) in Algorithm 4 changes the blow-up frequency of schedule 1",
        f"blow-ups: s(X) {bX}/{nX}, s(Z) {bZ}/{nZ}, difference of frequencies {_ci(diff, '.2f')}; mean eps s(X) "
        f"{iX.eps.mean():.3g}, s(Z) {iZ.eps.mean():.3g}; final mean KL s(X) {final[labs[0]].mean():.4g}, "
        f"s(Z) {final[residual_z].mean():.4g}",
        f"fewer blow-ups with s(Z): the Newcombe 95% interval of freq(s(X)) - freq(s(Z)) lies above 0; FAIL if it lies "
        f"at or below 0; >= {MIN_REPS} repetitions each, the paper's N and T", ok, assessable=assessable,
        note=_join(why, f"{setting}; blow-up: KL above L_0 at some t >= 1 or not finite; median residual variance at "
                        f"the last iteration s(X) {np.median(iX.residual_var[:, -1]):.3g}, s(Z) "
                        f"{np.median(iZ.residual_var[:, -1]):.3g} (u2 = 10)"), kind="beyond"))
    return out


# ----------------------------------------------------------------------------------------
# Notebook 22: MNIST, Figures 2 (left), 5 and 6


def mnist(pymc_outcome: dict, kl: dict, test_error: dict, cost: dict, timed_at_n: dict, scaling: dict,
          labels: dict, p: dict) -> list[dict]:
    """Claims of notebook 22 (MNIST 0 vs 8, mean field: App. C.2, Figures 2 left, 5 and 6).

    ``pymc_outcome``: what the PyMC ADVI attempt gave (ran, error, finite, ...); ``kl`` and
    ``test_error`` {label: (R, K)}; ``cost`` {label: seconds per iteration (1 + K, R), the
    fixed-cost N first} for the Figure 5 methods, repeat r of every method timed in the same
    round (`lsvi.papers.lsvi.logistic.cost_table`); ``timed_at_n`` {label: seconds per iteration
    (R,) at the runs' N, same rounds}; ``scaling`` {label: `lsvi.exact.statistics.cost_scaling`
    result}; ``labels``: {"lsvi": LSVI-MF sch. 5, "blackjax": ..., "ngd": ...}; ``p``: the
    notebook's parameters (pm_version, pymc_iterations, num_samples, num_steps, num_reps,
    cost_sample_sizes, cost_reps, cost_num_steps, ngd_fim). End-of-run claims need T >= 50, a
    tenth of the paper's 500 iterations; comparisons of methods >= `MIN_REPS` repetitions (runs
    or timing rounds); the PyMC claim >= 1000 iterations."""
    out = []
    alg2_label, bj_label, ngd_label = labels["lsvi"], labels["blackjax"], labels["ngd"]
    num_steps, num_samples = p["num_steps"], p["num_samples"]
    fails = (not pymc_outcome.get("ran")) or bool(pymc_outcome.get("error")) or (not pymc_outcome.get("finite", True))
    out.append(_row(
        "c2-pymc-fails-mnist", "App. C.2", "The PyMC3 implementation fails in this context (MNIST)",
        str(pymc_outcome), "raises, reports an error or diverges", fails,
        note=f"PyMC ADVI mean field (PyMC {p['pm_version']}), {p['pymc_iterations']} iterations attempted; the paper "
             f"used PyMC 5.22" + ("" if p["pymc_iterations"] >= 1000 else "; fewer than 1000 iterations cannot show a divergence"),
        assessable=p["pymc_iterations"] >= 1000))
    long_why = (num_steps >= 50, f"T = {num_steps} < 50: the end of this run says nothing of the paper's t = 500")
    lsvi_labels = [label for label in kl if label.startswith("LSVI")]
    reps = min(len(kl[label]) for label in lsvi_labels + [bj_label])
    reps_why = (reps >= MIN_REPS, f"{reps} < {MIN_REPS} repetitions per method")
    cost_reps = min(len(np.atleast_1d(timed_at_n[label])) for label in lsvi_labels + [bj_label])
    timing_why = (min(cost_reps, np.asarray(cost[alg2_label]).shape[1]) >= MIN_REPS,
                  f"{cost_reps} < {MIN_REPS} interleaved timing rounds")

    k = len(lsvi_labels)
    level = 1 - (1 - LEVEL) / k
    decrease = kl[bj_label][:, 0].mean() - kl[bj_label][:, -1].mean()
    tol = 0.01 * abs(decrease)
    parts, decisions = [], []
    for label in lsvi_labels:
        d = welch_interval(kl[label][:, -1], kl[bj_label][:, -1], level)
        r = ratio_interval(timed_at_n[label], timed_at_n[bj_label], level)
        dk, dr = decide_at_most(d[1], d[2], tol), decide_at_most(r[1], r[2], 1.2)
        decisions.append(True if (dk and dr) else (False if (dk is False or dr is False) else None))
        parts.append(f"{label.split('(')[1].rstrip(')')}: KL - Blackjax {_ci(d, '.4g', level)}, cost ratio {_ci(r, level=level)}")
    decision = True if any(decisions) else (False if all(x is False for x in decisions) else None)
    fixed_lsvi = float(np.median(cost[alg2_label][0]))
    at_n = float(np.median(timed_at_n[alg2_label]))
    ok, assessable, why = _status(decision, long_why, reps_why, timing_why,
                                  (fixed_lsvi <= 0.2 * at_n, "the fixed cost is over 20% of LSVI-MF's cost at the runs' N"))
    out.append(_row(
        "fig2-lsvi-competitive-blackjax", "Sec. 5.1, Fig. 2 (left)",
        "LSVI-MF is competitive with Blackjax ADVI (KL vs elapsed time)",
        "; ".join(parts) + f" (Blackjax decrease {decrease:.4g})",
        f"for some LSVI-MF schedule: the Welch interval of its final KL - Blackjax's lies at or below 1% of Blackjax's "
        f"decrease and the paired interval of its cost per iteration / Blackjax's (at the runs' N, timed interleaved) at "
        f"or below 1.2 (Bonferroni over the {k} schedules); FAIL if for every schedule one of them lies above; "
        f">= {MIN_REPS} runs and timing rounds, T >= 50",
        ok, assessable=assessable,
        note=_join(why, f"N={num_samples}, T={num_steps}, reps={p['num_reps']}, timing rounds {cost_reps}; fixed cost "
                        f"{fixed_lsvi:.3g} s per iteration = {fixed_lsvi / at_n:.0%} of LSVI-MF's cost at N={num_samples}")))

    sizes = p["cost_sample_sizes"]
    for key, label in (("lsvi", alg2_label), ("blackjax", bj_label), ("ngd", ngd_label)):
        s = scaling[label]
        ok, assessable, why = _status(decide_within(s.lo, s.hi, 0.8, 1.2), (s.assessable, s.reason))
        out.append(_row(
            f"fig5-cost-linear-{key}", "Fig. 5 (left)", f"{label}: cost per iteration linear in N",
            f"log-log slope {s.slope:.3g} (95% CI [{s.lo:.3g}, {s.hi:.3g}]) over N = {list(sizes)} "
            f"({s.decades:.2g} decades); fixed cost {s.fixed_share:.0%} of the cost at N = {min(sizes)}",
            "the 95% interval of the slope lies inside [0.8, 1.2]; FAIL if outside it (>= 4 sizes over >= 1 decade, "
            "fixed cost <= 20% of the cost at the smallest N)",
            ok, assessable=assessable,
            note=_join(why, f"medians of {p['cost_reps']} runs of {p['cost_num_steps']} iterations per N")))

    others = (bj_label, ngd_label)
    level = 1 - (1 - LEVEL) / (len(others) * len(sizes))
    ratios = {o: [ratio_interval(np.asarray(cost[o])[1 + i], np.asarray(cost[alg2_label])[1 + i], level)
                  for i in range(len(sizes))] for o in others}
    allr = [r for rs in ratios.values() for r in rs]
    decision = (None if not all(np.isfinite(r[1]) for r in allr) else
                True if all(r[1] > 1 for r in allr) else (False if any(r[2] < 1 for r in allr) else None))
    ok, assessable, why = _status(decision, timing_why, (scaling[alg2_label].fixed_share <= 0.2, scaling[alg2_label].reason))
    out.append(_row(
        "fig5-lsvi-cheapest", "Fig. 5 (left), Table 1",
        "LSVI-MF has the lowest cost per iteration (Table 1: 10.4 s vs Blackjax 19.5 s and NGD-MF 25.3 s)",
        "; ".join(f"{o} / LSVI-MF: " + ", ".join(f"{r[0]:.2f} [{r[1]:.2f}, {r[2]:.2f}]" for r in rs)
                  for o, rs in ratios.items()) + f" at N = {list(sizes)} ({100 * level:.3g}% intervals)",
        f"at every N of the grid, the paired interval (repeats timed interleaved, Bonferroni over the "
        f"{len(others) * len(sizes)} ratios) of Blackjax's and NGD-MF's cost / LSVI-MF's lies above 1; FAIL if one "
        f"lies below 1; >= {MIN_REPS} timing rounds, fixed cost <= 20% of LSVI-MF's cost at the smallest N",
        ok, assessable=assessable, note=_join(why, f"NGD FIM: {p['ngd_fim']}")))

    tail = max(1, num_steps // 10)  # the last 10 % of the iterations
    late = {label: e[:, -tail:].mean(1) for label, e in test_error.items()}
    level = 1 - (1 - LEVEL) / k
    diffs = {label: welch_interval(late[label], late[bj_label], level) for label in lsvi_labels}
    dec = [decide_at_most(d[1], d[2], 0.005) for d in diffs.values()]
    decision = True if all(dec) else (False if any(x is False for x in dec) else None)
    ok, assessable, why = _status(decision, long_why, reps_why)
    out.append(_row(
        "fig6-lsvi-vs-blackjax", "Fig. 6", "LSVI-MF classifies the test digits as well as Blackjax",
        f"test error over the last {tail} iterations, mean over reps: "
        + ", ".join(f"{lab} {late[lab].mean():.4f}" for lab in lsvi_labels + [bj_label])
        + "; LSVI-MF - Blackjax: " + ", ".join(f"{lab.split('(')[1].rstrip(')')} {_ci(d, '.4f', level)}" for lab, d in diffs.items()),
        f"for every LSVI-MF schedule, the Welch interval (Bonferroni over the {k} schedules) of its test error - "
        f"Blackjax's lies at or below 0.005; FAIL if one lies above; >= {MIN_REPS} repetitions, T >= 50",
        ok, assessable=assessable, note=_join(why, f"N={num_samples}, T={num_steps}, reps={p['num_reps']}")))
    return out


# ----------------------------------------------------------------------------------------
# Notebook 23: Census with subsampling, Figure 7 (and the Table 1 cost claim)

CENSUS_EPS = 1e-3  # Table 3, schedules 5 and 6


def _settles(curve_mean, its, num_steps) -> tuple[float, float, int]:
    half = int(np.argmin(np.abs(np.asarray(its) - num_steps / 2)))  # the recorded iterate nearest to T/2
    return float(curve_mean[0] - curve_mean[-1]), float(abs(curve_mean[-1] - curve_mean[half])), int(its[half])


def census_fig7(kl: dict, its, reduced: dict, cost: dict, labels: dict, p: dict, variant=None) -> list[dict]:
    """Claims of notebook 23 (Census, mean field, subsampling eq. 21: Figure 7, App. C.2, Table 1).

    ``kl`` {label: loss (R, K)} at the recorded iterates ``its`` (K,); ``reduced`` {label:
    fraction of iterations where Algorithm 4 reduced ε}; ``cost`` {label: seconds per iteration
    (2, R) at N = (cost_fixed_samples, num_samples), repeat r of both methods timed in the same
    round (`lsvi.papers.lsvi.logistic.cost_table`)}; ``labels`` {"sch5", "sch6", "ngd": label};
    ``variant``: None or (its_v (K',), loss (R', K')) of the P = ``variant_batch_size`` run;
    ``p``: num_samples, num_steps, num_reps, batch_size, subsample_scale, variant_batch_size,
    variant_num_samples, variant_num_steps, variant_num_reps, cost_fixed_samples.

    Schedule 6 differs from schedule 5 only where Algorithm 4's cap binds; with the same seed
    and a cap that never binds both runs are the same run (identical losses), and one row
    stands for both (one measurement never counts twice). Loss claims need ε T >= 1; the
    comparison with NGD-MF and the cost comparison >= `MIN_REPS` repetitions / timing rounds."""
    s5, s6, ng = labels["sch5"], labels["sch6"], labels["ngd"]
    T, out = p["num_steps"], []
    eps_why = (CENSUS_EPS * T >= 1, f"eps T = {CENSUS_EPS * T:g} < 1: a constant-eps iteration cannot have settled")
    same = bool(np.array_equal(np.asarray(kl[s5]), np.asarray(kl[s6])))
    setting = f"N={p['num_samples']}, T={T}, P={p['batch_size']}, reps={len(kl[s5])}, scale '{p['subsample_scale']}'"
    schedules = [s5] if same else [s5, s6]
    for label in schedules:
        total, drift, t_half = _settles(kl[label].mean(0), its, T)
        ok, assessable, why = _status(total > 0 and drift < 0.01 * total, eps_why)
        sch = label.split("sch. ")[1][0]
        out.append(_row(
            f"fig7-settles-sch{sch}", "Fig. 7", f"{label} converges with subsampling"
            + (" (schedule 6 too: here the same run)" if same else ""),
            f"|L_T - L_(t={t_half})| = {drift:.3g} vs total decrease {total:.3g}",
            "drift over the second half < 0.01 x decrease, decrease > 0 (eps T >= 1)", ok, assessable=assessable,
            note=_join(why, (f"sch. 6 = sch. 5 here: Algorithm 4's cap never bound (eps reduced at "
                             f"{reduced.get(s6, 0.0):.1%} of the iterations), same seed, identical losses; this row "
                             f"stands for both schedules") if same else "", setting)))

    k = len(schedules)
    level = 1 - (1 - LEVEL) / k
    reps = min(len(kl[ng]), *(len(kl[s]) for s in schedules))
    parts, decisions = [], []
    for label in schedules:
        total = kl[label].mean(0)[0] - kl[label].mean(0)[-1]
        d = welch_interval(kl[label][:, -1], kl[ng][:, -1], level)
        decisions.append(decide_at_most(d[1], d[2], 0.01 * abs(total)))
        parts.append(f"sch. {label.split('sch. ')[1][0]} - NGD = {_ci(d, level=level)} (tolerance 0.01 x decrease = "
                     f"{0.01 * abs(total):.3g})")
    decision = True if any(decisions) else (False if all(x is False for x in decisions) else None)
    ok, assessable, why = _status(decision, eps_why, (reps >= MIN_REPS, f"{reps} < {MIN_REPS} repetitions per method"))
    out.append(_row(
        "fig7-lsvi-vs-ngd", "Fig. 7", "LSVI-MF reaches at least as low a loss as NGD-MF",
        "final mean loss " + "; ".join(parts),
        f"for some LSVI-MF schedule the Welch interval of its final loss - NGD-MF's lies at or below 1% of its total "
        f"decrease (Bonferroni over distinct schedules); FAIL if above for every schedule; >= {MIN_REPS} repetitions, "
        f"eps T >= 1", ok, assessable=assessable,
        note=_join(why, "sch. 6 = sch. 5 here (one comparison)" if same else "", setting)))

    if variant is not None:
        its_v, kl_v = variant
        total, drift, t_half = _settles(np.asarray(kl_v).mean(0), its_v, p["variant_num_steps"])
        ok, assessable, why = _status(total > 0 and drift < 0.01 * total,
                                      (CENSUS_EPS * p["variant_num_steps"] >= 1,
                                       f"eps T = {CENSUS_EPS * p['variant_num_steps']:g} < 1: cannot have settled"))
        out.append(_row(
            "fig7-settles-p10000", "App. C.2", f"LSVI-MF converges with subsampling at P = {p['variant_batch_size']}",
            f"|L_T - L_(t={t_half})| = {drift:.3g} vs total decrease {total:.3g}",
            "drift over the second half < 0.01 x decrease, decrease > 0 (eps T >= 1)", ok, assessable=assessable,
            note=_join(why, f"N={p['variant_num_samples']}, T={p['variant_num_steps']}, reps={len(kl_v)}")))

    c5, cn = np.asarray(cost[s5], float), np.asarray(cost[ng], float)
    r = ratio_interval(cn[1], c5[1])
    fixed, at_n = float(np.median(c5[0])), float(np.median(c5[1]))
    decision = None if not np.isfinite(r[1]) else (True if r[1] > 1 else (False if r[2] < 1 else None))
    ok, assessable, why = _status(decision, (c5.shape[1] >= MIN_REPS, f"{c5.shape[1]} < {MIN_REPS} timing rounds"),
                                  (fixed <= 0.2 * at_n, "the fixed cost is over 20% of LSVI-MF's cost at the runs' N"))
    out.append(_row(
        "table1-census-alg2-cheaper-than-ngd", "Table 1", "Alg. 2 sch. 5: 12.9 s vs NGD (MF) 70.0 s",
        f"cost per iteration NGD-MF / LSVI-MF = {_ci(r)} (medians {1e3 * np.median(cn[1]):.3g} vs {1e3 * at_n:.3g} ms, "
        f"N = {p['num_samples']})",
        f"the paired interval of NGD-MF's / LSVI-MF's cost per iteration (repeats timed interleaved in one process) lies "
        f"above 1; FAIL if below 1; >= {MIN_REPS} rounds", ok, assessable=assessable,
        note=_join(why, f"fixed cost {1e3 * fixed:.3g} ms = {fixed / at_n:.0%} of LSVI-MF's cost; CPU, not A100; "
                        f"paper N=1e4, T=1e4, P=1e3")))
    return out


# ----------------------------------------------------------------------------------------
# Notebook 24: Table 1 (logistic-regression rows)

# (data set, LSVI row, other row) of Table 1 whose run-time ordering notebook 24 tests, timed
# interleaved (`lsvi.papers.lsvi.logistic_interleaved`). The MNIST and Census orderings of
# Table 1 are tested where their cost is measured interleaved already: notebook 22
# (`fig5-lsvi-cheapest`) and notebook 23 (`table1-census-alg2-cheaper-than-ngd`); one statement
# is not counted twice.
TABLE1_RUNTIME_PAIRS = [("pima", "alg1 sch. 3", "pymc_advi"), ("pima", "alg1 sch. 3", "gmmvi"),
                        ("pima", "alg3 sch. 1", "pymc_advi"), ("pima", "alg3 sch. 2", "pymc_advi"),
                        ("sonar", "alg3 sch. 1", "pymc_advi"), ("sonar", "alg3 sch. 2", "pymc_advi")]


def table1_short(dataset: str, label: str) -> str:
    """The method part of a Table 1 claim id: "alg1", "pymc_advi", or, where Table 1 has the method
    at several schedules on ``dataset``, the method and the schedule ("alg3s1", "alg3s2")."""
    method, *rest = label.split()
    schedules = {r.schedule for r in logistic.TABLE1 if r.dataset == dataset and r.method == method}
    return f"{method}s{rest[-1]}" if rest and len(schedules) > 1 else method


def table1_runtime(times: dict, settings: dict, factors: dict, pairs=TABLE1_RUNTIME_PAIRS) -> list[dict]:
    """Table 1's run-time orderings, one row per pair ``(data set, a, b)``: "a's run is faster
    than b's", read on ``times`` {(data set, label): seconds per run (R,)} timed interleaved
    (`lsvi.papers.lsvi.logistic_interleaved.interleaved_run_times`); ``settings`` {(data set,
    label): (N or None, T)}; ``factors`` {data set: (f_N, f_T)}.

    PASS when the paired 95% interval of time(b) / time(a) lies above 1, FAIL when below 1,
    NOT ASSESSABLE when it straddles 1, with fewer than `MIN_REPS` repeats, or when the two rows
    do not run the paper's work alike: both at the same N and T, or, when one method has no N
    (PyMC ADVI), at the paper's N and T. A row that failed (no time) fails its claim."""
    paper = {(r.dataset, f"{r.method}" + (f" sch. {r.schedule}" if r.schedule else "")): r for r in logistic.TABLE1}
    out = []
    for ds, a, b in pairs:
        if (ds, a) not in times or (ds, b) not in times:
            continue
        ta, tb = np.asarray(times[(ds, a)], float), np.asarray(times[(ds, b)], float)
        (Na, Ta), (Nb, Tb) = settings[(ds, a)], settings[(ds, b)]
        fN, fT = (float(f) for f in factors[ds])
        like = (Na is not None and Nb is not None) or (fN == 1.0 and fT == 1.0)
        r = ratio_interval(tb, ta)
        failed = not (np.isfinite(ta).any() and np.isfinite(tb).any())
        decision = False if failed else (None if not np.isfinite(r[1]) else
                                         (True if r[1] > 1 else (False if r[2] < 1 else None)))
        n = int(min(np.isfinite(ta).sum(), np.isfinite(tb).sum()))
        ok, assessable, why = _status(decision, (like, "one method has no N: compared only at the paper's N and T"),
                                      (failed or n >= MIN_REPS, f"{n} < {MIN_REPS} interleaved repeats"))
        fmt = lambda v: "-" if v is None else f"{int(v)}"
        out.append(_row(
            f"table1-{ds}-{table1_short(ds, a)}-faster-than-{table1_short(ds, b)}", "Table 1",
            f"{ds}: {a} {paper[(ds, a)].paper[0]:g} s vs {b} {paper[(ds, b)].paper[0]:g} s",
            ("a row failed: no time" if failed else
             f"run time {b} / {a} = {_ci(r)} (medians {np.nanmedian(tb):.3g} s vs {np.nanmedian(ta):.3g} s)"),
            f"the paired 95% interval of time({b}) / time({a}) over repeats timed interleaved in one process lies above "
            f"1; FAIL if below 1; >= {MIN_REPS} repeats", ok, assessable=assessable,
            note=_join(why, f"{n} repeats; loop times, compilation and set-up excluded; N = {fmt(Na)}, T = {Ta} vs "
                            f"N = {fmt(Nb)}, T = {Tb} (factors on the paper's N, T: {fN:g}, {fT:g})")))
    return out


def table1_memory(table1, factors: dict) -> list[dict]:
    """Table 1's memory orderings (`lsvi.papers.lsvi.logistic.table1_comparisons`, memory rows
    only): peak RSS of each fresh process, assessable only for processes that ran on a GPU at
    the paper's N and T (the paper's column is the host RSS of GPU processes, where the arrays
    live in device memory; a CPU process's RSS holds the arrays, another quantity)."""
    return [dict(c, kind="paper") for c in logistic.table1_comparisons(table1, factors) if c["id"].startswith("table1-mem-")]


def table1_all_ran(table1) -> list[dict]:
    """Every configuration of Table 1 ran (a check of the tools, kind "reference"): FAIL lists
    the failed rows with their errors."""
    failed = table1[table1["error"] != ""]
    return [_row("table1-all-ran", "Table 1", "every LR configuration runs",
                 "all ran" if failed.empty else
                 "; ".join(f"{a} {b}: {e}" for a, b, e in failed[["data set", "method", "error"]].values),
                 "no error", failed.empty, kind="reference")]
