"""What-if runs: one notebook with other parameters, beside the committed report.

``make whatif NB=53_tempered_vi PARAMS='reps=5 alphas=[0.5,0.75,1.0]' [SCALE=cpu] [NAME=...]`` runs
``python -m lsvi.pipeline.whatif 53_tempered_vi --params 'reps=5 alphas=[0.5,0.75,1.0]' --scale cpu``:

* the notebook receives the scale's parameters (``config/scales.yaml``, `Config.params`) with the given
  ones on top; each value is parsed as YAML (``reps=5`` an int, ``alphas=[0.5,1.0]`` a list,
  ``datasets=[pima,sonar]`` a list of strings, ``1e-3`` a float). A name that the notebook's
  ``parameters`` cell does not declare, a standard parameter (``scale``, ``results_dir``, ...) or a
  value that is not YAML is refused before anything runs;
* everything it writes goes under ``results/whatif/<NAME>/<stem>/`` and ``figures/whatif/<NAME>/<scale>/``
  (its papermill ``results_dir`` and ``figures_dir``), resolved against ``$LSVI_OUTPUT_ROOT`` when that is
  set (`lsvi.pipeline.paths.resolve_output`), never over ``results/<scale>`` or ``figures/<scale>``;
* as in the pipeline, the inputs' fingerprint (`lsvi.pipeline.fingerprint`, with the what-if's parameters)
  is recorded before the run and kept on success, the notebook is executed into a temporary file that is
  renamed ``executed.ipynb`` on success or ``failed.ipynb`` on failure (the error is printed, exit 1);
* the report (``results/whatif/<NAME>/REPLICATION.md``, ``claims.csv``, ``fingerprints.json``) and the site
  (``results/whatif/<NAME>/site/index.html``) are written by `lsvi.pipeline.report.write_report` and
  `lsvi.pipeline.site.build_site` with a `Config` restricted to that notebook (`WhatIfConfig`), so they
  hold the same claims as the pipeline's; both carry a ``What-if`` header line naming the notebook, the
  scale and the parameters (`WHATIF_KEY`), and ``whatif.json`` records them.

``NAME`` defaults to ``<stem>--<scale>--<name>-<value>...`` (`default_name`). A NAME holds one notebook's
what-if: a rerun of the same notebook under the same NAME replaces it.
"""
from __future__ import annotations

import argparse
import datetime as _dt
import hashlib
import json
import os
import re
import resource
import shlex
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

import yaml

from lsvi.pipeline import fingerprint as fp
from lsvi.pipeline.config import (DEFAULT_CONFIG, FIGURES_DIR, RESULTS_DIR, STANDARD_PARAMS, Config, ConfigError,
                                  load_config, notebook_parameters)
from lsvi.pipeline.paths import DATA_DIR, OUTPUT_ROOT_ENV, repo_root
from lsvi.pipeline.site import WHATIF_KEY  # the header line of REPLICATION.md (`- **What-if**: ...`), shown by the site

WHATIF = "whatif"  # results/whatif/<NAME>/, figures/whatif/<NAME>/
RECORD = "whatif.json"
_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_NAME_OK = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.=+,-]*$")
_SCI = re.compile(r"^[-+]?(\d+\.?\d*|\.\d+)[eE][-+]?\d+$")  # 1e-3: a string for YAML 1.1, a float here
MAX_NAME = 100


class WhatIfError(ValueError):
    """A what-if cannot run as asked; the message says what to change."""


# --------------------------------------------------------------------------- parameters


def parse_value(name: str, text: str) -> Any:
    """``text`` as YAML (``5`` -> 5, ``[pima,sonar]`` -> a list, ``1e-3`` -> 0.001, ``abc`` -> "abc")."""
    try:
        return _floats(yaml.safe_load(text)) if text.strip() else ""
    except yaml.YAMLError as e:
        msg = str(e).replace("\n", " ")
        raise WhatIfError(f"the value of {name!r} is not valid YAML: {text!r} ({msg}); quote strings with "
                          "spaces or commas, e.g. name='[a, b]'") from None


def _floats(v: Any) -> Any:
    """YAML 1.1 reads ``1e-3`` as a string: such strings become floats, in lists and mappings too."""
    if isinstance(v, str) and _SCI.match(v.strip()):
        return float(v)
    if isinstance(v, list):
        return [_floats(x) for x in v]
    if isinstance(v, dict):
        return {k: _floats(x) for k, x in v.items()}
    return v


