"""Notebook 43's claim builders (lsvi.papers.rabvi.ablation_claims) on synthetic measurements: PASS, FAIL and
NOT ASSESSABLE cases of the detection comparison and of every ablation row."""
from __future__ import annotations

import numpy as np

from lsvi.core.bbvi.detection import Trigger
from lsvi.papers.rabvi import ablation_claims as rc
from lsvi.papers.rabvi import ablations as ra

ON, EARLY, LATE, NEVER = Trigger(600, 100), Trigger(400, 300), Trigger(5000, 300), Trigger(None, 0)  # k_ref = 500


def _status(row):
    return "NA" if not row["assessable"] else ("PASS" if row["passed"] else "FAIL")


def _studies(rhat, other, n=7, d=10):
    """n targets, k_ref 500; adaptive R̂'s triggers ``rhat``, every competitor's ``other`` (lists of n)."""
    return [{"name": f"t{i}", "d": d, "k_ref": 500,
             "triggers": dict(zip(ra.DETECTORS, [rhat[i]] + [other[i]] * 4))} for i in range(n)]


def test_detection_comparison_rows():
    rows = {r["id"]: r for r in rc.detection_claims(_studies([ON] * 7, [ON] * 3 + [EARLY] * 2 + [LATE, NEVER]))}
    assert set(rows) == {"fig6_adaptive_rhat_full_window_stationary", "fig6_adaptive_rhat_vs_sasa",
                         "fig6_adaptive_rhat_vs_fixed_rhat_800", "fig6_adaptive_rhat_vs_delta_elbo",
                         "fig6_adaptive_rhat_vs_distance"}
    assert all(r["kind"] == "paper" for r in rows.values())
    assert _status(rows["fig6_adaptive_rhat_full_window_stationary"]) == "PASS"
    assert _status(rows["fig6_adaptive_rhat_vs_sasa"]) == "PASS" and "7/7" in rows["fig6_adaptive_rhat_vs_sasa"]["measured"]
    # competitors on time as often as adaptive R̂ (5/7 each): the comparative statement fails
    rows = {r["id"]: r for r in rc.detection_claims(_studies([ON] * 5 + [LATE] * 2, [ON] * 5 + [EARLY] * 2))}
    assert _status(rows["fig6_adaptive_rhat_vs_distance"]) == "FAIL"
    assert _status(rows["fig6_adaptive_rhat_full_window_stationary"]) == "FAIL"
    rows = rc.detection_claims(_studies([ON] * 4 + [LATE] * 3, [ON] * 6 + [EARLY]))
    assert all(_status(r) == "FAIL" for r in rows)  # competitors more often on time


def test_detection_rows_need_the_seven_targets_at_d_10():
    assert all(_status(r) == "NA" for r in rc.detection_claims(_studies([ON] * 3, [EARLY] * 3, n=3)))
    assert all(_status(r) == "NA" for r in rc.detection_claims(_studies([ON] * 7, [EARLY] * 7, d=4)))


def _rows(param, per_value, reps=5, jitter=0.05, seed=0, targets=("identity",)):
    """per_value {value: (iterations, sqrt_skl)}: runs scattered by ±``jitter`` (log) around them, one per rep."""
    rng = np.random.default_rng(seed)
    return [{"parameter": param, "value": v, "target": t, "rep": r, "iterations": it * np.exp(jitter * rng.standard_normal()),
             "sqrt_skl": s * np.exp(jitter * rng.standard_normal()), "terminated": True, "success": True, "rates": 3}
            for v, (it, s) in per_value.items() for t in targets for r in range(reps)]


GOOD = {0.01: (40000, 0.03), 0.1: (5000, 0.04), 0.3: (3000, 0.05), 0.5: (3000, 0.06)}


def test_ablation_rows_pass():
    c = {x["id"]: x for x in rc.ablation_claims(_rows("gamma0", GOOD), 5)}
    assert all(x["kind"] == "paper" for x in c.values())
    assert _status(c["abl_gamma0_accuracy_insensitive"]) == "PASS"  # 0.06 / 0.03 = 2
    assert _status(c["abl_gamma0_runtime_insensitive"]) == "PASS"  # 5000 / 3000 without γ₀ = 0.01
    assert _status(c["abl_gamma0_extreme_longer"]) == "PASS"  # 40000 vs 3000
    assert "[" in c["abl_gamma0_accuracy_insensitive"]["measured"]  # the interval is reported


def test_ablation_rows_fail():
    bad = {0.01: (2000, 0.01), 0.1: (20000, 0.04), 0.3: (3000, 0.05), 0.5: (3000, 0.06)}
    c = {x["id"]: x for x in rc.ablation_claims(_rows("gamma0", bad), 5)}
    assert _status(c["abl_gamma0_accuracy_insensitive"]) == "FAIL"  # 6
    assert _status(c["abl_gamma0_runtime_insensitive"]) == "FAIL"  # 20000 / 3000
    assert _status(c["abl_gamma0_extreme_longer"]) == "FAIL"  # 2000 < 3000
    m = {1: (3000, 0.05), 5: (3000, 0.05), 10: (3000, 0.05), 15: (3000, 0.05), 25: (3000, 0.05)}
    m[1] = (2000, 0.05)
    m[5] = (2500, 0.05)
    c = {x["id"]: x for x in rc.ablation_claims(_rows("num_samples", m), 5)}
    assert _status(c["abl_num_samples_extreme_longer"]) == "FAIL" and _status(c["abl_num_samples_accuracy_insensitive"]) == "PASS"


