"""Claims rows of notebook 43_rabvi_detection_ablations (RABVI paper, Welandawe et al.), criteria fixed before the runs.

Convergence detection (Section 5.1, Fig. 6a / C.1). Reference, from the exact q* only (`rabvi_ablations.reference_point`):
k_ref = first k at which the 100-iterate mean of e_k = √SKL(q_{λ^{(k)}}, q*) is ≤ 1.1 × its stationary level (mean over the
second half of the run). A trigger k is *early* if k < k_ref, *window early* if its window starts before k_ref − 100, *late*
if k > 3 k_ref + 1000, *never* if it does not fire within the run, else *on time* (`rabvi_ablations.classify`).

* "adaptive R̂ consistently triggers when the full window suggests convergence has been reached": adaptive R̂ on time on
  every target;
* the comparative point, "while adaptive SASA+, ΔELBO, fixed window size R̂, and the distance-based statistic approach
  sometimes trigger too early or too late ..., adaptive R̂ consistently triggers ...": per competitor, adaptive R̂ is on
  time on strictly more targets than the competitor (one row each; the targets, paired, are the repetitions: the
  paper's Fig. C.1 has seven targets, one run each; the targets where only one of the two is on time are reported);
* all assessable with the seven targets of Fig. C.1 (d ≥ 10; not at smoke).

Ablations (Section 7.3: "the accuracy and runtime of RABVI is not too sensitive to the choice of the tuning parameters.
However, extreme tuning parameter choices (e.g. γ₀ = 0.01 or M ≤ 5) can lead to longer runtimes"), per parameter and per
target (Figs C.19–C.25 draw each target apart), over the medians per value over the repetitions, each with a 95 %
percentile-bootstrap interval (`bootstrap_ratio`: the repetitions resampled, paired across values, as the runs share
initialisations); a "not too sensitive" row PASSes when it holds on every target and FAILs when it fails on one, an
"extreme" row PASSes when the extreme is longer on some target:

* accuracy: max/min of the median √SKL(q̂, q*) over the values: PASS when its interval lies ≤ 3 (full grid), FAIL when it
  lies above 3 (settled even on a partial grid: more values can only raise a max/min), NOT ASSESSABLE when it contains 3;
* runtime: the same with the median iterations over the non-extreme values (γ₀ ≠ 0.01, M > 5);
* extremes: median iterations at γ₀ = 0.01 (M = 1 or 5) over those at γ₀ = 0.3 (M = 10): PASS when the interval of one
  extreme lies above 1, FAIL when every extreme of the paper was run and every interval lies ≤ 1;
* NOT ASSESSABLE with fewer than 5 repetitions (`MIN_REPS`; the paper has 10): with 2, a median is the mean of two runs
  and one failed run moves it anywhere, so even a max/min past 3 is not settled; and, whatever the repetitions, when the
  parameter never binds: every value gives the identical run (same iterations and √SKL for every target and
  repetition, common random numbers), so its max/min is 1 by construction;
* the same criteria on the posteriordb targets (Fig. 11 / C.25, ids `abl_posteriordb_*`), where q* is replaced by the
  reference of `rabvi_ablations.reference_optimum` (a long small-rate avgAdam average, not RABVI); a run that fails
  (FASO never converges, K_max reached) enters the medians with its iterations and error as they are.

The accuracy threshold ξ varied on the Section 7.1 targets (Section 7.1: "by varying the accuracy threshold ξ, the quality
of the final RABVI approximation q̂* also varies such that SKL(q*, q̂*)^{1/2} ≈ ξ"; `xi_claims`), ε₀ = ξ (Section 6's
default), one run per target and ξ as the paper's Figs 5 and 7:

* ≈ ξ (kind `paper`): for every ξ, every run terminates with √SKL(q̂, q*) in [ξ/2, 2ξ], the factor 2 either side of
  Fig. 5's row (notebook 41, `fig5_sqrt_skl_near_xi`, ξ = 0.1); FAIL when a run falls outside or never terminates;
* the trade-off it implies (kind `reading`): the median √SKL over the targets rises strictly with ξ and the median
  iterations at termination do not rise with ξ; FAIL otherwise;
* both NOT ASSESSABLE with fewer than 3 values of ξ, fewer than the seven targets of Section 7.1, or d below the paper's
  100 (at d = 10 the rule fires at its earliest learning rate on every target, whatever ξ).

References
----------
M. Welandawe, M. R. Andersen, A. Vehtari, J. H. Huggins (2024). A framework for improving the
reliability of black-box variational inference. arXiv:2203.15945.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from lsvi.papers.rabvi.ablations import ABLATIONS, DETECTOR_W100, DETECTORS, SYMBOLS, classify

SRC = "Welandawe et al. (RABVI)"
MIN_REPS = 5
EXTREMES = {"gamma0": ([0.01], 0.3), "num_samples": ([1, 5], 10)}  # the paper's extreme values, the default


def classes(studies: list[dict]) -> pd.DataFrame:
    """One row per target: k_ref and each detector's trigger "k (class)"."""
    rows = []
    for s in studies:
        row = {"target": s["name"], "k_ref": s["k_ref"]}
        for name, t in s["triggers"].items():
            row[name] = f"{t.k} ({classify(t, s['k_ref'])})"
        rows.append(row)
    return pd.DataFrame(rows)


