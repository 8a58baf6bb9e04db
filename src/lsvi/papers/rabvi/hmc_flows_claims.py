"""Claims rows of notebook 45_rabvi_hmc_flows (RABVI paper, Welandawe et al., Section 7.2 "Comparison to MCMC",
Figs 10, C.15-C.18), criteria fixed before the runs. Input: `rabvi_hmc_flows.comparison_table` (every method at
the common cost C*, one row per posterior, seed and method). Each function returns keyword dicts for `Run.claim`
(every row of kind "paper": the four statements are the paper's); `notebook_claims` is the notebook's entry point.

Which runs count (fixed before the runs, the same for a PASS and a FAIL):

* **A diverged or missing run is no evidence.** A method's run at C* is *diverged* when its relative mean error is
  not finite or exceeds that of the common start q⁽⁰⁾ = N(0, I) (`start_mean_err`: it moved away from the
  posterior); *missing* when the method was not run (NaN) or had no point by C* (``before_first``). Such runs are left
  out; a statement that needs them is NOT ASSESSABLE unless the valid runs already settle it.
* **Comparisons rest on seeds.** A statement comparing methods (Fig. 10's means and sds, C.17's MMD) is decided on
  ≥ `MIN_SEEDS` = 5 independent seeds (each seed: every method's keys, HMC's chain, the q draws) by a two-sided 95 %
  t interval of the per-seed paired difference (log ratio of errors; difference of MMD²): PASS when the interval lies
  on the statement's side of the threshold, FAIL when it lies on the other side, NOT ASSESSABLE when it straddles it
  or fewer than 5 valid seeds exist (the smoke scale runs one seed: these rows are NOT ASSESSABLE there; cpu and paper
  run five).
* **C.18's rows are thresholds on one method each** (not comparisons): decided on the mean over the valid seeds
  (one seed suffices); a value already past the threshold settles a FAIL even when the other method is missing.
* **Size**: ``big_enough`` (RABVI's k_max ≥ 10,000 and HMC ≥ 1,000 warmup + 2,000 draws) for every row; the overall
  rows need ≥ 3 posteriors whose row is settled (PASS or FAIL).

Statements and criteria:

* Fig. 10 / C.15-C.16 "RABVI tends to provide similar or better posterior mean estimates (the exceptions are
  gp_pois_regr, hudson_lynx, and sblrc)". "Similar or better" is fixed as: RABVI MF's relative mean error at C*
  ≤ `RATIO` = 1.5 × HMC's (an equivalence margin, the definition of "similar"; the seed-to-seed scatter is the
  interval's job). Per posterior, log(MF/HMC) interval ≤ log 1.5 (for the three exceptions > log 1.5); overall:
  ≥ 2/3 of the settled non-exception posteriors.
* Fig. 10 "the RABVI standard deviation estimates tend to be less accurate even when using the full-rank Gaussian
  family": per posterior, log(MF/HMC) and log(FR/HMC) sd-error intervals both > 0; overall: strict majority.
* C.17 "in terms of the MMD, the HMC approximation is closer to the target than BBVI": per posterior and VI method
  (RABVI MF, RABVI FR, FASO flow), the interval of MMD²_VI − MMD²_HMC > 0; a pair whose mean |MMD²| are both within
  the estimator's noise (`mmd_noise`: as notebook 42, max(|MMD²| of held-out reference draws, 1/n)) cannot be
  decided and is NOT ASSESSABLE. The row: PASS when every pair is PASS, FAIL when any pair is FAIL; overall: strict
  majority.
* C.18 "HMC and real-NVP flows do not undercover the posterior. However, the mean-field and full-rank Gaussian
  families do": "undercovers" is a mean (over coordinates) 95 % under-coverage max(0, 0.95 − c_i) above `UNDERCOVER`
  = 0.02. Per posterior: HMC ≤ 0.02 and FASO flow ≤ 0.02; overall: RABVI MF > 0.02 on a strict majority of the
  posteriors with a valid run, RABVI FR likewise.

References
----------
M. Welandawe, M. R. Andersen, A. Vehtari, J. H. Huggins (2024). A framework for improving the reliability of
black-box variational inference. JMLR 25. (Section 7.2, Figs 10, C.15-C.18.)
"""
from __future__ import annotations

