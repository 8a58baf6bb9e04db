"""Run a pipeline job on exactly ``threads`` cores of its own.

    python -m lsvi.pipeline.cores THREADS -- COMMAND [ARG ...]

claims ``THREADS`` cores of the process's CPU set (``os.sched_getaffinity``) that no other job holds, pins itself
to them (``os.sched_setaffinity``), sets ``OMP_NUM_THREADS``, ``OPENBLAS_NUM_THREADS`` and ``MKL_NUM_THREADS`` to
their number, and replaces itself with ``COMMAND`` (``os.execvp``): the command, and every process it starts (a
papermill run's Jupyter kernel), runs on those cores only. A core is held by an exclusive ``flock`` on
``<lock dir>/core-<i>.lock`` for as long as the command runs (the lock's descriptor survives the exec; the kernel
releases it when the command ends, however it ends). The lock directory is ``$LSVI_CORES_LOCK_DIR``, else
``<tmp>/lsvi-cores-<uid>``: two pipelines of one user (two clones, two scales) share it.

Why (measured on the project's 2-vCPU machine, JAX 0.10.2): XLA's CPU client starts one worker thread per core
of the process's CPU set and keeps the second core busy while a small compiled loop (a BBVI step at d = 100) runs
on the first: one RABVI run took 4.6 s of wall time and 7.5 s of CPU alone, 6.7 s of wall time beside a second
such run, and 3.5 s beside it when each run was pinned to a core of its own, with bit-identical results. Pinning
also fixes the number of threads a job computes with, on any machine: XLA partitions a large matrix product or
solve by its thread count, so the same notebook gave results that differ in the last bits with 1 and with 2
cores. Snakemake's ``threads`` (config/resources.yaml) is the number of cores claimed.

When fewer than ``threads`` cores are free (more jobs than cores, e.g. two pipelines at once), the job still gets
``threads`` cores — the free ones, then the lowest-numbered held ones, shared — so its thread count, and hence its
results, do not depend on what runs beside it; only its speed does. A request above the CPU set's size gets the
whole set (and a warning).
"""
from __future__ import annotations

import argparse
import fcntl
import os
import sys
import tempfile
from pathlib import Path

THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


def lock_dir() -> Path:
    """``$LSVI_CORES_LOCK_DIR``, else ``<tmp>/lsvi-cores-<uid>`` (created)."""
    path = Path(os.environ.get("LSVI_CORES_LOCK_DIR") or Path(tempfile.gettempdir()) / f"lsvi-cores-{os.getuid()}")
    path.mkdir(parents=True, exist_ok=True)
    return path


def claim(threads: int, cpu_set, directory: Path) -> tuple[list[int], list[int]]:
    """``(cores, fds)``: ``threads`` cores of ``cpu_set`` (all of it if smaller), the unheld ones first (each now held
    through an open descriptor of ``fds``), then the lowest-numbered held ones."""
    if threads < 1:
        raise ValueError(f"threads must be >= 1, got {threads}")
    cpu_set = sorted(cpu_set)
    wanted = min(threads, len(cpu_set))
    cores, fds = [], []
    for core in cpu_set:
        if len(cores) == wanted:
            break
        fd = os.open(directory / f"core-{core}.lock", os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            continue
        cores.append(core)
        fds.append(fd)
    cores += [c for c in cpu_set if c not in cores][:wanted - len(cores)]
    return sorted(cores), fds


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(prog="python -m lsvi.pipeline.cores", description=__doc__.split("\n\n")[0])
    parser.add_argument("threads", type=int, help="number of cores to run COMMAND on")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="-- COMMAND [ARG ...]")
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("no command given (python -m lsvi.pipeline.cores THREADS -- COMMAND [ARG ...])")
    if args.threads < 1:
        parser.error(f"THREADS must be >= 1, got {args.threads}")
    cpu_set = os.sched_getaffinity(0)
    if args.threads > len(cpu_set):
        print(f"lsvi.pipeline.cores: {args.threads} threads asked, {len(cpu_set)} cores available: using all",
              file=sys.stderr)
    cores, fds = claim(args.threads, cpu_set, lock_dir())
    for fd in fds:
        os.set_inheritable(fd, True)
    os.sched_setaffinity(0, cores)
    for name in THREAD_VARIABLES:
        os.environ[name] = str(len(cores))
    shared = "" if len(fds) == len(cores) else f" ({len(cores) - len(fds)} shared with another job)"
    print(f"lsvi.pipeline.cores: running on core(s) {','.join(map(str, cores))}{shared}", file=sys.stderr)
    sys.stderr.flush()
    os.execvp(command[0], command)


if __name__ == "__main__":
    main()
