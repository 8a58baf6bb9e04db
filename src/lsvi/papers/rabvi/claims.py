"""Claims rows of notebook 40_rabvi_theory (RABVI paper, Welandawe et al.), criteria fixed before the runs.

Each function returns a list of keyword dicts for `Run.claim` (each with its "kind"). Criteria:

* Thm 2.1 (SGD, stationary ψ): log–log slope of |ψ̄_γ − ψ*| in [0.8, 1.2] (O(γ) bias) and of the sd of the
  ψ iterates in [0.4, 0.6] (O(γ^{1/2}) spread), over ≥ 4 learning rates;
* Prop. 4.4 (SGD, avgRMSProp, avgAdam; κ = 1): slope of δ_t vs γ_t in [1.7, 2.3], fitted on the γ_t ≤ 0.1
  whose δ_t is ≥ 3× its Monte Carlo scale, ≥ 3 such points;
* Prop. 4.5 with the captions of Figs C.6 / C.7 (RMSProp κ ≈ 0.5; Adam κ < 0.8, close to 0.6): κ̂ = slope/2 with
  its 95 % t interval; PASS when the interval meets [0.4, 0.6] (RMSProp) / [0.5, 0.7] (Adam) and lies below 0.8
  (SGD's κ = 1 excluded), FAIL when it misses the band, otherwise not settled (NOT ASSESSABLE);
* the text's Θ(|γ − γ'|^{κ/2}) (κ ≈ 1 RMSProp, κ ∈ (1, 1.6) Adam), a "reading" pair: as printed κ̂ = 2·slope, and
  the captions' reading κ_text = 2κ of eq. 20 = the slope itself; criteria κ̂ ∈ [0.8, 1.2] / [1.0, 1.6];
* Def. 4.2: numerical c* equal to √(2/(1 − e⁻¹)) within 1e-4 for d = 1..5, and the paper's 1.78 its rounding;
* Props 4.1, 4.3, 5.1: zero violations over the random pairs (≥ 1,000);
* Prop. 5.2: |χ_num(r) − χ(r)| ≤ 1e-5 on the r grid; g(0) = 4, g strictly decreasing, min/(1 + r) = g(r)
  within 1e-8; the simulated check-schedule cost ratio ≤ g(r) everywhere;
* RABVI (10-d Gaussian): the stop against the idealized rule of Section 4.2 (`stop_quality`: with the next learning
  rate run with the rule off, I = RSKL × RI from the true √SKL (eq. 13) and the observed iterations (eq. 14) is > τ at
  the stop and ≤ τ at the rate before where the rule may fire there), and √SKL(q̂, q*) at the stop in [ξ/2, 2ξ]
  (q* exact: mean 0, σ_i² = 1/[V⁻¹]_ii).

Every row carries a kind (lsvi.pipeline.claims.KINDS): "reading" for the eq. 10 and Section 4.3 pairs, "reference"
for the PyMC-ADVI stand-in and the viabel side by side, "paper" otherwise.

References
----------
M. Welandawe, M. R. Andersen, A. Vehtari, J. H. Huggins (2024). A framework for improving the
reliability of black-box variational inference. arXiv:2203.15945.
"""
from __future__ import annotations

import numpy as np

from lsvi.exact.intervals import t_interval
from lsvi.papers.rabvi.checks import theory as rt
from lsvi.papers.rabvi.gaussian import at_budget

SRC = "Welandawe et al. (RABVI)"


def _kinds(rows: list[dict]) -> list[dict]:
    """Every row with its `kind` (lsvi.pipeline.claims.KINDS: "paper" unless the builder set another) and its
    `assessable` flag (True unless set)."""
    for r in rows:
        r.setdefault("kind", "paper")
        r.setdefault("assessable", True)
    return rows


def _in(x, lo, hi):
    return x is not None and np.isfinite(x) and lo <= x <= hi


def _local(s) -> str:
    """Slopes between consecutive δ_t (large to small γ), to show pre-asymptotic curvature."""
    g1, dl = s["gamma"][1:], s["delta"]
    return ", ".join(f"{v:.2f}" for v in np.diff(np.log(dl)) / np.diff(np.log(g1)))


