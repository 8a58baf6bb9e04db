"""The Gaussian LSVI maps of Theorem 4.1 / Theorem D.2 and their cost (notebook 13).

One function per part of the notebook; each returns a NamedTuple with what the figure needs,
a printable ``report`` and the part's ``claims`` (keyword dicts of
`lsvi.pipeline.notebook.Run.claim`, criteria as stated in the notebook's markdown):

* `quadrature_identities`: on a Gauss–Hermite rule, the γ → η maps of eq. (18) (full covariance)
  and eq. (43) (mean field) equal the OLS of f on s(X); eq. (18) as printed vs Lemma D.3 (eq. 52);
* `mc_distance`: with the same draws, Algorithm 1's OLS and Algorithm 3's (2's) η̂' differ by
  O(N^{-1/2});
* `stein_forms`: the Stein (Newton-like) forms eq. (19) and eq. (44);
* `cost_study`: time (`lsvi.core.clock`) per iteration and of the regression-to-η step in d (Section 4), with
  the asymptotic regime of `lsvi.exact.rates.regime_fit`; the paper's orders are upper bounds
  O(·), decided on an interval of the slope that covers the fit over sizes and the repeated
  interleaved rounds (`cost_claims`).
"""
from __future__ import annotations

from typing import Callable, NamedTuple


import jax
import jax.numpy as jnp
import numpy as np
import pandas as pd

from lsvi.exact import rates
from lsvi.exact.intervals import t_interval
from lsvi.exact.statistics import loglog_fit
from lsvi.core import quadrature
from lsvi.core.families.gaussian import num_params_fullcov
from lsvi.core import clock


def _claim(id, source, paper, measured, criterion, passed, note="", assessable=True, kind="paper") -> dict:
    return dict(id=id, source=source, paper=paper, measured=measured, criterion=criterion, passed=passed,
                note=note, assessable=assessable, kind=kind)


class Identities(NamedTuple):
    phi: dict  # family name -> (m,) φ(η) by the OLS on quadrature nodes
    err_fc: float  # max |eq. (18) − OLS|
    err_mf: float  # max |eq. (43) − OLS|
    report: str
    claims: list


def quadrature_identities(f: Callable, fam_fc, eta_fc, fam_mf, eta_mf, mean, cov, quad_nodes: int,
                          map_tol: float) -> Identities:
    """Theorem 4.1 / D.2 on ``quad_nodes`` Gauss–Hermite nodes per axis (`rates.quadrature_map_pair`),
    and eq. (18) as printed, vec(C⁻¹ΓC⁻ᵀ), against the corrected vec(C⁻ᵀΓC⁻¹) with C = Chol(Σ)
    (`rates.fullcov_map_variants`), the OLS on the nodes X = μ + CZ as reference. ``f`` X (N, d) ->
    (N,). Claims ``thm41-map-equals-ols``, ``thmD2-map-equals-ols``, ``thm41-eq18-as-printed``
    (expected to FAIL: a typo), ``thm41-eq18-corrected``."""
    ols_fc, wht_fc = rates.quadrature_map_pair(fam_fc, f, eta_fc, quad_nodes)
    ols_mf, wht_mf = rates.quadrature_map_pair(fam_mf, f, eta_mf, quad_nodes)
    err_fc, err_mf = float(jnp.max(jnp.abs(ols_fc - wht_fc))), float(jnp.max(jnp.abs(ols_mf - wht_mf)))
    Z, w = quadrature.gauss_hermite(len(mean), quad_nodes)
    # Nodes μ + CZ with C = Chol(Σ), the square root eq. (18) is written in, on purpose not the family's
    # sampling transform (C = L⁻ᵀ): the printed and corrected variants are compared on these same nodes.
    Xc = mean + Z @ jnp.linalg.cholesky(cov).T
    ref = quadrature.lsvi_map(fam_fc, f(Xc), Xc, w)
    variants = rates.fullcov_map_variants(Z, w, f(Xc), mean, cov)
    err_printed = float(jnp.max(jnp.abs(variants["printed"] - ref)))
    err_corrected = float(jnp.max(jnp.abs(variants["corrected"] - ref)))
    report = "\n".join([
        f"full covariance, eq. (18) (Algorithm 3's map, C = L⁻ᵀ) vs OLS: max |Δη| = {err_fc:.1e}",
        f"mean field,      eq. (43) (Algorithm 2's map)        vs OLS: max |Δη| = {err_mf:.1e}",
        f"eq. (18) as printed, vec(C⁻¹ΓC⁻ᵀ): max |Δη| = {err_printed:.3g}",
        f"corrected, vec(C⁻ᵀΓC⁻¹):           max |Δη| = {err_corrected:.1e}"])
    claims = identity_claims(err_fc, err_mf, err_printed, err_corrected, map_tol)
    return Identities({"full covariance": ols_fc, "mean field": ols_mf}, err_fc, err_mf, report, claims)


