"""The cost clock (`lsvi.core.clock`): CPU time of the process on a CPU backend."""
import time

import jax

from lsvi.core import clock


def test_cpu_backend_measures_cpu_time_not_sleep():
    assert jax.default_backend() == "cpu" and clock.name() == "CPU time"
    t0 = clock.seconds()
    time.sleep(0.3)  # wall time passes, CPU time (almost) does not
    slept = clock.seconds() - t0
    t0 = clock.seconds()
    x, end = 0, time.perf_counter() + 0.3
    while time.perf_counter() < end:  # 0.3 s of wall time busy on this thread
        x += 1
    busy = clock.seconds() - t0
    assert slept < 0.05 and busy > 0.15