def stationary_claims(summaries: dict, stat_assessable: bool) -> list[dict]:
    out = []
    s = summaries["sgd"]
    enough = stat_assessable and len(s["gamma"]) >= 4
    b, sp = s["bias_fit"], s["spread_fit"]
    out.append(dict(id="thm2.1_psi_bias_O_gamma", source=f"{SRC}, Thm 2.1 eq. 5",
                    paper="stationary mean bias λ̄_γ − λ* = Aγ + o(γ) (SGD)",
                    measured=f"slope {b.slope:.3f} [{b.lo:.3f}, {b.hi:.3f}] over γ = {s['gamma'].min():.3g}..{s['gamma'].max():.3g}",
                    criterion="slope of |ψ̄_γ − ψ*| in [0.8, 1.2], ≥ 4 rates", passed=_in(b.slope, 0.8, 1.2),
                    assessable=enough, note="Gaussian target: τ̄_γ is exactly unbiased, ψ carries the O(γ) bias"))
    out.append(dict(id="thm2.1_spread_O_sqrt_gamma", source=f"{SRC}, Thm 2.1 eq. 6",
                    paper="stationary spread ∫(λ − λ*)(λ − λ*)ᵀ dμ_γ = A'γ + O(γ²)",
                    measured=f"slope {sp.slope:.3f} [{sp.lo:.3f}, {sp.hi:.3f}]",
                    criterion="slope of sd(ψ iterates) in [0.4, 0.6]", passed=_in(sp.slope, 0.4, 0.6),
                    assessable=enough))
    for name in ("sgd", "avg_rmsprop", "avg_adam"):
        s = summaries[name]
        f = s["delta_fit"]
        out.append(dict(id=f"prop4.4_slope2_{name}", source=f"{SRC}, Prop. 4.4 eq. 15 (and eq. 18 for averaged)",
                        paper="SKL(q_γ*, q_γ'*) = C(γ − γ')² + o(γ²): log–log slope 2",
                        measured=(f"slope {f.slope:.3f} [{f.lo:.3f}, {f.hi:.3f}] on {s['n_fit']} points; "
                                  f"local slopes {_local(s)}" if f is not None else f"{s['n_fit']} usable points"),
                        criterion="slope in [1.7, 2.3] on ≥ 3 points with γ_t ≤ 0.1, δ_t ≥ 3× MC scale",
                        passed=f is not None and _in(f.slope, 1.7, 2.3),
                        assessable=stat_assessable and s["n_fit"] >= 3,
                        note="local slopes that fall towards 2 as γ decreases point to o(γ²) terms, not to κ ≠ 1"))
    captions = {"rmsprop": ("Fig. C.6 caption: \u201cThe estimates suggest κ is approximately 0.5\u201d (RMSProp)", (0.4, 0.6)),
                "adam": ("Fig. C.7 caption: \u201cThe estimates suggest κ is less than 0.8, with all point estimates close "
                         "to 0.6\u201d (Adam)", (0.5, 0.7))}
    for name, main_lo, main_hi, main_txt in (("rmsprop", 0.8, 1.2, "κ ≈ 1 (Fig. C.6)"),
                                             ("adam", 1.0, 1.6, "κ ∈ (1, 1.6), point estimate 1.2 (Fig. C.7)")):
        s = summaries[name]
        f = s["delta_fit"]
        ok = stat_assessable and s["n_fit"] >= 3
        sl = f.slope if f is not None else float("nan")
        lo, hi = (f.lo / 2, f.hi / 2) if f is not None else (float("nan"), float("nan"))
        cap, (b_lo, b_hi) = captions[name]
        # κ̂ = slope/2 (eq. 20/21) with its 95 % t interval: FAIL when the interval misses the caption's band,
        # PASS when it meets the band and lies below 0.8 (told apart from SGD's κ = 1), otherwise not settled
        meets = np.isfinite(lo) and lo <= b_hi and hi >= b_lo
        settled = (not meets) or hi < 0.8
        out.append(dict(id=f"prop4.5_kappa_eq20_{name}", source=f"{SRC}, Prop. 4.5 eq. 20 / eq. 21 and {cap[:9]}",
                        paper=f"{cap}; SKL = C{{γ^κ − γ'^κ}}² + o(γ^{{2κ}}) (eq. 20): slope 2κ",
                        measured=(f"slope {sl:.3f}, κ̂ = slope/2 = {sl / 2:.3f}, 95 % CI [{lo:.3f}, {hi:.3f}]; "
                                  f"local slopes {_local(s)}"),
                        criterion=(f"95 % CI of κ̂ meets [{b_lo}, {b_hi}] and lies below 0.8 (SGD-like κ = 1 excluded): "
                                   f"PASS; CI misses [{b_lo}, {b_hi}]: FAIL; else not settled"),
                        passed=bool(meets and hi < 0.8), assessable=bool(ok and f is not None and settled),
                        note="κ̂ as the captions' κ̂ of eq. 21 (slope 2κ); the averaged optimisers' slopes (prop4.4 rows) "
                             "are the yardstick: a plain optimiser with the same slope behaves like them here, not "
                             "like the captions"))
        # the text's Θ(|γ − γ'|^{κ/2}) as printed (κ̂ = 2·slope) and as the captions read it (κ_text = 2 κ_eq20 =
        # the slope itself: κ_text ≈ 1 = 2 × 0.5 for RMSProp, 1.2 = 2 × 0.6 for Adam)
        for suffix, kh, how in (("", 2 * sl, "as printed, SKL slope κ/2: κ̂ = 2·slope"),
                                ("_captions", sl, "captions' reading, κ_text = 2κ of eq. 20 = the SKL slope: κ̂ = slope")):
            out.append(dict(id=f"prop4.5_kappa_main_text{suffix}_{name}", source=f"{SRC}, Section 4.3 text",
                            paper=f"SKL(q_γ*, q_γ'*) = Θ(|γ − γ'|^{{κ/2}}) with {main_txt}",
                            measured=f"slope {sl:.3f}, κ̂ = {kh:.3f} ({how})",
                            criterion=f"κ̂ in [{main_lo}, {main_hi}]", passed=_in(kh, main_lo, main_hi),
                            assessable=ok, kind="reading",
                            note=("as printed: the text's numbers cannot be read with the κ/2 exponent (κ ≈ 1 would be "
                                  "a slope of 0.5, outside Prop. 4.5's [1, 2]); see the captions' reading"
                                  if not suffix else
                                  "the captions' reading: the text's κ is twice eq. 20's (κ ≈ 0.5 → 1, ≈ 0.6 → 1.2), "
                                  "the SKL slope itself; it predicts slopes ≈ 1.0 / ≈ 1.2, against ≈ 1.9 measured")))
    return _kinds(out)


def bound_claims(c_num: dict, p41: dict, p43: dict, p51: dict, n_pairs: int) -> list[dict]:
    cs = rt.cstar()
    err = max(abs(v - cs) for v in c_num.values())
    out = [dict(id="def4.2_cstar", source=f"{SRC}, Def. 4.2 (text after eq. 11)",
                paper="N(m, V) is (2, 1.78²V)-exponentially controlled",
                measured=f"numerical c*(d) for d = {min(c_num)}..{max(c_num)}: max |c − √(2/(1−e⁻¹))| = {err:.1e}; c* = {cs:.4f}",
                criterion="|c_num − 1.7788| ≤ 1e-4 for every d and round(c*, 2) = 1.78",
                passed=err <= 1e-4 and round(cs, 2) == 1.78)]
    rows = [("prop4.1_eq9_mean", "Prop. 4.1 eq. 9", "‖Σ^{-1/2}(m_η − m_ζ)‖₂ ≤ ε = W_{2,Σ}", p41["mean_lhs"] <= p41["eps"] * (1 + 1e-12), ""),
            ("prop4.1_eq10_as_printed", "Prop. 4.1 eq. 10", "‖Σ⁻¹(Σ_η − Σ_ζ)‖₂ < 2ε(ϱ + ε), ϱ = min ‖Σ⁻¹Σ_·‖₂^{1/2}",
             p41["cov_lhs"] < p41["cov_rhs"], "non-symmetric Σ⁻¹(Σ_η − Σ_ζ), as printed"),
            ("prop4.1_eq10_whitened", "Prop. 4.1 eq. 10 (whitened reading)",
             "‖Σ^{-1/2}(Σ_η − Σ_ζ)Σ^{-1/2}‖₂ < 2ε(ϱ + ε), ϱ from Σ^{-1/2}Σ_·Σ^{-1/2}", p41["covw_lhs"] < p41["covw_rhs"],
             "our reading: the symmetric (whitened) matrix, as after the change of variable of Prop. 4.3's proof"),
            ("prop4.3_W_le_3plusd_K", "Prop. 4.3 eq. 12", "W_{2,Σ}(ζ, η) ≤ (3 + d) K_2(ζ|η) for η (2, Σ)-controlled",
             p43["lhs"] <= p43["rhs"], "η = N(m, V), Σ = c*²V (Def. 4.2)"),
            ("prop5.1_sigma", "Prop. 5.1 eq. 28", "|σ̂_i − σ̄_i|/σ̄_i ≤ 1.5ε", p51["sigma_ratio"] <= 1.5, ""),
            ("prop5.1_tau", "Prop. 5.1 eq. 28", "|τ̂_i − τ̄_i|/σ̄_i ≤ 1.75ε", p51["tau_ratio"] <= 1.75, "")]
    for cid, src, paper, ok, note in rows:
        n = ok.size
        out.append(dict(id=cid, source=f"{SRC}, {src}", paper=paper,
                        measured=f"{int(np.sum(~ok))} violations in {n} random cases",
                        criterion="0 violations in ≥ 1,000 random cases", passed=bool(np.all(ok)) and n >= 1000,
                        note=note, kind="reading" if cid.startswith("prop4.1_eq10") else "paper"))
    return _kinds(out)