def detection_claims(studies: list[dict], min_targets: int = 7) -> list[dict]:
    assessable = len(studies) >= min_targets and min(s["d"] for s in studies) >= 10
    cls = {n: [classify(s["triggers"][n], s["k_ref"]) for s in studies] for n in DETECTORS}
    names = [s["name"] for s in studies]
    why = "" if assessable else f"{len(studies)} target(s) with d ≥ 10 needed: Fig. C.1 has {min_targets}"
    out = [dict(id="fig6_adaptive_rhat_full_window_stationary", source=f"{SRC}, Section 5.1, Figs 6a, C.1",
                paper="adaptive R̂ consistently triggers when the full window suggests convergence has been reached",
                measured="; ".join(f"{n}: {c}" for n, c in zip(names, cls[DETECTORS[0]])),
                criterion="adaptive R̂ on time (k ≥ k_ref, window start ≥ k_ref − 100, k ≤ 3 k_ref + 1000) on every target",
                passed=all(c == "on time" for c in cls[DETECTORS[0]]), assessable=assessable, kind="paper",
                note="k_ref from the exact q*: first k where the 100-iterate mean of √SKL(λ_k, q*) ≤ 1.1 × stationary level"
                     + (f"; {why}" if why else ""))]
    slugs = {DETECTORS[1]: "sasa", DETECTORS[2]: "fixed_rhat_800", DETECTORS[3]: "delta_elbo", DETECTORS[4]: "distance"}
    ours = [c == "on time" for c in cls[DETECTORS[0]]]
    for n, slug in slugs.items():
        theirs = [c == "on time" for c in cls[n]]
        only_ours = [t for t, a, b in zip(names, ours, theirs) if a and not b]
        only_theirs = [t for t, a, b in zip(names, ours, theirs) if b and not a]
        out.append(dict(id=f"fig6_adaptive_rhat_vs_{slug}", source=f"{SRC}, Section 5.1, Figs 6a, C.1", kind="paper",
                        paper=f"while {n} sometimes triggers too early or too late, adaptive R̂ consistently triggers when "
                              "the full window suggests convergence has been reached",
                        measured=f"on time: adaptive R̂ {sum(ours)}/{len(studies)}, {n} {sum(theirs)}/{len(studies)}; "
                                 f"only adaptive R̂ on time: {', '.join(only_ours) or 'none'}; only {n}: "
                                 f"{', '.join(only_theirs) or 'none'}; {n}: "
                                 + "; ".join(f"{t}: {c}" for t, c in zip(names, cls[n])),
                        criterion=f"adaptive R̂ on time on strictly more of the targets than {n}",
                        passed=sum(ours) > sum(theirs), assessable=assessable, note=why))
    return out


def _is_extreme(p: str, v: float) -> bool:
    return (p == "gamma0" and v == 0.01) or (p == "num_samples" and v <= 5)