def identity_claims(err_fc: float, err_mf: float, err_printed: float, err_corrected: float, map_tol: float) -> list:
    """Claims ``thm41-map-equals-ols``, ``thmD2-map-equals-ols`` (max |Δη| ≤ ``map_tol`` on quadrature
    nodes) and the as-printed / corrected pair of eq. (18) (kind "reading"): ``thm41-eq18-as-printed``
    (expected to FAIL: a typo), ``thm41-eq18-corrected``."""
    return [
        _claim("thm41-map-equals-ols", "Thm 4.1 (eq. 18)", "γ → η map of eq. (18) = OLS of f on s(X)",
               f"max |Δη| = {err_fc:.1e} (quadrature, d = 3)", f"≤ {map_tol:g}", err_fc < map_tol,
               note="implementation lsvi.core.algorithms.lsvi_fc.gamma_to_eta, B = C⁻ᵀΓC⁻¹ with C = L⁻ᵀ"),
        _claim("thmD2-map-equals-ols", "Thm D.2 (eq. 43)", "γ → η map of eq. (43) = OLS of f on s(X)",
               f"max |Δη| = {err_mf:.1e} (quadrature, d = 3)", f"≤ {map_tol:g}", err_mf < map_tol),
        _claim("thm41-eq18-as-printed", "Thm 4.1 (eq. 18, eq. 66)", "β⁽²⁾ = vec(C⁻¹ΓC⁻ᵀ), C = Chol(Σ)",
               f"max |Δη| vs OLS = {err_printed:.3g}", f"≤ {map_tol:g}", err_printed < map_tol, kind="reading",
               note="typo: matching γᵀt(z) = βᵀs(μ + Cz) gives Γ = CᵀBC (Lemma D.3, eq. 52), i.e. B = C⁻ᵀΓC⁻¹"),
        _claim("thm41-eq18-corrected", "Lemma D.3 (eq. 52)", "β⁽²⁾ = vec(C⁻ᵀΓC⁻¹), C = Chol(Σ)",
               f"max |Δη| vs OLS = {err_corrected:.1e}", f"≤ {map_tol:g}", err_corrected < map_tol, kind="reading")]


class Distance(NamedTuple):
    stats: dict  # (family name, N) -> rates.EstimatorStats
    table: pd.DataFrame
    claims: list


def mc_distance(key, f: Callable, cases: dict, ident: Identities, n_grid, map_reps: int) -> Distance:
    """E‖η̂'₁ − η̂'₃‖ (resp. η̂'₂) from the same draws (`rates.estimator_stats`, key fold_in(key, N))
    for ``cases`` {"full covariance": (family, η), "mean field": (family, η)}; weighted log–log slope
    in N. Claims ``mc-distance-alg1-alg{3,2}`` (NOT ASSESSABLE with < 4 N)."""
    mc = {(name, n): rates.estimator_stats(jax.random.fold_in(key, n), fam, f, eta, ident.phi[name], n, map_reps)
          for name, (fam, eta) in cases.items() for n in n_grid}
    rows, claims = [], []
    for name in cases:
        dist = np.array([mc[name, n].dist for n in n_grid])
        se = np.array([mc[name, n].dist_se for n in n_grid])
        fit = loglog_fit(n_grid, dist, sigma=se / dist)
        rows += [{"family": name, "N": n, "E‖η̂₁ − η̂₃‖": mc[name, n].dist, "se": mc[name, n].dist_se,
                  "√N·E‖Δ‖": np.sqrt(n) * mc[name, n].dist} for n in n_grid]
        alg = "3" if name == "full covariance" else "2"
        claims.append(distance_claim(alg, fit, n_grid, map_reps))
    return Distance(mc, pd.DataFrame(rows), claims)


