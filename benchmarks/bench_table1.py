"""Table 1 (logistic-regression rows) outside the pipeline: e.g. at the paper's N and T on a GPU.

    python benchmarks/bench_table1.py --runs 5 --out benchmarks/table01_lr_<machine>.md
    python benchmarks/bench_table1.py --factor 0.1 0.1 --only alg1 alg3     # a quick CPU look

Each configuration runs in a fresh process (`lsvi.papers.lsvi.logistic.measure_table1`, the code of
notebook 24). Baselines whose library is missing (PyMC and gmmvi are not installed on every
machine) are recorded with their error, not skipped silently.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

import jax  # noqa: E402

from lsvi.papers.lsvi import logistic  # noqa: E402
from lsvi.pipeline.hardware import hardware_info  # noqa: E402


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--factor", type=float, nargs=2, default=(1.0, 1.0), metavar=("F_N", "F_T"),
                    help="factors on the paper's (N, T) for every data set (default: the paper's)")
    ap.add_argument("--datasets", nargs="*", default=list(logistic.DATASETS))
    ap.add_argument("--only", nargs="*", default=None, help="methods to run (default: all)")
    ap.add_argument("--data-dir", default=str(ROOT / "data" / "processed"))
    ap.add_argument("--out", default=None, help="markdown file (a .csv is written beside it)")
    args = ap.parse_args(argv)
    factors = {name: list(args.factor) for name in args.datasets}
    table = logistic.measure_table1(factors, args.runs, 0, args.data_dir, args.only)
    hw = hardware_info()
    head = (f"Table 1, logistic-regression rows: factors on (N, T) {args.factor}, {args.runs} runs per configuration, "
            f"each in a fresh process; JAX {jax.__version__}, devices {hw.get('jax devices')}; CPU {hw.get('cpu')}. "
            f"Runtimes are the optimisation loops alone; compilation (LSVI/NGD) or the library's set-up and "
            f"compilation (baselines) is the column 'compile'. Paper: JAX 0.5, A100 + EPYC 7702/7713.\n\n")
    text = head + table.to_markdown(index=False, floatfmt=".3g") + "\n"
    print(text)
    if args.out:
        Path(args.out).write_text(text)
        table.to_csv(Path(args.out).with_suffix(".csv"), index=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