def bootstrap_ratio(sub: pd.DataFrame, col: str, num: list, den: list | None = None, num_boot: int = 2000,
                    seed: int = 0, level: float = 0.95) -> tuple[float, float, float]:
    """(point, low, high): max over ``num`` / min over ``den`` (default ``num``) of the median of ``col`` per value,
    and its percentile-bootstrap interval: the repetitions are resampled with replacement, the same draw for every
    value and target (paired runs). ``sub``: rows of one parameter (columns value, target, rep, ``col``)."""
    den = num if den is None else den
    values = sorted(set(num) | set(den))
    reps = sorted(sub["rep"].unique())
    targets = sorted(sub["target"].unique())
    idx = pd.MultiIndex.from_product([values, targets, reps])
    arr = sub.set_index(["value", "target", "rep"])[col].reindex(idx).to_numpy(float)
    arr = arr.reshape(len(values), len(targets), len(reps))
    iv, idn = [values.index(v) for v in num], [values.index(v) for v in den]

    def ratio(a):
        med = np.nanmedian(a.reshape(len(values), -1), axis=1)
        return float(med[iv].max() / med[idn].min())

    rng = np.random.default_rng(seed)
    boots = [ratio(arr[:, :, rng.integers(0, len(reps), len(reps))]) for _ in range(num_boot)]
    lo, hi = np.quantile(boots, [(1 - level) / 2, (1 + level) / 2])
    return ratio(arr), float(lo), float(hi)


def _status(lo: float, hi: float, threshold: float, complete: bool) -> tuple[bool, bool, str]:
    """(passed, settled, why not settled): interval > threshold -> FAIL (settled whatever values are missing, as more
    values only raise a max/min); interval ≤ threshold -> PASS when the values are complete; else not settled."""
    if lo > threshold:
        return False, True, ""
    if hi <= threshold:
        return True, complete, "" if complete else "values of the paper's grid missing: one more may raise max/min"
    return False, False, f"the interval contains {threshold:g}: these repetitions cannot settle it"