def distance_claim(alg: str, fit, n_grid, map_reps: int) -> dict:
    """Claim ``mc-distance-alg1-alg<alg>``: |slope + 1/2| ≤ 0.1 of E‖η̂'₁ − η̂'_alg‖ in N over ≥ 4 N (else
    NOT ASSESSABLE); ``fit`` a `SlopeFit`."""
    enough = len(n_grid) >= 4
    return _claim(
        f"mc-distance-alg1-alg{alg}", "Thm 4.1 / Thm D.2 (eq. 20)",
        f"Algorithm {alg}'s η̂' and Algorithm 1's OLS estimate the same φ(η)",
        f"slope of E‖Δη̂‖ in N: {fit.slope:.3f} [{fit.lo:.3f}, {fit.hi:.3f}] (N ∈ {list(n_grid)})",
        "|slope + 1/2| ≤ 0.1 over ≥ 4 N", abs(fit.slope + 0.5) <= 0.1, assessable=enough,
        note=f"{map_reps} repetitions per N, d = 3" + ("" if enough else f"; only {len(n_grid)} values of N"))


class Stein(NamedTuple):
    sin: dict  # rates.stein_discrepancy of the quadratic-plus-sin target
    logistic: pd.DataFrame  # nodes per dimension -> discrepancies of the logistic target
    report: str
    claims: list


def stein_forms(f_sin: Callable, mean, cov, quad_nodes: int, f_logistic: Callable, mean2, cov2, logistic_nodes,
                map_tol: float) -> Stein:
    """`rates.stein_discrepancy` (eq. 19, eq. 44) for the quadratic-plus-sin target (entire: exact to
    rounding) and for a logistic-regression log posterior over ``logistic_nodes``. ``f_sin``,
    ``f_logistic``: x (d,) -> scalar. Claims ``thm41-stein-form``, ``thmD2-stein-form``,
    ``thm41-stein-form-logistic`` (≤ 1e-6 at the finest rule, decreasing down to 1e-12)."""
    sin = rates.stein_discrepancy(f_sin, mean, cov, quad_nodes)
    table = pd.DataFrame({k: rates.stein_discrepancy(f_logistic, mean2, cov2, k) for k in logistic_nodes}).T
    table.index.name = "nodes per dim"
    worst = table.max(axis=1)
    fc_err, mf_err = max(sin["fc mean"], sin["fc cov"]), max(sin["mf mean"], sin["mf var"])
    report = (f"quadratic-plus-sin, d = 3: { {k: f'{v:.1e}' for k, v in sin.items()} }\n"
              + table.to_string(float_format=lambda v: f"{v:.1e}"))
    claims = stein_claims(fc_err, mf_err, worst, map_tol)
    return Stein(sin, table, report, claims)


def stein_claims(fc_err: float, mf_err: float, worst: pd.Series, map_tol: float) -> list:
    """Claims ``thm41-stein-form``, ``thmD2-stein-form`` (max |Δ| ≤ ``map_tol``, quadratic + sin) and
    ``thm41-stein-form-logistic`` (``worst`` {nodes per dim: max |Δ|}: ≤ 1e-6 at the finest rule and
    decreasing down to rounding, values ≤ 1e-12 count as equal)."""
    return [
        _claim("thm41-stein-form", "Thm 4.1 (eq. 19)", "φ(η): μ' = μ − E[∇²f]⁻¹E[∇f], Σ' = −E[∇²f]⁻¹",
               f"max |Δ| = {fc_err:.1e} (quadratic + sin, d = 3)", f"≤ {map_tol:g}", fc_err < map_tol),
        _claim("thmD2-stein-form", "Thm D.2 (eq. 44)", "mean field: μ' = μ − E[diag ∇²f]⁻¹ ⊙ E[∇f], σ'² = −1/E[diag ∇²f]",
               f"max |Δ| = {mf_err:.1e} (quadratic + sin, d = 3)", f"≤ {map_tol:g}", mf_err < map_tol),
        _claim("thm41-stein-form-logistic", "Thm 4.1 (eq. 19) / Thm D.2 (eq. 44)",
               "Stein forms for a logistic-regression log posterior",
               f"max |Δ| = {worst.iloc[-1]:.1e} at {worst.index[-1]} nodes/dim (from {worst.iloc[0]:.1e} at {worst.index[0]})",
               "≤ 1e-6 at the finest rule and decreasing down to rounding (values ≤ 1e-12 count as equal)",
               bool(worst.iloc[-1] <= 1e-6 and worst.clip(lower=1e-12).is_monotonic_decreasing),
               note="difference = quadrature error of two different integrands; d = 2")]


