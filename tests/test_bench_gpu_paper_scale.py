"""benchmarks/bench_gpu_paper_scale.py (issue 29, item 5) at --smoke sizes on the CPU: the JSON and
Markdown it writes, the time limit, and that it needs nothing beyond lsvi.core, jax and numpy
(the GPU machine has no PyMC, Blackjax, ArviZ or Snakemake). No GPU, no wall-clock asserts."""
import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "benchmarks" / "bench_gpu_paper_scale.py"
DATA = ROOT / "data" / "processed"


def _module():
    spec = importlib.util.spec_from_file_location("bench_gpu_paper_scale", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _env():
    return dict(os.environ, PYTHONPATH=str(ROOT / "src"), JAX_PLATFORMS="cpu")


def test_configurations_are_the_paper_scale():
    mod = _module()
    by_name = {c["name"]: c for c in mod.CONFIGS}
    # config/scales.yaml, paper: entries of notebooks 20-23
    assert (by_name["pima_alg3"]["num_samples"], by_name["pima_alg3"]["num_steps"]) == (100_000, 100)
    assert (by_name["pima_alg1"]["num_samples"], by_name["pima_alg1"]["num_steps"]) == (10_000, 10)
    assert (by_name["sonar_alg3"]["num_samples"], by_name["sonar_alg3"]["num_steps"]) == (100_000, 100)
    assert (by_name["mnist_alg2"]["num_samples"], by_name["mnist_alg2"]["num_steps"]) == (10_000, 500)
    assert (by_name["census_alg2"]["num_steps"], by_name["census_alg2"]["batch_size"]) == (10_000, 1_000)
    assert all(c["num_reps"] == 100 and 1 <= c["batch"] <= c["num_reps"] for c in mod.CONFIGS)
    assert set(mod.SMOKE) == set(by_name)


def test_imports_only_the_core():
    code = ("import sys, runpy; sys.argv = ['x', '--help']\n"
            f"import importlib.util as u; s = u.spec_from_file_location('g', {str(SCRIPT)!r}); "
            "m = u.module_from_spec(s); s.loader.exec_module(m)\n"
            "import lsvi, lsvi.core.algorithms, lsvi.core.kernel, lsvi.core.step_size, lsvi.core.targets\n"
            "bad = {'arviz', 'pymc', 'blackjax', 'tensorflow', 'snakemake', 'pandas', 'optax', 'matplotlib'}\n"
            "print(sorted(bad & {n.split('.')[0] for n in sys.modules}))")
    out = subprocess.run([sys.executable, "-c", code], env=_env(), capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_time_limit_skips(tmp_path):
    mod = _module()
    assert mod.main(["--smoke", "--time-limit", "0", "--only", "pima_alg1", "--out", str(tmp_path),
                     "--data-dir", str(DATA)]) == 0
    report = json.loads((tmp_path / "gpu_paper_scale.json").read_text())
    assert [r["status"] for r in report["configs"]] == ["skipped"]
    assert "skipped" in (tmp_path / "gpu_paper_scale.md").read_text()


@pytest.mark.skipif(not (DATA / "pima.npz").exists() or not (DATA / "mnist.npz").exists(),
                    reason="data/processed not built (make data)")
def test_smoke_writes_json_and_markdown(tmp_path):
    subprocess.run([sys.executable, str(SCRIPT), "--smoke", "--only", "pima_alg3,mnist_alg2", "--out", str(tmp_path),
                    "--data-dir", str(DATA), "--time-limit", "600"], env=_env(), check=True, capture_output=True)
    report = json.loads((tmp_path / "gpu_paper_scale.json").read_text())
    assert report["meta"]["smoke"] is True and report["meta"]["platform"] == "cpu"
    rows = {r["name"]: r for r in report["configs"]}
    assert set(rows) == {"pima_alg3", "mnist_alg2"}
    for name, r in rows.items():
        assert r["status"] == "ok", r.get("error")
        assert r["compile_s"] > 0 and len(r["batch_s"]) >= 1 and all(t > 0 for t in r["batch_s"])
        assert r["num_batches"] == -(-r["num_reps"] // r["batch"])
        assert r["all_reps_s"] == pytest.approx(min(r["batch_s"]) * r["num_batches"])
        assert r["per_rep_s"] == pytest.approx(min(r["batch_s"]) / r["batch"])
        assert r["final_eta_finite"] and 0.0 <= r["accepted_fraction"] <= 1.0
        assert "peak_bytes_in_use" in r and "xla_memory" in r  # peak: None on the CPU
        assert r["paper_num_samples"] >= r["num_samples"]
    assert rows["pima_alg3"]["num_params"] == 1 + 9 + 9 * 10 // 2
    assert rows["mnist_alg2"]["data_shape"] == [11774, 784]
    md = (tmp_path / "gpu_paper_scale.md").read_text()
    assert "| pima_alg3 |" in md and "| mnist_alg2 |" in md and "--smoke" in md
