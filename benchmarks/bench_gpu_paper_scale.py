"""The paper scale on one GPU: one repetition batch of the heaviest LSVI configurations.

Issue 29, item 5. For each configuration below (the paper's N, T and repetitions of
notebooks 20–23, `config/scales.yaml`'s ``paper:`` entries), one batch of repetitions runs
as one compiled program, `lsvi.core.kernel.run_repetitions` (a ``jax.vmap`` over keys of the
T-step ``lax.scan``), in a fresh process with ``XLA_PYTHON_CLIENT_PREALLOCATE=false`` so
that the device's ``peak_bytes_in_use`` is that configuration's alone. Written per
configuration: the compilation time (``lower().compile()``), the wall time of the batch
(compilation excluded, ``block_until_ready``), the peak device memory, XLA's own estimate of
the program's memory, and an extrapolation to all the paper's repetitions
(⌈R / batch⌉ batches, one after another).

==================  ===========  =====  =====  ========  =====  =======  =================
name                notebook     alg.   sch.   N         T      R        batch (default)
==================  ===========  =====  =====  ========  =====  =======  =================
pima_alg3           20 (Fig. 1)  3      1      10⁵       100    100      100
pima_alg1           20 (Fig. 1)  1      3      10⁴       10     100      100
sonar_alg3          21 (Fig. 4)  3      1      10⁵       100    100      50
mnist_alg2          22 (Fig. 5)  2      1      10⁴       500    100      10
census_alg2         23 (Fig. 7)  2      5      10⁴       10⁴    100      10   (P = 10³)
census_alg2_p1e4    23 (Fig. 7)  2      5      10⁴       10⁴    100      10   (P = 10⁴)
==================  ===========  =====  =====  ========  =====  =======  =================

The targets are those of the notebooks (`lsvi.papers.lsvi.logistic.PROBLEMS`), rebuilt from
`lsvi.core` alone: the flipped design X of ``<data-dir>/<name>.npz``, the prior variances of
`lsvi.core.targets.paper_prior_variance` (no intercept for MNIST), the initial q N(0, I)
(MNIST: N(0, e⁻² I)), `lsvi.core.targets.logistic_regression` (Census: the subsampled target
of eq. (21) as printed). Only `lsvi.core`, jax and numpy are imported, so that the script
runs where PyMC, Blackjax, ArviZ and Snakemake are not installed.

Chunking. A vmapped batch holds ``batch`` times one repetition's arrays; the log target is
already chunked over draws (at most 2.5·10⁷ linear predictors per chunk and repetition,
`lsvi.core.targets.DEFAULT_MAX_ELEMENTS`), so a batch's largest buffer is about
``batch × 200 MB``. The repetitions are split into ⌈R / batch⌉ batches; only the first runs
here. If the device runs out of memory (or XLA's estimate exceeds the device's limit) the
batch is halved and the configuration retried, time permitting.

Time limit. Configurations run in the order above; each child process gets the time left
before ``--time-limit`` as its timeout (it is killed past it) and a configuration is
skipped when less than ``--min-start`` seconds are left. The JSON and the Markdown are
rewritten after every configuration, so an interrupted run keeps what it measured.

    PYTHONPATH=src XLA_PYTHON_CLIENT_PREALLOCATE=false python benchmarks/bench_gpu_paper_scale.py \\
        --out results/gpu_paper_scale --time-limit 400
    python benchmarks/bench_gpu_paper_scale.py --smoke --out /tmp/gps     # tiny N, T: seconds on a CPU
    benchmarks/bench_gpu_paper_scale.sh results/gpu_paper_scale            # the same, from the repository root
"""
from __future__ import annotations

import argparse
import datetime
import json
import math
import os
import platform
import resource
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent

