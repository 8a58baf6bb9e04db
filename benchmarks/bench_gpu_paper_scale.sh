#!/usr/bin/env bash
# The paper scale on one GPU (issue 29, item 5): one repetition batch of the heaviest LSVI
# configurations of notebooks 20-23, each in a fresh process; wall time (compilation apart)
# and peak device memory to OUT_DIR/gpu_paper_scale.{json,md}. See benchmarks/bench_gpu_paper_scale.py.
#
#   benchmarks/bench_gpu_paper_scale.sh [OUT_DIR] [--time-limit S] [--only a,b] [--batch name=k] [--smoke]
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-results/gpu_paper_scale}
[ $# -gt 0 ] && shift
py=${PYTHON:-python3}
[ -z "${PYTHON:-}" ] && [ -x .venv/bin/python ] && py=.venv/bin/python
export PYTHONPATH="$PWD/src${PYTHONPATH:+:$PYTHONPATH}" XLA_PYTHON_CLIENT_PREALLOCATE=false
exec "$py" benchmarks/bench_gpu_paper_scale.py --out "$out" "$@"
