"""The pipeline's configuration: ``config/scales.yaml`` loaded and validated.

All scale settings live in that one file; notebooks never contain scale logic. Its shape::

    scale: smoke                 # default; the pipeline takes --config scale=cpu
    scales:                      # the valid scales, each with a one-line description
      smoke: ...
      cpu: ...
      paper: ...
    notebooks:                   # notebook stem (notebooks/<stem>.ipynb) -> entry
      00_datasets:
        description: ...         # optional, shown in REPLICATION.md
        figures: [table02_datasets]   # figures/<scale>/<name>.{pdf,png}
        tables: []               # results/<scale>/<stem>/<name>.csv
        data: [pima, sonar]      # data/processed/<name>.npz the notebook reads
        params:                  # per-scale parameters; smoke = the notebook's defaults
          smoke: {}
          cpu: {n_rep: 10}
          paper: {n_rep: 100}

Everything here is a pure function of the YAML text and the notebooks on disk, so a bad
scale, a typo in a key or a parameter the notebook does not declare is reported as a
`ConfigError` before anything runs (the Snakefile validates first).

Every notebook receives the standard parameters ``scale``, ``results_dir``
(``results/<scale>/<stem>``), ``figures_dir`` (``figures``) and ``data_dir``
(``data/processed``) plus its scale-specific parameters.

``python -m lsvi.pipeline.config [--scale cpu]`` validates the file and prints the plan.
"""
from __future__ import annotations

import argparse
import ast
import json
import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

import yaml

from lsvi.pipeline.paths import DATA_DIR

DEFAULT_CONFIG = "config/scales.yaml"
DEFAULT_SCALE = "smoke"
FIGURES_DIR = "figures"
RESULTS_DIR = "results"
STANDARD_PARAMS = ("scale", "results_dir", "figures_dir", "data_dir")

TOP_KEYS = {"scale", "scales", "notebooks"}
NOTEBOOK_KEYS = {"description", "figures", "tables", "data", "params"}
_STEM = re.compile(r"^\d\d_[A-Za-z0-9_]+$")
_NAME = re.compile(r"^[A-Za-z0-9_]+$")


class ConfigError(ValueError):
    """The configuration is invalid; the message says what and where."""


@dataclass(frozen=True)
class NotebookSpec:
    """One entry of ``notebooks:``."""

    stem: str
    description: str = ""
    figures: tuple[str, ...] = ()
    tables: tuple[str, ...] = ()
    data: tuple[str, ...] = ()
    params: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)


@dataclass(frozen=True)
class Config:
    """A validated configuration for one chosen scale."""

    scale: str
    scales: Mapping[str, str]
    notebooks: Mapping[str, NotebookSpec]
    root: Path

    def params(self, stem: str, scale: str | None = None) -> dict[str, Any]:
        """All papermill parameters of notebook ``stem`` at ``scale`` (default: the chosen one)."""
        scale = self._scale(scale)
        nb = self._nb(stem)
        out = {
            "scale": scale,
            "results_dir": f"{RESULTS_DIR}/{scale}/{stem}",
            "figures_dir": FIGURES_DIR,
            "data_dir": DATA_DIR,
        }
        out.update(nb.params.get(scale, {}))
        return out

    def outputs(self, stem: str, scale: str | None = None) -> dict[str, Any]:
        """The files notebook ``stem`` produces at ``scale`` (paths relative to the root)."""
        scale = self._scale(scale)
        nb = self._nb(stem)
        res = f"{RESULTS_DIR}/{scale}/{stem}"
        return {
            "executed": f"{res}/executed.ipynb",
            "claims": f"{res}/claims.csv",
            "figures": [f"{FIGURES_DIR}/{scale}/{f}.{ext}" for f in nb.figures for ext in ("pdf", "png")],
            "tables": [f"{res}/{t}.csv" for t in nb.tables],
        }

    def datasets(self) -> list[str]:
        """The union of the datasets the notebooks need, sorted."""
        return sorted({d for nb in self.notebooks.values() for d in nb.data})

    def _scale(self, scale):
        scale = self.scale if scale is None else scale
        if scale not in self.scales:
            raise ConfigError(f"unknown scale {scale!r}; valid scales: {', '.join(self.scales)}")
        return scale

    def _nb(self, stem):
        if stem not in self.notebooks:
            raise ConfigError(f"unknown notebook {stem!r}; listed: {', '.join(self.notebooks)}")
        return self.notebooks[stem]


