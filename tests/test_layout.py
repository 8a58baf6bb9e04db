"""The package's areas import only the areas below them (README, "How the code is organised").

    core         imports nothing else of the project (the algorithm library)
    pipeline     imports nothing else of the project (config, claims, report, figures, ...)
    baselines    core
    checks       core
    experiments  core, baselines, checks, pipeline
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "lsvi"
ALLOWED = {
    "core": {"core"},
    "pipeline": {"pipeline"},
    "baselines": {"core", "baselines"},
    "checks": {"core", "checks"},
    "experiments": {"core", "baselines", "checks", "pipeline", "experiments"},
}


def lsvi_imports(path: Path) -> set[str]:
    """Areas (second component of ``lsvi.<area>...``) that ``path`` imports, "" for ``lsvi`` itself."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        names = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module] + ([f"{node.module}.{a.name}" for a in node.names] if node.module == "lsvi" else [])
        for n in names:
            parts = n.split(".")
            if parts[0] == "lsvi":
                out.add(parts[1] if len(parts) > 1 else "")
    return out


MODULES = sorted(p for p in SRC.rglob("*.py") if p.parent != SRC)


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(SRC)))
def test_an_area_imports_only_the_areas_below_it(path):
    area = path.relative_to(SRC).parts[0]
    assert area in ALLOWED, f"{path}: unknown area {area!r}; add it to the README and to ALLOWED"
    bad = lsvi_imports(path) - ALLOWED[area] - {""}
    assert not bad, f"{path.relative_to(SRC)} ({area}) imports {sorted(bad)}"


def test_the_top_level_package_exposes_the_core_only():
    assert lsvi_imports(SRC / "__init__.py") <= {"core"}


def test_the_checker_sees_imports():
    """The test above could pass by reading nothing: check it on a module with known imports."""
    assert lsvi_imports(SRC / "experiments" / "logistic.py") >= {"core", "pipeline"}
