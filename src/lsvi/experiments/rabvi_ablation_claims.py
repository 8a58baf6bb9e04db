"""Claims rows of notebook 43_rabvi_detection_ablations (RABVI paper, Welandawe et al.), criteria fixed before the runs.

Convergence detection (Section 5.1, Fig. 6a / C.1). Reference, from the exact q* only (`rabvi_ablations.reference_point`):
k_ref = first k at which the 100-iterate mean of e_k = √SKL(q_{λ^{(k)}}, q*) is ≤ 1.1 × its stationary level (mean over the
second half of the run). A trigger k is *early* if k < k_ref, *window early* if its window starts before k_ref − 100, *late*
if k > 3 k_ref + 1000, *never* if it does not fire within the run, else *on time* (`rabvi_ablations.classify`).

* "adaptive R̂ consistently triggers when the full window suggests convergence has been reached": adaptive R̂ on time on
  every target;
* "adaptive SASA+, ΔELBO, fixed-window R̂ and the distance rule sometimes trigger too early or too late (SASA+ uses
  iterations before convergence)": per detector, not on time on ≥ 1 target;
* both assessable with ≥ 3 targets and d ≥ 10 (not at smoke).

Ablations (Section 7.3: "the accuracy and runtime of RABVI is not too sensitive to the choice of the tuning parameters.
However, extreme tuning parameter choices (e.g. γ₀ = 0.01 or M ≤ 5) can lead to longer runtimes"), per parameter, over the
medians per value (all targets and repetitions pooled):

* accuracy: max/min of the median √SKL(q̂, q*) over the values ≤ 3;
* runtime: max/min of the median iterations over the non-extreme values (γ₀ ≠ 0.01, M > 5) ≤ 3;
* extremes: median iterations at γ₀ = 0.01 > at γ₀ = 0.3; at M = 1 or M = 5 > at M = 10;
* assessable with ≥ 2 repetitions and the paper's full grid of values for that parameter;
* the same criteria on the posteriordb targets (Fig. 11 / C.25, ids `abl_posteriordb_*`), where q* is replaced by the
  reference of `rabvi_ablations.reference_optimum` (a long small-rate avgAdam average, not RABVI); a run that fails
  (FASO never converges, K_max reached) enters the medians with its iterations and error as they are.

References
----------
M. Welandawe, M. R. Andersen, A. Vehtari, J. H. Huggins (2024). A framework for improving the
reliability of black-box variational inference. arXiv:2203.15945.
"""
from __future__ import annotations

import pandas as pd

from lsvi.experiments.rabvi_ablations import ABLATIONS, DETECTORS, SYMBOLS, classify

SRC = "Welandawe et al. (RABVI)"


def classes(studies: list[dict]) -> pd.DataFrame:
    """One row per target: k_ref and each detector's trigger "k (class)"."""
    rows = []
    for s in studies:
        row = {"target": s["name"], "k_ref": s["k_ref"]}
        for name, t in s["triggers"].items():
            row[name] = f"{t.k} ({classify(t, s['k_ref'])})"
        rows.append(row)
    return pd.DataFrame(rows)


def detection_claims(studies: list[dict]) -> list[dict]:
    assessable = len(studies) >= 3 and min(s["d"] for s in studies) >= 10
    cls = {n: [classify(s["triggers"][n], s["k_ref"]) for s in studies] for n in DETECTORS}
    names = [s["name"] for s in studies]
    out = [dict(id="fig6_adaptive_rhat_full_window_stationary", source=f"{SRC}, Section 5.1, Figs 6a, C.1",
                paper="adaptive R̂ consistently triggers when the full window suggests convergence has been reached",
                measured="; ".join(f"{n}: {c}" for n, c in zip(names, cls[DETECTORS[0]])),
                criterion="adaptive R̂ on time (k ≥ k_ref, window start ≥ k_ref − 100, k ≤ 3 k_ref + 1000) on every target",
                passed=all(c == "on time" for c in cls[DETECTORS[0]]), assessable=assessable,
                note="k_ref from the exact q*: first k where the 100-iterate mean of √SKL(λ_k, q*) ≤ 1.1 × stationary level")]
    slugs = {DETECTORS[1]: "sasa", DETECTORS[2]: "fixed_rhat_800", DETECTORS[3]: "delta_elbo", DETECTORS[4]: "distance"}
    for n, slug in slugs.items():
        bad = sum(c != "on time" for c in cls[n])
        out.append(dict(id=f"fig6_{slug}_sometimes_early_or_late", source=f"{SRC}, Section 5.1, Figs 6a, C.1",
                        paper=f"{n} sometimes triggers too early or too late",
                        measured=f"{bad}/{len(studies)} targets not on time: " + "; ".join(
                            f"{t}: {c}" for t, c in zip(names, cls[n])),
                        criterion="not on time (early, window early, late or never) on ≥ 1 target", passed=bad >= 1,
                        assessable=assessable))
    return out


