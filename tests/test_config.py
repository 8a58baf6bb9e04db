"""config/scales.yaml loading and validation (src/lsvi/config.py) and the Snakefile's use of it."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from lsvi.pipeline.config import ConfigError, load_config, notebook_parameters, parse_config, unlisted_notebooks

ROOT = Path(__file__).resolve().parents[1]


def make_notebook(path: Path, params_src: str, n_param_cells: int = 1) -> Path:
    cells = [{"cell_type": "markdown", "metadata": {}, "source": ["# toy"]}]
    for _ in range(n_param_cells):
        cells.append({"cell_type": "code", "execution_count": None, "metadata": {"tags": ["parameters"]},
                      "outputs": [], "source": params_src})
    cells.append({"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [], "source": "x = 1"})
    nb = {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(nb))
    return path


STD = 'scale = "smoke"\nresults_dir = "results/smoke/10_toy"\nfigures_dir = "figures"\ndata_dir = "data/processed"\n'

CONFIG = """
scale: smoke
scales:
  smoke: quick
  cpu: reduced
  paper: exact
notebooks:
  10_toy:
    figures: [fig01_toy]
    data: [pima]
    params:
      smoke: {}
      cpu: {n_rep: 5, lr: 0.5}
      paper: {n_rep: 100, lr: 0.25, sizes: [10, 100]}
