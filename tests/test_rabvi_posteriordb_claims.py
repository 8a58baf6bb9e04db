"""Notebook 42's claim builders (lsvi.papers.rabvi.posteriordb_claims) on synthetic measurements: each row must
give PASS on measurements that satisfy its criterion, FAIL on others, and NOT ASSESSABLE where the builder says so."""
from __future__ import annotations

import numpy as np

from lsvi.papers.rabvi import posteriordb as pdb
from lsvi.papers.rabvi import posteriordb_study as rp
from lsvi.papers.rabvi import posteriordb_claims as pc
from lsvi.papers.rabvi.posteriordb_models import TranslationCheck


def _status(row):
    return "NA" if not row["assessable"] else ("PASS" if row["passed"] else "FAIL")


def _curve(label, its, me, stop=None, stop_me=np.nan, sd=None, stop_sd=np.nan, mmd=None, stop_mmd=np.nan):
    me = np.asarray(me, float)
    sd = me * 2 if sd is None else np.asarray(sd, float)
    return rp.Curve(label, np.asarray(its), me, sd, stop, stop_me, 2 * stop_me if np.isnan(stop_sd) else stop_sd,
                    None if mmd is None else np.asarray(mmd, float), stop_mmd)


def _study(short, curves, **kw):
    return {"short": short, "dim": 2, "curves": {c.label: c for c in curves}, **kw}


# ---- translation (kind "reference") ------------------------------------------------------------------------------

def _check(name, z, sd_rel, settings="4 chains x (1000 warmup + 1000 draws), seed 0"):
    z, sd_rel = np.asarray(z, float), np.asarray(sd_rel, float)
    passed = bool(z.max() <= 4 and np.abs(sd_rel).max() <= 0.1)
    k = len(z)
    return TranslationCheck(name, [f"x[{i}]" for i in range(k)], *[np.zeros(k)] * 6, z, sd_rel, passed, 1.0, 0, 1.0,
                            settings)


def test_documented_checks_read_the_readme_table():
    doc = pc.documented_checks()
    assert len(doc) == 16 and "dogs" not in doc
    assert doc["mcycle_gp"]["max_z"] == 4.28 and not doc["mcycle_gp"]["passed"] and doc["mcycle_gp"]["divergences"] == 109
    assert doc["arK"]["passed"] and pc._total_draws(doc["arK"]["settings"]) == 4000
    assert pc._total_draws(doc["hudson_lynx"]["settings"]) == 600 and not doc["hudson_lynx"]["passed"]


def test_translation_rows_pass_fail_and_not_assessable():
    gp = pdb.posterior("gp_regr").name
    ok = {r["id"]: r for r in pc.translation_claims({gp: _check(gp, [1.0, 2.0], [0.05, -0.02])}, documented={})}
    assert all(r["kind"] == "reference" for r in ok.values()) and len(ok) == 18
    assert _status(ok["translation_gp_regr"]) == "PASS"
    bad = pc.translation_claims({gp: _check(gp, [1.0, 4.5], [0.05, -0.02])}, documented={})
    assert _status(next(r for r in bad if r["id"] == "translation_gp_regr")) == "FAIL"
    sd_bad = pc.translation_claims({gp: _check(gp, [1.0, 1.0], [0.15, 0.0])}, documented={})
    assert _status(next(r for r in sd_bad if r["id"] == "translation_gp_regr")) == "FAIL"
    short = pc.translation_claims({gp: _check(gp, [1.0, 4.5], [0.5, 0.0], "2 chains x (300 warmup + 300 draws)")},
                                  documented={})
    assert _status(next(r for r in short if r["id"] == "translation_gp_regr")) == "NA"  # 600 draws, FAIL or not
    assert _status(ok["translation_arK"]) == "NA" and "not run" in ok["translation_arK"]["measured"]
    assert _status(ok["translation_dogs"]) == "NA" and "no reference" in ok["translation_dogs"]["measured"]


def test_translation_rows_record_the_documented_runs():
    rows = {r["id"]: r for r in pc.translation_claims({})}
    assert _status(rows["translation_mcycle_gp"]) == "FAIL" and "documented run" in rows["translation_mcycle_gp"]["measured"]
    assert "4.28" in rows["translation_mcycle_gp"]["measured"] and "divergent" in rows["translation_mcycle_gp"]["note"]
    assert _status(rows["translation_arK"]) == "PASS"
    assert _status(rows["translation_hudson_lynx"]) == "NA" and "12" in rows["translation_hudson_lynx"]["measured"]
    assert _status(rows["translation_diamonds"]) == "NA"  # documented PASS at 2 x 500 draws: the same draw rule
    assert _status(rows["translation_dogs_log"]) == "NA"