PREDICTED = {"alg1": "4 (N m², m ≪ N) to 6 (not assessed)", "alg1 N": "≤ 1 in N at fixed m (the m²N term)",
             "alg1 mf": "≤ 3 in d (m = 2d + 1, N = 20m: O(m³))", "alg3": "≤ 3 (O(Nd² + d³))", "alg2": "≤ 1 (O(Nd))",
             "normals": "1 (reference: N × d normals alone)", "map alg1": "≤ 3 in m (= 6 in d)", "map alg3": "≤ 3 (O(d³))"}
# (claim id, timing, source, statement, exponent of the paper's O(·), size variable)
COST_CLAIMS = (("cost-alg3-at-most-cubic", "alg3", "Sec 4 / Thm 4.1", "Algorithm 3: O(Nd² + d³) per iteration", 3.0, "d"),
               ("cost-alg2-linear", "alg2", "Sec 4 / Thm D.2", "Algorithm 2: O(d) per iteration (O(Nd) with N draws)",
                1.0, "d"),
               ("cost-map-fim-inversion", "map alg1", "Sec 4", "inverting the FIM costs O(m³) = O(d⁶)", 3.0, "m"),
               ("cost-map-eq18", "map alg3", "Thm 4.1 / Sec 4", "the γ → η map costs O(d³)", 3.0, "d"),
               ("cost-alg1-linear-in-N", "alg1 N", "Sec 3 (Alg. 1)",
                "Algorithm 1 costs O(m³ + m²N) per iteration: at fixed m, linear in N (the m²N term; the m³ term is "
                "cost-map-fim-inversion)", 1.0, "N"),
               ("cost-alg1-meanfield-cubic", "alg1 mf", "Slides (Complexity) / Sec 3 (Alg. 1)",
                "generic LSVI on the mean-field family (Algorithm 1, m = 2d + 1) costs O(m³) = O(d³) per iteration",
                3.0, "d"))
COST_TOLERANCE = 0.15  # the bound on the slope: the paper's exponent + 15 %
MIN_ROUNDS = 5  # interleaved timing rounds needed for the round-to-round interval


def interleaved_rounds(calls, repeats: int = 5, warmup: int = 1) -> np.ndarray:
    """Time (`lsvi.core.clock`) (s) of each ``(fn, args)`` of ``calls`` in ``repeats`` interleaved rounds (after
    ``warmup`` calls of each): every round times each call once, in order, so that a drifting
    load reaches every size. Returns (repeats, len(calls)); its minimum over rounds is
    `lsvi.exact.rates.interleaved_times`."""
    calls = list(calls)
    for fn, args in calls:
        for _ in range(warmup):
            jax.block_until_ready(fn(*args))
    times = np.full((repeats, len(calls)), np.inf)
    for r in range(repeats):
        for j, (fn, args) in enumerate(calls):
            t0 = clock.seconds()
            jax.block_until_ready(fn(*args))
            times[r, j] = clock.seconds() - t0
    return times


class SlopeInterval(NamedTuple):
    """The slope of a cost series over the sizes in the regime: ``slope`` (fit of the fastest
    times), ``fit_lo``/``fit_hi`` (its 95 % t-interval over the sizes), ``rounds_lo``/``rounds_hi``
    (95 % t-interval of the per-round slopes, NaN with < 2 rounds), ``lo``/``hi`` (the hull of the
    two: what the claim decides on), ``num_rounds``."""

    slope: float
    fit_lo: float
    fit_hi: float
    rounds_lo: float
    rounds_hi: float
    lo: float
    hi: float
    num_rounds: int


def slope_interval(sizes, rounds, in_regime, level: float = 0.95) -> SlopeInterval | None:
    """`SlopeInterval` of ``rounds`` (R, n) against ``sizes`` (n,) over the sizes where
    ``in_regime`` (n,) holds (None with fewer than 3 of them). Load on a shared machine only adds
    time, differently in each round: it widens the round-to-round interval instead of moving a
    single slope, so that a claim decided on the hull cannot be flipped by load, only left
    undecided."""
    sizes, rounds, mask = np.asarray(sizes, float), np.asarray(rounds, float), np.asarray(in_regime, bool)
    if mask.sum() < 3:
        return None
    fit = loglog_fit(sizes[mask], rounds.min(axis=0)[mask], level=level)
    per_round = np.array([loglog_fit(sizes[mask], r[mask]).slope for r in rounds])
    R = per_round.size
    if R >= 2:
        _, r_lo, r_hi = t_interval(per_round, level)
    else:
        r_lo = r_hi = np.nan
    lo, hi = np.nanmin([fit.lo, r_lo]), np.nanmax([fit.hi, r_hi])
    return SlopeInterval(fit.slope, fit.lo, fit.hi, float(r_lo), float(r_hi), float(lo), float(hi), R)