"""


@pytest.fixture
def repo(tmp_path):
    make_notebook(tmp_path / "notebooks" / "10_toy.ipynb",
                  STD + "n_rep = 2  # repetitions\nlr: float = 1.0\nsizes = [10]\n")
    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "scales.yaml").write_text(CONFIG)
    return tmp_path


def cfg_path(repo):
    return repo / "config" / "scales.yaml"


def test_valid_config_gives_parameters_for_each_scale(repo):
    expected_common = {"results_dir": None, "figures_dir": "figures", "data_dir": "data/processed"}
    extra = {"smoke": {}, "cpu": {"n_rep": 5, "lr": 0.5}, "paper": {"n_rep": 100, "lr": 0.25, "sizes": [10, 100]}}
    for scale in ("smoke", "cpu", "paper"):
        cfg = load_config(cfg_path(repo), {"scale": scale})
        assert cfg.scale == scale
        want = {**expected_common, "scale": scale, "results_dir": f"results/{scale}/10_toy", **extra[scale]}
        assert cfg.params("10_toy") == want
        out = cfg.outputs("10_toy")
        assert out["executed"] == f"results/{scale}/10_toy/executed.ipynb"
        assert out["claims"] == f"results/{scale}/10_toy/claims.csv"
        assert out["figures"] == [f"figures/{scale}/fig01_toy.pdf", f"figures/{scale}/fig01_toy.png"]
        assert cfg.datasets() == ["pima"]
    # the default scale is the file's `scale:` key
    assert load_config(cfg_path(repo)).scale == "smoke"


def test_unknown_scale_names_the_valid_scales(repo):
    with pytest.raises(ConfigError, match=r"unknown scale 'bogus'.*smoke, cpu, paper"):
        load_config(cfg_path(repo), {"scale": "bogus"})


def test_malformed_yaml(repo):
    cfg_path(repo).write_text("scales: {smoke: a\nnotebooks: [\n")
    with pytest.raises(ConfigError, match="not valid YAML"):
        load_config(cfg_path(repo))


def test_unknown_parameter_name(repo):
    cfg_path(repo).write_text(CONFIG.replace("n_rep: 5", "n_reps: 5"))
    with pytest.raises(ConfigError, match=r"\['n_reps'\] are not in the parameters cell"):
        load_config(cfg_path(repo))


@pytest.mark.parametrize("bad, message", [
    ("scale: smoke\nscales: {smoke: a}\nnotebooks: {10_toy: {}}\nextra: 1\n", "unknown top-level key"),
    ("scales: {smoke: a}\nnotebooks: {10_toy: {figure: [fig01_toy]}}\n", r"unknown key\(s\) \['figure'\]"),
    ("scales: {smoke: a}\nnotebooks: {10_toy: {params: {huge: {n_rep: 1}}}}\n", r"unknown scale\(s\) \['huge'\]"),
    ("scales: {cpu: a}\nnotebooks: {10_toy: {}}\n", "must contain 'smoke'"),
    ("scales: {smoke: a}\nnotebooks: {10_toy: {params: {smoke: {n_rep: 3}}}}\n", "differ from the notebook's defaults"),
    ("scales: {smoke: a, cpu: b}\nnotebooks: {10_toy: {params: {cpu: {scale: paper}}}}\n", "set by the pipeline"),
    ("scales: {smoke: a}\nnotebooks: {10_toy: {data: pima}}\n", "must be a list of names"),
    ("- just\n- a list\n", "must be a mapping"),
])
def test_invalid_configs(repo, bad, message):
    cfg_path(repo).write_text(bad)
    with pytest.raises(ConfigError, match=message):
        load_config(cfg_path(repo))


def test_smoke_params_equal_to_defaults_are_allowed(repo):
    cfg_path(repo).write_text("scales: {smoke: a}\nnotebooks: {10_toy: {params: {smoke: {n_rep: 2}}}}\n")
    assert load_config(cfg_path(repo)).params("10_toy")["n_rep"] == 2


def test_notebook_missing_on_disk_or_unlisted(repo):
    cfg_path(repo).write_text(CONFIG + "  11_absent: {}\n")
    with pytest.raises(ConfigError, match=r"missing on disk: notebooks/11_absent.ipynb"):
        load_config(cfg_path(repo))
    # a notebook on disk but not listed: the pipeline warns and skips it (the convention test fails)
    cfg_path(repo).write_text(CONFIG)
    make_notebook(repo / "notebooks" / "12_new.ipynb", STD)
    cfg = load_config(cfg_path(repo))
    assert list(cfg.notebooks) == ["10_toy"] and unlisted_notebooks(cfg) == ["12_new"]


def test_parameters_cell_rules(tmp_path):
    nb = make_notebook(tmp_path / "a.ipynb", STD + "n = 3\nf = some_call()\n")
    params = notebook_parameters(nb)
    assert params["n"] == 3 and params["scale"] == "smoke" and params["f"] is Ellipsis
    with pytest.raises(ConfigError, match="exactly one cell tagged 'parameters' \\(found 2\\)"):
        notebook_parameters(make_notebook(tmp_path / "b.ipynb", STD, n_param_cells=2))
    with pytest.raises(ConfigError, match="found 0"):
        notebook_parameters(make_notebook(tmp_path / "c.ipynb", STD, n_param_cells=0))
    # the standard parameters must be declared (nbval runs the notebooks with their defaults)
    make_notebook(tmp_path / "notebooks" / "10_toy.ipynb", "n_rep = 1\n")
    with pytest.raises(ConfigError, match="standard parameters"):
        parse_config({"scales": {"smoke": ""}, "notebooks": {"10_toy": {}}}, tmp_path)


def test_repository_config_is_valid():
    cfg = load_config(ROOT / "config" / "scales.yaml")
    for scale in cfg.scales:
        for stem in cfg.notebooks:
            assert cfg.params(stem, scale)["results_dir"] == f"results/{scale}/{stem}"


def test_snakefile_rejects_unknown_scale_before_running():
    snakemake = str(Path(sys.executable).parent / "snakemake")  # in the lock file: missing fails, never skips
    r = subprocess.run([snakemake, "-n", "--cores", "1", "--config", "scale=bogus"], cwd=ROOT,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode != 0
    assert "ConfigError" in r.stderr + r.stdout and "valid scales: smoke, cpu, paper" in r.stderr + r.stdout
    assert "Job stats" not in r.stdout + r.stderr


def test_pipeline_jobs_import_the_checkouts_own_library(tmp_path):
    """Two clones sharing one environment: the environment's lsvi (here a decoy first on PYTHONPATH, standing for the
    other clone's editable install) must not be what a job runs. The Snakefile puts its own src/ first, so the data
    job of a clone of this repository imports the clone's lsvi and builds the data set."""
    import shutil

    snakemake = str(Path(sys.executable).parent / "snakemake")
    copy = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", "--shared", str(ROOT), str(copy)], check=True)
    shutil.copy(ROOT / "Snakefile", copy / "Snakefile")  # the working tree's version
    decoy = tmp_path / "other" / "lsvi"
    decoy.mkdir(parents=True)
    (decoy / "__init__.py").write_text("raise ImportError('the decoy lsvi of another checkout was imported')\n")
    env = dict(os.environ, PYTHONPATH=str(decoy.parent))
    r = subprocess.run([snakemake, "--cores", "1", "data/processed/pima.npz"], cwd=copy, env=env,
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, (r.stdout + r.stderr)[-3000:]
    assert (copy / "data" / "processed" / "pima.npz").is_file()


def test_notebooks_depend_on_the_modules_they_import():
    """Editing the BSL simulator reruns the BSL notebook only; editing the LSVI step reruns
    every notebook that runs LSVI (Snakefile: `library_inputs`)."""
    from lsvi.pipeline.config import notebook_dependencies

    root = Path(__file__).resolve().parents[1]
    deps = {p.stem: {str(f.relative_to(root / "src")) for f in notebook_dependencies(p, root / "src")}
            for p in (root / "notebooks").glob("*.ipynb")}
    toads, kernel = "lsvi/papers/lsvi/toads.py", "lsvi/core/kernel.py"
    assert {s for s, d in deps.items() if toads in d} == {"31_bsl_toads"}
    assert all(kernel in d for s, d in deps.items() if s[:2] in ("14", "20", "21", "22", "23", "30", "31"))
    assert all("lsvi/pipeline/notebook.py" in d for d in deps.values())


def test_modules_imported_by_name_are_dependencies():
    """A module imported by name (the lazy `lsvi.baselines.BASELINES` registry, a module run as a
    child process) is an input of the notebooks that reach it; a docstring naming a module in a
    sentence is not an import."""
    from lsvi.pipeline.config import code_dependencies, notebook_dependencies

    root = Path(__file__).resolve().parents[1]
    deps = {str(f.relative_to(root / "src")) for f in notebook_dependencies(root / "notebooks" / "24_lr_tables.ipynb",
                                                                            root / "src")}
    assert {"lsvi/baselines/pymc_advi.py", "lsvi/baselines/gmmvi_single.py", "lsvi/baselines/blackjax_vi.py"} <= deps
    named = {str(f.relative_to(root / "src")) for f in code_dependencies(
        ['import importlib\nm = importlib.import_module("lsvi.papers.lsvi.toads")'], root / "src")}
    assert "lsvi/papers/lsvi/toads.py" in named
    prose = {str(f.relative_to(root / "src")) for f in code_dependencies(
        ['"""See lsvi.papers.lsvi.toads for the simulator."""\nx = 1'], root / "src")}
    assert "lsvi/papers/lsvi/toads.py" not in prose


def test_no_notebook_depends_on_the_report_or_fingerprint_rules():
    """A notebook's results must not go stale when the report or the fingerprint rules change: no notebook imports
    `lsvi.pipeline.report` or `lsvi.pipeline.fingerprint`, even indirectly (notebook 24 records its hardware with
    `lsvi.pipeline.hardware`)."""
    from lsvi.pipeline.config import notebook_dependencies

    root = Path(__file__).resolve().parents[1]
    for nb in sorted((root / "notebooks").glob("*.ipynb")):
        deps = {p.name for p in notebook_dependencies(nb, root / "src") if p.parent.name == "pipeline"}
        assert not deps & {"report.py", "fingerprint.py"}, nb.stem