# ---- Fig. 8 ------------------------------------------------------------------------------------------------------

def _fig8(rabvi_err, adam_err):
    return {k: _study(k, [_curve("RABVI MF", [100, 200, 300], [1.0, 0.5, 0.4], 200, e),
                          _curve("Adam", [100, 200, 300], [b, b, b])]) for k, e, b in zip("abc", rabvi_err, adam_err)}


def test_fig8_rows():
    rows = {r["id"]: r for r in pc.fig8_claims(_fig8([0.5] * 3, [1.0, 0.1, 1.0]), ("Adam",), 300)}
    assert _status(rows["fig8_rabvi_stops"]) == "PASS" and rows["fig8_rabvi_stops"]["kind"] == "paper"
    assert _status(rows["fig8_rabvi_vs_adam_baselines"]) == "PASS"  # 2/3 within 1.25 x the best baseline
    rows = {r["id"]: r for r in pc.fig8_claims(_fig8([0.5] * 3, [0.1, 0.1, 1.0]), ("Adam",), 300)}
    assert _status(rows["fig8_rabvi_vs_adam_baselines"]) == "FAIL"  # 1/3
    st = _fig8([0.5] * 3, [1.0] * 3)
    st["c"]["curves"]["RABVI MF"] = _curve("RABVI MF", [100, 200, 300], [1.0, 0.5, 0.4])  # never fired
    assert _status(pc.fig8_claims(st, ("Adam",), 300)[0]) == "FAIL"
    assert _status(pc.fig8_claims({"a": _fig8([0.5], [1.0])["a"]}, ("Adam",), 300)[0]) == "NA"


# ---- Fig. 9 ------------------------------------------------------------------------------------------------------

def _fig9(final, mf_sd=2.0, fr=None):
    out = {}
    for k in "abc":
        cs = [_curve("RABVI MF", [100, 200, 300], [1.0, 0.5, final], 200, 0.5, stop_sd=mf_sd)]
        if fr is not None:
            cs.append(_curve("RABVI FR", [100, 200, 300], [1.0, 0.5, final], 200, fr[k][0], stop_sd=fr[k][1]))
        out[k] = _study(k, cs)
    return out


def test_fig9_rows():
    rows = {r["id"]: r for r in pc.fig9_claims(_fig9(0.4))}
    assert _status(rows["fig9_no_improvement_after_trigger"]) == "PASS"  # 0.5 -> 0.4
    assert _status(rows["fig9_meanfield_sd_worse_than_mean"]) == "PASS"  # sd 2.0 > mean 0.5
    assert _status(rows["fig9_fullrank_improves_some"]) == "NA"  # no full-rank run
    rows = {r["id"]: r for r in pc.fig9_claims(_fig9(0.1, mf_sd=0.2))}
    assert _status(rows["fig9_no_improvement_after_trigger"]) == "FAIL"  # 0.5 -> 0.1: a factor 5
    assert _status(rows["fig9_meanfield_sd_worse_than_mean"]) == "FAIL"
    some = {"a": (0.3, 2.0), "b": (0.5, 2.0), "c": (0.5, 2.0)}  # FR better on a only
    assert _status(pc.fig9_claims(_fig9(0.4, fr=some))[2]) == "PASS"
    allb = {k: (0.3, 2.0) for k in "abc"}  # better on all: "inconsistent" does not hold
    assert _status(pc.fig9_claims(_fig9(0.4, fr=allb))[2]) == "FAIL"
    none = {k: (0.5, 2.0) for k in "abc"}
    assert _status(pc.fig9_claims(_fig9(0.4, fr=none))[2]) == "FAIL"


# ---- Fig. C.14 ---------------------------------------------------------------------------------------------------

def _mmd_study(short, mmd, floor=1e-4, fam="MF"):
    c = _curve(f"RABVI {fam}", [100, 200, 300], [1.0, 0.5, 0.4], 200, 0.5, mmd=mmd, stop_mmd=float(mmd[1]))
    return _study(short, [c], mmd_floor=floor)


def test_figc14_rows():
    flat = {k: _mmd_study(k, [0.5, 0.1, 0.08]) for k in "abc"}
    row = pc.figc14_claims(flat, 1000)[0]
    assert _status(row) == "PASS" and row["kind"] == "paper"
    drops = {k: _mmd_study(k, [0.5, 0.1, 0.01]) for k in "abc"}  # a factor 10 in MMD² after the trigger
    assert _status(pc.figc14_claims(drops, 1000)[0]) == "FAIL"
    two_drop = dict(flat, b=drops["b"], c=drops["c"])  # 1 of 3 flat
    assert _status(pc.figc14_claims(two_drop, 1000)[0]) == "FAIL"