import numpy as np

from lsvi.exact.intervals import t_interval

SRC = "Welandawe et al. (RABVI), Section 7.2 (Comparison to MCMC)"
EXCEPTIONS = ("gp_pois_regr", "hudson_lynx", "sblrc")
RATIO = 1.5
UNDERCOVER = 0.02
MIN_SEEDS = 5
LEVEL = 0.95
VI = ("RABVI MF", "RABVI FR", "FASO flow")
SIZE_NOTE = "runs smaller than the statement's (RABVI k_max ≥ 10,000, HMC ≥ 1,000 + 2,000)"


def big_enough(k_max: int, hmc_warmup: int, hmc_draws: int) -> bool:
    """Runs of the size the statements are about: RABVI k_max ≥ 10,000 and HMC ≥ 1,000 + 2,000."""
    return bool(k_max >= 10_000 and hmc_warmup >= 1000 and hmc_draws >= 2000)


def _posts(table) -> list:
    return list(dict.fromkeys(table["posterior"]))


def _seeds(table) -> list:
    return list(dict.fromkeys(table["seed"])) if "seed" in table else [0]


def _runs(table, post, method, col) -> dict:
    """{seed: value} of ``method``'s valid runs on ``post`` (neither diverged nor missing) and the count of
    diverged and missing seeds: (values, n_diverged, n_missing)."""
    t = table[(table["posterior"] == post) & (table["method"] == method)]
    out, div, miss = {}, 0, 0
    seeds = _seeds(table)
    for sd in seeds:
        r = t[t["seed"] == sd] if "seed" in t else t
        status = run_status(r.iloc[0], col) if len(r) else "missing"
        if status == "missing":
            miss += 1
        elif status == "diverged":
            div += 1
        else:
            out[sd] = float(r.iloc[0][col])
    return out, div, miss


def run_status(row, col: str) -> str:
    """"valid", "diverged" (relative mean error not finite or above that of the start N(0, I)) or "missing" (no point
    by C*, or no value in ``col``) for one row of the equal-cost table (`rabvi_hmc_flows.comparison_table`)."""
    v, me = float(row[col]), float(row["mean_err"])
    start = float(row.get("start_mean_err", np.inf))
    if not np.isfinite(start):
        start = np.inf
    if bool(row.get("before_first", False)) or (np.isnan(v) and np.isnan(me)):
        return "missing"
    if not np.isfinite(me) or me > start:
        return "diverged"
    if not np.isfinite(v):
        return "missing"
    return "valid"


def _interval(x) -> tuple[float, float, float]:
    """Mean and two-sided `LEVEL` t interval of x (n ≥ 2)."""
    return tuple(t_interval(x, LEVEL))


def _paired(a: dict, b: dict, f):
    """Per-seed f(a_s, b_s) over the seeds valid in both."""
    return [f(a[s], b[s]) for s in a if s in b]


def _decide(diffs, threshold: float, above: bool):
    """(status, text) of "the mean of ``diffs`` is above (``above``) / at most (not ``above``) ``threshold``" by
    the t interval: status True / False when the interval settles it, None when it does not or n < MIN_SEEDS."""
    n = len(diffs)
    if n < MIN_SEEDS:
        return None, n, (np.mean(diffs) if n else np.nan), np.nan, np.nan
    m, lo, hi = _interval(diffs)
    if above:
        st = True if lo > threshold else (False if hi <= threshold else None)
    else:
        st = True if hi <= threshold else (False if lo > threshold else None)
    return st, n, m, lo, hi


def _why(n_seeds, n_valid, div, miss) -> str:
    parts = [f"{n_valid} valid of {n_seeds} seed(s)"]
    if div:
        parts.append(f"{div} diverged (mean error above the start's)")
    if miss:
        parts.append(f"{miss} missing")
    return ", ".join(parts)