def parse_assignments(tokens) -> dict[str, Any]:
    """``["reps=5", "datasets=[pima,sonar]"]`` -> ``{"reps": 5, "datasets": ["pima", "sonar"]}``.

    WhatIfError on a token without ``=``, a name that is not a Python identifier, a name given twice or
    a value that is not YAML."""
    out: dict[str, Any] = {}
    for tok in tokens:
        name, eq, text = tok.partition("=")
        name = name.strip()
        if not eq:
            raise WhatIfError(f"expected <name>=<value>, got {tok!r} (e.g. PARAMS='reps=5 alphas=[0.5,1.0]')")
        if not _IDENT.match(name):
            raise WhatIfError(f"{name!r} (in {tok!r}) is not a parameter name (letters, digits, _)")
        if name in out:
            raise WhatIfError(f"parameter {name!r} is given twice")
        out[name] = parse_value(name, text)
    return out


def split_params(text: str) -> list[str]:
    """A ``PARAMS`` string split into ``name=value`` tokens as a shell would (quotes keep spaces; so do the brackets
    of a YAML list or mapping: ``alphas=[0.5, 1.0]`` is one token)."""
    try:
        words = shlex.split(text or "")
    except ValueError as e:
        raise WhatIfError(f"cannot split PARAMS {text!r}: {e}") from None
    out: list[str] = []
    for w in words:  # a YAML list or mapping with spaces ('alphas=[0.5, 1.0]') stays one token
        if out and _open_brackets(out[-1]) > 0:
            out[-1] += " " + w
        else:
            out.append(w)
    return out


def _open_brackets(s: str) -> int:
    return s.count("[") + s.count("{") - s.count("]") - s.count("}")


def resolve_stem(cfg: Config, nb: str) -> str:
    """The notebook stem of ``nb``: a stem, ``notebooks/<stem>.ipynb``, or its two-digit number."""
    s = Path(nb).name
    s = s[: -len(".ipynb")] if s.endswith(".ipynb") else s
    if s in cfg.notebooks:
        return s
    hits = [k for k in cfg.notebooks if re.fullmatch(r"\d\d", s) and k.startswith(s + "_")]
    if len(hits) == 1:
        return hits[0]
    raise WhatIfError(f"unknown notebook {nb!r}; the notebooks listed in config/scales.yaml: {', '.join(cfg.notebooks)}")


def check_params(cfg: Config, stem: str, params: Mapping[str, Any]) -> list[str]:
    """Refuse a parameter that the notebook's ``parameters`` cell does not declare, or a standard one;
    return warnings for values whose type differs from the default's (e.g. a string for an int)."""
    declared = notebook_parameters(cfg.root / "notebooks" / f"{stem}.ipynb")
    std = [k for k in params if k in STANDARD_PARAMS]
    if std:
        raise WhatIfError(f"{std} are set by the what-if itself (the scale: SCALE= / --scale; the output "
                          f"directories: results/{WHATIF}/<NAME>/), not in PARAMS")
    unknown = [k for k in params if k not in declared]
    if unknown:
        names = [k for k in declared if k not in STANDARD_PARAMS]
        raise WhatIfError(f"notebooks/{stem}.ipynb has no parameter {', '.join(map(repr, unknown))}; its parameters "
                          f"cell declares: {', '.join(names)}")
    warnings = []
    for k, v in params.items():
        d = declared[k]
        if d is None or d is ... or v is None:
            continue
        if isinstance(d, bool) != isinstance(v, bool) or not (
                isinstance(v, type(d)) or (isinstance(d, float) and isinstance(v, int) and not isinstance(v, bool))):
            warnings.append(f"{k}={v!r} is a {type(v).__name__}; the notebook's default {d!r} is a {type(d).__name__}")
    return warnings


def _slug(v: Any) -> str:
    text = v if isinstance(v, str) else yaml.safe_dump(v, default_flow_style=True, width=10**6).strip()
    text = text.removesuffix("\n...").strip()
    return re.sub(r"[^A-Za-z0-9.+-]+", "_", text).strip("_") or "empty"


def default_name(stem: str, scale: str, params: Mapping[str, Any]) -> str:
    """``<stem>--<scale>[--<name>-<value>]...``, e.g. ``53_tempered_vi--smoke--reps-5``; a long one is cut and
    ends with a hash of the parameters, so two different what-ifs never share a default NAME."""
    name = "--".join([stem, scale] + [f"{k}-{_slug(v)}" for k, v in params.items()])
    if len(name) > MAX_NAME:
        h = hashlib.sha256(json.dumps(params, sort_keys=True, default=str).encode()).hexdigest()[:10]
        name = f"{name[: MAX_NAME - 12]}--{h}"
    return name


