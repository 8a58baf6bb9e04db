"""Claims of notebook 44 (beyond the paper, issue 13; every row of kind "beyond"): does RABVI's termination rule stop
LSVI at a sensible point, and how does its KL compare with the paper's fixed T?

Criteria, fixed before any run (KL up to log Z, common random numbers; TOL nats). One rule decides whether a row is
settled, the same for a PASS and a FAIL:

* Whether the rule fires is no row of its own: on Pima it fires at the earliest epoch allowed (t = 2) whenever three
  FASO calls succeed, because RSKL^ = ρ + ξ/(Ĉ^½ γ) ≫ 1 once successive averages differ by much less than ξ (a
  property of the rule's formula, tested in tests/test_lsvi_rabvi_stopping.py). A rule that did not fire within
  k_max is a FAIL of the rows below only when k_max ≥ `K_MAX_PAPER` = 100,000 (the RABVI paper's K_max), else NOT
  ASSESSABLE (a longer run could still fire; a stop within k_max is settled: FASO's budget only caps a call, so a
  larger k_max replays the same epochs up to it).
* ``stop-sensible-<fam>`` (the stop's quality): continuing past the stop does not help: no later average of the
  continued run (τ = ∞) — a successful epoch's, or that of the epoch the budget ended after ≥ W_min iterations —
  has a KL below L_stop − TOL. Settled when at least one such later average exists (else NOT ASSESSABLE).
* ``stop-vs-fixed-<fam>-<variant>``: L_stop ≤ mean L_fixed + TOL *and* fewer target evaluations than the fixed-T
  runs' N × T, against the fixed-T runs at the paper's N and T (FC: N ≥ 10⁵, T = 100; MF: N ≥ 10⁴, T = 100; else NOT
  ASSESSABLE). The evaluations part is exact: more evaluations settle a FAIL. The KL part rests on ≥ `MIN_REPS` = 5
  fixed-T repetitions and the two-sided 95 % t interval [lo, hi] of their mean: PASS when L_stop ≤ lo + TOL, FAIL
  when L_stop > hi + TOL, NOT ASSESSABLE when it lies between or with fewer repetitions.
* Rows of another dataset than Pima (Sonar) carry its name as a suffix, ``stop-sensible-<fam>-sonar`` etc., with the
  same criteria; the paper's N and T are the same for Sonar (Table 3: Alg. 3, N = 10⁵, T = 100).
* ``skl-slope-<fam>``: the log–log slope of SKL(λ̄_{t−1}, λ̄_t) vs γ_t is in [1.5, 2.5] (Prop. 4.4,
  eq. 21 with κ = 1). NOT ASSESSABLE with fewer than 3 points or γ spanning less than a factor 4.
"""
from __future__ import annotations

import numpy as np

from lsvi.exact.intervals import t_interval

TOL = 0.05  # nats: the band of notebook 20's convergence claims
SOURCE = "beyond the paper (issue 13): RABVI Alg. 2 termination rule on LSVI"
PAPER_N = {"meanfield": 10_000, "fullcov": 100_000}
PAPER_T = 100
K_MAX_PAPER = 100_000  # RABVI paper, Section 7: K_max of its runs
MIN_REPS = 5
KIND = "beyond"


DATASET_NAMES = {"pima": "Pima", "sonar": "Sonar"}


def stopping_claims(fam: str, label: str, stop, slope, kl_epochs, fixed: dict, *, w_min: int, k_max: int,
                    note: str = "", dataset: str = "pima") -> list[dict]:
    """Claim rows for one family on one dataset ("pima": ids without suffix; else ids ending in -<dataset>).
    stop: `StopResult`; slope: `skl_slope`'s (slope, points, γ ratio); kl_epochs (E,): KL of every epoch's
    average; fixed {variant: (N, T, evaluations, L_fixed (R,))}."""
    name = DATASET_NAMES.get(dataset, dataset)
    rows = _rows(fam, label, stop, slope, kl_epochs, fixed, w_min=w_min, k_max=k_max, note=note, data_name=name)
    if dataset != "pima":
        rows = [dict(r, id=f"{r['id']}-{dataset}", paper=r["paper"] if name in r["paper"] else f"{r['paper']} ({name})")
                for r in rows]
    return rows


def _later(stop, kl_epochs, w_min):
    """Indices of the averages after the stop: successful epochs, and the budget-ended last one if it ran ≥ w_min."""
    ep = stop.result.epochs
    return [t for t, e in enumerate(ep) if t > stop.stop_epoch and np.isfinite(kl_epochs[t])
            and (e.success or (t == len(ep) - 1 and e.iterations >= w_min))]