def prop52_claims(p52: dict) -> list[dict]:
    dchi = float(np.max(np.abs(p52["chi_num"] - p52["chi"])))
    dmin = float(np.max(np.abs(p52["min_num"] / (1 + p52["r"]) - p52["g"])))
    g0 = float(rt.g(0.0))
    dec = bool(np.all(np.diff(p52["g"]) < 0))
    worst = float(np.max(p52["worst_chi"] - p52["g"]))
    return _kinds([dict(id="prop5.2_chi_is_argmin", source=f"{SRC}, Prop. 5.2 and eq. A.28",
                 paper="χ(r) = 1 + (1 + r)^{-1/2} minimises rχ + χ²/(χ − 1)",
                 measured=f"max |χ_num − χ(r)| = {dchi:.1e} over {p52['r'].size} r in [{p52['r'].min():.0e}, {p52['r'].max():.0e}]",
                 criterion="≤ 1e-5", passed=dchi <= 1e-5),
            dict(id="prop5.2_g", source=f"{SRC}, Prop. 5.2", paper="g(0) = 4, g decreasing, min cost factor g(r)",
                 measured=f"g(0) = {g0:.12g}; decreasing on the grid: {dec}; max |min/(1+r) − g(r)| = {dmin:.1e}",
                 criterion="|g(0) − 4| < 1e-12, strictly decreasing, ≤ 1e-8", passed=abs(g0 - 4) < 1e-12 and dec and dmin <= 1e-8),
            dict(id="prop5.2_schedule_cost", source=f"{SRC}, Prop. 5.2 (proof A.21–A.33)",
                 paper="checking at k_conv + χ(r)^j W_conv costs at most g(r) × OPT",
                 measured=f"max over r and W_opt/W_conv of (simulated ratio − g(r)) = {worst:.3g}; doubling (χ = 2) worst at smallest r: {p52['worst_two'][0]:.3f}",
                 criterion="simulated ratio ≤ g(r) everywhere", passed=worst <= 1e-9)])


def idealized_index(true_sqrt_skl, iterations, t: int, xi: float = 0.1, n0: int = 1000) -> float:
    """The idealized inefficiency index of Section 4.2 at epoch t, from the true √SKL(q*, q_γ) of epochs t and t + 1
    (eq. 13: RSKL = (√SKL_{t+1} + ξ)/√SKL_t) and the observed iterations of epochs t + 1 and t (eq. 14: RI =
    K_{t+1}/(K_t + N_0)); nan when epoch t + 1 is missing."""
    if t < 0 or t + 1 >= len(true_sqrt_skl):
        return float("nan")
    return float((true_sqrt_skl[t + 1] + xi) / true_sqrt_skl[t] * iterations[t + 1] / (iterations[t] + n0))


def stop_quality(res, true_sqrt_skl, iterations, xi: float = 0.1, tau: float = 1.0, n0: int = 1000) -> dict:
    """RABVI's stop against the idealized rule (Section 4.2). `true_sqrt_skl`, `iterations`: per epoch of `res`,
    followed by the next epoch run with the rule off (τ = ∞ continuation, same random numbers) when it completed.
    Returns the stop epoch t*, I_true(t*) (> τ: the next rate was not worth its cost), I_true(t* − 1) when
    t* − 1 ≥ 2 (the rule could have fired there; ≤ τ: going on was right), passed and assessable (a run that did
    not stop, or whose FASO failed, is a settled FAIL; a stop whose next rate is missing is not assessable)."""
    t = len(res.epochs) - 1
    now = idealized_index(true_sqrt_skl, iterations, t, xi, n0)
    before = idealized_index(true_sqrt_skl, iterations, t - 1, xi, n0) if t - 1 >= 2 else float("nan")
    stopped = bool(res.terminated and res.success)
    ok_now = bool(np.isfinite(now) and now > tau)
    ok_before = bool(not np.isfinite(before) or before <= tau)
    return {"t": t, "now": now, "before": before, "passed": bool(stopped and ok_now and ok_before),
            "before_any": idealized_index(true_sqrt_skl, iterations, t - 1, xi, n0),
            "assessable": bool((not stopped) or np.isfinite(now))}


def _stop_row(cid, source, res, q, true_sqrt_skl, label, tau=1.0):
    tr = " → ".join(f"{v:.3f}" for v in true_sqrt_skl)
    before = (f"{q['before']:.2f}" if np.isfinite(q["before"]) else
              f"{q.get('before_any', float('nan')):.2f} (not in the criterion: Algorithm 2 may not stop there)")
    return dict(id=cid, source=source,
                paper="RABVI terminates when the inefficiency index I = RSKL × RI exceeds τ (Algorithm 2; eq. 22 "
                      "estimates the idealized rule of eqs 13–14)",
                measured=(f"{label}terminated={res.terminated}, FASO success={res.success}, stop at rate {q['t'] + 1} "
                          f"({res.iterations} iterations); true √SKL per rate (the last one with the rule off): {tr}; "
                          f"idealized I at the stop {q['now']:.2f}, at the rate before {before}"),
                criterion=(f"rule fires, every FASO call succeeds, and the idealized I (true √SKL, observed iterations "
                           f"of the next rate run with the rule off) > τ = {tau:g} at the stop and ≤ τ at the rate before "
                           f"where the rule could fire there"),
                passed=q["passed"], assessable=q["assessable"],
                note="the estimated rule against the paper's idealized one; NOT ASSESSABLE when the next rate did not "
                     "complete within the continuation budget")


def rabvi_claims(res, sqrt_skl, xi: float, k_max: int, regression: str, nxt: dict | None = None,
                 n0: int = 1000) -> list[dict]:
    """Notebook 40's 10-d RABVI run: its stop against the idealized rule (`nxt`: the next rate run with the rule off,
    `rabvi_gaussian.next_summary`; None or unsuccessful when it did not complete) and √SKL at the stop in [ξ/2, 2ξ]."""
    sqrt_skl = [float(v) for v in np.atleast_1d(sqrt_skl)]
    iters = [float(e.iterations) for e in res.epochs]
    if nxt is not None and nxt["success"]:
        sqrt_skl, iters = sqrt_skl + [float(nxt["sqrt_skl"])], iters + [float(nxt["iterations"])]
    q = stop_quality(res, np.array(sqrt_skl), np.array(iters), xi, n0=n0)
    final = sqrt_skl[len(res.epochs) - 1]
    row = _stop_row("rabvi_terminates", f"{SRC}, Algorithm 2 and Section 4.2", res, q, sqrt_skl, f"K_max = {k_max}: ")
    row["note"] += f"; eq. 21 fitted by {regression}"
    return _kinds([row,
            dict(id="rabvi_accuracy_10d", source=f"{SRC}, Section 7.1 text (Fig. 5)",
                 paper="“SKL(q*, q̂*)^{1/2} ≈ ξ”", measured=f"√SKL at the stop = {final:.4f} (ξ = {xi:g})",
                 criterion=f"rule fires and √SKL in [ξ/2, 2ξ] = [{xi / 2:g}, {2 * xi:g}] (factor 2 either side)",
                 passed=bool(res.terminated and res.success and xi / 2 <= final <= 2 * xi),
                 note=f"one run; eq. 21 fitted by {regression}")])