# --------------------------------------------------------------------------- notebooks


def parameters_cell(notebook: str | os.PathLike) -> str:
    """The source of the single cell tagged ``parameters`` of a notebook.

    Raises `ConfigError` if the file is not a notebook or has zero or several such cells.
    """
    path = Path(notebook)
    try:
        nb = json.loads(path.read_text())
    except FileNotFoundError:
        raise ConfigError(f"notebook {path} does not exist") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise ConfigError(f"{path} is not a valid notebook (JSON): {e}") from None
    cells = [
        c for c in nb.get("cells", [])
        if "parameters" in (c.get("metadata", {}).get("tags") or [])
    ]
    if len(cells) != 1:
        raise ConfigError(f"{path} must have exactly one cell tagged 'parameters' (found {len(cells)})")
    src = cells[0].get("source", "")
    return "".join(src) if isinstance(src, list) else src


def notebook_parameters(notebook: str | os.PathLike) -> dict[str, Any]:
    """Names declared in a notebook's ``parameters`` cell, mapped to their default values.

    A default that is not a Python literal is mapped to the `Ellipsis` object.
    """
    src = parameters_cell(notebook)
    try:
        tree = ast.parse(src)
    except SyntaxError as e:
        raise ConfigError(f"{notebook}: the parameters cell is not valid Python: {e}") from None
    out: dict[str, Any] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets, value = [node.target], node.value
        else:
            continue
        try:
            default = ast.literal_eval(value)
        except ValueError:
            default = ...
        for t in targets:
            if isinstance(t, ast.Name):
                out[t.id] = default
    return out


# --------------------------------------------------------------------------- code dependencies


_DOTTED_LSVI = re.compile(r"lsvi(\.[A-Za-z_]\w*)+")


def _imported_lsvi_modules(source: str) -> set[str]:
    """Dotted names of the ``lsvi`` modules (or module members) ``source`` imports: its ``import``
    statements, and every string literal that is a dotted ``lsvi`` name, since a module imported by
    name (the lazy `lsvi.baselines.BASELINES` registry, ``importlib.import_module``, a module run in a
    child process by ``python -m``) is executed as surely as an imported one."""
    # notebooks may hold IPython magics / shell escapes: drop those lines before parsing
    lines = [ln for ln in source.splitlines() if not ln.lstrip().startswith(("%", "!"))]
    try:
        tree = ast.parse("\n".join(lines))
    except SyntaxError:
        return set()
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and _DOTTED_LSVI.fullmatch(node.value):
            out.add(node.value)  # imported by name: importlib.import_module("lsvi.baselines.pymc_advi"), a child process
        elif isinstance(node, ast.Import):
            out |= {a.name for a in node.names if a.name.split(".")[0] == "lsvi"}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0 and node.module.split(".")[0] == "lsvi":
            out.add(node.module)
            out |= {f"{node.module}.{a.name}" for a in node.names}
    return out


def _module_file(src: Path, dotted: str) -> Path | None:
    """The file of module ``dotted`` under ``src`` (a package's ``__init__.py``), or None
    (e.g. ``lsvi.core.step_size.constant`` names a function, not a module)."""
    base = src.joinpath(*dotted.split("."))
    for p in (base.with_suffix(".py"), base / "__init__.py"):
        if p.is_file():
            return p
    return None


def code_dependencies(sources: list[str], src: str | os.PathLike) -> list[Path]:
    """Every file of the ``lsvi`` package that code importing ``sources`` (source texts)
    executes: the modules they import, transitively, and the ``__init__.py`` of every package
    on the way (Python runs them on import). ``src`` holds the ``lsvi`` package."""
    src = Path(src)
    todo = set().union(*(_imported_lsvi_modules(s) for s in sources)) | {"lsvi"}
    seen: set[Path] = set()
    while todo:
        dotted = todo.pop()
        parts = dotted.split(".")
        for i in range(1, len(parts) + 1):  # packages on the way, then the module itself
            f = _module_file(src, ".".join(parts[:i]))
            if f is None or f in seen:
                continue
            seen.add(f)
            todo |= _imported_lsvi_modules(f.read_text())
    return sorted(seen)