def test_figc14_pairs_at_the_noise_floor_are_not_counted():
    noisy = {k: _mmd_study(k, [0.5, 0.003, 0.0]) for k in "abc"}  # trigger MMD² within 4 x noise (1/n = 1e-3)
    row = pc.figc14_claims(noisy, 1000)[0]
    assert _status(row) == "NA" and "not assessable" in row["measured"]
    mixed = {"a": _mmd_study("a", [0.5, 0.1, 0.08]), "b": _mmd_study("b", [0.5, 0.1, 0.09]),
             "c": _mmd_study("c", [0.5, 0.003, 0.0]), "d": _mmd_study("d", [0.5, 0.002, 0.0])}
    assert _status(pc.figc14_claims(mixed, 1000)[0]) == "NA"  # 2 pairs above the noise: fewer than 3
    mixed["e"] = _mmd_study("e", [0.5, 0.1, 0.01])
    row = pc.figc14_claims(mixed, 1000)[0]
    assert _status(row) == "PASS" and "2/3 assessable pairs" in row["measured"]  # the floor pairs do not count
    mixed["f"] = _mmd_study("f", [0.5, 0.1, 0.01])
    assert _status(pc.figc14_claims(mixed, 1000)[0]) == "FAIL"  # 2 of 4


# ---- Fig. 2 ------------------------------------------------------------------------------------------------------

def _xi_runs(errs, stops=(1000, 2000, 3000), xis=(0.2, 0.1, 0.05)):
    """errs (seeds, len(xis)): error at the trigger of each ξ (NaN: never fired)."""
    return [{x: _curve(f"RABVI MF ξ={x:g}", [100], [1.0], None if np.isnan(e) else s, e) for x, e, s in zip(xis, row, stops)}
            for row in np.asarray(errs, float)]


def test_fig2_rows():
    rng = np.random.default_rng(0)
    good = np.exp(np.log([0.2, 0.1, 0.05]) + 0.1 * rng.standard_normal((6, 3)))
    rows = {r["id"]: r for r in pc.fig2_claims({"dogs": _xi_runs(good)})}
    assert _status(rows["fig2_xi_order_dogs"]) == "PASS" and rows["fig2_xi_order_dogs"]["kind"] == "paper"
    assert _status(rows["fig2_xi_order_nes2000"]) == "NA"  # not run
    reversed_mid = good[:, [0, 2, 1]]  # ξ = 0.05 clearly worse than ξ = 0.1
    assert _status(pc.fig2_claims({"dogs": _xi_runs(reversed_mid)}, ("dogs",))[0]) == "FAIL"
    flat = np.exp(np.log([0.2, 0.1, 0.1]) + 0.3 * rng.standard_normal((6, 3)))  # the last pair cannot be ordered
    row = pc.fig2_claims({"dogs": _xi_runs(flat)}, ("dogs",))[0]
    assert _status(row) == "NA" and "contains 0" in row["note"]


def test_fig2_needs_five_seeds_and_three_xis():
    good = np.tile([0.2, 0.1, 0.05], (6, 1))
    good = good * np.exp(0.05 * np.random.default_rng(1).standard_normal(good.shape))
    one = pc.fig2_claims({"dogs": _xi_runs(good[:1])}, ("dogs",))[0]
    assert _status(one) == "NA" and "≥ 5 seeds" in one["note"]
    bad_one = pc.fig2_claims({"dogs": _xi_runs(good[:1, ::-1])}, ("dogs",))[0]
    assert _status(bad_one) == "NA"  # a single seed settles neither way
    assert _status(pc.fig2_claims({"dogs": _xi_runs(good[:, :2], xis=(0.2, 0.1))}, ("dogs",))[0]) == "NA"
    unfired = good.copy()
    unfired[:3, 2] = np.nan  # ξ = 0.05 fired on 3 of 6 seeds only
    assert _status(pc.fig2_claims({"dogs": _xi_runs(unfired)}, ("dogs",))[0]) == "NA"


def test_xi_curves_reads_the_study_labels():
    st = _study("dogs", [_curve("RABVI MF ξ=0.2", [100], [1.0], 100, 0.3), _curve("RABVI MF ξ=0.05", [100], [1.0]),
                         _curve("Adam", [100], [1.0])])
    assert sorted(pc.xi_curves(st)) == [0.05, 0.2]


def test_t_interval():
    m, lo, hi = pc.t_interval([1.0, 2.0, 3.0])
    assert m == 2.0 and np.isclose(hi - m, 4.302652729911275 * 1.0 / np.sqrt(3))  # t_{0.975, 2} = 4.3027