# ---------------------------------------------------------------------------------------------------------------
# Notebook 41_rabvi_gaussian_targets (Section 7.1, Figs 3–5, 7, C.10, and viabel side by side). Criteria fixed
# before the runs:
#
# * per target (`rabvi_gauss_*`): the stop against the idealized rule (`stop_quality`, as in notebook 40), the next
#   rate run with the rule off (`rabvi_gaussian.next_epoch_after_stop`); NOT ASSESSABLE when it did not complete;
# * Fig. 5 "√SKL ≈ ξ at termination": every target stops with √SKL in [ξ/2, 2ξ] (one run per target, the paper's);
# * Fig. 3b: RABVI's estimate (Ĉ γ_t^{2κ̂})^{1/2} within a factor 3 of the true √SKL(λ̄_t, q*) for ≥ 75 % of the
#   (target, epoch ≥ 1) pairs;
# * Fig. 4: the eq. 26 prediction within a factor 2 of the observed next epoch's iterations for ≥ 75 % of the pairs,
#   pairs from ≥ 5 independent runs (each target's stop + continuation, and the τ = ∞ prediction runs) and ≥ 3 pairs;
# * Fig. 7 / text ("in a majority of the cases"): over every run, i.e. every (target, seed) pair (the paper shows one run
#   per target; `replicates` adds seeds), RABVI's final √SKL ≤ the best final √SKL of a baseline group (fixed rate
#   Adam / RMSProp / WAdagrad; SGD-ED; RMSProp-ED / -C); the share of runs RABVI wins with its 95 % Clopper–Pearson
#   interval: PASS when the interval lies above 1/2, FAIL when below, otherwise not settled; the baselines run for
#   K_max = 100,000; below that only a FAIL is settled (the baselines only improve with more steps, RABVI's end point
#   is fixed); the same at RABVI's own iteration budget (no such caveat); Adam-ED / Adam-C final within a factor 2
#   of RABVI's ("closely matching"), the same interval rule on the share of runs (below K_max: settled FAIL when the
#   runs with every ratio ≥ 1/2 are a share whose interval lies below 1/2);
# * "RABVI consistently outperforms ADVI" against PyMC's mean-field ADVI with every PyMC default: kind "reference"
#   (a stand-in, not the paper's baseline): RABVI ≤ ADVI (a) after `advi_steps` (assessable at ≥ 100,000) and (b) at
#   RABVI's own termination iteration, in a strict majority of ≥ 4 targets;
# * Fig. C.10 "NGD is not stable for the diagonal non-identity covariance": NGD inside RABVI on the diagonal target
#   has a failed FASO call, no termination before K_max, or a final √SKL ≥ 2ξ (assessable with ≥ 4 targets);
# * Fig. C.10, over the runs of every seed: avgRMSProp inside RABVI within a factor 2 of avgAdam's final √SKL on every
#   target (the median ratio over seeds); plain RMSProp's √SKL at its last learning rate ≥ 0.7 × at its second ("does
#   not improve as the step size decreases") on a strict majority of runs; NGD unstable on a strict majority of the
#   diagonal target's seeds;
# * Fig. C.10 "SQN does not perform well with uniform covariance" (`c10_sqn_claims`): r = final √SKL SQN / avgAdam inside
#   RABVI per (target, seed); 95 % t interval of mean log r over ≥ 5 seeds: uniform's above log 2 and at least one
#   other target's below log 2 → PASS; uniform's below log 2, or every target's above → FAIL; else not settled;
# * viabel side by side, kind "reference" (≥ 5 seeds to be assessable): mean final √SKL of ours and viabel's differ
#   by ≤ 2 combined standard errors over seeds, and the mean termination iterations within a factor 2, for FASO and
#   for RABVI; a post hoc diagnostic: the FASO iterations with viabel's ESS_min = 25 and check period 200 in ours.
# ---------------------------------------------------------------------------------------------------------------

def _final(study, opt="avg_adam"):
    return float(study["rabvi"][opt]["true"][-1])


def _with_next(r):
    """True √SKL and iterations of a RABVI run's epochs, followed by the next rate run with the rule off when that
    completed (`r["next"]`, from `rabvi_gaussian.next_epoch_after_stop`)."""
    nxt = r.get("next")
    t, it = list(r["true"]), list(r["iterations"])
    if nxt is not None and nxt["success"]:
        t, it = t + [nxt["sqrt_skl"]], it + [nxt["iterations"]]
    return np.array(t, float), np.array(it, float)