def _status_note(st, n, size_ok) -> str:
    if not size_ok:
        return SIZE_NOTE
    if n < MIN_SEEDS:
        return f"a comparison of methods needs ≥ {MIN_SEEDS} seeds with a 95 % t interval; {n} valid here"
    if st is None:
        return "the 95 % t interval straddles the threshold"
    return ""


def _note(table, post) -> str:
    t = table[table["posterior"] == post].iloc[0]
    return f"C* = {t['cost']:,.0f} likelihood evaluations ({t['cost_set_by']}) at seed {t.get('seed', 0)}"


def _join(*parts) -> str:
    return "; ".join(p for p in parts if p)


def _overall(id_, source, paper, statuses, criterion, size_ok, what, two_thirds: bool = False):
    """Overall row over the per-posterior statuses (True / False settled, None not): ≥ 2/3 (``two_thirds``) or a
    strict majority of the settled ones; assessable with ≥ 3 settled posteriors."""
    settled = [s for s in statuses if s is not None]
    n, k = len(settled), int(sum(settled))
    return dict(id=id_, source=source, paper=paper,
                measured=f"{k}/{n} settled posteriors {what} ({len(statuses) - n} not settled)", criterion=criterion,
                passed=bool(n and (k >= 2 * n / 3 if two_thirds else k > n / 2)),
                assessable=bool(size_ok and n >= 3), kind="paper",
                note="needs ≥ 3 posteriors whose row is settled" if n < 3 else "")


def mean_claims(table, size_ok: bool) -> list[dict]:
    rows, statuses = [], []
    src = f"{SRC}, Fig. 10, C.15-C.16"
    seeds = _seeds(table)
    for post in _posts(table):
        mf, dmf, mmf = _runs(table, post, "RABVI MF", "mean_err")
        h, dh, mh = _runs(table, post, "HMC", "mean_err")
        lr = _paired(mf, h, lambda a, b: np.log(a / b))
        exc = post in EXCEPTIONS
        st, n, m, lo, hi = _decide(lr, np.log(RATIO), above=exc)
        if not exc:
            statuses.append(st if size_ok else None)
        rows.append(dict(id=f"fig10_mean_{post}", source=src,
                         paper=("an exception: HMC's mean estimate is better than RABVI's" if exc else
                                "RABVI gives a similar or better posterior mean estimate than HMC at equal cost"),
                         measured=(f"rel. mean error ratio RABVI MF / HMC: geometric mean {np.exp(m):.3g}"
                                   + (f" [{np.exp(lo):.3g}, {np.exp(hi):.3g}]" if np.isfinite(lo) else "")
                                   + f" over {n} seed(s); MF {_why(len(seeds), len(mf), dmf, mmf)}, "
                                     f"HMC {_why(len(seeds), len(h), dh, mh)}"),
                         criterion=(f"95 % t interval of log(MF/HMC) over ≥ {MIN_SEEDS} seeds "
                                    f"{'> log' if exc else '≤ log'} {RATIO} (the other side: FAIL)"),
                         passed=bool(st), assessable=bool(size_ok and st is not None), kind="paper",
                         note=_join(_status_note(st, n, size_ok), _note(table, post))))
    rows.append(_overall("fig10_mean_overall", src, "RABVI gives similar or better mean estimates than HMC (except "
                         "gp_pois_regr, hudson_lynx, sblrc)", statuses,
                         f"the per-posterior rows PASS on ≥ 2/3 of the settled non-exception posteriors (≥ 3)",
                         size_ok, f"with ratio ≤ {RATIO}", two_thirds=True))
    return rows


