"""The package's areas import only the areas below them (README, "How the code is organised").

    core         imports nothing else of the project (the algorithm library of the five papers)
    pipeline     imports nothing else of the project (config, claims, report, figures, ...)
    baselines    core
    exact        core (the exact toolkit of the theorem checks: quadrature maps, rates, statistics)
    data         core, pipeline (data sets shared by several papers)
    papers       core, baselines, exact, data, pipeline; one folder per paper, which imports another paper's folder
                 only where CROSS_PAPER declares it
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "lsvi"
ALLOWED = {
    "core": {"core"},
    "pipeline": {"pipeline"},
    "baselines": {"core", "baselines"},
    "exact": {"core", "exact"},
    "data": {"core", "pipeline", "data"},
    "papers": {"core", "baselines", "exact", "data", "pipeline", "papers"},
}
PAPERS = {"lsvi", "rabvi", "ngvi", "alquier", "lsvi_rabvi"}
CROSS_PAPER = {"lsvi_rabvi": {"lsvi", "rabvi"}}  # notebook 44: LSVI behind RABVI's interface


def lsvi_imports(path: Path, depth: int = 1) -> set[str]:
    """Names ``lsvi.<a>`` (depth 1) or ``lsvi.<a>.<b>`` (depth 2) that ``path`` imports, "" for ``lsvi`` itself."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        names = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
        for n in names:
            parts = n.split(".")
            if parts[0] == "lsvi":
                out.add(".".join(parts[1:1 + depth]) if len(parts) > 1 else "")
    return out


MODULES = sorted(p for p in SRC.rglob("*.py") if p.parent != SRC)


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(SRC)))
def test_an_area_imports_only_the_areas_below_it(path):
    area = path.relative_to(SRC).parts[0]
    assert area in ALLOWED, f"{path}: unknown area {area!r}; add it to the README and to ALLOWED"
    bad = {a for a in lsvi_imports(path) if a.split(".")[0] not in ALLOWED[area]} - {""}
    assert not bad, f"{path.relative_to(SRC)} ({area}) imports {sorted(bad)}"


@pytest.mark.parametrize("path", sorted((SRC / "papers").rglob("*.py")), ids=lambda p: str(p.relative_to(SRC)))
def test_a_paper_imports_another_paper_only_where_declared(path):
    paper = path.relative_to(SRC / "papers").parts[0]
    assert paper in PAPERS, f"{path}: unknown paper folder {paper!r}; add it to PAPERS and to the README"
    used = {a.split(".")[1] for a in lsvi_imports(path, depth=2) if a.startswith("papers.") and "." in a}
    bad = used - {paper} - CROSS_PAPER.get(paper, set())
    assert not bad, f"{path.relative_to(SRC)} (paper {paper}) imports the folders of {sorted(bad)}; declare it in CROSS_PAPER"


def test_every_paper_folder_has_a_readme_citing_its_paper():
    for paper in PAPERS:
        readme = SRC / "papers" / paper / "README.md"
        assert readme.is_file(), f"src/lsvi/papers/{paper}/README.md is missing"
        assert "notebook" in readme.read_text().lower()


def test_the_top_level_package_exposes_the_core_only():
    assert lsvi_imports(SRC / "__init__.py") <= {"core"}


def test_the_checker_sees_imports():
    """The tests above could pass by reading nothing: check them on modules with known imports."""
    assert lsvi_imports(SRC / "papers" / "lsvi" / "logistic.py") >= {"core", "pipeline", "data"}
    assert "papers.lsvi" in lsvi_imports(SRC / "papers" / "lsvi_rabvi" / "stopping.py", depth=2)


def test_benchmark_scripts_are_bench_or_profile():
    """benchmarks/ holds measurement scripts named for what they do (bench_* times, profile_* attributes time) and
    their records; one-off scripts do not stay."""
    scripts = [p.name for p in (ROOT / "benchmarks").iterdir() if p.suffix in {".py", ".sh"}]
    assert scripts and all(n.startswith(("bench_", "profile_")) for n in scripts), scripts