def ablation_claims(rows: list[dict], reps: int, label: str = "", figs: str = "Figs C.19–C.24",
                    min_reps: int = MIN_REPS) -> list[dict]:
    """Claims of the ablation `rows`; `label` prefixes the ids (e.g. "posteriordb_") and `figs` names the figures.
    Criteria in the module docstring: each target is judged apart (the paper draws one figure per target), a
    sensitivity statement holds when it holds on every target and fails when it fails on one."""
    df = pd.DataFrame(rows)
    out = []
    for p in df["parameter"].unique() if len(df) else []:
        sub = df[df["parameter"] == p]
        by_target = {t: g for t, g in sub.groupby("target", sort=False)}
        values = sorted(sub["value"].unique().tolist())  # Python numbers: printed plainly
        binds = bool((sub.groupby(["target", "rep"])[["iterations", "sqrt_skl"]].nunique() > 1).any().any())
        gate = ("parameter never binds here: every value gives the identical run (common random numbers), so max/min = 1 "
                "by construction" if not binds else
                f"{reps} repetition(s): a statement about sensitivity needs ≥ {min_reps} with an interval "
                "(the paper scale runs 10)" if reps < min_reps else "")
        src = f"{SRC}, Section 7.3, {figs}"
        every = " on every target" if len(by_target) > 1 else ""

        def medians(col, fmt):
            return "; ".join((f"{t}: " if len(by_target) > 1 else "") + ", ".join(
                f"{v:g}: {m:{fmt}}" for v, m in g.groupby("value")[col].median().items()) for t, g in by_target.items())

        def ratios(cis):
            return "; ".join((f"{t} " if len(by_target) > 1 else "") + f"{c[0]:.2f} [{c[1]:.2f}, {c[2]:.2f}]"
                             for t, c in cis.items())

        acc = {t: bootstrap_ratio(g, "sqrt_skl", values) for t, g in by_target.items()}
        ok, settled, why = _every_target(acc, 3.0, sorted(values) == sorted(ABLATIONS[p]))
        out.append(dict(id=f"abl_{label}{p}_accuracy_insensitive", source=src, kind="paper",
                        paper=f"accuracy of RABVI not too sensitive to {SYMBOLS[p]}",
                        measured=f"median √SKL per {SYMBOLS[p]}: {medians('sqrt_skl', '.3f')}; max/min {ratios(acc)}",
                        criterion=f"95 % bootstrap interval (over repetitions) of max/min of the medians ≤ 3{every} "
                                  "(FAIL: above 3 on one target)", passed=ok, assessable=settled and not gate,
                        note=gate or why))
        keep = [v for v in values if not _is_extreme(p, v)]
        grid_keep = [v for v in ABLATIONS[p] if not _is_extreme(p, v)]
        rt = {t: bootstrap_ratio(g, "iterations", keep) for t, g in by_target.items()}
        ok, settled, why = _every_target(rt, 3.0, set(grid_keep) <= set(keep))
        out.append(dict(id=f"abl_{label}{p}_runtime_insensitive", source=src, kind="paper",
                        paper=f"runtime of RABVI not too sensitive to {SYMBOLS[p]} (non-extreme values)",
                        measured=f"median iterations per {SYMBOLS[p]}: {medians('iterations', '.0f')}; "
                                 f"max/min over {keep}: {ratios(rt)}",
                        criterion=f"95 % bootstrap interval of max/min of the medians over the non-extreme values ≤ 3"
                                  f"{every} (FAIL: above 3 on one target)", passed=ok, assessable=settled and not gate,
                        note=gate or why))
        extreme, default = EXTREMES.get(p, (None, None))
        if extreme is None:
            continue
        ran = [v for v in extreme if v in values] if default in values else []
        cis = {(t, v): bootstrap_ratio(g, "iterations", [v], [default]) for t, g in by_target.items() for v in ran}
        longer = any(c[1] > 1 for c in cis.values())
        not_longer = bool(ran) and len(ran) == len(extreme) and all(c[2] <= 1 for c in cis.values())
        out.append(dict(id=f"abl_{label}{p}_extreme_longer", source=src, kind="paper",
                        paper=f"extreme {SYMBOLS[p]} ({', '.join(map(str, extreme))}) can lead to longer runtimes",
                        measured=(f"median iterations {medians('iterations', '.0f')}; ratio to the default " + ", ".join(
                            (f"{t} " if len(by_target) > 1 else "") + f"{v:g}: {c[0]:.2f} [{c[1]:.2f}, {c[2]:.2f}]"
                            for (t, v), c in cis.items())) if ran else "values not run",
                        criterion=f"95 % bootstrap interval of median iterations at some {SYMBOLS[p]} ∈ {extreme} over "
                                  f"those at the default {default} above 1 on some target (FAIL: every extreme run and "
                                  "every interval ≤ 1)",
                        passed=longer, assessable=(longer or not_longer) and not gate,
                        note=gate or ("" if (longer or not_longer) else "values not run" if not ran
                                      else "an interval contains 1, or an extreme value not run")))
    return out


def _every_target(cis: dict, threshold: float, complete: bool) -> tuple[bool, bool, str]:
    """`_status` over the targets' intervals {target: (point, low, high)}: FAIL when one target's interval lies above
    `threshold`, PASS when every target's lies at or below it (complete grid), else not settled (the first reason)."""
    status = {t: _status(c[1], c[2], threshold, complete) for t, c in cis.items()}
    failed = [t for t, (ok, settled, _) in status.items() if settled and not ok]
    if failed:
        return False, True, ""
    unsettled = [(t, why) for t, (ok, settled, why) in status.items() if not settled]
    if not unsettled:
        return True, True, ""
    t, why = unsettled[0]
    return False, False, (f"{t}: " if len(cis) > 1 else "") + why


def ablation_table(rows: list[dict]) -> pd.DataFrame:
    """Median (over targets and repetitions) iterations, √SKL and fraction terminated per parameter value."""
    df = pd.DataFrame(rows)
    if not len(df):
        return df
    g = df.groupby(["parameter", "value"])
    return pd.DataFrame({"median_iterations": g["iterations"].median(), "median_sqrt_skl": g["sqrt_skl"].median(),
                         "terminated": g["terminated"].mean(), "runs": g["rep"].count()}).reset_index()