def ablation_claims(rows: list[dict], reps: int, label: str = "", figs: str = "Figs C.19–C.24") -> list[dict]:
    """Claims of the ablation `rows`; `label` prefixes the ids (e.g. "posteriordb_") and `figs` names the figures."""
    df = pd.DataFrame(rows)
    out = []
    for p in df["parameter"].unique() if len(df) else []:
        sub = df[df["parameter"] == p]
        med = sub.groupby("value")[["sqrt_skl", "iterations"]].median()
        full = sorted(med.index) == sorted(ABLATIONS[p])
        ok = reps >= 2 and full
        acc = med["sqrt_skl"].max() / med["sqrt_skl"].min()
        out.append(dict(id=f"abl_{label}{p}_accuracy_insensitive", source=f"{SRC}, Section 7.3, {figs}",
                        paper=f"accuracy of RABVI not too sensitive to {SYMBOLS[p]}",
                        measured=f"median √SKL per {SYMBOLS[p]}: " + ", ".join(
                            f"{v:g}: {m:.3f}" for v, m in med["sqrt_skl"].items()) + f"; max/min {acc:.2f}",
                        criterion="max/min of the medians ≤ 3", passed=bool(acc <= 3), assessable=ok))
        keep = [v for v in med.index if not ((p == "gamma0" and v == 0.01) or (p == "num_samples" and v <= 5))]
        it = med.loc[keep, "iterations"]
        ratio = it.max() / it.min()
        out.append(dict(id=f"abl_{label}{p}_runtime_insensitive", source=f"{SRC}, Section 7.3, {figs}",
                        paper=f"runtime of RABVI not too sensitive to {SYMBOLS[p]} (non-extreme values)",
                        measured=f"median iterations per {SYMBOLS[p]}: " + ", ".join(
                            f"{v:g}: {m:.0f}" for v, m in med["iterations"].items()) + f"; max/min over {keep}: {ratio:.2f}",
                        criterion="max/min of the medians over the non-extreme values ≤ 3", passed=bool(ratio <= 3),
                        assessable=ok))
        extreme, default = {"gamma0": ([0.01], 0.3), "num_samples": ([1, 5], 10)}.get(p, (None, None))
        if extreme is not None:
            have = [v for v in extreme if v in med.index] and default in med.index
            longer = [v for v in extreme if v in med.index and default in med.index
                      and med.loc[v, "iterations"] > med.loc[default, "iterations"]]
            out.append(dict(id=f"abl_{label}{p}_extreme_longer", source=f"{SRC}, Section 7.3, {figs}",
                            paper=f"extreme {SYMBOLS[p]} ({', '.join(map(str, extreme))}) can lead to longer runtimes",
                            measured=("median iterations " + ", ".join(
                                f"{v:g}: {med.loc[v, 'iterations']:.0f}" for v in extreme + [default] if v in med.index))
                            if have else "values not run",
                            criterion=f"median iterations at some {SYMBOLS[p]} ∈ {extreme} > at the default {default}",
                            passed=bool(longer), assessable=bool(have) and ok))
    return out


def ablation_table(rows: list[dict]) -> pd.DataFrame:
    """Median (over targets and repetitions) iterations, √SKL and fraction terminated per parameter value."""
    df = pd.DataFrame(rows)
    if not len(df):
        return df
    g = df.groupby(["parameter", "value"])
    return pd.DataFrame({"median_iterations": g["iterations"].median(), "median_sqrt_skl": g["sqrt_skl"].median(),
                         "terminated": g["terminated"].mean(), "runs": g["rep"].count()}).reset_index()

