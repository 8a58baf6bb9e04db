"""Time to accuracy of LSVI against every baseline, on one machine, in one run (issue 17, part 2).

For each data set (Pima, Sonar, MNIST 0/8: the project's real data, the priors and initial q
of Appendix C.2 via `lsvi.papers.lsvi.logistic.problem`) ONE fresh process runs every method
one after the other, records its Gaussian iterates against loop time (compilation apart),
scores all iterates with ONE Monte Carlo estimator of KL(q‖π) − log Z on the SAME base
draws (`lsvi.papers.lsvi.time_to_accuracy`), and reports the loop time each method needs to
come within 1 nat and 0.1 nat of the best KL any method reached, plus the final distance to
a NUTS gold standard run in the same process (Pima, Sonar; none for MNIST: d = 784).

    .venv/bin/python benchmarks/bench_time_to_accuracy.py                 # Pima, Sonar, MNIST
    .venv/bin/python benchmarks/bench_time_to_accuracy.py --datasets pima --quick
    .venv/bin/python benchmarks/bench_time_to_accuracy.py --budget-s 30   # loop budget per LSVI/NGD run

Writes benchmarks/time_to_accuracy.md (table, machine, load, versions), time_to_accuracy_<dataset>.json (raw traces)
and .png (KL gap vs loop time, log axes, one panel per data set).
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
DELTAS = (1.0, 0.1)


def method_plan(name: str, quick: bool):
    """[(label, kind, options)] for data set ``name``; kind: an LSVI/NGD algorithm, or a baseline."""
    q = quick
    if name in ("pima", "sonar"):
        big = 10_000 if q else 100_000            # Alg. 3: the paper's N = 10⁵, T = 100 (Table 3)
        n_reg = 4_000 if name == "sonar" else 10_000  # Alg. 1 / NGD need N > m (m = 1,953 on Sonar)
        plan = [
            ("LSVI-FC Alg. 3, sch. 1", "alg3", dict(schedule=1, num_samples=big, num_steps=20 if q else 100)),
            ("LSVI-FC Alg. 3, sch. 2", "alg3", dict(schedule=2, num_samples=big, num_steps=20 if q else 100)),
            ("LSVI-MF Alg. 2, sch. 1", "alg2", dict(schedule=1, num_samples=10_000, num_steps=20 if q else 100)),
            ("LSVI Alg. 1, sch. 3", "alg1", dict(schedule=3, num_samples=n_reg, num_steps=5 if q else 30)),
            ("NGD, sch. 2", "ngd", dict(schedule=2, num_samples=n_reg, num_steps=10 if q else 100)),
        ]
        advi_T = (2_000 if q else (30_000 if name == "pima" else 50_000))
        plan += [  # PyMC's PyTensor configurations (default, OpenBLAS, NUMBA) are compared in time_to_accuracy_pymc.md
            ("PyMC FR-ADVI (default)", "pymc_advi", dict(num_iterations=advi_T)),
            ("Blackjax MF-VI", "blackjax", dict(num_iterations=500 if q else 5_000, num_samples=100)),
            ("Blackjax FR-VI", "blackjax_fullrank", dict(num_iterations=500 if q else 5_000, num_samples=100)),
            ("GMMVI (1 comp.)", "gmmvi", dict(num_iterations=5 if q else (30 if name == "pima" else 20),
                                               num_samples=10_000)),
        ]
        return plan
    if name == "mnist":   # mean field only (m = 1,568); N reduced from the paper's 10⁴ (2 cores)
        n = 200 if q else 1_000
        return [
            ("LSVI-MF Alg. 2, sch. 5", "alg2", dict(schedule=5, num_samples=n, num_steps=20 if q else 500)),
            ("LSVI-MF Alg. 2, sch. 1", "alg2", dict(schedule=1, num_samples=n, num_steps=20 if q else 500)),
            ("NGD-MF, sch. 5", "ngd", dict(schedule=5, num_samples=n, num_steps=20 if q else 500, fim="exact")),
            ("Blackjax MF-VI", "blackjax", dict(num_iterations=10 if q else 30, num_samples=n)),
            ("PyMC MF-ADVI (default)", "pymc_advi", dict(num_iterations=100 if q else 500)),
        ]
    raise ValueError(name)


def kl_draws_for(name: str, quick: bool) -> int:
    return 200 if name == "mnist" else (2_000 if quick else 10_000)


def gold_standard(prob, name: str, quick: bool, seed: int):
    """(gold (mean, sd) or None, description, anchor `MethodTrace` or None): Blackjax NUTS on
    Pima and Sonar, and the full-covariance Gaussian moment-matched to its draws (a reference
    level that no method under test defines: its KL is ≥ the family's minimum, up to MC error)."""
    import numpy as np

    from lsvi.baselines import nuts
    from lsvi.papers.lsvi import time_to_accuracy as tta

    if name not in ("pima", "sonar"):
        return None, "none (d = 784: NUTS not run)", None
    chains, warm, draws = (2, 300, 300) if quick else (4, 1000, 1000)
    g = nuts.sample(prob.logdensity, prob.d, chains, warm, draws, seed)
    info = (f"Blackjax NUTS run here: {chains} chains × {draws} draws after {warm} warm-up steps, "
            f"R-hat max {g.rhat_max:.3f}, ESS bulk min {g.ess_bulk_min:.0f}, {g.seconds:.0f} s")
    print(f"[{name}] NUTS {info}", file=sys.stderr, flush=True)
    flat = g.positions.reshape(-1, prob.d)
    anchor = tta.MethodTrace("NUTS moment-matched Gaussian", "", np.zeros(1, int), np.zeros(1), flat.mean(0)[None],
                             np.cov(flat.T)[None], False, 0.0, 0.0)
    return (g.mean, g.sd), info, anchor


def add_anchor(result: dict, data_dir: str, seed: int = 0) -> dict:
    """Add ``anchor_gap`` (KL estimate of the NUTS moment-matched Gaussian minus the best, same
    estimator and draws) to a cached result that lacks it: reruns NUTS with the same seed."""
    import jax
    jax.config.update("jax_enable_x64", True)
    import numpy as np

    from lsvi.papers.lsvi import logistic
    from lsvi.papers.lsvi import time_to_accuracy as tta

    name = result["dataset"]
    prob = logistic.problem(name, data_dir)
    _, _, anchor = gold_standard(prob, name, result["quick"], seed)
    if anchor is None:
        result["anchor_gap"] = None
        return result
    kl = tta.kl_up_to_log_z([anchor], prob.log_target, prob.d, result["kl_draws"], meanfield=prob.meanfield,
                            seed=seed + 1)[anchor.label][0]
    best = min(min(c["kl"]) for c in result["curves"].values())
    result["anchor_gap"] = float(kl - best)
    return result


AVERAGED = " — ω̄_k"  # label suffix of Theorem 3.4's weighted average of an LSVI/NGD run


def run_label(label: str, r: int) -> str:
    return f"{label} [run {r}]"


def run_dataset(name: str, budget_s: float, quick: bool, data_dir: str, seed: int = 0, runs: int = 3) -> dict:
    """Everything for one data set, in this process: ``runs`` runs of every method (run r with seed
    ``seed + r``, the methods interleaved run by run so that a drifting load reaches all of them), and for
    each LSVI/NGD run also its weighted average ω̄_k (Theorem 3.4, `time_to_accuracy.averaged`). Returns a
    JSON-able dict; ``rows`` one per method and run, ``table`` their `time_to_accuracy.aggregate`."""
    import jax
    jax.config.update("jax_enable_x64", True)
    import numpy as np

    from lsvi.baselines import BASELINES, nuts
    from lsvi.baselines import blackjax_fullrank
    from lsvi.core.families import gaussian_meanfield
    from lsvi.core.families.gaussian import meanfield_to_natural
    from lsvi.papers.lsvi import logistic
    from lsvi.papers.lsvi import time_to_accuracy as tta

    prob = logistic.problem(name, data_dir)
    d = prob.d
    mf_prob = prob._replace(family=gaussian_meanfield(d), eta0=meanfield_to_natural(
        jax.numpy.zeros(d), jax.numpy.full(d, logistic.PROBLEMS[name].init_var)))
    traces, log, method_of = [], [], {}
    t_all = time.perf_counter()
    for r in range(runs):
        for label, kind, opt in method_plan(name, quick):
            t0 = time.perf_counter()
            rl = run_label(label, r)
            try:
                if kind in ("alg1", "alg2", "alg3", "ngd"):
                    p = mf_prob if (kind == "alg2" or (kind == "ngd" and prob.meanfield)) else prob
                    extra = {"fim": opt["fim"]} if "fim" in opt else {}
                    kern = logistic.kernel(p, kind, opt["num_samples"], **extra)
                    cfg = f"N = {opt['num_samples']}, T ≤ {opt['num_steps']}, loop budget {budget_s:g} s"
                    run = tta.lsvi_run(rl, p.family, kern, p.eta0, opt["schedule"], opt["num_steps"], seed + r,
                                       budget_s, config=cfg)
                    tr = run.trace
                    avg = tta.averaged(run, p.family, run_label(label + AVERAGED, r))
                    method_of[avg.label] = label + AVERAGED
                else:
                    kw = {k: v for k, v in opt.items() if k not in ("num_iterations", "num_samples")}
                    fit = blackjax_fullrank.fit_problem if kind == "blackjax_fullrank" else BASELINES[kind]
                    g = fit(prob, opt["num_iterations"], opt.get("num_samples"), seed + r, **kw)
                    cfg = f"T = {opt['num_iterations']}" + (f", N = {opt['num_samples']}" if "num_samples" in opt else "")
                    if kind == "pymc_advi":
                        cfg += f", blas__ldflags = {g.info['blas_ldflags']!r}, mode {g.info['compile_mode']}, obj_n_mc = 1"
                    if kind.startswith("blackjax"):
                        cfg += f", optax.sgd({g.info['learning_rate']:g})"
                    tr, avg = tta.from_gaussian_trace(rl, cfg, g), None
                traces += [tr] + ([avg] if avg is not None else [])
                method_of[rl] = label
                log.append(f"{rl}: {tr.iterations[-1]} it., loop {tr.loop_s:.2f} s, compile {tr.compile_s:.2f} s, "
                           f"call {time.perf_counter() - t0:.1f} s {tr.error}")
            except Exception as err:  # recorded, not dropped
                log.append(f"{rl}: FAILED {err!r}")
            print(f"[{name}] {log[-1]}", file=sys.stderr, flush=True)

    gold, gold_info, anchor = gold_standard(prob, name, quick, seed)
    kl_draws = kl_draws_for(name, quick)
    t0 = time.perf_counter()
    kls = tta.kl_up_to_log_z(traces + ([anchor] if anchor else []), prob.log_target, d, kl_draws,
                             meanfield=prob.meanfield, seed=seed + 1)
    anchor_kl = float(kls.pop(anchor.label)[0]) if anchor else None
    score_s = time.perf_counter() - t0
    rows = tta.summary(traces, kls, DELTAS, gold)
    for row in rows:
        row["run_label"], row["method"] = row["method"], method_of[row["method"]]
    best_label = min(kls, key=lambda k: float(np.min(kls[k])))
    return dict(anchor_gap=None if anchor is None else anchor_kl - min(min(k) for k in kls.values()), dataset=name,
                d=d, n=int(prob.X.shape[0]), rows=rows, table=tta.aggregate(rows, DELTAS), runs=runs,
                best_label=best_label, log=log, gold=gold_info, kl_draws=kl_draws,
                scoring_family="mean field" if prob.meanfield else "full covariance", score_s=score_s,
                wall_s=time.perf_counter() - t_all, budget_s=budget_s, quick=quick,
                curves={tr.label: dict(elapsed=tr.elapsed.tolist(), kl=kls[tr.label].tolist()) for tr in traces},
                load_after=os.getloadavg())


PYMC_CONFIGS = {"default": {}, "OpenBLAS": dict(blas_ldflags="-lopenblas"), "NUMBA": dict(compile_mode="NUMBA")}


def pymc_configs(datasets, rounds: int, num_iterations: int, data_dir: str) -> list[dict]:
    """Loop time of PyMC full-rank ADVI per PyTensor configuration (`PYMC_CONFIGS`), the
    configurations interleaved over ``rounds`` rounds in this process (so that the load of a
    shared machine affects them alike); NUMBA gets a tenth of the iterations (it is slow).
    Also reports how far each configuration's final mean is from the default's (same seed, same T)."""
    import numpy as np

    from lsvi.baselines import pymc_advi
    from lsvi.papers.lsvi import logistic

    rows = []
    for name in datasets:
        prob = logistic.problem(name, data_dir)
        times = {c: [] for c in PYMC_CONFIGS}
        final = {}
        for r in range(rounds):
            for c, kw in PYMC_CONFIGS.items():
                T = max(num_iterations // 10, 1) if c == "NUMBA" else num_iterations
                tr = pymc_advi.fit_problem(prob, T, None, 0, **kw)
                times[c].append(1e3 * tr.loop_s / T)
                final[c] = (T, tr.mean[-1])
                print(f"[pymc {name}] {c}: {T} it., {1e3 * tr.loop_s / T:.3f} ms/it, compile {tr.compile_s:.1f} s",
                      file=sys.stderr, flush=True)
        for c in PYMC_CONFIGS:
            same_T = [o for o in PYMC_CONFIGS if final[o][0] == final[c][0]]
            rows.append(dict(dataset=name, config=c, iterations=final[c][0], ms_min=float(np.min(times[c])),
                             ms_median=float(np.median(times[c])), rounds=rounds,
                             diff_default=float(np.max(np.abs(final[c][1] - final["default"][1])))
                             if "default" in same_T else None))
    return rows


def versions() -> str:
    from importlib.metadata import version
    return ", ".join(f"{p} {version(p)}" for p in ("jax", "blackjax", "pymc", "pytensor", "gmmvi", "tensorflow", "numpy"))


def fmt_t(x):
    return "—" if x is None else (f"{x:.3g}")


def fmt_range(x: dict, key: str, runs: int) -> str:
    """'median [min, max] (k/R)' of a time to threshold over the runs that reached it."""
    k = x[f"reached_{key}"]
    if k == 0:
        return f"— (0/{runs})"
    spread = "" if k == 1 else f" [{fmt_t(x[f't_{key}_min'])}, {fmt_t(x[f't_{key}_max'])}]"
    return f"{fmt_t(x[f't_{key}'])}{spread} ({k}/{runs})"


def first_to(table: list[dict], key: str) -> str:
    """The method with the smallest median t(δ) among those that reached δ in every run, or a sentence."""
    full = [x for x in table if x[f"reached_{key}"] == x["runs"]]
    if not full:
        return "no method in every run"
    x = min(full, key=lambda y: y[f"t_{key}"])
    return f"{x['method']} ({fmt_t(x[f't_{key}'])} s median)"


def write_markdown(results: list[dict], path: str, machine: dict):
    lines = ["# Time to accuracy: LSVI and its baselines on one machine", "",
             "Generated by `benchmarks/bench_time_to_accuracy.py` (see the README section). For each data set one "
             "process runs every method, R times (run r with seed r; the methods interleaved run by run), and for "
             "each LSVI/NGD run also Theorem 3.4's weighted average ω̄_k of its iterates (weights c_t from the step "
             "sizes the run used, μ = 0; `lsvi.papers.lsvi.time_to_accuracy.averaged`), at the same loop times as the "
             "last iterate. Every iterate is scored by the same Monte Carlo estimate of KL(q‖π) − log Z on the same "
             "base draws; *gap* = that estimate minus the best value reached by any method, run and iterate (nats). "
             "t(δ) = loop CPU seconds (`lsvi.core.clock`, compilation excluded) at the first record within δ of the best: median [min, max] "
             "over the runs that reached δ, and how many of the R runs did. Gold: medians over the runs of "
             "max_j |μ_j − μ*_j|/σ*_j and max_j |log σ_j/σ*_j| of the final iterate against NUTS.", "",
             f"Machine: {machine['machine']}; load averages (1, 5, 15 min) per data set below; versions: "
             f"{machine['versions']}.", ""]
    for r in results:
        runs = r.get("runs", 1)
        table = r.get("table") or r["rows"]
        lines += [f"## {r['dataset']} (n = {r['n']}, d = {r['d']})", "",
                  f"KL estimator: {r['kl_draws']} common draws, {r['scoring_family']} family. Gold standard: {r['gold']}. "
                  f"{runs} run(s) per method. Process wall time {r['wall_s']:.0f} s (scoring {r['score_s']:.0f} s), loop "
                  f"budget per LSVI/NGD run {r['budget_s']:g} s{', QUICK settings' if r['quick'] else ''}. Load average "
                  f"at the start of the benchmark {tuple(round(x, 1) for x in r.get('machine_load_before', [float('nan')] * 3))}, "
                  f"at the end of this data set's process {tuple(round(x, 1) for x in r['load_after'])}."
                  + ("" if r.get("anchor_gap") is None else
                     f" Reference: the Gaussian moment-matched to the NUTS draws scores {r['anchor_gap']:.3g} nats above "
                     f"the best (same estimator and draws).")
                  + (f" The best value is reached by {r['best_label']}." if r.get("best_label") else "")
                  + "".join(f" It is the LAST record of {lab}: that run may still be improving, so the gaps "
                            f"are to the best reached, not to the optimum."
                            for lab, c in r["curves"].items()
                            if c["kl"][-1] == min(min(v["kl"]) for v in r["curves"].values())
                            and len(c["kl"]) > 1 and c["kl"][-2] > c["kl"][-1] + 0.1), "",
                  f"First to 1 nat in every run: {first_to(table, '1')}; first to 0.1 nat in every run: "
                  f"{first_to(table, '0.1')}.", "",
                  "| method | configuration | iterations | loop (s) | s / iteration | compile (s) | final gap, median [min, max] "
                  "| t(1 nat) | t(0.1 nat) | gold mean | gold log sd |", "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for x in table:
            g1, g2 = (f"{x['gold_mean']:.3g}", f"{x['gold_logsd']:.3g}") if "gold_mean" in x else ("—", "—")
            errs = x.get("errors", [x.get("error")] if x.get("error") else [])
            err = f" ({'; '.join(errs)})" if errs else ""
            per_it = x["loop_s"] / x["iterations"] if x["iterations"] else float("nan")
            gap = (f"{x['final_gap']:.3g} [{x['final_gap_min']:.3g}, {x['final_gap_max']:.3g}]" if "final_gap_min" in x
                   else f"{x['final_gap']:.3g}")
            lines.append(f"| {x['method']}{err} | {x['config']} | {x['iterations']:g} | {x['loop_s']:.3g} | {per_it:.3g} | "
                         f"{x['compile_s']:.3g} | {gap} | {fmt_range(x, '1', runs)} | {fmt_range(x, '0.1', runs)} "
                         f"| {g1} | {g2} |")
        lines += ["", "Run log:", ""] + [f"* {l}" for l in r["log"]] + [""]
    with open(path, "w") as f:
        f.write("\n".join(lines))


def plot(results: list[dict], path: str):
    """KL gap against loop time, one panel per data set: run 0 of every method (LSVI/NGD last iterate solid,
    its ω̄_k dotted in the same colour, baselines dashed)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    fig, axes = plt.subplots(1, len(results), figsize=(6.5 * len(results), 5.2), squeeze=False)
    for ax, r in zip(axes[0], results):
        best = min(min(c["kl"]) for c in r["curves"].values())
        cmap = plt.get_cmap("tab10")
        shown = [lab for lab in r["curves"] if lab.endswith(run_label("", 0))] or list(r["curves"])
        bases = list(dict.fromkeys(lab.replace(run_label("", 0), "").replace(AVERAGED, "") for lab in shown))
        for lab in shown:
            c = r["curves"][lab]
            base = lab.replace(run_label("", 0), "")
            avg = base.endswith(AVERAGED)
            method = base.replace(AVERAGED, "")
            t, kl = np.asarray(c["elapsed"]), np.asarray(c["kl"]) - best
            keep = t > 0  # the initial q (t = 0) has no place on a log axis
            ls = ":" if avg else "-" if method.startswith(("LSVI", "NGD")) else "--"
            ax.plot(t[keep], np.maximum(kl[keep], 1e-3), ls, marker="" if avg else ".", ms=3, lw=1.6 if avg else 1.2,
                    label=base, color=cmap(bases.index(method) % 10))
        for delta in DELTAS:
            ax.axhline(delta, color="grey", lw=0.8, ls=":")
        if r.get("anchor_gap") is not None:
            ax.axhline(max(r["anchor_gap"], 1e-3), color="k", lw=1.0, ls="-.", label="NUTS moment-matched Gaussian")
        ax.set_xscale("log"), ax.set_yscale("log")
        ax.set_xlabel("loop CPU seconds (compilation excluded)")
        ax.set_ylabel("KL(q‖π) − best of any method and run (nats; < 10⁻³ drawn at 10⁻³)")
        ax.set_title(f"{r['dataset']} (d = {r['d']}, n = {r['n']}), run 0 of {r.get('runs', 1)}: grey 1 and 0.1 nat")
        ax.legend(fontsize=6)
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", nargs="+", default=["pima", "sonar", "mnist"])
    ap.add_argument("--budget-s", type=float, default=60.0, help="loop budget per LSVI/NGD run (s)")
    ap.add_argument("--runs", type=int, default=3, help="runs of every method per data set (seeds 0..runs-1)")
    ap.add_argument("--mnist-runs", type=int, default=1, help="runs per method on MNIST (its iterations cost seconds)")
    ap.add_argument("--mnist-budget-s", type=float, default=120.0, help="loop budget per LSVI/NGD run on MNIST (s)")
    ap.add_argument("--quick", action="store_true", help="small N and T (a minute per data set)")
    ap.add_argument("--out", default=os.path.join(HERE, "time_to_accuracy"), help="output stem (.md, .png; raw results in <out>_<dataset>.json)")
    ap.add_argument("--data-dir", default=None)
    ap.add_argument("--reuse", action="store_true", help="reuse <out>_<dataset>.json where it exists (no rerun)")
    ap.add_argument("--pymc-configs", action="store_true",
                    help="only time PyMC FR-ADVI per PyTensor configuration (default, OpenBLAS, NUMBA), interleaved")
    ap.add_argument("--one", default=None, help=argparse.SUPPRESS)  # worker: one data set, JSON on stdout
    args = ap.parse_args(argv)
    if args.one:
        from lsvi.pipeline.paths import DATA_DIR
        print(json.dumps(run_dataset(args.one, args.budget_s, args.quick, args.data_dir or DATA_DIR, runs=args.runs)))
        return 0
    if args.pymc_configs:
        from lsvi.pipeline.paths import DATA_DIR
        load = os.getloadavg()
        rows = pymc_configs([n for n in args.datasets if n != "mnist"], 3, 200 if args.quick else 3000,
                            args.data_dir or DATA_DIR)
        lines = [f"PyMC full-rank ADVI loop time per iteration (ms), 3 interleaved rounds, load {load} -> "
                 f"{os.getloadavg()}; {versions()}", "", "| data set | PyTensor configuration | iterations | ms/it min "
                 "| ms/it median | max abs. diff. of the final mean from default's |", "|---|---|---:|---:|---:|---|"]
        lines += [f"| {r['dataset']} | {r['config']} | {r['iterations']} | {r['ms_min']:.3g} | {r['ms_median']:.3g} | "
                  f"{'—' if r['diff_default'] is None else format(r['diff_default'], '.2g')} |" for r in rows]
        with open(args.out + "_pymc.md", "w") as f:
            f.write("\n".join(lines) + "\n")
        print("\n".join(lines))
        return 0
    load_before = os.getloadavg()
    results = []
    for name in args.datasets:  # one fresh process per data set
        cache = f"{args.out}_{name}.json"
        if args.reuse and os.path.exists(cache):
            results.append(json.load(open(cache)))
            if "anchor_gap" not in results[-1]:  # computed after the run (same NUTS seed, same draws)
                from lsvi.pipeline.paths import DATA_DIR
                results[-1] = add_anchor(results[-1], args.data_dir or DATA_DIR)
                results[-1]["anchor_added_later"] = True
                with open(cache, "w") as f:
                    json.dump(results[-1], f)
            continue
        mnist = name == "mnist"
        cmd = [sys.executable, os.path.abspath(__file__), "--one", name,
               "--budget-s", str(args.mnist_budget_s if mnist else args.budget_s),
               "--runs", str(args.mnist_runs if mnist else args.runs)]
        cmd += ["--quick"] if args.quick else []
        cmd += ["--data-dir", args.data_dir] if args.data_dir else []
        out = subprocess.run(cmd, stdout=subprocess.PIPE, text=True, check=True)
        results.append(json.loads(out.stdout.strip().splitlines()[-1]))
        results[-1]["machine_load_before"] = load_before
        with open(cache, "w") as f:
            json.dump(results[-1], f)
    cpu = [l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")][:1]
    machine = dict(machine=f"{cpu[0] if cpu else platform.machine()}, {os.cpu_count()} CPU cores, "
                           f"{platform.system()} {platform.release()}, CPU only (float64)",
                   load_before=tuple(round(x, 2) for x in load_before),
                   load_after=tuple(round(x, 2) for x in os.getloadavg()), versions=versions())
    write_markdown(results, args.out + ".md", machine)
    plot(results, args.out + ".png")
    print(open(args.out + ".md").read())
    return 0


if __name__ == "__main__":
    sys.exit(main())