# name, notebook, figure, data set, algorithm, Table 3 schedule, N, T, R (paper), default batch, P (eq. 21)
CONFIGS = [
    dict(name="pima_alg3", notebook="20_pima", figure="Fig. 1", dataset="pima", algorithm="alg3", schedule=1,
         num_samples=100_000, num_steps=100, num_reps=100, batch=100, batch_size=None),
    dict(name="pima_alg1", notebook="20_pima", figure="Fig. 1", dataset="pima", algorithm="alg1", schedule=3,
         num_samples=10_000, num_steps=10, num_reps=100, batch=100, batch_size=None),
    dict(name="sonar_alg3", notebook="21_sonar", figure="Fig. 4", dataset="sonar", algorithm="alg3", schedule=1,
         num_samples=100_000, num_steps=100, num_reps=100, batch=50, batch_size=None),
    dict(name="mnist_alg2", notebook="22_mnist", figure="Fig. 5, 6", dataset="mnist", algorithm="alg2", schedule=1,
         num_samples=10_000, num_steps=500, num_reps=100, batch=10, batch_size=None),
    dict(name="census_alg2", notebook="23_census", figure="Fig. 7", dataset="census", algorithm="alg2", schedule=5,
         num_samples=10_000, num_steps=10_000, num_reps=100, batch=10, batch_size=1_000),
    dict(name="census_alg2_p1e4", notebook="23_census", figure="Fig. 7 (P = 10⁴)", dataset="census",
         algorithm="alg2", schedule=5, num_samples=10_000, num_steps=10_000, num_reps=100, batch=10,
         batch_size=10_000),
]

# --smoke: the same configurations at sizes a CPU runs in seconds (N > m where a regression needs it).
SMOKE = {
    "pima_alg3": dict(num_samples=500, num_steps=3, num_reps=4, batch=2),
    "pima_alg1": dict(num_samples=500, num_steps=3, num_reps=4, batch=2),
    "sonar_alg3": dict(num_samples=500, num_steps=3, num_reps=4, batch=2),
    "mnist_alg2": dict(num_samples=20, num_steps=2, num_reps=4, batch=2),
    "census_alg2": dict(num_samples=50, num_steps=3, num_reps=4, batch=2, batch_size=100),
    "census_alg2_p1e4": dict(num_samples=50, num_steps=3, num_reps=4, batch=2, batch_size=200),
}

# ProblemSpec of lsvi.papers.lsvi.logistic.PROBLEMS: (family, intercept, initial variance)
PROBLEMS = {
    "pima": ("fullcov", True, 1.0),
    "sonar": ("fullcov", True, 1.0),
    "census": ("meanfield", True, 1.0),
    "mnist": ("meanfield", False, math.exp(-2.0)),
}

# what a child reports as an out-of-memory failure (the parent then halves the batch)
OOM_MARKERS = ("RESOURCE_EXHAUSTED", "Out of memory", "out of memory", "OOM")


def default_data_dir() -> Path:
    for cand in (HERE / "data", HERE.parent / "data" / "processed"):
        if (cand / "pima.npz").exists():
            return cand
    return HERE.parent / "data" / "processed"


# ----------------------------------------------------------------------------------------
# Child: one configuration, one batch, in this process


def build_problem(dataset: str, data_dir: Path, batch_size):
    """(family, eta0 (m,), log_target) of the notebooks' logistic regression on ``dataset``."""
    import jax.numpy as jnp
    import numpy as np

    from lsvi.core import targets
    from lsvi.core.families import gaussian_fullcov, gaussian_meanfield
    from lsvi.core.families.gaussian import fullcov_to_natural, meanfield_to_natural

    family_name, intercept, init_var = PROBLEMS[dataset]
    with np.load(data_dir / f"{dataset}.npz", allow_pickle=False) as z:
        X = jnp.asarray(z["X"], jnp.float64)  # flipped design y_i x_i (n, d)
    d = X.shape[1]
    prior_var = targets.paper_prior_variance(d, intercept=intercept)
    if family_name == "fullcov":
        family, eta0 = gaussian_fullcov(d), fullcov_to_natural(jnp.zeros(d), init_var * jnp.eye(d))
    else:
        family, eta0 = gaussian_meanfield(d), meanfield_to_natural(jnp.zeros(d), jnp.full(d, init_var))
    if batch_size is None:
        log_target = targets.logistic_regression(X, prior_var)
    else:
        log_target = targets.subsampled_logistic_regression(X, prior_var, batch_size, "paper")
    return family, eta0, log_target, X.shape