def sd_claims(table, size_ok: bool) -> list[dict]:
    rows, statuses = [], []
    src = f"{SRC}, Fig. 10, C.15-C.16"
    seeds = _seeds(table)
    for post in _posts(table):
        h, dh, mh = _runs(table, post, "HMC", "sd_err")
        parts, sts, why = [], [], [f"HMC {_why(len(seeds), len(h), dh, mh)}"]
        for m_ in ("RABVI MF", "RABVI FR"):
            v, dv, mv = _runs(table, post, m_, "sd_err")
            st, n, m, lo, hi = _decide(_paired(v, h, lambda a, b: np.log(a / b)), 0.0, above=True)
            sts.append((st, n))
            parts.append(f"{m_}/HMC {np.exp(m):.3g}" + (f" [{np.exp(lo):.3g}, {np.exp(hi):.3g}]"
                                                       if np.isfinite(lo) else "") + f" ({n} seeds)")
            why.append(f"{m_.split()[1]} {_why(len(seeds), len(v), dv, mv)}")
        if any(s is False for s, _ in sts):
            st = False
        elif all(s is True for s, _ in sts):
            st = True
        else:
            st = None
        statuses.append(st if size_ok else None)
        nmin = min(n for _, n in sts)
        rows.append(dict(id=f"fig10_sd_{post}", source=src,
                         paper="RABVI's sd estimates are less accurate than HMC's, even with the full-rank family",
                         measured="rel. sd error ratios, geometric mean [95 % t]: " + "; ".join(parts)
                                  + " — " + ", ".join(why),
                         criterion=(f"95 % t intervals of log(MF/HMC) and log(FR/HMC) sd errors over ≥ {MIN_SEEDS} "
                                    "valid seeds both > 0 (either < 0: FAIL); diverged or missing runs left out"),
                         passed=bool(st), assessable=bool(size_ok and st is not None), kind="paper",
                         note=_join(_status_note(st, nmin if st is None else MIN_SEEDS, size_ok),
                                    _note(table, post))))
    rows.append(_overall("fig10_sd_overall", src, "RABVI's sd estimates tend to be less accurate than HMC's, even "
                         "full rank", statuses, "the per-posterior rows PASS on a strict majority of the settled "
                         "posteriors (≥ 3)", size_ok, "where both are worse than HMC"))
    return rows


def mmd_claims(table, size_ok: bool) -> list[dict]:
    rows, statuses = [], []
    src = f"{SRC}, Fig. C.17"
    for post in _posts(table):
        t = table[table["posterior"] == post]
        noise = float(np.nanmax(t["mmd_noise"])) if "mmd_noise" in t and np.isfinite(t["mmd_noise"]).any() else 0.0
        h, dh, mh = _runs(table, post, "HMC", "mmd2")
        parts, sts = [], []
        for m_ in VI:
            v, dv, mv = _runs(table, post, m_, "mmd2")
            d = _paired(v, h, lambda a, b: a - b)
            if not d:
                st, n, why = None, 0, "missing" if mv else ("diverged" if dv else "no valid pair")
                parts.append(f"{m_}: {why}")
            elif max(abs(np.mean(list(v.values()))), abs(np.mean(list(h.values())))) <= noise:
                st, n = None, len(d)
                parts.append(f"{m_} {np.mean(list(v.values())):.2e} vs HMC {np.mean(list(h.values())):.2e}: "
                             "both within noise")
            else:
                st, n, m, lo, hi = _decide(d, 0.0, above=True)
                parts.append(f"{m_} − HMC {m:+.2e}" + (f" [{lo:+.2e}, {hi:+.2e}]" if np.isfinite(lo) else "")
                             + f" ({n} seeds)")
            sts.append((st, n))
        if any(s is False for s, _ in sts):
            st = False
        elif all(s is True for s, _ in sts):
            st = True
        else:
            st = None
        statuses.append(st if size_ok else None)
        nmin = min(n for _, n in sts)
        rows.append(dict(id=f"c17_mmd_{post}", source=src, paper="HMC's approximation is closer to the target "
                         "(MMD) than BBVI's", measured=f"MMD² (noise {noise:.1e}): " + "; ".join(parts),
                         criterion=(f"for every VI method, the 95 % t interval of MMD²_VI − MMD²_HMC over ≥ "
                                    f"{MIN_SEEDS} valid seeds > 0 (< 0 for any: FAIL); a pair with both mean |MMD²| "
                                    "within the noise level, diverged or missing: not settled"),
                         passed=bool(st), assessable=bool(size_ok and st is not None), kind="paper",
                         note=_join(_status_note(st, nmin if st is None else MIN_SEEDS, size_ok)
                                    if nmin < MIN_SEEDS or not size_ok else
                                    ("a pair within the noise, diverged or missing" if st is None else ""),
                                    _note(table, post))))
    rows.append(_overall("c17_mmd_overall", src, "HMC's MMD is smaller than BBVI's", statuses,
                         "the per-posterior rows PASS on a strict majority of the settled posteriors (≥ 3)", size_ok,
                         "where HMC's MMD² is the smallest"))
    return rows