# ---------------------------------------------------------------- Section 5.1: Dhaka et al.'s W = 100
def fixed_window_claims(studies: list[dict], min_targets: int = 7) -> list[dict]:
    """Section 5.1: "Dhaka et al. take the window size W = 100, but in more challenging and high-dimensional problems a
    fixed smaller W is insufficient" / "We do not use W = 100 ... because it was too small to detect convergence".
    Criterion (fixed before the run): the fixed-window rule with W = 100 misses (is not on time: early, window early,
    late or never, `classify`) on strictly more of the Fig. C.1 targets than the same rule with W = 800, on the same
    recorded runs. Assessable with the seven targets at d ≥ 10."""
    assessable = len(studies) >= min_targets and bool(studies) and min(s["d"] for s in studies) >= 10
    names = [s["name"] for s in studies]
    cls = {n: [classify(s["triggers"][n], s["k_ref"]) for s in studies]
           for n in (DETECTOR_W100, DETECTORS[2], DETECTORS[0])}
    miss = {n: sum(c != "on time" for c in v) for n, v in cls.items()}
    why = "" if assessable else f"{len(studies)} target(s) with d ≥ 10 needed: Fig. C.1 has {min_targets}"
    return [dict(id="fig6_fixed_rhat_w100_insufficient", source=f"{SRC}, Section 5.1, Figs 6, C.1", kind="paper",
                 paper="Dhaka et al. take the window size W = 100, but in more challenging and high-dimensional problems "
                       "a fixed smaller W is insufficient ... We do not use W = 100 as is done by Dhaka et al. because "
                       "it was too small to detect convergence",
                 measured=f"not on time: W = 100 {miss[DETECTOR_W100]}/{len(studies)}, W = 800 {miss[DETECTORS[2]]}/"
                          f"{len(studies)}, adaptive R̂ {miss[DETECTORS[0]]}/{len(studies)}; W = 100: "
                          + "; ".join(f"{t}: {s['triggers'][DETECTOR_W100].k} ({c})"
                                      for t, s, c in zip(names, studies, cls[DETECTOR_W100])),
                 criterion="R̂_max(100) ≤ 1.1 (checked every 100 iterations) not on time (early, window early, late or "
                           "never) on strictly more of the targets than the same rule with W = 800",
                 passed=miss[DETECTOR_W100] > miss[DETECTORS[2]], assessable=assessable,
                 note="same recorded runs and k_ref as the Fig. C.1 rows; with W = 100 'window early' coincides with "
                      "'early' (k − 100 < k_ref − 100)" + (f"; {why}" if why else ""))]


