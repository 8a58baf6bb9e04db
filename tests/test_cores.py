"""`lsvi.pipeline.cores`: a job runs on exactly THREADS cores, free ones first, held while it runs; the thread-count
variables follow; a bad request is a clear error."""
import os
import subprocess
import sys

import pytest

from lsvi.pipeline.cores import claim

PRINT_CORES = "import os; print(sorted(os.sched_getaffinity(0)), os.environ['OMP_NUM_THREADS'])"


def run_pinned(threads, code, lock_dir, **kw):
    env = {**os.environ, "LSVI_CORES_LOCK_DIR": str(lock_dir)}
    return subprocess.run([sys.executable, "-m", "lsvi.pipeline.cores", str(threads), "--", sys.executable, "-c", code],
                          env=env, capture_output=True, text=True, **kw)


def test_claim_takes_free_cores_first_then_shares_the_lowest(tmp_path):
    cores_a, fds_a = claim(1, {0, 1, 2}, tmp_path)
    cores_b, fds_b = claim(1, {0, 1, 2}, tmp_path)
    assert (cores_a, cores_b) == ([0], [1]) and len(fds_a) == len(fds_b) == 1
    cores_c, fds_c = claim(2, {0, 1, 2}, tmp_path)  # one free core left: it, and the lowest held one, shared
    assert cores_c == [0, 2] and len(fds_c) == 1
    for fd in fds_a + fds_b + fds_c:
        os.close(fd)  # releases the locks
    assert claim(3, {0, 1, 2}, tmp_path)[0] == [0, 1, 2]
    assert claim(5, {0, 1}, tmp_path)[0] == [0, 1]  # more than the CPU set: all of it
    with pytest.raises(ValueError, match="threads must be >= 1"):
        claim(0, {0}, tmp_path)


def test_the_command_runs_on_its_cores_with_matching_thread_variables(tmp_path):
    out = run_pinned(1, PRINT_CORES, tmp_path, check=True)
    cores, threads = out.stdout.rsplit(" ", 1)
    assert len(eval(cores)) == 1 and threads.strip() == "1"
    assert "running on core(s)" in out.stderr


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="needs two cores")
def test_a_second_job_gets_the_other_core_while_the_first_runs(tmp_path):
    first = subprocess.Popen([sys.executable, "-m", "lsvi.pipeline.cores", "1", "--", sys.executable, "-c",
                              "import os, sys, time; print(sorted(os.sched_getaffinity(0))); sys.stdout.flush(); "
                              "time.sleep(30)"],
                             env={**os.environ, "LSVI_CORES_LOCK_DIR": str(tmp_path)}, stdout=subprocess.PIPE, text=True)
    try:
        held = eval(first.stdout.readline())  # the first job is running (and holds its core)
        second = eval(run_pinned(1, PRINT_CORES, tmp_path, check=True).stdout.rsplit(" ", 1)[0])
        assert len(held) == len(second) == 1 and held != second
    finally:
        first.kill()
        first.wait()
    assert eval(run_pinned(1, PRINT_CORES, tmp_path, check=True).stdout.rsplit(" ", 1)[0]) == [min(os.sched_getaffinity(0))]


def test_bad_requests_are_clear_errors(tmp_path):
    assert "THREADS must be >= 1" in run_pinned(0, "pass", tmp_path).stderr
    out = subprocess.run([sys.executable, "-m", "lsvi.pipeline.cores", "1"], capture_output=True, text=True)
    assert out.returncode != 0 and "no command given" in out.stderr