def check_name(name: str) -> str:
    if not _NAME_OK.match(name) or ".." in name or len(name) > 200:
        raise WhatIfError(f"NAME {name!r}: use letters, digits and _ . = + , - (no '/', no '..'), at most 200 characters")
    return name


# --------------------------------------------------------------------------- configuration and paths


def whatif_paths(name: str, stem: str) -> dict[str, str]:
    """The what-if's directories, relative to the output root: ``report`` (REPLICATION.md, claims.csv, site/),
    ``results_dir`` (the notebook's, ``<report>/<stem>``) and ``figures_dir`` (figures go to ``<figures_dir>/<scale>/``)."""
    report = f"{RESULTS_DIR}/{WHATIF}/{name}"
    return {"report": report, "results_dir": f"{report}/{stem}", "figures_dir": f"{FIGURES_DIR}/{WHATIF}/{name}"}


def output_root() -> Path:
    """Where outputs go: ``$LSVI_OUTPUT_ROOT`` if set, else the repository root (`resolve_output`)."""
    env = os.environ.get(OUTPUT_ROOT_ENV)
    return Path(env).resolve() if env else repo_root()


@dataclass(frozen=True)
class WhatIfConfig(Config):
    """A `Config` restricted to one notebook whose parameters (what it is run with, and what its fingerprint
    records) are the scale's plus ``overrides``, with its outputs under ``results/whatif/<name>/``."""

    name: str = ""
    overrides: Mapping[str, Any] = field(default_factory=dict)
    out_root: Path | None = None  # None: the repository root

    def params(self, stem: str, scale: str | None = None) -> dict[str, Any]:
        out = super().params(stem, scale)
        p = whatif_paths(self.name, stem)
        out.update(results_dir=p["results_dir"], figures_dir=p["figures_dir"])
        out.update(self.overrides)
        return out

    def outputs(self, stem: str, scale: str | None = None) -> dict[str, Any]:
        scale = self._scale(scale)
        nb = self._nb(stem)
        p = whatif_paths(self.name, stem)
        base = self.out_root if self.out_root is not None and Path(self.out_root) != Path(self.root) else None
        at = (lambda rel: str(Path(base) / rel)) if base is not None else (lambda rel: rel)
        return {
            "executed": at(f"{p['results_dir']}/executed.ipynb"),
            "claims": at(f"{p['results_dir']}/claims.csv"),
            "figures": [at(f"{p['figures_dir']}/{scale}/{f}.{ext}") for f in nb.figures for ext in ("pdf", "png")],
            "tables": [at(f"{p['results_dir']}/{t}.csv") for t in nb.tables],
        }


def whatif_config(cfg: Config, stem: str, name: str, overrides: Mapping[str, Any],
                  out_root: str | os.PathLike | None = None) -> WhatIfConfig:
    """``cfg`` restricted to notebook ``stem``, run as the what-if ``name`` with ``overrides``."""
    if WHATIF in cfg.scales:
        raise WhatIfError(f"a scale is named {WHATIF!r}: its results would share results/{WHATIF}/ with the what-ifs")
    return WhatIfConfig(scale=cfg.scale, scales=dict(cfg.scales), notebooks={stem: cfg.notebooks[stem]}, root=cfg.root,
                        name=name, overrides=dict(overrides), out_root=Path(out_root) if out_root is not None else None)


def describe(stem: str, scale: str, overrides: Mapping[str, Any]) -> str:
    """The what-if header line: notebook, scale, parameters."""
    ps = " ".join(f"{k}={_flow(v)}" for k, v in overrides.items()) or "none (the scale's own)"
    return (f"notebook `{stem}` at scale `{scale}` with parameters `{ps}` on top of the scale's "
            "(config/scales.yaml); not the replication report")


def _flow(v: Any) -> str:
    return yaml.safe_dump(v, default_flow_style=True, width=10**6).strip().removesuffix("\n...").strip()


def mark_report(md: Path, line: str, command: str) -> None:
    """Mark ``REPLICATION.md`` (as written by `write_report`) as a what-if: its title, a ``What-if`` line in the
    header (read by the site) and a quoted note below the title."""
    text = md.read_text()
    lines = text.split("\n")
    if lines and lines[0].startswith("# Replication report"):
        lines[0] = lines[0].replace("# Replication report", "# What-if report", 1)
    note = [f"> **What-if run**: {line}. Rerun it: `{command}`.", "", f"- **{WHATIF_KEY}**: {line}"]
    lines[2:2] = note  # after the title and its blank line, before the other header lines
    text = "\n".join(lines)
    text = re.sub(r"Whether each notebook's rows are still the code's result: `make check-report SCALE=\w+` "
                  r"compares the inputs recorded in `fingerprints.json` with the working tree and lists any STALE notebook\.",
                  "The inputs recorded before the run (with the what-if's parameters) are in `fingerprints.json`; the "
                  "site marks the notebook STALE when they differ from the working tree's.", text)
    md.write_text(text)


