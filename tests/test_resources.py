"""Per-notebook resource declarations (config/resources.yaml, src/lsvi/pipeline/resources.py):
complete for every notebook and scale, and honest (covering the measured use in the committed
reports, with headroom, and not inflated far beyond it)."""
from __future__ import annotations

import subprocess

import pytest
import yaml

from lsvi.pipeline.config import load_config
from lsvi.pipeline.paths import repo_root
from lsvi.pipeline.resources import (
    MIN_MEM_MB,
    MIN_RUNTIME,
    ResourcesError,
    check_complete,
    derive,
    load_resources,
    measured_usage,
    parse_resources,
)

ROOT = repo_root()
CFG = load_config(ROOT / "config" / "scales.yaml", check_notebooks=False)
RES = load_resources(ROOT / "config" / "resources.yaml")


def committed_report(scale, tmp_path):
    """results/<scale>/REPLICATION.md as committed (HEAD): `make all` rewrites the working copy with its own
    measurements (in CI, just before the tests), and the declarations are derived from the committed one.
    Outside a git checkout, the working copy."""
    path = ROOT / "results" / scale / "REPLICATION.md"
    try:
        text = subprocess.run(["git", "show", f"HEAD:results/{scale}/REPLICATION.md"], cwd=ROOT, check=True,
                              capture_output=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return path
    out = tmp_path / f"{scale}_REPLICATION.md"
    out.write_text(text)
    return out


def test_every_notebook_has_resources_at_every_scale():
    check_complete(RES, CFG)  # raises ResourcesError saying what to add


def test_missing_entry_says_what_to_add():
    raw = yaml.safe_load((ROOT / "config" / "resources.yaml").read_text())
    stem = next(iter(CFG.notebooks))
    del raw["notebooks"][stem]["cpu"]
    with pytest.raises(ResourcesError) as e:
        check_complete(parse_resources(raw), CFG)
    msg = str(e.value)
    assert f"{stem} (cpu)" in msg and f"  {stem}:\n    cpu: {{threads: 1, mem_mb: <MiB>, runtime: <minutes>}}" in msg
    assert "REPLICATION.md" in msg and "--derive" in msg


@pytest.mark.parametrize("scale", ["smoke", "cpu"])
def test_declarations_cover_the_measured_use(scale, tmp_path):
    """At a scale with a committed report: 1.2 x measured <= declared <= max(floor, 3 x measured),
    for memory (peak RSS) and runtime (wall time) of every notebook the committed report lists."""
    used = measured_usage(committed_report(scale, tmp_path))
    assert set(CFG.notebooks) & set(used), "the committed report lists no notebook of the config"
    for stem, (wall_min, rss_gib) in used.items():
        if stem not in CFG.notebooks:
            continue
        r = RES.of(stem, scale)
        rss_mb = rss_gib * 1024
        assert 1.2 * rss_mb <= r["mem_mb"] <= max(MIN_MEM_MB, 3 * rss_mb), (stem, scale, r, rss_gib)
        assert 1.2 * wall_min <= r["runtime"] <= max(MIN_RUNTIME, 3 * wall_min), (stem, scale, r, wall_min)
        assert r["gpu"] == 0  # measured on a CPU-only machine


def test_paper_estimates_are_at_least_the_cpu_declaration():
    for stem in CFG.notebooks:
        cpu, paper = RES.of(stem, "cpu"), RES.of(stem, "paper")
        assert paper["mem_mb"] >= cpu["mem_mb"] and paper["runtime"] >= cpu["runtime"], stem
        assert paper["threads"] >= cpu["threads"]
    assert any(RES.of(s, "paper")["gpu"] for s in CFG.notebooks)


def test_derive_rounds_up_with_margin_and_floors():
    assert derive(10.0, 2.0, margin=1.5) == {"mem_mb": 3072, "runtime": 15}
    assert derive(10.1, 2.01, margin=1.5) == {"mem_mb": 3328, "runtime": 16}
    assert derive(0.2, 0.1) == {"mem_mb": MIN_MEM_MB, "runtime": MIN_RUNTIME}


def test_measured_usage_reads_the_report_table():
    used = measured_usage(ROOT / "results" / "cpu" / "REPLICATION.md")
    text = (ROOT / "results" / "cpu" / "REPLICATION.md").read_text()
    for stem, (wall, rss) in used.items():
        assert f"| `{stem}` |" in text and f"| {wall:.1f} min | {rss:.2f} GiB |" in text


@pytest.mark.parametrize("entry", [
    {"threads": 1, "mem_mb": 1024},                       # runtime missing
    {"threads": 1, "mem_mb": 1024, "runtime": 5, "gpus": 1},  # unknown key
    {"threads": 0, "mem_mb": 1024, "runtime": 5},          # not positive
    {"threads": 1, "mem_mb": "1G", "runtime": 5},          # not an integer
])
def test_bad_entries_are_rejected(entry):
    with pytest.raises(ResourcesError):
        parse_resources({"margin": 1.5, "notebooks": {"10_x": {"smoke": entry}}})


def test_readme_table_is_the_declarations():
    """The README's resources table is generated from config/resources.yaml (`readme_table`): no hand edit can
    make the two disagree."""
    from lsvi.pipeline.paths import repo_root
    from lsvi.pipeline.resources import load_resources, readme_table

    readme = (repo_root() / "README.md").read_text()
    assert readme_table(load_resources(repo_root() / "config" / "resources.yaml")) in readme
