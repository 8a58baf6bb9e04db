"""The SLURM profile (profiles/slurm) at paper scale, without a cluster: Snakemake's dry run plans
one job per notebook, then the aggregate and the site, with the threads / memory / runtime / GPU of
config/resources.yaml; the SLURM executor plugin renders those as the sbatch options."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from lsvi.pipeline.config import load_config
from lsvi.pipeline.paths import repo_root
from lsvi.pipeline.resources import load_resources

ROOT = repo_root()
CFG = load_config(ROOT / "config" / "scales.yaml", {"scale": "paper"}, check_notebooks=False)
RES = load_resources(ROOT / "config" / "resources.yaml")
SNAKEMAKE = Path(sys.executable).with_name("snakemake")


@pytest.fixture(scope="module")
def dry_run():
    import snakemake_executor_plugin_slurm  # noqa: F401  (in the lock file: missing fails, never skips)
    # --cores: a dry run defaults to 1 core, which would cap every job's threads at 1; a real
    # cluster run (make all PROFILE=slurm, no --cores) has no such cap.
    proc = subprocess.run([str(SNAKEMAKE), "-n", "--nolock", "--profile", "profiles/slurm", "--config", "scale=paper",
                           "--cores", "64"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return proc.stdout + proc.stderr


def test_one_job_per_notebook_then_aggregate_and_site(dry_run):
    stats = dry_run.split("Job stats:")[1].split("Reasons:")[0]
    jobs = dict(re.findall(r"^(\S+)\s+(\d+)$", stats, re.M))
    for stem in CFG.notebooks:
        assert jobs.get(f"nb_{stem}") == "1", stem
    assert jobs.get("aggregate") == "1" and jobs.get("site") == "1"
    assert "Using profile profiles/slurm" in dry_run


def test_jobs_request_the_declared_resources(dry_run):
    blocks = {m[1]: m[2] for m in re.finditer(r"^rule (nb_\w+):\n(.*?)(?=^Shell command)", dry_run, re.M | re.S)}
    assert set(blocks) == {f"nb_{s}" for s in CFG.notebooks}
    for stem in CFG.notebooks:
        r, block = RES.of(stem, "paper"), blocks[f"nb_{stem}"]
        res = dict(kv.split("=", 1) for kv in re.search(r"resources: (.*)", block)[1].split(", "))
        assert int(res["mem_mb"]) == r["mem_mb"] and int(res["runtime"]) == r["runtime"], stem
        assert int(res.get("gpu", 0)) == r["gpu"], stem
        threads = re.search(r"threads: (\d+)", block)
        assert (int(threads[1]) if threads else 1) == r["threads"], stem


class _Resources(dict):
    __getattr__ = dict.__getitem__


class _Job:
    def __init__(self, threads, resources):
        self.threads, self.resources = threads, _Resources(resources)


def test_sbatch_call_rendered_by_the_plugin():
    from snakemake_executor_plugin_slurm.submit_string import get_submit_command
    from snakemake_executor_plugin_slurm.utils import set_gres_string

    params = {"run_uuid": "lsvi", "slurm_logfile": "log", "comment_str": "c", "account": "-A acct",
              "partition": "-p part", "workdir": "/work"}
    seen_gpu = False
    for stem in CFG.notebooks:
        r = RES.of(stem, "paper")
        job = _Job(r["threads"], {k: r[k] for k in ("mem_mb", "runtime", "gpu")})
        call = get_submit_command(job, params) + set_gres_string(job)
        assert f" --mem {r['mem_mb']}" in call and f" -t {r['runtime']}" in call, call
        assert f"--cpus-per-task={r['threads']}" in call, call
        assert ("--gpus=1" in call) == bool(r["gpu"]), call
        seen_gpu |= bool(r["gpu"])
    assert seen_gpu