def notebook_dependencies(notebook: str | os.PathLike, src: str | os.PathLike) -> list[Path]:
    """`code_dependencies` of a notebook's code cells: the library files whose change must
    rerun it (editing `lsvi.papers.lsvi.toads` reruns the BSL notebook, not the theorem checks)."""
    nb = json.loads(Path(notebook).read_text())
    cells = ["".join(c["source"]) if isinstance(c["source"], list) else c["source"]
             for c in nb.get("cells", []) if c.get("cell_type") == "code"]
    return code_dependencies(cells, src)


# --------------------------------------------------------------------------- validation


def _str_list(value, where: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(v, str) and _NAME.match(v) for v in value):
        raise ConfigError(f"{where} must be a list of names (letters, digits, _), got {value!r}")
    if len(set(value)) != len(value):
        raise ConfigError(f"{where} lists a name twice: {value!r}")
    return tuple(value)


def parse_config(raw: Any, root: str | os.PathLike = ".", check_notebooks: bool = True) -> Config:
    """Validate a loaded YAML document (plus overrides such as ``scale``) into a `Config`.

    With ``check_notebooks`` every listed notebook must exist under ``root/notebooks``,
    declare the standard parameters, and declare every parameter the config sets for it in
    its ``parameters`` cell (smoke-scale values must equal the cell's defaults). Notebooks
    on disk that are not listed are not an error here (see `unlisted_notebooks`).
    """
    root = Path(root)
    if not isinstance(raw, dict):
        raise ConfigError(f"the configuration must be a mapping with keys {sorted(TOP_KEYS)}, got {type(raw).__name__}")
    unknown = set(raw) - TOP_KEYS
    if unknown:
        raise ConfigError(f"unknown top-level key(s) {sorted(unknown)}; allowed: {sorted(TOP_KEYS)}")

    scales = raw.get("scales")
    if not isinstance(scales, dict) or not scales:
        raise ConfigError("'scales' must be a non-empty mapping: scale name -> description")
    scales = {str(k): "" if v is None else str(v) for k, v in scales.items()}
    if DEFAULT_SCALE not in scales:
        raise ConfigError(f"'scales' must contain {DEFAULT_SCALE!r} (the notebooks' defaults)")
    scale = raw.get("scale", DEFAULT_SCALE)
    if not isinstance(scale, str) or scale not in scales:
        raise ConfigError(f"unknown scale {scale!r}; valid scales: {', '.join(scales)}")

    nbs = raw.get("notebooks")
    if not isinstance(nbs, dict) or not nbs:
        raise ConfigError("'notebooks' must be a non-empty mapping: notebook stem -> entry")
    notebooks: dict[str, NotebookSpec] = {}
    figure_owner: dict[str, str] = {}
    for stem, entry in nbs.items():
        where = f"notebooks.{stem}"
        if not isinstance(stem, str) or not _STEM.match(stem):
            raise ConfigError(f"{where}: a notebook stem is 'NN_slug' (two digits, then letters, digits or underscores), got {stem!r}")
        if entry is None:
            entry = {}
        if not isinstance(entry, dict):
            raise ConfigError(f"{where} must be a mapping with keys among {sorted(NOTEBOOK_KEYS)}")
        unknown = set(entry) - NOTEBOOK_KEYS
        if unknown:
            raise ConfigError(f"{where}: unknown key(s) {sorted(unknown)}; allowed: {sorted(NOTEBOOK_KEYS)}")
        figures = _str_list(entry.get("figures"), f"{where}.figures")
        for f in figures:
            if f in figure_owner:
                raise ConfigError(f"{where}.figures: {f!r} is already produced by {figure_owner[f]}")
            figure_owner[f] = stem
        tables = _str_list(entry.get("tables"), f"{where}.tables")
        data = _str_list(entry.get("data"), f"{where}.data")
        params = entry.get("params") or {}
        if not isinstance(params, dict):
            raise ConfigError(f"{where}.params must be a mapping: scale -> {{name: value}}")
        bad = set(params) - set(scales)
        if bad:
            raise ConfigError(f"{where}.params: unknown scale(s) {sorted(bad)}; valid scales: {', '.join(scales)}")
        clean = {}
        for s, p in params.items():
            p = p or {}
            if not isinstance(p, dict):
                raise ConfigError(f"{where}.params.{s} must be a mapping of parameter name -> value")
            std = set(p) & set(STANDARD_PARAMS)
            if std:
                raise ConfigError(f"{where}.params.{s}: {sorted(std)} are set by the pipeline, not the config")
            clean[s] = dict(p)
        desc = entry.get("description") or ""
        if not isinstance(desc, str):
            raise ConfigError(f"{where}.description must be a string")
        notebooks[stem] = NotebookSpec(stem, desc, figures, tables, data, clean)

    cfg = Config(scale=scale, scales=scales, notebooks=notebooks, root=root)
    if check_notebooks:
        check_against_notebooks(cfg)
    return cfg