def _rows(fam, label, stop, slope, kl_epochs, fixed, *, w_min, k_max, note, data_name):
    rows = []
    fired = stop.stop_epoch is not None
    budget_full = k_max >= K_MAX_PAPER
    no_fire = (f"the rule did not fire in {stop.result.iterations} iterations ({len(stop.result.epochs)} epochs, "
               f"k_max {k_max})")
    no_fire_note = ("" if budget_full else f"k_max {k_max} < RABVI's K_max {K_MAX_PAPER:,}: a longer run could still fire")
    sens = dict(id=f"stop-sensible-{fam}", source=SOURCE, paper=f"the stop of {label} is not premature", kind=KIND,
                criterion=(f"no later average of the continued run (successful epoch, or the budget-ended one after ≥ "
                           f"W_min iterations) below L_stop − {TOL:g} nats; settled with ≥ 1 such average; the rule not "
                           f"firing within k_max ≥ {K_MAX_PAPER:,}: FAIL"))
    if fired:
        k_stop = float(kl_epochs[stop.stop_epoch])
        later = _later(stop, kl_epochs, w_min)
        best_later = min((float(kl_epochs[t]) for t in later), default=float("nan"))
        ep = stop.result.epochs
        desc = ", ".join(f"epoch {t} ({'converged' if ep[t].success else 'budget-ended'}, {ep[t].iterations} it.)"
                         for t in later)
        rows.append(dict(sens, measured=(f"stopped at epoch {stop.stop_epoch} (γ = {ep[stop.stop_epoch].gamma:g}, "
                                         f"{stop.iterations} iterations, {stop.evaluations:.3g} evaluations); L_stop = "
                                         f"{k_stop:.4f}; best later average {best_later:.4f} ({desc or 'none'})"),
                         passed=bool(later) and best_later >= k_stop - TOL, assessable=bool(later),
                         note=_join(note, "" if later else "no later average: k_max ends inside the next epoch")))
    else:
        rows.append(dict(sens, measured=no_fire, passed=False, assessable=budget_full, note=_join(note, no_fire_note)))
    for variant, (N, T, evals, L_fixed) in fixed.items():
        L_fixed = np.asarray(L_fixed, float)
        paper_scale = N >= PAPER_N[fam] and T == PAPER_T
        row = dict(id=f"stop-vs-fixed-{fam}-{variant}", source=SOURCE, kind=KIND,
                   paper=f"RABVI-stopped {label} is within {TOL:g} nats of the fixed-T KL ({variant}: N = {N}, T = {T}, "
                         f"Table 3 schedule 2) at fewer target evaluations",
                   criterion=(f"evaluations_stop < N·T and L_stop ≤ mean L_fixed + {TOL:g}, by the 95 % t interval "
                              f"[lo, hi] of mean L_fixed over ≥ {MIN_REPS} repetitions at the paper's N, T (L_stop ≤ "
                              f"lo + {TOL:g}: PASS; > hi + {TOL:g}: FAIL; between: not settled)"))
        if not fired:
            rows.append(dict(row, measured=no_fire, passed=False, assessable=budget_full and paper_scale,
                             note=_join(note, no_fire_note)))
            continue
        k_stop = float(kl_epochs[stop.stop_epoch])
        cheaper = stop.evaluations < evals
        if L_fixed.size >= 2:
            m, lo, hi = t_interval(L_fixed)
            iv = f" [{lo - m:+.4f}, {hi - m:+.4f}]"
        else:
            m, lo, hi, iv = float(L_fixed.mean()), np.nan, np.nan, ""
        if not cheaper:
            st, why = False, ""
        elif L_fixed.size < MIN_REPS:
            st, why = None, f"{L_fixed.size} fixed-T repetition(s) < {MIN_REPS}"
        elif k_stop <= lo + TOL:
            st, why = True, ""
        elif k_stop > hi + TOL:
            st, why = False, ""
        else:
            st, why = None, "L_stop − TOL lies inside the fixed-T runs' 95 % interval"
        if not paper_scale:
            why = _join(why, f"fixed-T runs not at the paper's N, T (N = {N}, T = {T})")
        rows.append(dict(row, measured=(f"L_stop − mean L_fixed = {k_stop - m:+.4f} nats (95 % t interval of the mean"
                                        f"{iv or ': none'}, {L_fixed.size} runs); evaluations {stop.evaluations:.3g} vs "
                                        f"{evals:.3g}"),
                         passed=bool(st), assessable=bool(paper_scale and st is not None), note=_join(note, why)))
    s, n, ratio = slope
    rows.append(dict(id=f"skl-slope-{fam}", source=SOURCE + "; RABVI Prop. 4.4 / eq. 21", kind=KIND,
                     paper=f"SKL between successive averages ∝ γ² (κ = 1) for {label}",
                     measured=f"slope {s:.2f} over {n} points (γ ratio {ratio:g})", criterion="log–log slope in [1.5, 2.5]",
                     passed=bool(np.isfinite(s) and 1.5 <= s <= 2.5), assessable=n >= 3 and ratio >= 4, note=note))
    return rows


def _join(*parts) -> str:
    return "; ".join(p for p in parts if p)
