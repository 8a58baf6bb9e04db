"""The clock of every cost measurement in the project: ``seconds()``.

On a CPU backend, the CPU time of this process (`time.process_time`: user + system time of all
its threads); on an accelerator, the wall time (`time.perf_counter`), since the device's work is
not CPU time of the process.

Why CPU time on a CPU. The verdicts that compare costs ("A is cheaper than B", "the cost grows
linearly in N") must not depend on what else runs on the machine, and the pipeline runs two
notebooks at once on two cores. Wall time does: measured on the project's 2-core machine (JAX
0.10, 50 scanned steps of a (10⁴ × 9) × (9 × 2000) product), the same program took 7.7 s of wall
time alone (XLA's thread pool used both cores), 15.3 s pinned to one core, and 22 s with two
other copies running beside it, while its CPU time was 15.1, 15.3 and 14.8 s. PyMC's ADVI loop
(PyTensor) and GMMVI (TensorFlow) likewise: CPU time within 10 % alone and beside two such
programs, wall time up to twice as long. XLA offers no flag that limits its CPU thread pool
(``--xla_cpu_multi_thread_eigen=false`` did not), so CPU time, which adds the threads' work
whatever their number, is the measure that stays put. A cost in CPU seconds of a multi-threaded
program is its work, not its latency: the two coincide on one core, which is what the cpu scale
declares per notebook (config/resources.yaml).

The choice is made once per process, from ``jax.default_backend()`` at the first call.
"""
from __future__ import annotations

import time

_CLOCK = None


def _select():
    import jax

    if jax.default_backend() == "cpu":
        return time.process_time, "CPU time"
    return time.perf_counter, "wall time"


def seconds() -> float:
    """The current reading of the cost clock in seconds (differences only are meaningful)."""
    global _CLOCK
    if _CLOCK is None:
        _CLOCK = _select()
    return _CLOCK[0]()


def name() -> str:
    """"CPU time" or "wall time": what `seconds` measures in this process (for labels and notes)."""
    global _CLOCK
    if _CLOCK is None:
        _CLOCK = _select()
    return _CLOCK[1]