def unlisted_notebooks(cfg: Config) -> list[str]:
    """Stems of ``root/notebooks/*.ipynb`` that the config does not list (the pipeline warns
    and skips them; tests/test_notebook_convention.py fails on them)."""
    return sorted({p.stem for p in (cfg.root / "notebooks").glob("*.ipynb")} - set(cfg.notebooks))


def check_against_notebooks(cfg: Config) -> None:
    """Cross-check the config with ``root/notebooks/*.ipynb`` (see `parse_config`)."""
    nbdir = cfg.root / "notebooks"
    on_disk = {p.stem for p in nbdir.glob("*.ipynb")}
    missing = [s for s in cfg.notebooks if s not in on_disk]
    if missing:
        raise ConfigError(
            f"notebook(s) listed in the config but missing on disk: "
            + ", ".join(f"notebooks/{s}.ipynb" for s in missing)
        )
    for stem, nb in cfg.notebooks.items():
        path = nbdir / f"{stem}.ipynb"
        declared = notebook_parameters(path)
        lacking = [p for p in STANDARD_PARAMS if p not in declared]
        if lacking:
            raise ConfigError(f"{path}: the parameters cell must declare the standard parameters {lacking}")
        for s, p in nb.params.items():
            unknown = sorted(set(p) - set(declared))
            if unknown:
                raise ConfigError(
                    f"notebooks.{stem}.params.{s}: parameter(s) {unknown} are not in the parameters cell of "
                    f"{path} (declared: {', '.join(declared)})"
                )
            if s == DEFAULT_SCALE:
                differ = sorted(k for k, v in p.items() if declared[k] != v)
                if differ:
                    raise ConfigError(
                        f"notebooks.{stem}.params.{s}: {differ} differ from the notebook's defaults; the smoke "
                        "scale is the parameters-cell defaults (change the notebook's defaults instead)"
                    )


def load_config(
    path: str | os.PathLike = DEFAULT_CONFIG,
    overrides: Mapping[str, Any] | None = None,
    root: str | os.PathLike | None = None,
    check_notebooks: bool = True,
) -> Config:
    """Read ``path`` (YAML), apply ``overrides`` (e.g. ``{"scale": "cpu"}``) and validate.

    ``root`` (the repository root, holding ``notebooks/``) defaults to the parent of the
    directory holding the config file.
    """
    path = Path(path)
    try:
        text = path.read_text()
    except FileNotFoundError:
        raise ConfigError(f"config file {path} does not exist") from None
    try:
        raw = yaml.safe_load(text)
    except yaml.YAMLError as e:
        raise ConfigError(f"{path} is not valid YAML: {e}") from None
    if isinstance(raw, dict) and overrides:
        raw = {**raw, **overrides}
    root = path.resolve().parent.parent if root is None else root
    try:
        return parse_config(raw, root, check_notebooks=check_notebooks)
    except ConfigError as e:
        raise ConfigError(f"{path}: {e}") from None


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m lsvi.pipeline.config", description=__doc__.split("\n")[0])
    ap.add_argument("--config", default=DEFAULT_CONFIG, help="config file (default: %(default)s)")
    ap.add_argument("--scale", default=None, help="scale to show (default: the file's 'scale')")
    args = ap.parse_args(argv)
    try:
        cfg = load_config(args.config, {"scale": args.scale} if args.scale else None)
    except ConfigError as e:
        print(f"ConfigError: {e}", file=sys.stderr)
        return 2
    print(f"config OK: scale {cfg.scale!r} ({cfg.scales[cfg.scale]})")
    for stem in cfg.notebooks:
        print(f"  {stem}: {cfg.params(stem)}")
    print(f"  datasets: {', '.join(cfg.datasets()) or '-'}")
    for stem in unlisted_notebooks(cfg):
        print(f"  WARNING: notebooks/{stem}.ipynb is not listed in {args.config}; the pipeline skips it")
    return 0


if __name__ == "__main__":
    sys.exit(main())