# ---------------------------------------------------------------- Fig. 6b: posteriordb mcycle_gp
def posteriordb_detection_claims(study: dict | None, min_steps: int = 5000, min_ref_steps: int = 20_000) -> list[dict]:
    """Section 5.1 on Fig. 6b's run (posteriordb mcycle_gp; `rabvi_detection_posteriordb.detection_study`), with
    `classify` against k_ref from the avgAdam reference λ_ref (not a detector). Criteria (fixed before the run):
    adaptive R̂ on time; and adaptive R̂ on time while at least 2 of the 4 competitors (SASA+, W = 800, ΔELBO, distance)
    are not. NOT ASSESSABLE when not run, when the run has fewer than `min_steps` iterations or the reference fewer than
    `min_ref_steps` per phase (the stationary level and λ_ref are then not settled), or when the run is not finite."""
    src = f"{SRC}, Section 5.1, Fig. 6b"
    paper = ("while adaptive SASA+, ΔELBO, fixed window size R̂, and the distance-based statistic approach sometimes "
             "trigger too early or too late ..., adaptive R̂ consistently triggers when the full window suggests "
             "convergence has been reached")
    if study is None:
        why, cls, name = "not run at this scale", {}, "mcycle_gp"
    else:
        name = study["name"]
        cls = {n: classify(study["triggers"][n], study["k_ref"]) for n in DETECTORS}
        why = ("the run is not finite" if study.get("nonfinite") else
               f"{study['num_steps']} iterations (< {min_steps}) or reference {study['ref_steps']} per phase "
               f"(< {min_ref_steps}): k_ref and λ_ref not settled"
               if study["num_steps"] < min_steps or study["ref_steps"] < min_ref_steps else "")
    meas = ("; ".join(f"{n}: {study['triggers'][n].k} ({c})" for n, c in cls.items())
            + f"; k_ref = {study['k_ref']} (reference spread √SKL {study['ref_spread']:.3f})") if cls else "not run"
    # "never" within a run that ends before the late threshold 3 k_ref + 1000 is censored: the rule could still fire on
    # time after the run's end, so it settles nothing (neither on time nor missed).
    censored = bool(cls) and study["num_steps"] <= 3 * study["k_ref"] + 1000
    undecided = {n for n, c in cls.items() if c == "never" and censored}
    ours = cls.get(DETECTORS[0]) == "on time"
    missed = sum(cls.get(n) != "on time" and n not in undecided for n in DETECTORS[1:]) if cls else 0
    open_ = sum(n in undecided for n in DETECTORS[1:])
    if not why and DETECTORS[0] in undecided:
        why = (f"adaptive R̂ has not fired by the run's end ({study['num_steps']} iterations ≤ 3 k_ref + 1000 = "
               f"{3 * study['k_ref'] + 1000}): it may still fire on time")
    why_vs = why or ("" if ours and (missed >= 2 or missed + open_ < 2) or not ours else
                     f"{open_} competitor(s) have not fired by the run's end (≤ 3 k_ref + 1000): 2 missed not settled")
    return [dict(id="fig6b_mcycle_adaptive_rhat_on_time", source=src, kind="paper",
                 paper="adaptive R̂ consistently triggers when the full window suggests convergence has been reached "
                       f"(Fig. 6b, {name}, d = 66)", measured=meas,
                 criterion="adaptive R̂ on time (k ≥ k_ref, window start ≥ k_ref − 100, k ≤ 3 k_ref + 1000); not "
                           "firing counts as a miss only in a run longer than 3 k_ref + 1000",
                 passed=ours, assessable=not why, note=why or "k_ref from the avgAdam reference λ_ref (γ = 0.05 then "
                                                               "0.005), defined by no detector"),
            dict(id="fig6b_mcycle_adaptive_rhat_vs_competitors", source=src, kind="paper", paper=paper,
                 measured=(f"competitors not on time: {missed}/4; " + meas) if cls else meas,
                 criterion="adaptive R̂ on time and at least 2 of the 4 competitors not on time (early, window early, "
                           "late or never; a rule that has not fired is 'never' only when the run lasts beyond "
                           "3 k_ref + 1000)", passed=ours and missed >= 2, assessable=not why_vs, note=why_vs)]


# ---------------------------------------------------------------- Section 7: overhead of the eq. 21 fit
def overhead_table(rows: list[dict]) -> pd.DataFrame:
    """Per target and fit: runs (and those with at least one eq. 21 fit), mean / min / max share of the run's CPU time
    in the eq. 21 fits (over all runs), mean fit calls,
    CPU per call and run CPU time (s)."""
    df = pd.DataFrame(rows)
    if not len(df):
        return df
    g = df.groupby(["target", "fit"], sort=False)
    return pd.DataFrame({"runs": g["seed"].count(), "runs_with_fit": g["calls"].apply(lambda c: int((c > 0).sum())),
                         "share_mean_%": 100 * g["share"].mean(),
                         "share_min_%": 100 * g["share"].min(), "share_max_%": 100 * g["share"].max(),
                         "calls_mean": g["calls"].mean(), "cpu_per_call_s": g["reg_cpu_s"].sum() / g["calls"].sum(),
                         "run_cpu_mean_s": g["run_cpu_s"].mean(),
                         "child_cpu_s": g["reg_child_cpu_s"].sum()}).reset_index()