def gaussian_accuracy_claims(studies: dict, xi: float, predictions=None, min_runs: int = 5) -> list[dict]:
    """Per target, RABVI's stop against the idealized rule (`stop_quality`); Fig. 5's √SKL ≈ ξ (every target in
    [ξ/2, 2ξ]); Fig. 3b; Fig. 4 on the (prediction, observed) pairs of every independent run (the targets' next rate
    after the stop and the τ = ∞ runs of `predictions`, a list; a dict is one run), assessable with pairs from
    ≥ `min_runs` runs and ≥ 3 pairs."""
    out = []
    for name, s in studies.items():
        r = s["rabvi"]["avg_adam"]
        true, iters = _with_next(r)
        q = stop_quality(r["result"], true, iters, xi)
        out.append(_stop_row(f"rabvi_gauss_{name}", f"{SRC}, Algorithm 2, Sections 4.2 and 7.1", r["result"], q, true,
                             f"d = {s['d']}: "))
    finals = np.array([_final(s) for s in studies.values()])
    stopped = all(s["rabvi"]["avg_adam"]["result"].terminated for s in studies.values())
    out.append(dict(id="fig5_sqrt_skl_near_xi", source=f"{SRC}, Fig. 5 and Section 7.1 text",
                    paper="“SKL(q*, q̂*)^{1/2} ≈ ξ”",
                    measured="√SKL at the stop: " + ", ".join(f"{n} {v:.3f}" for n, v in zip(studies, finals)),
                    criterion=f"every target stops with √SKL in [ξ/2, 2ξ] = [{xi / 2:g}, {2 * xi:g}] (factor 2 either side)",
                    passed=bool(stopped and np.all((finals >= xi / 2) & (finals <= 2 * xi))),
                    note="one run per target, as the paper's Figs 5 and 7"))
    ratios = np.concatenate([s["rabvi"]["avg_adam"]["estimate"][1:] / s["rabvi"]["avg_adam"]["true"][1:]
                             for s in studies.values()])
    ok = np.mean((ratios >= 1 / 3) & (ratios <= 3)) if ratios.size else np.nan
    out.append(dict(id="fig3b_skl_estimate", source=f"{SRC}, Fig. 3b (eqs 17, 21)",
                    paper="estimated √SKL (Ĉ γ^{2κ̂})^{1/2} tracks the true √SKL(q_γ, q*)",
                    measured=(f"estimate/true over {ratios.size} (target, epoch ≥ 1): median {np.median(ratios):.2f}, "
                              f"range [{ratios.min():.2f}, {ratios.max():.2f}], {100 * ok:.0f} % within ×3")
                    if ratios.size else "no epoch ≥ 1",
                    criterion="≥ 75 % within a factor 3", passed=bool(ok >= 0.75), assessable=ratios.size >= 3,
                    note="the true value includes the Monte Carlo error of the iterate average"))
    if isinstance(predictions, dict):
        predictions = [predictions]
    pr, per_run = [], []
    for s in studies.values():  # the prediction made at the stop, observed by the next rate run with the rule off
        r = s["rabvi"]["avg_adam"]
        nxt, t = r.get("next"), len(r["iterations"]) - 1
        if nxt is not None and nxt["success"] and t >= 2 and np.isfinite(r["predicted_next"][t]):
            pr.append(r["predicted_next"][t] / nxt["iterations"])
            per_run.append(1)
    for r in predictions or []:
        n = 0
        for t in range(2, len(r["iterations"]) - 1):
            if r["success"][t + 1]:
                pr.append(r["predicted_next"][t] / r["iterations"][t + 1])
                n += 1
        if n:
            per_run.append(n)
    pr = np.array(pr, float)
    ok = float(np.mean((pr >= 0.5) & (pr <= 2))) if pr.size else float("nan")
    out.append(dict(id="fig4_iteration_prediction", source=f"{SRC}, Fig. 4 (eq. 26)",
                    paper="predicted iterations to convergence at the next rate match the observed ones",
                    measured=(f"predicted/observed over {pr.size} pairs from {len(per_run)} independent runs: "
                              + ", ".join(f"{v:.2f}" for v in pr)) if pr.size else "no completed epoch after a prediction",
                    criterion=f"≥ 75 % of the pairs within a factor 2; pairs from ≥ {min_runs} independent runs, ≥ 3 pairs",
                    passed=bool(pr.size and ok >= 0.75), assessable=bool(pr.size >= 3 and len(per_run) >= min_runs),
                    note="runs: each target's prediction at the stop, observed by its next rate run with the rule off, "
                         "and the τ = ∞ runs of the prediction study (one per seed); fewer than "
                         f"{min_runs} runs: NOT ASSESSABLE at this scale"))
    return _kinds(out)


def _runs(studies: dict, replicates=()) -> list[tuple[str, str, dict]]:
    """Every run as (target, label, study): the seed-0 `studies` ({target: study}), then each dict of `replicates`
    (the same targets at seeds 1, 2, ...; labels "target#k")."""
    out = [(n, n, s) for n, s in studies.items()]
    for k, rep in enumerate(replicates, 1):
        out += [(n, f"{n}#{k}", s) for n, s in rep.items()]
    return out


def share_interval(k: int, n: int, level: float = 0.95) -> tuple[float, float]:
    """Clopper–Pearson (exact binomial) `level` interval of the share k/n; (0, 1) when n = 0."""
    if n == 0:
        return 0.0, 1.0
    from scipy.stats import binomtest

    ci = binomtest(int(k), int(n)).proportion_ci(level, method="exact")
    return float(ci.low), float(ci.high)


def _majority(k: int, n: int) -> tuple[bool, bool, str]:
    """(passed, settled, text) of "a majority of the n runs", decided on the share's 95 % interval: PASS above 1/2,
    FAIL below, not settled when it straddles 1/2.

    The runs are seeds of a fixed set of targets (the paper's cases), independent given the target but with a win
    probability p_t that differs between targets. The pooled share then estimates the mean p̄ of the p_t, and the
    Clopper–Pearson interval stays valid, conservative, for it: a sum of independent Bernoulli(p_t) has tails no
    heavier than the Binomial(n, p̄) beyond its mean ± 1 (Hoeffding 1956, Thm 4), so the exact binomial test keeps its
    level (checked by simulation in tests/test_rabvi_claims_builders.py). It says nothing about targets outside the
    set; that is not what the paper states."""
    lo, hi = share_interval(k, n)
    return lo > 0.5, lo > 0.5 or hi < 0.5, f"{k}/{n} runs, share {k / n if n else float('nan'):.2f} [{lo:.2f}, {hi:.2f}]"


def _targets_won(rs, flags) -> tuple[int, int]:
    """(targets won, targets): a target is won when a strict majority of its runs (seeds) satisfy `flags`."""
    tot, hit = {}, {}
    for (t, _, _), f in zip(rs, flags):
        tot[t] = tot.get(t, 0) + 1
        hit[t] = hit.get(t, 0) + int(f)
    return sum(2 * hit[t] > tot[t] for t in tot), len(tot)


def _majority_of_cases(rs, flags, what: str = "won") -> tuple[bool, bool, str]:
    """(passed, settled, text) of "in a majority of the cases" over the runs `rs` (target × seed) of the paper's
    targets: the pooled share's interval (`_majority`) AND the targets themselves. PASS when the interval lies above
    1/2 and a strict majority of targets are won on a strict majority of their seeds; FAIL when the interval lies
    below 1/2 and no strict majority of targets is won; otherwise not settled (the two readings disagree, or the
    interval straddles 1/2)."""
    p, settled, share = _majority(int(sum(flags)), len(flags))
    won, t = _targets_won(rs, flags)
    target_major = 2 * won > t
    passed = p and target_major
    settled = (p and target_major) or (settled and not p and not target_major)
    return passed, settled, f"{share}; {won}/{t} targets {what} on a strict majority of their seeds"


def _per_target(rs, flags) -> str:
    """How many runs of each target satisfy `flags` (one bool per run of `rs`)."""
    tot, hit = {}, {}
    for (t, _, _), f in zip(rs, flags):
        tot[t] = tot.get(t, 0) + 1
        hit[t] = hit.get(t, 0) + int(f)
    return ", ".join(f"{t} {hit[t]}/{tot[t]}" for t in tot)