def _memory_analysis(compiled) -> dict:
    try:
        m = compiled.memory_analysis()
    except Exception:  # not every backend implements it
        return {}
    if m is None:
        return {}
    keys = ("temp_size_in_bytes", "argument_size_in_bytes", "output_size_in_bytes", "generated_code_size_in_bytes")
    return {k: int(getattr(m, k)) for k in keys if hasattr(m, k)}


def _device_memory(device) -> dict:
    try:
        stats = device.memory_stats()
    except Exception:
        stats = None
    return dict(stats) if stats else {}


def run_child(cfg: dict, data_dir: Path, seed: int, repeat_below_s: float) -> dict:
    """Compile and run one batch of ``cfg``; returns the measurements (raises on failure)."""
    t_process = time.perf_counter()
    import jax
    import numpy as np

    import lsvi  # noqa: F401  (switches float64 on, as the notebooks run)
    from lsvi.core import algorithms, step_size
    from lsvi.core import kernel as lsvi_kernel

    device = jax.devices()[0]
    family, eta0, log_target, data_shape = build_problem(cfg["dataset"], data_dir, cfg["batch_size"])
    kern = algorithms.build_kernel(cfg["algorithm"], family, log_target, cfg["num_samples"])
    state = lsvi_kernel.init(eta0)
    schedule = step_size.table3(cfg["schedule"])
    T, B = cfg["num_steps"], cfg["batch"]
    program = jax.jit(lambda key: lsvi_kernel.run_repetitions(key, kern, state, schedule, T, B))
    key0 = jax.random.PRNGKey(seed)
    setup_s = time.perf_counter() - t_process

    t0 = time.perf_counter()
    compiled = program.lower(key0).compile()
    compile_s = time.perf_counter() - t0
    xla = _memory_analysis(compiled)
    limit = _device_memory(device).get("bytes_limit")
    need = sum(xla.get(k, 0) for k in ("temp_size_in_bytes", "argument_size_in_bytes", "output_size_in_bytes"))
    if limit and need > 0.95 * limit:
        raise MemoryError(f"RESOURCE_EXHAUSTED (predicted): XLA needs {need / 2**30:.1f} GiB, "
                          f"the device has {limit / 2**30:.1f} GiB")

    batch_s, accepted, finite = [], [], True
    for c in range(2):  # a second batch (fresh keys) only when the first is short: shows first-call overhead
        t0 = time.perf_counter()
        final, etas, infos = compiled(jax.random.fold_in(key0, c))
        jax.block_until_ready((final, etas, infos))
        batch_s.append(time.perf_counter() - t0)
        accepted.append(float(np.mean(np.asarray(infos.accepted))))
        finite = finite and bool(np.all(np.isfinite(np.asarray(final.eta))))
        if batch_s[-1] >= repeat_below_s:
            break
    mem = _device_memory(device)
    R = cfg["num_reps"]
    num_batches = -(-R // B)
    best = min(batch_s)
    return dict(
        status="ok",
        device=str(device), device_kind=getattr(device, "device_kind", ""), platform=device.platform,
        jax_version=jax.__version__, data_shape=list(data_shape), num_params=int(eta0.shape[0]),
        setup_s=setup_s, compile_s=compile_s, batch_s=batch_s, per_rep_s=best / B, num_batches=num_batches,
        all_reps_s=best * num_batches,
        peak_bytes_in_use=mem.get("peak_bytes_in_use"), bytes_limit=mem.get("bytes_limit"),
        xla_memory=xla, max_rss_gb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20,
        accepted_fraction=float(np.mean(accepted)), final_eta_finite=finite,
        process_s=time.perf_counter() - t_process,
    )


def child_main(args) -> int:
    cfg = json.loads(args.child)
    try:
        out = run_child(cfg, Path(args.data_dir), args.seed, args.repeat_below)
    except BaseException as err:  # reported to the parent, which decides what to do
        msg = f"{type(err).__name__}: {err}"
        out = dict(status="oom" if any(m in msg for m in OOM_MARKERS) else "error", error=msg[:2000])
    print("GPU_PAPER_SCALE_RESULT " + json.dumps(out), flush=True)
    return 0


# ----------------------------------------------------------------------------------------
# Parent: every configuration in a fresh process, within the time limit


def run_config(cfg: dict, args, deadline: float, log) -> dict:
    """Run ``cfg`` in a child process, halving the batch on out-of-memory while time is left."""
    row = dict(cfg)
    attempts = []
    while True:
        left = deadline - time.perf_counter()
        if left < args.min_start:
            row.update(status="skipped", error=f"time limit: {left:.0f} s left (< --min-start {args.min_start:g} s)")
            break
        cmd = [sys.executable, str(Path(__file__).resolve()), "--child", json.dumps(row),
               "--data-dir", str(args.data_dir), "--seed", str(args.seed), "--repeat-below", str(args.repeat_below)]
        env = dict(os.environ, XLA_PYTHON_CLIENT_PREALLOCATE="false")
        if args.smoke:
            env.setdefault("JAX_PLATFORMS", "cpu")
        t0 = time.perf_counter()
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=left, env=env)
        except subprocess.TimeoutExpired:
            row.update(status="timeout", error=f"killed after {left:.0f} s (the time limit)",
                       process_wall_s=time.perf_counter() - t0)
            break
        wall = time.perf_counter() - t0
        lines = [l for l in proc.stdout.splitlines() if l.startswith("GPU_PAPER_SCALE_RESULT ")]
        if lines:
            res = json.loads(lines[-1].split(" ", 1)[1])
        else:
            tail = (proc.stderr or proc.stdout)[-2000:]
            res = dict(status="oom" if any(m in tail for m in OOM_MARKERS) else "error",
                       error=f"child exited {proc.returncode} without a result: {tail}")
        res["process_wall_s"] = wall
        attempts.append(dict(batch=row["batch"], status=res["status"], error=res.get("error")))
        if res["status"] == "oom" and row["batch"] > 1:
            log(f"  {cfg['name']}: out of memory at batch {row['batch']}, halving")
            row["batch"] = row["batch"] // 2
            continue
        row.update(res)
        break
    row["attempts"] = attempts
    return row


