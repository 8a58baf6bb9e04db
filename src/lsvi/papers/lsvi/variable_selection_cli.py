"""Variable selection (Table 1): LSVI and the SMC benchmark, each in a fresh process.

Command-line interface: notebook 30 runs each method in a fresh process (`run_cli`), so
that the time (`lsvi.core.clock`) of each repetition and the maximum resident set size of the process
(Table 1) are those of that method alone::

    python -m lsvi.papers.lsvi.variable_selection_cli lsvi --num-samples 50000 --num-steps 25 --eps 1.0 --runs 100 --out lsvi.npz
    python -m lsvi.papers.lsvi.variable_selection_cli smc --num-particles 100000 --len-chain 10000 --runs 3 --out smc.npz

prints one JSON line {"method", "times_s", "compile_s", "max_rss_gib", ...} and writes the
results (LSVI: final probabilities of each repetition; SMC: particles, weights, marginals
and log-evidence of each run) to the .npz.
"""
from __future__ import annotations

import argparse
import json
import sys

import numpy as np

from lsvi.core import step_size
from lsvi.papers.lsvi.smc import run_tempering_smc
from lsvi.papers.lsvi.variable_selection import load_concrete, vs_posterior
from lsvi.papers.lsvi.variable_selection_lsvi import run_lsvi
from lsvi.pipeline import timing
from lsvi.pipeline.paths import DATA_DIR


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m lsvi.papers.lsvi.variable_selection_cli", description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="method", required=True)
    a = sub.add_parser("lsvi", help="Algorithm 1 (Bernoulli products) on Concrete, one repetition after the other")
    a.add_argument("--num-samples", type=int, default=50_000)
    a.add_argument("--num-steps", type=int, default=25)
    a.add_argument("--eps", type=float, default=1.0, help="constant step size (1: schedule 3 of Table 3)")
    a.add_argument("--clip", type=float, default=1e-3)
    s = sub.add_parser("smc", help="waste-free tempering SMC on Concrete, one run after the other")
    s.add_argument("--num-particles", type=int, default=100_000)
    s.add_argument("--len-chain", type=int, default=10_000)
    s.add_argument("--evaluator", default="jax", choices=("jax", "particles", "numba"))
    for p in (a, s):
        p.add_argument("--runs", type=int, default=5, help="repetitions (LSVI) or runs (SMC)")
        p.add_argument("--seed", type=int, default=0)
        p.add_argument("--data-dir", default=DATA_DIR)
        p.add_argument("--subset", type=int, default=None, help="first k predictors + intercept only")
        p.add_argument("--out", default=None, help="write the results to this .npz")
    args = ap.parse_args(argv)
    Z, y = load_concrete(args.data_dir, args.subset)
    out = {"method": args.method, "d": int(Z.shape[1]), "runs": args.runs}
    arrays = {}
    if args.method == "lsvi":
        post = vs_posterior(Z, y)
        res = run_lsvi(post, args.num_samples, args.num_steps, step_size.constant(args.eps), args.runs,
                       args.seed, clip=args.clip)
        out.update(times_s=res.times.tolist(), compile_s=res.compile_time, evaluations_per_run=res.num_evaluations,
                   num_samples=args.num_samples, num_steps=args.num_steps, eps=args.eps)
        arrays = dict(probs=res.probs, etas=res.etas, times=res.times, accepted=res.accepted)
    else:
        runs = [run_tempering_smc(Z, y, args.num_particles, args.len_chain, seed=args.seed + r,
                                  evaluator=args.evaluator) for r in range(args.runs)]
        out.update(times_s=[r.seconds for r in runs], compile_s=0.0,
                   evaluations_per_run=[r.num_evaluations for r in runs], num_steps=[r.num_steps for r in runs],
                   num_particles=args.num_particles, len_chain=args.len_chain, evaluator=args.evaluator,
                   log_evidence=[r.log_evidence for r in runs])
        arrays = dict(marginals=np.array([r.marginals for r in runs]), theta=np.array([r.theta for r in runs]),
                      W=np.array([r.W for r in runs]), times=np.array([r.seconds for r in runs]),
                      log_evidence=np.array([r.log_evidence for r in runs]),
                      num_evaluations=np.array([r.num_evaluations for r in runs]),
                      num_steps=np.array([r.num_steps for r in runs]))
    out["max_rss_gib"] = timing.max_rss_gb()  # GiB (2**30 bytes), see lsvi.pipeline.timing
    if args.out:
        np.savez_compressed(args.out, **arrays, info=json.dumps(out))
    print(json.dumps(out))
    return 0


def run_cli(method: str, out: str, **options) -> dict:
    """Run ``python -m lsvi.papers.lsvi.variable_selection_cli <method> --out <out> --<option> <value> ...`` in a fresh
    process; return its JSON summary (with ``max_rss_gib``, the peak RSS of that process
    in GiB) and arrays."""
    info = timing.run_module("lsvi.papers.lsvi.variable_selection_cli", (method,), out=out, **options)
    with np.load(out) as f:
        arrays = {k: f[k] for k in f.files if k != "info"}
    return {**info, **arrays}


if __name__ == "__main__":
    sys.exit(main())