def cost_claims(intervals: dict, in_regime_sizes: dict, all_sizes: dict, n_cost: int, regime_factor: float,
                normals_slope: float = np.nan, alg1_n_dim: int = 8) -> list:
    """Claims ``cost-*`` of `COST_CLAIMS`. The paper's costs are upper bounds O(n^p): with
    b = p(1 + `COST_TOLERANCE`), PASS when the whole interval of the slope is ≤ b, FAIL when it is
    entirely > b; NOT ASSESSABLE when it straddles b (too wide to decide), with fewer than 4 sizes
    in the asymptotic regime or fewer than `MIN_ROUNDS` timing rounds. ``intervals``: {timing:
    `SlopeInterval` or None}; ``in_regime_sizes``, ``all_sizes``: {timing: list of sizes}."""
    claims = []
    for cid, k, src, statement, p, var in COST_CLAIMS:
        iv, inside = intervals.get(k), list(in_regime_sizes.get(k, []))
        bound = round(p * (1 + COST_TOLERANCE), 4)
        why = [] if k in in_regime_sizes else ["this run did not time the series"]
        if len(inside) < 4:
            why.append(f"fewer than 4 sizes in the asymptotic regime ({len(inside)})")
        if iv is None or iv.num_rounds < MIN_ROUNDS:
            why.append(f"fewer than {MIN_ROUNDS} timing rounds" + (f" ({iv.num_rounds})" if iv else ""))
        if iv is not None and not why and iv.lo <= bound < iv.hi:
            why.append(f"the interval [{iv.lo:.2f}, {iv.hi:.2f}] straddles {bound:g}: too wide to decide")
        measured = (f"slope in {var} {iv.slope:.2f}, 95% interval [{iv.lo:.2f}, {iv.hi:.2f}] (fit over sizes "
                    f"[{iv.fit_lo:.2f}, {iv.fit_hi:.2f}], over {iv.num_rounds} rounds [{iv.rounds_lo:.2f}, {iv.rounds_hi:.2f}]) "
                    f"over {var} ∈ {inside}" if iv is not None else
                    f"{len(inside)} size(s) in the regime ({var} ∈ {inside}) of {list(all_sizes.get(k, []))}")
        claims.append(_claim(
            cid, src, statement, measured,
            f"O(·) is an upper bound: upper end of the slope's 95% interval ≤ {bound:g} ({p:g} + {COST_TOLERANCE:.0%}) "
            f"on ≥ 4 sizes with time ≥ {regime_factor:g} × time at the smallest problem (d = 1; N = m + 1 for the N "
            f"series) (FAIL if the lower end > {bound:g}, "
            "else NOT ASSESSABLE)",
            iv is not None and iv.hi <= bound, assessable=not why,
            note=(f"d = {alg1_n_dim} (m = {num_params_fullcov(alg1_n_dim)}), N varies" if var == "N" else
                  f"N = {MF_DRAWS_PER_PARAM}m = {MF_DRAWS_PER_PARAM}(2d + 1), the normal equations' path of Algorithm 1"
                  if k == "alg1 mf" else f"N = {n_cost}")
                 + "; single-threaded; interval = hull of the fit's t-interval over sizes and the t-interval "
                 f"of the per-round slopes over ≥ {MIN_ROUNDS} interleaved rounds"
                 + (f"; drawing the N × d normals alone (an O(Nd) operation) has slope {normals_slope:.2f} over the same d"
                    if k == "alg2" and np.isfinite(normals_slope) else "")
                 + ("; " + "; ".join(why) if why else "")))
    return claims


class Cost(NamedTuple):
    grids: dict  # timing -> dimensions d
    sizes: dict  # timing -> the size a slope is taken in (m for the m × m solve, d otherwise)
    seconds: dict  # timing -> (#sizes,) fastest warm call
    reference: dict  # timing -> seconds of the same call at d = 1
    regime: dict  # timing -> rates.RegimeFit
    table: pd.DataFrame
    report: str
    claims: list
    rounds: dict  # timing -> (repeats, #sizes) the times of every interleaved round
    intervals: dict  # timing -> SlopeInterval | None


MF_DRAWS_PER_PARAM = 20  # "alg1 mf": N = 20m draws (N ∝ m, so O(m²N + m³) = O(m³))