def _fmt(v, spec=".3g", none="–"):
    if v is None or (isinstance(v, float) and not math.isfinite(v)):
        return none
    return format(v, spec)


def markdown(report: dict) -> str:
    meta = report["meta"]
    lines = [
        "# LSVI at the paper scale on one device: one repetition batch per configuration",
        "",
        f"Measured on {meta['device']} ({meta['platform']}), jax {meta['jax_version']}, {meta['date']}; "
        f"time limit {meta['time_limit_s']:g} s, total {meta['elapsed_s']:.0f} s"
        + (" (**--smoke**: tiny N and T, not the paper scale)" if meta["smoke"] else "") + ".",
        "",
        "One batch of `batch` repetitions = one compiled `lsvi.core.kernel.run_repetitions` (vmap over keys of "
        "the T-step scan), float64, in a fresh process (`XLA_PYTHON_CLIENT_PREALLOCATE=false`). "
        "*compile*: `lower().compile()`; *batch*: wall time of the batch, compilation excluded (the minimum "
        "when a short batch was run twice with fresh keys); *all R*: batch × ⌈R / batch⌉, the batches run "
        "one after another; *peak*: the device's `peak_bytes_in_use` in that process (XLA's estimate of the "
        "program's temporary + argument + output buffers in brackets).",
        "",
        "| configuration | notebook | alg. (sch.) | N | T | R | batch | compile (s) | batch (s) | per rep. (s) "
        "| all R (s) | peak GiB (XLA est.) | accepted | status |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in report["configs"]:
        xla = r.get("xla_memory") or {}
        est = sum(xla.get(k, 0) for k in ("temp_size_in_bytes", "argument_size_in_bytes", "output_size_in_bytes"))
        peak = r.get("peak_bytes_in_use")
        peak_s = (_fmt(peak / 2**30, ".2f") if peak else "–") + (f" ({est / 2**30:.2f})" if est else "")
        batch_s = r.get("batch_s") or []
        n_s = f"{r['num_samples']:,}" + (f", P = {r['batch_size']:,}" if r.get("batch_size") else "")
        status = r["status"] + (f": {r['error'][:120]}" if r.get("error") and r["status"] != "ok" else "")
        lines.append(
            f"| {r['name']} | {r['notebook']} ({r['figure']}) | {r['algorithm']} ({r['schedule']}) | {n_s} "
            f"| {r['num_steps']:,} | {r['num_reps']} | {r['batch']} | {_fmt(r.get('compile_s'), '.1f')} "
            f"| {' / '.join(format(t, '.3g') for t in batch_s) or '–'} | {_fmt(r.get('per_rep_s'))} "
            f"| {_fmt(r.get('all_reps_s'))} | {peak_s} | {_fmt(r.get('accepted_fraction'), '.3f')} | {status} |")
    lines += ["", "Written by `benchmarks/bench_gpu_paper_scale.py`; the same numbers are in `gpu_paper_scale.json`.", ""]
    return "\n".join(lines)


def parent_main(args) -> int:
    t_start = time.perf_counter()
    deadline = t_start + args.time_limit
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    names = [c["name"] for c in CONFIGS]
    only = [s for s in args.only.split(",") if s] if args.only else names
    unknown = sorted(set(only) - set(names))
    if unknown:
        raise SystemExit(f"unknown configurations {unknown}; known: {names}")
    batches = dict(kv.split("=") for kv in args.batch.split(",") if kv) if args.batch else {}
    configs = []
    for c in CONFIGS:
        if c["name"] not in only:
            continue
        c = dict(c, paper_num_samples=c["num_samples"], paper_num_steps=c["num_steps"])
        if args.smoke:
            c.update(SMOKE[c["name"]])
        if c["name"] in batches:
            c["batch"] = int(batches[c["name"]])
        c["batch"] = min(c["batch"], c["num_reps"])
        configs.append(c)

    def log(msg):
        print(msg, flush=True)

    report = dict(meta=dict(
        date=datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"), smoke=args.smoke,
        time_limit_s=args.time_limit, host=platform.node(), python=platform.python_version(),
        device="?", platform="?", jax_version="?", data_dir=str(args.data_dir), seed=args.seed,
        command=" ".join(sys.argv), elapsed_s=0.0), configs=[])

    def write():
        report["meta"]["elapsed_s"] = time.perf_counter() - t_start
        (out / "gpu_paper_scale.json").write_text(json.dumps(report, indent=1) + "\n")
        (out / "gpu_paper_scale.md").write_text(markdown(report))

    for c in configs:
        log(f"{c['name']}: N = {c['num_samples']}, T = {c['num_steps']}, batch {c['batch']} of R = {c['num_reps']} "
            f"({deadline - time.perf_counter():.0f} s left)")
        row = run_config(c, args, deadline, log)
        report["configs"].append(row)
        if row.get("device") and report["meta"]["device"] == "?":
            report["meta"].update(device=row.get("device_kind") or row["device"], platform=row["platform"],
                                  jax_version=row["jax_version"])
        log(f"  {row['status']}: compile {_fmt(row.get('compile_s'), '.1f')} s, batch {row.get('batch_s')}, "
            f"peak {_fmt((row.get('peak_bytes_in_use') or float('nan')) / 2**30, '.2f')} GiB "
            f"{row.get('error', '')[:300]}")
        write()
    write()
    log(f"wrote {out / 'gpu_paper_scale.json'} and {out / 'gpu_paper_scale.md'} "
        f"({time.perf_counter() - t_start:.0f} s)")
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default="results/gpu_paper_scale", help="output directory (JSON + Markdown)")
    ap.add_argument("--time-limit", type=float, default=420.0, help="seconds for the whole run (default 420)")
    ap.add_argument("--min-start", type=float, default=20.0,
                    help="skip a configuration when fewer seconds than this are left (default 20)")
    ap.add_argument("--smoke", action="store_true", help="tiny N, T, R (seconds on a CPU; forces JAX_PLATFORMS=cpu "
                                                        "unless set)")
    ap.add_argument("--only", default="", help="comma-separated configuration names")
    ap.add_argument("--batch", default="", help="batch sizes, e.g. mnist_alg2=20,sonar_alg3=25")
    ap.add_argument("--repeat-below", type=float, default=5.0,
                    help="run a second batch (fresh keys) when the first took less than this (s)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--data-dir", type=Path, default=default_data_dir(),
                    help="folder of pima.npz, sonar.npz, mnist.npz, census.npz")
    ap.add_argument("--child", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    return child_main(args) if args.child else parent_main(args)


if __name__ == "__main__":
    sys.exit(main())