def overhead_claims(rows: list[dict], machine: str, min_reps: int = MIN_REPS, threshold: float = 0.005) -> list[dict]:
    """Section 7, "we fit the regression model for C (and κ) in Stan, which results in extremely small computational
    overhead of less than 0.5 %", per fit ("bayes": PyMC, the like-for-like of Stan, kind `paper`; "wls": our
    stand-in, kind `beyond`). Share = CPU time in the eq. 21 fits / CPU time of the RABVI run, per run; a run with no
    eq. 21 fit (FASO failed at the first learning rate, so RABVI stopped before any regression) measures nothing about
    the fit and is left out (counted in `measured`). Criterion (fixed before the run): PASS when every run's share
    < 0.5 %, with ≥ `min_reps` runs on a Gaussian (Section 7.1) and on a posteriordb setting; FAIL when on some setting
    with ≥ `min_reps` runs every run's share is ≥ 0.5 % (settled whatever the other settings show); otherwise NOT
    ASSESSABLE (runs on both sides of 0.5 %, or too few runs). `machine` goes into `measured`."""
    from lsvi.papers.rabvi.gaussian import COVARIANCES

    df = pd.DataFrame(rows)
    out = []
    for fit, kind, label in (("bayes", "paper", "Bayesian fit (PyMC NUTS, priors eqs 23–24; the paper: Stan)"),
                             ("wls", "beyond", "weighted least squares (the project's stand-in)")):
        sub = df[df["fit"] == fit] if len(df) else df
        dropped = {t: int((s["calls"] == 0).sum()) for t, s in sub.groupby("target", sort=False)} if len(sub) else {}
        valid = sub[sub["calls"] > 0] if len(sub) else sub
        per = {t: s["share"].to_numpy() for t, s in valid.groupby("target", sort=False)} if len(valid) else {}
        enough = {t: v for t, v in per.items() if len(v) >= min_reps}
        settled_fail = any((v >= threshold).all() for v in enough.values())
        complete = (any(t in COVARIANCES for t in enough) and any(t not in COVARIANCES for t in enough)
                    and len(enough) == len(set(sub["target"])) if len(sub) else False)
        all_below = bool(per) and all((v < threshold).all() for v in per.values())
        few = [f"{t} ({len(per.get(t, []))} runs with a fit)" for t in dict.fromkeys(sub["target"]) if t not in enough] \
            if len(sub) else []
        if settled_fail:
            passed, why = False, ""
        elif all_below and complete:
            passed, why = True, ""
        else:
            passed = False
            why = ("not run" if not len(sub) else
                   f"fewer than {min_reps} runs with an eq. 21 fit: {', '.join(few)}" if few else
                   "a Gaussian (Section 7.1) and a posteriordb setting needed" if not complete else
                   "runs on both sides of 0.5 %")
        meas = "; ".join(
            f"{t} (d = {int(s['d'].iloc[0])}): share {100 * s['share'].mean():.3g} % "
            f"[{100 * s['share'].min():.3g}, {100 * s['share'].max():.3g}] over {len(s)} runs"
            + (f" ({dropped[t]} more run(s) without any fit left out)" if dropped.get(t) else "")
            + f", {s['calls'].mean():.1f} fits per run at {s['reg_cpu_s'].sum() / max(s['calls'].sum(), 1):.3g} s CPU "
            f"each, run {s['run_cpu_s'].mean():.3g} s CPU ({s['iterations'].median():.0f} iterations, median)"
            for t, s in valid.groupby("target", sort=False)) if len(valid) else "no run with an eq. 21 fit"
        out.append(dict(id=f"sec7_regression_overhead_{fit}_below_0p5pct", source=f"{SRC}, Section 7", kind=kind,
                        paper="We fit the regression model for C (and κ) in Stan, which results in extremely small "
                              "computational overhead of less than 0.5 %",
                        measured=f"{label}: {meas}; {machine}",
                        criterion="CPU (process) time in the eq. 21 fits / CPU time of the whole RABVI run < 0.5 % in "
                                  f"every run, ≥ {min_reps} runs with a fit on a Gaussian and a posteriordb setting "
                                  f"(FAIL: ≥ 0.5 % in every run of a setting with ≥ {min_reps} runs)",
                        passed=passed, assessable=not why,
                        note=why or ("eq. 26's line fit not counted; PyTensor's C compilation in child processes not in "
                                     "process time (see the table's child_cpu_s); PyMC imported and compiled once "
                                     "before the runs" if fit == "bayes" else "eq. 26's line fit not counted")))
    return out


# ---------------------------------------------------------------- Section 7.1: the accuracy threshold ξ varied
XI_MIN_VALUES, XI_MIN_D = 3, 100


