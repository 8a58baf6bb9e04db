"""Run time and peak memory of a method measured in a fresh process (Table 1).

Every cost is read on `lsvi.core.clock` (CPU time of the process on a CPU backend, wall time on an
accelerator; the module says why). Each measurement runs ``python -m <module> --<option> <value> ...`` in a new interpreter,
so that its peak resident memory (`max_rss_gb`) is that method's alone; the module prints
one JSON line as its last line of output (its `main`), which `run_module` parses.

On a GPU, JAX preallocates 75 % of the device memory when a process starts, which makes a
fresh process slow to start and its memory figures meaningless: every child runs with
``XLA_PYTHON_CLIENT_PREALLOCATE=false`` unless the caller's environment sets it (the
Snakefile sets the same default for the notebooks). No effect on a CPU.
"""
from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import numpy as np


def max_rss_gb() -> float:
    """Peak resident set size of this process in GiB (2**30 bytes: Linux reports KiB, divided
    by 1024²). The name keeps "gb" for its callers; label tables "GiB" (1 GiB = 1.074 GB).

    On Linux, ``VmHWM`` of ``/proc/self/status``: the high-water mark of this process's own
    address space, which starts afresh at ``execve``. ``getrusage(RUSAGE_SELF).ru_maxrss``
    does not: it is inherited at ``fork`` and kept across ``execve``, so a child started by a
    parent that holds 0.7 GiB (a notebook kernel) or 3 GiB (a process with a CUDA context)
    reports at least that much, whatever it does itself. Elsewhere ``ru_maxrss``."""
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024**2  # kB
    except OSError:
        pass
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / 1024**3 if sys.platform == "darwin" else peak / 1024**2  # macOS reports bytes


def runtime_summary(times) -> dict:
    """Table 1's columns for the times (R,) of R timed runs (`lsvi.core.clock`), in seconds: mean, sd
    (ddof = 1; NaN for a single run), min, max and R."""
    t = np.asarray(times, dtype=float)
    return {"runtime mean (s)": float(t.mean()), "runtime sd (s)": float(t.std(ddof=1)) if t.size > 1 else float("nan"),
            "runtime min (s)": float(t.min()), "runtime max (s)": float(t.max()), "timed runs": int(t.size)}


def command(module: str, positional=(), **options) -> list[str]:
    cmd = [sys.executable, "-m", module, *map(str, positional)]
    for k, v in options.items():
        if v is not None:
            cmd += [f"--{k.replace('_', '-')}", str(v)]
    return cmd


def child_environment() -> dict:
    """The environment of a measured child process: this one's, with JAX's GPU memory
    preallocation off unless already set (``XLA_PYTHON_CLIENT_PREALLOCATE``)."""
    return {"XLA_PYTHON_CLIENT_PREALLOCATE": "false", **os.environ}


def run_module(module: str, positional=(), raise_on_error: bool = True, **options) -> dict:
    """Run ``module`` in a fresh process; return the JSON object of its last output line.

    On a non-zero exit: raise RuntimeError with the end of stderr, or (``raise_on_error=False``)
    return the options with an ``error`` entry (its last stderr line), so that a caller can
    record a failing baseline instead of dropping it."""
    cmd = command(module, positional, **options)
    proc = subprocess.run(cmd, capture_output=True, text=True, env=child_environment())
    if proc.returncode != 0:
        if raise_on_error:
            raise RuntimeError(f"{' '.join(cmd)} failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
        lines = proc.stderr.strip().splitlines()
        return {**options, "error": lines[-1] if lines else f"exit status {proc.returncode}"}
    return json.loads(proc.stdout.strip().splitlines()[-1])