def fig7_claims(studies: dict, num_steps: int, paper_k_max: int = 100_000, replicates=()) -> list[dict]:
    """Fig. 7's comparisons over every run (target × seed: `studies` at seed 0, `replicates` at further seeds; the
    paper shows one run per target). "In a majority of the cases" is decided on the runs and on the targets
    (`_majority_of_cases`): PASS when the share of runs RABVI wins has its 95 % Clopper–Pearson interval above 1/2
    and a strict majority of targets are won on a strict majority of their seeds; FAIL when the interval lies below
    1/2 and no majority of targets is won; otherwise not settled. The cases are the paper's seven targets, fixed: the
    interval is about them, not about other targets.

    "final" rows: at `num_steps` < the paper's K_max = 100,000 the baselines' errors can only go down with more
    steps (fixed rate: the same stationary point averaged over a longer window; decaying schedules: smaller rates),
    while RABVI's end point does not depend on `num_steps`. A run RABVI already loses can therefore not turn into a
    win, so a FAIL is settled (the share of runs it wins, or for the Adam schedules of runs whose ratios are all
    ≥ 1/2, lies below 1/2); a PASS needs the paper's length. Assessable with ≥ 4 targets."""
    rs = _runs(studies, replicates)
    targets = len(studies)
    seeds = 1 + len(replicates)
    full = num_steps >= paper_k_max
    n = len(rs)
    out = []
    base_note = (f"{n} runs: {targets} targets x {seeds} seed(s); baselines' iterate average of the last 20 % every 200 "
                 "iterations; per target (RABVI wins / runs): ")
    groups = {"fixed_rate": ("Adam", "RMSProp", "WAdagrad"), "sgd_ed": ("SGD-ED",), "rmsprop_ed_c": ("RMSProp-ED", "RMSProp-C")}
    for gid, labels in groups.items():
        have = [lab for lab in labels if all(lab in s["baselines"] for _, _, s in rs)]
        if not have:
            continue
        for when in ("final", "budget"):
            wins, txt = [], []
            for _, label, s in rs:
                k = s["rabvi"]["avg_adam"]["result"].iterations
                best = min(float(s["baselines"][lab][1][-1]) if when == "final" else at_budget(s["baselines"][lab], k)
                           for lab in have)
                wins.append(_final(s) <= best)
                if "#" not in label:
                    txt.append(f"{label} {_final(s):.3f} vs {best:.3f}")
            passed, settled, share = _majority_of_cases(rs, wins)
            if when == "final":
                assessable = (settled and (full or not passed)) and targets >= 4
                note = ("below the paper's K_max a FAIL is settled (the baselines only improve with more steps, RABVI's "
                        "end point is fixed), a PASS is not; ")
            else:
                assessable, note = settled and targets >= 4, ""
            out.append(dict(id=f"fig7_rabvi_beats_{gid}_{when}", source=f"{SRC}, Fig. 7 / C.8 / C.9 and Section 7.1 text",
                            paper=f"“RABVI consistently outperforms […] the fixed-learning rate methods [or SGD-ED, RMSProp-ED/-C] "
                                  f"in a majority of the cases”: {'/'.join(have)}",
                            measured=(f"RABVI ≤ best of {'/'.join(have)} "
                                      f"{'after ' + str(num_steps) + ' iterations' if when == 'final' else 'at RABVI’s own termination iteration'}"
                                      f" on {share}; seed 0: " + "; ".join(txt)),
                            criterion=("95 % Clopper–Pearson interval of the share of runs RABVI wins above 1/2 and a strict "
                                       "majority of targets won on a strict majority of their seeds (interval below 1/2 "
                                       "and no such majority of targets: FAIL; otherwise not settled)" + (" (at K_max = 100,000)" if when == "final" else "")),
                            passed=bool(passed), assessable=bool(assessable),
                            note=note + base_note + _per_target(rs, wins)))
    have = [lab for lab in ("Adam-ED", "Adam-C") if all(lab in s["baselines"] for _, _, s in rs)]
    if have:
        r = np.array([[float(s["baselines"][lab][1][-1]) / _final(s) for lab in have] for _, _, s in rs])
        close = np.all((r >= 0.5) & (r <= 2), axis=1)
        possible = np.all(r >= 0.5, axis=1)
        passed, settled, share = _majority_of_cases(rs, close, "with every ratio in [1/2, 2]")
        p_passed, p_settled, _ = _majority_of_cases(rs, possible)
        if full:
            assessable = settled
        else:  # below K_max only a FAIL is settled: too few runs can still be within the band
            passed, assessable = p_passed, p_settled and not p_passed
        out.append(dict(id="fig7_adam_schedules_match_rabvi", source=f"{SRC}, Section 7.1 text",
                        paper="“Adam-ED and Adam-C closely matching RABVI’s performance”",
                        measured=(f"every ratio in [1/2, 2] on {share}; final √SKL ratio to RABVI ({'/'.join(have)}) after "
                                  f"{num_steps} iterations, seed 0: " +
                                  "; ".join(f"{lab} " + "/".join(f"{v:.2f}" for v in row)
                                            for (_, lab, _), row in zip(rs, r) if "#" not in lab)),
                        criterion=("95 % Clopper–Pearson interval of the share of runs with every ratio in [1/2, 2] above "
                                   "1/2 and a strict majority of targets with it on a strict majority of their seeds "
                                   "(at K_max = 100,000)"),
                        passed=bool(passed), assessable=bool(assessable and targets >= 4),
                        note="below the paper's K_max a ratio < 1/2 can only fall further (the schedules only improve with "
                             "more steps): FAIL settled when the share of runs with every ratio ≥ 1/2 lies below 1/2; "
                             + base_note + _per_target(rs, close)))
    return _kinds(out)


def advi_claims(studies: dict, advi_steps: int, paper_k_max: int = 100_000) -> list[dict]:
    """Fig. 7 "RABVI consistently outperforms ADVI" with PyMC's ADVI as the stand-in for Stan's (criteria above)."""
    have = {n: s for n, s in studies.items() if s.get("advi") is not None}
    out = []
    for when in ("final", "budget"):
        wins, txt = [], []
        for n, s in have.items():
            a = s["advi"]
            k = s["rabvi"]["avg_adam"]["result"].iterations
            v = float(a["sqrt_skl"][-1]) if when == "final" else at_budget((a["iterations"], a["sqrt_skl"]), k)
            wins.append(_final(s) <= v)
            txt.append(f"{n} {_final(s):.3f} vs {v:.3f}" + (f" (callback stop at {a['stop_iteration']})"
                                                            if when == "final" and a["stop_iteration"] else ""))
        out.append(dict(id=f"fig7_rabvi_beats_advi_{when}", source=f"{SRC}, Fig. 7 / C.8 and Section 7.1 text",
                        paper="RABVI consistently outperforms (Stan's) ADVI",
                        measured=(f"RABVI ≤ PyMC ADVI {'after ' + str(advi_steps) + ' iterations' if when == 'final' else 'at RABVI’s termination iteration'}"
                                  f" on {sum(wins)}/{len(wins)} targets: " + "; ".join(txt)) if wins else "ADVI not run",
                        criterion="strict majority of targets", passed=bool(wins and sum(wins) > len(wins) / 2),
                        assessable=len(wins) >= 4 and (advi_steps >= paper_k_max if when == "final" else True),
                        kind="reference",
                        note="NOT the paper's baseline, so not evidence for or against the paper (kind reference): "
                             "stand-in: PyMC 5 mean-field ADVI, every PyMC default (adagrad_window, learning rate 1e-3, "
                             "1 draw per gradient), its raw iterate; Stan's ADVI (paper) adapts its step size and stops by "
                             "ΔELBO; PyMC's stopping callback CheckParametersConvergence(every=100, tol=1e-3, absolute) is recorded "
                             "(measured text) but does not cut the curve"))
    return _kinds(out)