def xi_table(rows: list[dict]) -> pd.DataFrame:
    """Per ξ: runs, terminated runs, median / min / max √SKL(q̂, q*) at termination and median iterations."""
    df = pd.DataFrame(rows)
    if not len(df):
        return df
    g = df.groupby("xi")
    return pd.DataFrame({"runs": g["rep"].count(), "terminated": g["terminated"].sum(),
                         "median_sqrt_skl": g["sqrt_skl"].median(), "min_sqrt_skl": g["sqrt_skl"].min(),
                         "max_sqrt_skl": g["sqrt_skl"].max(),
                         "median_iterations": g["iterations"].median()}).reset_index()


def xi_claims(rows: list[dict], d: int, min_values: int = XI_MIN_VALUES, min_d: int = XI_MIN_D) -> list[dict]:
    """The two rows of the ξ study (`rabvi_ablations.xi_study`) at dimension d; criteria in the module docstring."""
    from lsvi.papers.rabvi.gaussian import COVARIANCES

    df = pd.DataFrame(rows)
    xis = sorted(df["xi"].unique()) if len(df) else []
    targets = set(df["target"]) if len(df) else set()
    gate = (f"{len(xis)} value(s) of ξ (≥ {min_values} needed)" if len(xis) < min_values else
            f"{len(targets & set(COVARIANCES))} of the {len(COVARIANCES)} Section 7.1 targets" if not set(COVARIANCES) <= targets
            else f"d = {d} (the paper's targets are d = {min_d}; smaller targets stop at the earliest learning rate)"
            if d < min_d else "")
    src = f"{SRC}, Section 7.1 (text after Fig. 7)"
    within, fired = [], []
    for xi in xis:
        sub = df[df["xi"] == xi]
        within.append(bool(((sub["sqrt_skl"] >= xi / 2) & (sub["sqrt_skl"] <= 2 * xi)).all()))
        fired.append(bool(sub["terminated"].all()))
    meas = "; ".join(
        f"ξ = {xi:g}: √SKL median {sub['sqrt_skl'].median():.3g} [{sub['sqrt_skl'].min():.3g}, "
        f"{sub['sqrt_skl'].max():.3g}], {int(((sub['sqrt_skl'] >= xi / 2) & (sub['sqrt_skl'] <= 2 * xi)).sum())}/"
        f"{len(sub)} in [ξ/2, 2ξ], {int(sub['terminated'].sum())}/{len(sub)} terminated, median "
        f"{sub['iterations'].median():.0f} iterations" for xi, sub in ((x, df[df["xi"] == x]) for x in xis)) or "not run"
    out = [dict(id="sec71_sqrt_skl_near_xi_each_xi", source=src, kind="paper",
                paper="“by varying the accuracy threshold ξ, the quality of the final RABVI approximation q̂* also "
                      "varies such that SKL(q*, q̂*)^{1/2} ≈ ξ”",
                measured=f"d = {d}, {len(targets)} target(s): {meas}",
                criterion="for every ξ, every run terminates with √SKL in [ξ/2, 2ξ] (Fig. 5's factor 2)",
                passed=bool(xis) and all(within) and all(fired), assessable=not gate,
                note=gate or "one run per target and ξ, ε₀ = ξ (Section 6's default), as the paper's Figs 5 and 7")]
    med = df.groupby("xi")[["sqrt_skl", "iterations"]].median() if len(df) else None
    rises = bool(med is not None and (np.diff(med["sqrt_skl"].to_numpy()) > 0).all())
    fewer = bool(med is not None and (np.diff(med["iterations"].to_numpy()) <= 0).all())
    out.append(dict(id="sec71_xi_trades_accuracy_for_iterations", source=src, kind="reading",
                    paper="ξ trades accuracy for computation (Section 1, of Figure 2: it “demonstrates how the user can "
                          "trade off accuracy and computation by adjusting the accuracy threshold ξ”), read on the "
                          "Section 7.1 targets",
                    measured=("median √SKL per ξ: " + ", ".join(f"{x:g}: {v:.3g}" for x, v in med["sqrt_skl"].items())
                              + "; median iterations: " + ", ".join(f"{x:g}: {v:.0f}" for x, v in med["iterations"].items()))
                    if med is not None else "not run",
                    criterion="median √SKL over the targets strictly increasing in ξ and median iterations "
                              "non-increasing in ξ",
                    passed=rises and fewer, assessable=not gate, note=gate))
    return out