# --------------------------------------------------------------------------- running


def _ensure_data(cfg: Config, stem: str) -> None:
    """Build the processed data sets the notebook reads when they are missing (as the pipeline's data rule)."""
    missing = [d for d in cfg.notebooks[stem].data if not (cfg.root / DATA_DIR / f"{d}.npz").is_file()]
    if missing:
        print(f"whatif: building {DATA_DIR}/{{{','.join(missing)}}}.npz", file=sys.stderr)
        r = subprocess.run([sys.executable, "-m", "lsvi.data.datasets", "--out", str(cfg.root / DATA_DIR), *missing],
                           cwd=cfg.root)
        if r.returncode:
            raise WhatIfError(f"could not build the data sets {missing} that notebooks/{stem}.ipynb reads "
                              f"(try: make data)")


def _peak_child_rss_mb() -> float | None:
    r = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    if not r:
        return None
    return r / 1024 / 1024 if sys.platform == "darwin" else r / 1024


@dataclass
class Outcome:
    name: str
    stem: str
    scale: str
    ok: bool
    report: Path
    site: Path | None
    counts: dict
    error: str = ""


def run_whatif(stem: str, overrides: Mapping[str, Any], scale: str = "smoke", name: str | None = None,
               config: str | os.PathLike = DEFAULT_CONFIG, execute: bool = True, site: bool = True,
               command: str = "") -> Outcome:
    """Run notebook ``stem`` (a stem, a path or its number) at ``scale`` with ``overrides`` as the what-if ``name``
    (default `default_name`) and write its report and site. WhatIfError / ConfigError before anything runs
    when the request is invalid; a failing notebook gives ``ok=False`` with the error and keeps ``failed.ipynb``."""
    config = Path(config)
    if not config.is_absolute():
        config = repo_root() / config
    cfg = load_config(config, {"scale": scale})
    stem = resolve_stem(cfg, stem)
    overrides = dict(overrides)
    for w in check_params(cfg, stem, overrides):
        print(f"whatif: WARNING: {w}", file=sys.stderr)
    name = check_name(name or default_name(stem, scale, overrides))
    out = output_root()
    wcfg = whatif_config(cfg, stem, name, overrides, out)
    rel = whatif_paths(name, stem)
    report_dir, nb_dir, fig_dir = out / rel["report"], out / rel["results_dir"], out / rel["figures_dir"]
    command = command or shlex.join(["python", "-m", "lsvi.pipeline.whatif", stem,
                                     *(f"{k}={_flow(v)}" for k, v in overrides.items()), "--scale", scale, "--name", name])

    record_path = report_dir / RECORD
    if record_path.is_file():
        try:
            prev = json.loads(record_path.read_text())
        except ValueError:
            prev = {}
        if prev.get("notebook") not in (None, stem):
            raise WhatIfError(f"{report_dir} holds a what-if of {prev.get('notebook')}: choose another NAME "
                              f"(or remove that directory)")
    params = wcfg.params(stem)
    if execute:
        _ensure_data(cfg, stem)
        shutil.rmtree(nb_dir, ignore_errors=True)
        shutil.rmtree(report_dir / "site", ignore_errors=True)
        shutil.rmtree(fig_dir / scale, ignore_errors=True)
        nb_dir.mkdir(parents=True, exist_ok=True)
        record_path.write_text(json.dumps({
            "notebook": stem, "scale": scale, "name": name, "parameters": overrides, "papermill_parameters": params,
            "command": command, "date": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        }, indent=1, default=str) + "\n")
        print(f"whatif {name}: notebooks/{stem}.ipynb at scale {scale!r} with {overrides or 'no change'} "
              f"-> {report_dir} and {fig_dir}", file=sys.stderr)
        error = _execute(wcfg, stem, scale, params, nb_dir)
    else:
        error = ""
    from lsvi.pipeline.report import write_report

    counts = write_report(report_dir, wcfg, scale)
    line = describe(stem, scale, overrides)
    mark_report(report_dir / "REPLICATION.md", line, command)
    site_index = None
    if site:
        from lsvi.pipeline.site import build_site

        try:
            build_site(report_dir, wcfg, scale, figures_root=fig_dir, results_root=report_dir, root=cfg.root,
                       mathjax_url=os.environ.get("LSVI_MATHJAX_URL", ""))
            site_index = report_dir / "site" / "index.html"
        except Exception as e:  # noqa: BLE001 - the report is written; say why the site is not
            print(f"whatif: could not build the site: {type(e).__name__}: {e}", file=sys.stderr)
    return Outcome(name, stem, scale, not error and counts.get("ok") == 1, report_dir / "REPLICATION.md",
                   site_index, counts, error)