def c10_claims(studies: dict, replicates=()) -> list[dict]:
    """Fig. C.10 over every run (`studies` at seed 0, `replicates` at further seeds): NGD unstable on a strict
    majority of the diagonal target's seeds; avgRMSProp within a factor 2 of avgAdam on every target (median ratio
    over seeds); plain RMSProp flat (last rate ≥ 0.7 × the second) on a strict majority of runs. Each assessable with
    ≥ 4 targets."""
    rs = _runs(studies, replicates)
    seeds = 1 + len(replicates)
    out = []
    variants = (("ngd_natural", "figC10_ngd_unstable_diagonal", "paper",
                 "NGD in Khan & Lin's natural-parameter step, eq. B.14, as the paper's Appendix B.6 writes it "
                 "(lsvi.core.bbvi.optimizers.natural_parameter_step)"),
                ("ngd", "figC10_ngd_tau_psi_unstable_diagonal", "beyond",
                 "not the paper's discretisation: the mean-field natural gradient in the (τ, ψ) coordinates, "
                 "d = (σ²ĝ_τ, ĝ_ψ/2) (lsvi.core.bbvi.optimizers.ngd_meanfield), the same direction as B.14 to first "
                 "order in γ, another discrete step"))
    for key, row_id, kind, what in variants:
        if not ("diagonal" in studies and all(key in s["rabvi"] for _, _, s in rs)):
            continue
        txt, unstable = [], []
        for t, label, s in rs:
            res, v = s["rabvi"][key]["result"], _final(s, key)
            if "#" not in label:
                txt.append(f"{label}: {'ok' if res.success else 'FASO failed'}, {'stopped' if res.terminated else 'no stop'}, "
                           f"{len(res.epochs)} rates, √SKL {v:.3f}")
            if t == "diagonal":
                unstable.append((not res.success) or (not res.terminated) or not (v < 0.2))
        out.append(dict(id=row_id, source=f"{SRC}, Fig. C.10 and Section 7.1 text", kind=kind,
                        paper="NGD inside RABVI is not stable for the diagonal non-identity covariance",
                        measured=(f"diagonal target: unstable on {sum(unstable)}/{len(unstable)} seeds; NGD in RABVI, "
                                  "seed 0: " + "; ".join(txt)),
                        criterion=("diagonal target: a FASO call fails, no termination, or final √SKL ≥ 2ξ = 0.2, on a "
                                   "strict majority of its seeds"),
                        passed=bool(sum(unstable) > len(unstable) / 2), assessable=len(studies) >= 4,
                        note=f"{seeds} seed(s); {what}"))
    if all("avg_rmsprop" in s["rabvi"] for _, _, s in rs):
        by_target = {}
        for t, _, s in rs:
            by_target.setdefault(t, []).append(_final(s, "avg_rmsprop") / _final(s))
        r = np.array([np.median(v) for v in by_target.values()])
        out.append(dict(id="figC10_avgrmsprop_like_avgadam", source=f"{SRC}, Fig. C.10",
                        paper="avgAdam and avgRMSProp give a similar improvement in √SKL",
                        measured=(f"final √SKL avgRMSProp/avgAdam, median over {seeds} seed(s): "
                                  + ", ".join(f"{n} {v:.2f}" for n, v in zip(by_target, r))
                                  + ("; range over runs " + f"[{min(min(v) for v in by_target.values()):.2f}, "
                                     f"{max(max(v) for v in by_target.values()):.2f}]" if seeds > 1 else "")),
                        criterion="every target's ratio (median over seeds) in [1/2, 2]",
                        passed=bool(np.all((r >= 0.5) & (r <= 2))), assessable=len(r) >= 4))
    if all("rmsprop" in s["rabvi"] for _, _, s in rs):
        flat = []
        for _, _, s in rs:
            t = s["rabvi"]["rmsprop"]["true"]
            flat.append(len(t) >= 3 and t[-1] >= 0.7 * t[1])
        out.append(dict(id="figC10_rmsprop_no_improvement", source=f"{SRC}, Fig. C.10 and Section 7.1 text",
                        paper="RMSProp in RABVI: accuracy does not improve as the step size decreases",
                        measured=(f"flat on {sum(flat)}/{len(flat)} runs ({_per_target(rs, flat)}); √SKL per rate, seed 0: "
                                  + "; ".join(f"{n} " + "→".join(f"{v:.3f}" for v in s["rabvi"]["rmsprop"]["true"])
                                              for n, s in studies.items())),
                        criterion="last rate's √SKL ≥ 0.7 × the second rate's on a strict majority of runs (≥ 3 rates)",
                        passed=bool(sum(flat) > len(flat) / 2), assessable=len(studies) >= 4))
    return _kinds(out)


