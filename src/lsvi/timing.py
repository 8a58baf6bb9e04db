"""Run time and peak memory of a method measured in a fresh process (Table 1).

Each measurement runs ``python -m <module> --<option> <value> ...`` in a new interpreter,
so that its peak resident memory (``ru_maxrss``) is that method's alone; the module prints
one JSON line as its last line of output (its `main`), which `run_module` parses.
"""
from __future__ import annotations

import json
import resource
import subprocess
import sys


def max_rss_gb() -> float:
    """Peak resident set size of this process in GB (Linux reports kilobytes)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024**2


def command(module: str, positional=(), **options) -> list[str]:
    cmd = [sys.executable, "-m", module, *map(str, positional)]
    for k, v in options.items():
        if v is not None:
            cmd += [f"--{k.replace('_', '-')}", str(v)]
    return cmd


def run_module(module: str, positional=(), raise_on_error: bool = True, **options) -> dict:
    """Run ``module`` in a fresh process; return the JSON object of its last output line.

    On a non-zero exit: raise RuntimeError with the end of stderr, or (``raise_on_error=False``)
    return the options with an ``error`` entry (its last stderr line), so that a caller can
    record a failing baseline instead of dropping it."""
    cmd = command(module, positional, **options)
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        if raise_on_error:
            raise RuntimeError(f"{' '.join(cmd)} failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
        lines = proc.stderr.strip().splitlines()
        return {**options, "error": lines[-1] if lines else f"exit status {proc.returncode}"}
    return json.loads(proc.stdout.strip().splitlines()[-1])