def _execute(cfg: WhatIfConfig, stem: str, scale: str, params: dict, nb_dir: Path) -> str:
    """papermill, as the pipeline's notebook rule: fingerprint first, a temporary output renamed on success
    (``executed.ipynb``) or on failure (``failed.ipynb``). Returns the error message, empty on success."""
    import papermill

    tmp, failed, executed = nb_dir / "executed.tmp.ipynb", nb_dir / "failed.ipynb", nb_dir / "executed.ipynb"
    fp.write(nb_dir, cfg, stem, scale, name="fingerprint.tmp.json")
    env_before = {k: os.environ.get(k) for k in ("PYTHONPATH", "XLA_PYTHON_CLIENT_PREALLOCATE")}
    # the kernel imports this checkout's library (as `lsvi.pipeline.fingerprint` hashed it), even before `pip install -e .`
    src = str(cfg.root / "src")
    os.environ["PYTHONPATH"] = src + (os.pathsep + env_before["PYTHONPATH"] if env_before["PYTHONPATH"] else "")
    os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
    t0 = time.perf_counter()
    try:
        papermill.execute_notebook(str(cfg.root / "notebooks" / f"{stem}.ipynb"), str(tmp), parameters=params,
                                   cwd=str(cfg.root), kernel_name="python3", progress_bar=sys.stderr.isatty())
    except Exception as e:  # noqa: BLE001 - papermill's execution error, a dead kernel, ...
        if tmp.is_file():
            os.replace(tmp, failed)
        (nb_dir / "fingerprint.tmp.json").unlink(missing_ok=True)
        what = (f"{e.ename}: {e.evalue}" if hasattr(e, "ename") else f"{type(e).__name__}: {e}").strip()
        return f"notebooks/{stem}.ipynb failed: {what.splitlines()[0] if what else type(e).__name__}; " \
               f"partially executed copy: {failed}"
    finally:
        for k, v in env_before.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    wall = time.perf_counter() - t0
    os.replace(tmp, executed)
    os.replace(nb_dir / "fingerprint.tmp.json", nb_dir / fp.FINGERPRINT)
    rss = _peak_child_rss_mb()
    (nb_dir / "benchmark.tsv").write_text(f"s\tmax_rss\n{wall:.2f}\t{'NA' if rss is None else f'{rss:.1f}'}\n")
    return ""


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m lsvi.pipeline.whatif", description=__doc__.split("\n")[0],
                                 epilog="example: python -m lsvi.pipeline.whatif 53_tempered_vi reps=5 --scale smoke")
    ap.add_argument("notebook", help="notebook stem (53_tempered_vi), path (notebooks/53_tempered_vi.ipynb) or number (53)")
    ap.add_argument("assignments", nargs="*", metavar="NAME=VALUE", help="parameters, one per argument (values: YAML)")
    ap.add_argument("--params", default="", help="more parameters in one string, split as a shell would: 'reps=5 alphas=[0.5,1.0]'")
    ap.add_argument("--scale", default="smoke", help="the scale whose parameters are the base (default: %(default)s)")
    ap.add_argument("--name", default=None, help="what-if name: results/whatif/NAME/ (default: <stem>--<scale>--<name>-<value>...)")
    ap.add_argument("--config", default=DEFAULT_CONFIG, help="config file (default: %(default)s)")
    ap.add_argument("--no-site", action="store_true", help="write the report only, not the site")
    args = ap.parse_args(argv)
    try:
        overrides = parse_assignments([*args.assignments, *split_params(args.params)])
        res = run_whatif(args.notebook, overrides, args.scale, args.name, args.config, site=not args.no_site)
    except (WhatIfError, ConfigError) as e:
        print(f"whatif: error: {e}", file=sys.stderr)
        return 2
    if res.error:
        print(f"whatif: FAILED: {res.error}", file=sys.stderr)
        print(f"whatif {res.name}: the report lists the notebook as FAILED -> {res.report}", file=sys.stderr)
        return 1
    n = res.counts
    print(f"whatif {res.name}: {n['claims']} rows; {n['paper_claims']} statements of the papers: {n['pass']} PASS, "
          f"{n['fail']} FAIL, {n['not_assessable']} NOT ASSESSABLE -> {res.report}"
          + (f", {res.site}" if res.site else ""))
    return 0 if res.ok else 1


if __name__ == "__main__":
    sys.exit(main())
