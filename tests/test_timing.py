"""`lsvi.pipeline.statistics.cost_scaling`: the log–log slope of a cost-per-iteration curve, read only
where the work that grows with N dominates (Figures 4 and 5, left)."""
import numpy as np
import pytest

from lsvi.exact import statistics
from lsvi.pipeline import timing

N = np.array([500, 1000, 2000, 5000])


def runs(cost, R=3, rng=0, noise=0.02):
    """(K, R) timed runs: ``cost`` (K,) times a small multiplicative noise."""
    r = np.random.default_rng(rng)
    return np.asarray(cost)[:, None] * np.exp(noise * r.standard_normal((len(cost), R)))


def test_linear_cost_with_a_small_fixed_part_passes():
    b, a = 1e-3, 0.05  # fixed part: 10 % of the cost at N = 500
    s = statistics.cost_scaling(N, runs(a + b * N), a)
    assert s.assessable and s.reason == ""
    assert s.passed and 0.85 < s.slope < 1.0 and s.lo < s.slope < s.hi
    assert s.fixed_share == pytest.approx(a / (a + b * 500), rel=0.1) and s.decades == pytest.approx(1.0)


def test_quadratic_cost_fails_and_the_interval_excludes_one():
    s = statistics.cost_scaling(N, runs(1e-7 * N**2), 1e-6)
    assert s.assessable and not s.passed and s.slope == pytest.approx(2.0, abs=0.05) and s.lo > 1.2


def test_overhead_dominated_grid_is_not_assessable():
    """A fixed cost 10 x the work at the smallest N flattens the curve: slope far below 1,
    which says nothing about the algorithm."""
    a = 5.0
    s = statistics.cost_scaling(N, runs(a + 1e-3 * N), a)
    assert not s.assessable and "fixed cost" in s.reason and s.slope < 0.8


def test_too_few_sizes_or_too_narrow_a_span_is_not_assessable():
    s = statistics.cost_scaling([1000, 2000], runs(1e-3 * np.array([1000, 2000])), 1e-4)
    assert not s.assessable and "2 sizes < 4" in s.reason and np.isnan(s.lo)
    s = statistics.cost_scaling([1000, 1500, 2000, 3000], runs(1e-3 * np.array([1000, 1500, 2000, 3000])), 1e-4)
    assert not s.assessable and "decades" in s.reason


def test_one_run_slowed_by_another_process_does_not_move_the_fit():
    cost = runs(1e-3 * N, R=3)
    cost[2, 0] *= 20  # one contended run at N = 2000
    s = statistics.cost_scaling(N, cost, 1e-4)
    assert s.passed and abs(s.slope - 1.0) < 0.05


def test_runtime_summary():
    s = timing.runtime_summary([2.0, 4.0, 6.0])
    assert s["runtime mean (s)"] == 4.0 and s["runtime sd (s)"] == 2.0 and s["timed runs"] == 3
    assert s["runtime min (s)"] == 2.0 and s["runtime max (s)"] == 6.0
    assert np.isnan(timing.runtime_summary([1.5])["runtime sd (s)"])


def test_peak_rss_of_a_child_excludes_its_parents_memory():
    """A child started while the parent holds 0.4 GB more reports its own peak: ru_maxrss
    would report at least the parent's (inherited at fork, kept across exec)."""
    import subprocess
    import sys

    ballast = np.ones(50_000_000)  # 0.4 GB, touched
    parent = timing.max_rss_gb()
    out = subprocess.run([sys.executable, "-c", "from lsvi.pipeline import timing; print(timing.max_rss_gb())"],
                         capture_output=True, text=True, check=True)
    child = float(out.stdout.strip().splitlines()[-1])
    assert parent > 0.4 + 0.05 and 0.01 < child < parent - 0.3
    del ballast


def test_a_measured_child_runs_without_gpu_memory_preallocation(tmp_path, monkeypatch):
    """`run_module` starts its child with XLA_PYTHON_CLIENT_PREALLOCATE=false when the caller has
    not set it (fresh-process timing on a GPU), and leaves a caller's own setting alone."""
    (tmp_path / "env_probe.py").write_text(
        "import json, os\nprint(json.dumps({'value': os.environ.get('XLA_PYTHON_CLIENT_PREALLOCATE')}))\n")
    monkeypatch.setenv("PYTHONPATH", f"{tmp_path}:{__import__('os').environ.get('PYTHONPATH', '')}")
    monkeypatch.delenv("XLA_PYTHON_CLIENT_PREALLOCATE", raising=False)
    assert timing.run_module("env_probe") == {"value": "false"}
    monkeypatch.setenv("XLA_PYTHON_CLIENT_PREALLOCATE", "true")
    assert timing.run_module("env_probe") == {"value": "true"}