def test_ablation_rows_not_assessable_with_few_repetitions():
    rows = _rows("gamma0", GOOD, reps=2)
    c = rc.ablation_claims(rows, 2)
    assert all(_status(x) == "NA" and "repetition" in x["note"] for x in c)
    bad = _rows("gamma0", {0.01: (40000, 0.01), 0.1: (5000, 0.2), 0.3: (3000, 0.05), 0.5: (3000, 0.06)}, reps=2)
    assert _status(rc.ablation_claims(bad, 2)[0]) == "NA"  # a max/min past 3 on 2 repetitions is not settled


def test_ablation_rows_not_assessable_when_the_parameter_never_binds():
    same = _rows("tau", {v: (2800, 0.054) for v in ra.ABLATIONS["tau"]}, jitter=0.0)
    c = rc.ablation_claims(same, 5)
    assert len(c) == 2 and all(_status(x) == "NA" and "never binds" in x["note"] for x in c)


def test_ablation_partial_grid_settles_a_fail_but_not_a_pass():
    partial_bad = {0.1: (5000, 0.02), 0.3: (3000, 0.05), 0.5: (3000, 0.5)}  # γ₀ = 0.01 not run
    c = {x["id"]: x for x in rc.ablation_claims(_rows("gamma0", partial_bad), 5)}
    assert _status(c["abl_gamma0_accuracy_insensitive"]) == "FAIL"  # 25 already: more values only raise max/min
    assert _status(c["abl_gamma0_runtime_insensitive"]) == "PASS"  # the non-extreme set {0.1, 0.3, 0.5} is complete
    assert _status(c["abl_gamma0_extreme_longer"]) == "NA" and c["abl_gamma0_extreme_longer"]["measured"] == "values not run"
    partial_ok = {0.1: (5000, 0.04), 0.3: (3000, 0.05), 0.5: (3000, 0.06)}
    c = {x["id"]: x for x in rc.ablation_claims(_rows("gamma0", partial_ok), 5)}
    assert _status(c["abl_gamma0_accuracy_insensitive"]) == "NA"  # γ₀ = 0.01 could still raise it


def test_ablation_interval_across_the_threshold_is_not_assessable():
    # the √SKL of γ₀ = 0.5 scattered by a factor e^{±0.8} around 3 × the others': the bootstrap interval contains 3
    rows = _rows("gamma0", {0.01: (40000, 0.02), 0.1: (5000, 0.02), 0.3: (3000, 0.02), 0.5: (3000, 0.06)}, jitter=0.0)
    rng = np.random.default_rng(3)
    for r in rows:
        if r["value"] == 0.5:
            r["sqrt_skl"] *= float(np.exp(0.8 * rng.standard_normal()))
    row = rc.ablation_claims(rows, 5)[0]
    point, lo, hi = rc.bootstrap_ratio(__import__("pandas").DataFrame(rows), "sqrt_skl", [0.01, 0.1, 0.3, 0.5])
    assert lo <= 3 < hi and _status(row) == "NA" and "contains 3" in row["note"]


def test_bootstrap_ratio_of_paired_repetitions():
    import pandas as pd

    rows = _rows("w_min", {100: (2000, 0.05), 200: (4000, 0.05), 300: (3000, 0.05), 500: (3000, 0.05)}, jitter=0.0)
    point, lo, hi = rc.bootstrap_ratio(pd.DataFrame(rows), "iterations", [100, 200, 300, 500])
    assert np.isclose(point, 2.0) and np.isclose(lo, 2.0) and np.isclose(hi, 2.0)  # no spread: a point interval
    point, lo, hi = rc.bootstrap_ratio(pd.DataFrame(rows), "iterations", [200], [100])
    assert np.isclose(point, 2.0)


def test_ablation_rows_judge_each_target():
    """C.19-C.24 draw one figure per target: "not too sensitive" holds on every target or fails on one."""
    bad = {0.01: (2000, 0.01), 0.1: (20000, 0.04), 0.3: (3000, 0.05), 0.5: (3000, 0.06)}
    both_good = _rows("gamma0", GOOD, targets=("identity", "banded"))
    c = {x["id"]: x for x in rc.ablation_claims(both_good, 5)}
    assert _status(c["abl_gamma0_accuracy_insensitive"]) == "PASS" and "banded" in c["abl_gamma0_accuracy_insensitive"]["measured"]
    assert _status(c["abl_gamma0_runtime_insensitive"]) == "PASS" and "every target" in c["abl_gamma0_runtime_insensitive"]["criterion"]
    one_bad = _rows("gamma0", GOOD, targets=("identity",)) + _rows("gamma0", bad, seed=1, targets=("banded",))
    c = {x["id"]: x for x in rc.ablation_claims(one_bad, 5)}
    assert _status(c["abl_gamma0_accuracy_insensitive"]) == "FAIL"  # 6 on banded
    assert _status(c["abl_gamma0_runtime_insensitive"]) == "FAIL"
    assert _status(c["abl_gamma0_extreme_longer"]) == "PASS"  # longer on identity: "can lead to"
    # one target settled at PASS, the other with an interval across 3: not settled, the target named
    wide = _rows("gamma0", {0.01: (40000, 0.02), 0.1: (5000, 0.02), 0.3: (3000, 0.02), 0.5: (3000, 0.06)}, jitter=0.0,
                 targets=("banded",))
    rng = np.random.default_rng(3)
    for r in wide:
        if r["value"] == 0.5:
            r["sqrt_skl"] *= float(np.exp(0.8 * rng.standard_normal()))
    row = rc.ablation_claims(_rows("gamma0", GOOD, targets=("identity",)) + wide, 5)[0]
    assert _status(row) == "NA" and row["note"].startswith("banded: ")