def coverage_claims(table, size_ok: bool) -> list[dict]:
    rows = []
    src = f"{SRC}, Fig. C.18"
    seeds = _seeds(table)
    posts = _posts(table)
    for post in posts:
        vals, why = {}, []
        for m_ in ("HMC", "FASO flow"):
            v, dv, mv = _runs(table, post, m_, "undercoverage")
            vals[m_] = float(np.mean(list(v.values()))) if v else float("nan")
            why.append(f"{m_} {_why(len(seeds), len(v), dv, mv)}")
        fin = [x for x in vals.values() if np.isfinite(x)]
        if any(x > UNDERCOVER for x in fin):
            st = False
        elif len(fin) == len(vals):
            st = True
        else:
            st = None
        rows.append(dict(id=f"c18_no_undercover_{post}", source=src,
                         paper="HMC and real-NVP flows do not undercover the posterior",
                         measured=(f"mean 95 % under-coverage HMC {vals['HMC']:.3f}, FASO flow {vals['FASO flow']:.3f}"
                                   f" (mean over valid seeds; {', '.join(why)})"),
                         criterion=(f"both ≤ {UNDERCOVER} (either > {UNDERCOVER}: FAIL; a diverged or missing run "
                                    "that is needed: NOT ASSESSABLE)"),
                         passed=bool(st), assessable=bool(size_ok and st is not None), kind="paper",
                         note=_join("" if size_ok else SIZE_NOTE,
                                    "" if st is not None else "a method's run is diverged or missing",
                                    _note(table, post))))
    for m_ in ("RABVI MF", "RABVI FR"):
        flags, excluded = [], []
        for p in posts:
            v, dv, mv = _runs(table, p, m_, "undercoverage")
            if v:
                flags.append(float(np.mean(list(v.values()))) > UNDERCOVER)
            else:
                excluded.append(f"{p} ({'diverged' if dv else 'missing'})")
        n, k = len(flags), int(sum(flags))
        fam = "mean-field" if m_ == "RABVI MF" else "full-rank"
        rows.append(dict(id=f"c18_undercover_{'mf' if m_ == 'RABVI MF' else 'fr'}", source=src,
                         paper=f"the {fam} Gaussian family undercovers",
                         measured=(f"{k}/{n} posteriors with a valid run where {m_} undercovers"
                                   + (f"; left out: {', '.join(excluded)}" if excluded else "")),
                         criterion=(f"{m_}'s mean under-coverage (mean over valid seeds) > {UNDERCOVER} on a strict "
                                    "majority of the ≥ 3 posteriors with a valid (not diverged, not missing) run"),
                         passed=bool(n and k > n / 2), assessable=bool(size_ok and n >= 3), kind="paper",
                         note=_join("" if size_ok else SIZE_NOTE,
                                    "" if n >= 3 else "fewer than 3 posteriors with a valid run")))
    return rows


def all_claims(table, assessable: bool) -> list[dict]:
    """Every row; ``assessable``: the runs have the statements' size (`big_enough`)."""
    return (mean_claims(table, assessable) + sd_claims(table, assessable) + mmd_claims(table, assessable)
            + coverage_claims(table, assessable))


def notebook_claims(table, *, k_max: int, hmc_warmup: int, hmc_draws: int) -> list[dict]:
    """Notebook 45's claims (its former inline cell): `all_claims` with the size rule `big_enough`."""
    return all_claims(table, big_enough(k_max, hmc_warmup, hmc_draws))
