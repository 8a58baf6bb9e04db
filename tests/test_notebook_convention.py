"""Conventions every notebooks/*.ipynb follows (see README, "Adding a notebook")."""
from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest
import yaml

from lsvi.pipeline.config import STANDARD_PARAMS, notebook_parameters

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
CONFIG = yaml.safe_load((ROOT / "config" / "scales.yaml").read_text())
FIGURE_NAME = re.compile(r"^(fig\d\d|table\d\d|thm|[a-z]+_fig\d\d|[a-z]+_table\d\d)_[a-z0-9_]+$")


def test_there_are_notebooks():
    assert NOTEBOOKS, "notebooks/ holds no notebook"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_stored_without_outputs(path):
    nb = json.loads(path.read_text())
    for i, cell in enumerate(nb["cells"]):
        if cell["cell_type"] == "code":
            assert cell.get("outputs") == [], f"{path.name} cell {i} has stored outputs"
            assert cell.get("execution_count") is None, f"{path.name} cell {i} has an execution count"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_parameters_cell(path):
    tagged = [c for c in json.loads(path.read_text())["cells"]
              if "parameters" in c.get("metadata", {}).get("tags", [])]
    assert len(tagged) == 1, f"{path.name}: {len(tagged)} cells tagged 'parameters'"
    params = notebook_parameters(path)
    missing = [p for p in STANDARD_PARAMS if p not in params]
    assert not missing, f"{path.name}: the parameters cell lacks {missing}"
    # the defaults ARE the smoke scale, with the pipeline's paths
    assert params["scale"] == "smoke"
    assert params["results_dir"] == f"results/smoke/{path.stem}"
    assert params["figures_dir"] == "figures"
    assert params["data_dir"] == "data/processed"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_papermill_sees_every_parameter(path):
    """papermill skips a parameters-cell line with more than one '=' (a comment such as "# m = 2d + 1"): it then
    warns "Passed unknown parameter" when the pipeline or a what-if passes that name, and ``papermill
    --help-notebook`` leaves it out. Comments in the parameters cell say ≡, :, ≥ or ≤ instead."""
    import papermill

    unseen = sorted(set(notebook_parameters(path)) - set(papermill.inspect_notebook(str(path))))
    assert not unseen, f"{path.name}: papermill cannot parse the lines of {unseen} (a second '=' on the line?)"


def test_notebooks_and_config_list_the_same_stems():
    on_disk = {p.stem for p in NOTEBOOKS}
    listed = set(CONFIG["notebooks"])
    assert not on_disk - listed, f"not listed in config/scales.yaml: {sorted(on_disk - listed)}"
    assert not listed - on_disk, f"listed in config/scales.yaml but no notebook: {sorted(listed - on_disk)}"
    for stem in on_disk:
        assert re.match(r"^\d\d_[A-Za-z0-9_]+$", stem), f"notebook name {stem!r} is not NN_slug"


def test_figure_names_follow_the_naming_scheme():
    names = [f for entry in CONFIG["notebooks"].values() for f in (entry or {}).get("figures", [])]
    bad = [f for f in names if not FIGURE_NAME.match(f)]
    assert not bad, f"figure names not figNN_/tableNN_/thm_<slug>: {bad}"
    assert len(names) == len(set(names)), "a figure is produced by two notebooks"


MAX_CODE_LINES = 120  # a notebook tells; the computing lives in src/lsvi (README, "How the code is organised")


def _code_lines(path):
    cells = [c for c in json.loads(path.read_text())["cells"] if c["cell_type"] == "code"]
    return [line for c in cells for line in "".join(c["source"]).splitlines()
            if line.strip() and not line.lstrip().startswith("#")]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_code_is_short_and_defines_nothing(path):
    lines = _code_lines(path)
    assert len(lines) <= MAX_CODE_LINES, f"{path.name}: {len(lines)} code lines (at most {MAX_CODE_LINES})"
    tree = ast.parse("\n".join(lines))
    defined = [type(node).__name__ for node in ast.walk(tree)
               if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda))]
    assert not defined, f"{path.name} defines {defined}: move the logic to src/lsvi"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_does_not_repeat_the_packages_setup(path):
    """float64 is switched on by `import lsvi` (Appendix C.1); a notebook that sets it again hides which setting the
    package's users get."""
    assert not [line for line in _code_lines(path) if "jax_enable_x64" in line and "update" in line], path.name