def c10_sqn_claims(studies: dict, replicates=(), factor: float = 2.0, min_seeds: int = 5,
                   clip: float = 1e3) -> list[dict]:
    """Fig. C.10 / Section 7.1: "SQN does not perform well with uniform covariance structure". Per run, r = final
    √SKL(λ̄, q*) of RABVI with SQN / that of RABVI with avgAdam on the same target and seed (the returned iterate
    average: at the trigger, or where RABVI ended without it), clipped to [1/`clip`, `clip`] (a non-finite SQN value
    counts as `clip`). Per target, the mean of log r over seeds with its 95 % t interval. "Does not perform well" on
    uniform: the interval lies above log `factor`; "comparable" on another target: its interval lies below log
    `factor`. PASS: uniform poor and at least one other target comparable (the statement is specific to uniform).
    FAIL: uniform's interval lies below log `factor` (settled: not poor), or uniform poor and every other target
    poor too (not specific). NOT ASSESSABLE: SQN or the uniform target not run, fewer than `min_seeds` seeds or fewer
    than 2 other targets, or intervals that straddle log `factor`."""
    rs = [r for r in _runs(studies, replicates) if "sqn" in r[2]["rabvi"]]  # SQN may run on some targets only
    seeds = 1 + len(replicates)
    rid, src = "figC10_sqn_poor_uniform", f"{SRC}, Fig. C.10 and Section 7.1 text; Appendix B.5"
    paper = "“SQN does not perform well with uniform covariance structure” (inside RABVI)"
    crit = (f"r = final √SKL SQN / avgAdam per (target, seed); 95 % t interval of mean log r over ≥ {min_seeds} seeds: "
            f"uniform's interval above log {factor:g} and ≥ 1 other target's interval below log {factor:g} → PASS; "
            f"uniform's below log {factor:g}, or every target's above → FAIL; otherwise not settled")
    if not rs:
        return _kinds([dict(id=rid, source=src, paper=paper, measured="SQN not run at this scale", criterion=crit,
                            passed=False, assessable=False, note="add \"sqn\" to rabvi_optimizers")])
    logr, fails, iters = {}, {}, {}
    for t, _, s in rs:
        iters.setdefault(t, []).append(np.log(s["rabvi"]["sqn"]["result"].iterations
                                              / max(s["rabvi"]["avg_adam"]["result"].iterations, 1)))
        v_sqn, v_ref = _final(s, "sqn"), _final(s)
        r = v_sqn / v_ref if np.isfinite(v_sqn) else clip
        logr.setdefault(t, []).append(float(np.log(np.clip(r, 1 / clip, clip))))
        res = s["rabvi"]["sqn"]["result"]
        fails[t] = fails.get(t, 0) + int((not res.success) or (not res.terminated))
    iv = {t: t_interval(v) for t, v in logr.items()}
    lf = np.log(factor)
    txt = "; ".join(f"{t} {np.exp(m):.2f} [{np.exp(lo):.2f}, {np.exp(hi):.2f}] ({fails[t]}/{len(logr[t])} runs "
                    f"without a stop)" for t, (m, lo, hi) in iv.items())
    measured = (f"final √SKL SQN/avgAdam, geometric mean over {seeds} seed(s) with 95 % t interval: {txt}; SQN √SKL "
                "seed 0: " + ", ".join(f"{n} {_final(s, 'sqn'):.3f} (avgAdam {_final(s):.3f})" for n, s in studies.items()
                                         if "sqn" in s["rabvi"])
                + "; diagnostic, not in the criterion: iterations SQN/avgAdam, geometric mean: "
                + ", ".join(f"{t} {np.exp(np.mean(v)):.1f}" for t, v in iters.items()))
    others = [t for t in iv if t != "uniform"]
    if "uniform" not in iv or seeds < min_seeds or len(others) < 2:
        return _kinds([dict(id=rid, source=src, paper=paper, measured=measured, criterion=crit, passed=False,
                            assessable=False, note=f"needs the uniform target, ≥ 2 others and ≥ {min_seeds} seeds")])
    uni_poor, uni_ok = iv["uniform"][1] > lf, iv["uniform"][2] < lf
    comparable = [t for t in others if iv[t][2] < lf]
    all_poor = all(iv[t][1] > lf for t in others)
    passed = bool(uni_poor and comparable)
    failed = bool(uni_ok or (uni_poor and all_poor))
    note = ("SQN: lsvi.core.bbvi.sqn (L-BFGS two-loop of optax, m = 10 pairs, pairs every B = 20 iterations from "
            "block averages, y from 100 independent draws, avgRMSProp direction before the first pair, κ estimated; "
            "constants ours, the paper states none); "
            f"comparable on: {', '.join(comparable) or 'none'}")
    return _kinds([dict(id=rid, source=src, paper=paper, measured=measured, criterion=crit, passed=passed,
                        assessable=passed or failed, note=note)])


def viabel_claims(cmp: dict, target: str, d: int) -> list[dict]:
    out = []
    for m, label in (("faso", "FASO (avgAdam, γ = 0.01, ε = 0.1)"), ("rabvi", "RABVI / RAABBVI (paper defaults)")):
        a, b = cmp[f"{m}_ours"], cmp[f"{m}_viabel"]
        n = a["sqrt_skl"].size
        if n == 0:
            for what in ("accuracy", "iterations"):
                out.append(dict(id=f"viabel_{m}_{what}", source=f"{SRC}; viabel 0.5.1 (authors' package)",
                                paper=f"{label}: our implementation matches the reference package", measured="not run",
                                criterion="as at cpu scale", passed=False, assessable=False,
                                note="not run at this scale (time)", kind="reference"))
            continue
        se = np.sqrt((a["sqrt_skl"].var(ddof=1) + b["sqrt_skl"].var(ddof=1)) / n) if n > 1 else float("nan")
        diff = abs(a["sqrt_skl"].mean() - b["sqrt_skl"].mean())
        txt = (f"{target}, d = {d}, {n} seeds: √SKL ours {a['sqrt_skl'].mean():.4f} ± {a['sqrt_skl'].std():.4f}, viabel "
               f"{b['sqrt_skl'].mean():.4f} ± {b['sqrt_skl'].std():.4f}")
        out.append(dict(id=f"viabel_{m}_accuracy", source=f"{SRC}; viabel 0.5.1 (authors' package)",
                        paper=f"{label}: our implementation reproduces the reference package's accuracy",
                        measured=f"{txt}; |Δ| = {diff:.4f}, 2 SE = {2 * se:.4f}", criterion="|Δ mean √SKL| ≤ 2 combined SE",
                        passed=bool(diff <= 2 * se), assessable=n >= 5, kind="reference"))
        ri = a["iterations"].mean() / b["iterations"].mean()
        out.append(dict(id=f"viabel_{m}_iterations", source=f"{SRC}; viabel 0.5.1 (authors' package)",
                        paper=f"{label}: same termination iteration as the reference package",
                        measured=(f"{target}, d = {d}: iterations ours {a['iterations'].mean():.0f} "
                                  f"[{a['iterations'].min():.0f}, {a['iterations'].max():.0f}], viabel "
                                  f"{b['iterations'].mean():.0f} [{b['iterations'].min():.0f}, {b['iterations'].max():.0f}]"
                                  f" (ratio {ri:.2f}); CPU s ours {a['seconds'].mean():.2f}, viabel {b['seconds'].mean():.2f}"),
                        criterion="mean iterations within a factor 2", passed=bool(0.5 <= ri <= 2), assessable=n >= 5,
                        kind="reference", note="same machine, same run; ours timed after JAX compilation; the rules differ in "
                             "documented details (lsvi.baselines.viabel_faso.VIABEL_DIFFERENCES)"))
    a, b = cmp["faso_ours_viabel_constants"], cmp["faso_viabel"]
    n = a["iterations"].size
    ri = a["iterations"].mean() / b["iterations"].mean() if n else float("nan")
    out.append(dict(id="viabel_faso_iterations_viabel_constants", source=f"{SRC}; viabel 0.5.1 (authors' package)",
                    paper="diagnostic, not a statement of the paper (added after viabel_faso_iterations failed): how much "
                          "of the FASO iteration gap do viabel's two constants (ESS_min = 25, R̂ check every 200) explain",
                    measured=(f"{target}, d = {d}, {n} seeds: iterations ours {a['iterations'].mean():.0f}, viabel "
                              f"{b['iterations'].mean():.0f} (ratio {ri:.2f}); √SKL ours {a['sqrt_skl'].mean():.4f}, "
                              f"viabel {b['sqrt_skl'].mean():.4f}") if n else "not run",
                    criterion="mean iterations within a factor 2", passed=bool(n and 0.5 <= ri <= 2), assessable=n >= 5,
                    kind="reference",
                    note="post hoc diagnostic (criterion chosen after viabel_faso_iterations failed), not evidence; "
                         "remaining differences: mean (ours, as Algorithm 1) vs max (viabel) MCSE rule, ArviZ vs "
                         "viabel's ESS estimator"))
    return _kinds(out)