def _series(k: str, n_cost: int, seed: int, alg1_n_dim: int):
    """(call, smallest) of timing ``k``: ``call(size)`` -> (fn, args) at a size of its grid, and the smallest problem,
    its reference. Sizes are dimensions d (`rates.cost_call` at N = ``n_cost``, reference d = 1), except for "alg1 N":
    draws N of one Algorithm 1 iteration at d = ``alg1_n_dim`` (reference N = m + 1, the least Algorithm 1 accepts),
    and "alg1 mf": dimensions d of one Algorithm 1 iteration on the mean-field family with N = 20m (reference d = 1)."""
    if k == "alg1 N":
        return (lambda N: rates.step_call("alg1", alg1_n_dim, int(N), seed)), num_params_fullcov(alg1_n_dim) + 1
    if k == "alg1 mf":  # N = 20m, the least N at which Algorithm 1 uses its normal equations (O(Nm²) + O(m³))
        return (lambda d: rates.step_call("alg1", int(d), MF_DRAWS_PER_PARAM * (2 * int(d) + 1), seed, meanfield=True)), 1
    return (lambda d: rates.cost_call(k, int(d), n_cost, seed)), 1


def cost_study(grids: dict, n_cost: int, timing_repeats: int, regime_factor: float, seed: int,
               alg1_n_dim: int = 8) -> Cost:
    """Time (`lsvi.core.clock`) of the calls of `rates.cost_call` over ``grids`` {timing: dimensions}, each series
    in interleaved rounds (`interleaved_rounds`), its reference the same call at the smallest problem (d = 1)
    timed alone; slopes on the sizes in the regime (`rates.regime_fit`) with the interval of
    `slope_interval`. The series "alg1 N" (if in ``grids``) times one Algorithm 1 iteration against N at
    d = ``alg1_n_dim`` (its reference: N = m + 1). Claims ``cost-*`` of `cost_claims`."""
    cost, ref, rounds = {}, {}, {}
    for k, grid in grids.items():
        # the reference: the same call at the smallest problem, timed alone (right after a large call a tiny one runs
        # with cold caches)
        call, smallest = _series(k, n_cost, seed, alg1_n_dim)
        fn, args = call(smallest)
        ref[k] = rates.time_call(fn, *args, repeats=4 * timing_repeats)
        rounds[k] = interleaved_rounds([call(size) for size in grid], timing_repeats)
        cost[k] = rounds[k].min(axis=0)
    sizes = {k: np.array([num_params_fullcov(dd) for dd in g]) if k == "map alg1" else np.asarray(g) for k, g in grids.items()}
    regime = {k: rates.regime_fit(sizes[k], cost[k], ref[k], regime_factor) for k in cost}
    intervals = {k: slope_interval(sizes[k], rounds[k], regime[k].in_regime) for k in cost}
    table = pd.DataFrame([{"timing": k, "grid (d; N for alg1 N)": grids[k], "seconds": np.round(cost[k], 5),
                           "time at the smallest problem": ref[k],
                           "in regime": r.in_regime.astype(int).tolist(), "fitted slope": r.fit.slope if r.fit else np.nan,
                           "95% interval": f"[{intervals[k].lo:.2f}, {intervals[k].hi:.2f}]" if intervals[k] else "",
                           "predicted": PREDICTED[k]}
                          for k, r in regime.items()])
    # the hardware's own slope for an O(Nd) operation, over the sizes where Algorithm 2 is in its regime (not a claim)
    in2 = regime["alg2"].in_regime
    normals_slope = loglog_fit(sizes["normals"][in2], cost["normals"][in2]).slope if in2.sum() >= 2 else np.nan
    claims = cost_claims(intervals, {k: sizes[k][regime[k].in_regime].tolist() for k in cost},
                         {k: sizes[k].tolist() for k in cost}, n_cost, regime_factor,
                         normals_slope if regime["alg2"].fit else np.nan, alg1_n_dim)
    same_d = sorted(set(grids["alg1"]) & set(grids["alg3"]))
    ratio = [cost["alg1"][list(grids["alg1"]).index(dd)] / cost["alg3"][list(grids["alg3"]).index(dd)] for dd in same_d]
    report = f"same d = {same_d}: time(Algorithm 1) / time(Algorithm 3) = {np.round(ratio, 2)} (N = {n_cost}; not a claim)"
    return Cost(grids, sizes, cost, ref, regime, table, report, claims, rounds, intervals)
