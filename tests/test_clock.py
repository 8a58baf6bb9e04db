"""The cost clock (`lsvi.core.clock`): CPU time of the process on a CPU backend."""
import time

import jax

from lsvi.core import clock


def _work(n: int = 3_000_000) -> int:
    x = 0
    for i in range(n):  # a fixed amount of work: its CPU time does not depend on the machine's load
        x += i & 7
    return x


def test_cpu_backend_measures_cpu_time_not_sleep():
    """Sleeping lets wall time pass but (almost) no CPU time; a fixed amount of work costs CPU time whatever else runs
    on the machine (the test must not depend on the load, as the cost rows must not)."""
    assert jax.default_backend() == "cpu" and clock.name() == "CPU time"
    t0 = clock.seconds()
    time.sleep(0.3)
    slept = clock.seconds() - t0
    t0 = clock.seconds()
    _work()
    worked = clock.seconds() - t0
    assert slept < 0.05 and worked > 0.02 and worked > 5 * slept
