"""Posteriors declared in a YAML file: a posterior beyond Table C.1 for notebooks 42, 43 and 45 without new code there.

RABVI's Section 7.2 runs on the 18 posteriordb posteriors of Table C.1 (`lsvi.papers.rabvi.posteriordb`, translated
into JAX by `lsvi.papers.rabvi.posteriordb_models`). Any other posterior is *declared*: one YAML file,
``config/posteriors/<name>.yaml`` (or any path), names its data (a committed file or a file of an installed registry
package, with its sha256), its JAX log density, and optionally reference draws:

.. code-block:: yaml

    name: eight_schools_nc_declared        # how the notebooks' model lists (fig8_models=[...]) name it
    description: the non-centred eight schools, declared (an example)
    licence: BSD-3 (posteriordb)
    data: {file: data/posteriordb/data/data/eight_schools.json.zip, sha256: 0a1b...}   # or {package, version, path, sha256}
    model: eight_schools_noncentered       # a translated posteriordb model, or "package.module:function"
    reference:                             # optional: draws in posteriordb's format
      draws: {file: data/posteriordb/reference_posteriors/draws/draws/eight_schools-eight_schools_noncentered.json.zip,
              sha256: ...}
    dimension: 10                          # optional: the constrained dimension p (Table C.1's column)

* ``data``: a JSON object of the model's data (posteriordb's ``data/data/<name>.json.zip`` format; a ``.zip`` holds
  one JSON member). Lists become arrays.
* ``model``: either the name of a model that `lsvi.papers.rabvi.posteriordb_models` translates (``TRANSLATED``), or
  ``"package.module:function"``: a function ``data (dict) -> (d, names, logdensity, constrain, unconstrain)`` with
  the conventions of `posteriordb_models.Model` (log density of the unconstrained θ (d,) -> scalar, log-Jacobian
  included; ``constrain`` θ (d,) -> (p,) in the order of ``names``; ``unconstrain`` its inverse). The module must be
  importable (the package, or a module on ``PYTHONPATH``).
* ``reference.draws``: a JSON list of chains, each ``{parameter: [draws]}`` (posteriordb's reference format), the
  parameter names equal to the model's ``names``. Without it the notebooks take a Blackjax NUTS run of the model as
  the reference (`posteriordb_study.reference_for`), as for posteriordb's dogs.

`lsvi.papers.rabvi.posteriordb.posterior` falls back to a declaration for a name that is not in Table C.1, so
``posteriordb_models.build``, ``load_data``, ``load_reference`` and ``reference_moments`` accept it, and a notebook
runs on it with ``make whatif NB=42_rabvi_posteriordb PARAMS='fig8_models=["my_posterior"]'``.
`lsvi.pipeline.fingerprint` counts a declaration that a parameter names among the run's inputs.
"""
from __future__ import annotations

import hashlib
import importlib
import io
import json
import zipfile
from pathlib import Path
from typing import Callable, NamedTuple, Optional

import numpy as np

from lsvi.data.declared_datasets import verified_source
from lsvi.pipeline.declarations import POSTERIORS_DIR, declaration_file, read_mapping
from lsvi.pipeline.paths import repo_root

REQUIRED = ("name", "licence", "data", "model")
OPTIONAL = {"description": "", "reference": None, "dimension": None}


class PosteriorDeclarationError(ValueError):
    """A posterior declaration is missing or malformed, or a file it names cannot be found or verified."""


class PosteriorDeclaration(NamedTuple):
    """A parsed declaration (the YAML keys; module docstring). ``reference``: the ``draws`` source or None.
    ``path``: the file it was read from; ``sha256``: that file's digest."""

    name: str
    description: str
    licence: str
    data: dict
    model: str
    reference: Optional[dict]
    dimension: Optional[int]
    path: str
    sha256: str


def available(root: str | Path | None = None) -> tuple[str, ...]:
    """Names of the declarations in ``config/posteriors/``."""
    root = Path(root) if root is not None else repo_root()
    return tuple(sorted(p.stem for p in (root / POSTERIORS_DIR).glob("*.yaml")))


def locate(name_or_path: str, root: str | Path | None = None) -> Optional[Path]:
    """The declaration file ``name_or_path`` names (a ``.yaml`` path, or ``config/posteriors/<name>.yaml``), or None."""
    return declaration_file(name_or_path, root, directory=POSTERIORS_DIR)


def _source(value, where: str, key: str) -> dict:
    ok = isinstance(value, dict) and "sha256" in value and (
        ("package" in value and "version" in value and "path" in value) or "file" in value)
    if not ok:
        raise PosteriorDeclarationError(f"{where}: {key} must be {{file, sha256}} (a committed file) or "
                                        "{package, version, path, sha256} (a file of an installed registry package)")
    if not (isinstance(value["sha256"], str) and len(value["sha256"]) == 64):
        raise PosteriorDeclarationError(f"{where}: {key}.sha256 must be the 64 hex digits of the file's sha256")
    return dict(value)


def read(name_or_path: str, root: str | Path | None = None) -> PosteriorDeclaration:
    """Parse and validate a declaration (`locate`); `PosteriorDeclarationError` says what is missing or wrong."""
    path = locate(name_or_path, root)
    if path is None:
        raise PosteriorDeclarationError(
            f"no posterior declaration {name_or_path!r}: expected a YAML file path or a name among "
            f"{POSTERIORS_DIR}/*.yaml ({', '.join(available(root)) or 'none'})")
    d, text = read_mapping(path, REQUIRED, OPTIONAL, "posterior declaration", PosteriorDeclarationError)
    where = f"posterior declaration {path}"
    data = _source(d["data"], where, "data")
    ref = d["reference"]
    if ref is not None:
        if not isinstance(ref, dict) or set(ref) != {"draws"}:
            raise PosteriorDeclarationError(f"{where}: reference must be {{draws: {{file, sha256}}}} or absent")
        ref = _source(ref["draws"], where, "reference.draws")
    model = d["model"]
    if not (isinstance(model, str) and model):
        raise PosteriorDeclarationError(f"{where}: model must be a translated posteriordb model name or "
                                        "'package.module:function'")
    dim = d["dimension"]
    if dim is not None and not (isinstance(dim, int) and dim > 0):
        raise PosteriorDeclarationError(f"{where}: dimension must be a positive integer or absent")
    return PosteriorDeclaration(str(d["name"]), str(d["description"]), str(d["licence"]), data, model, ref, dim,
                                str(path), hashlib.sha256(text).hexdigest())


def _json(src: dict, decl: PosteriorDeclaration, root) -> object:
    label = f"posterior {decl.name!r} ({decl.path})"
    try:
        path = verified_source(src, label, root)
    except ValueError as e:
        raise PosteriorDeclarationError(str(e)) from None
    raw = path.read_bytes()
    if path.suffix == ".zip":
        with zipfile.ZipFile(io.BytesIO(raw)) as z:
            names = z.namelist()
            if len(names) != 1:
                raise PosteriorDeclarationError(f"{label}: {path} must hold one JSON member, not {names}")
            raw = z.read(names[0])
    try:
        return json.loads(raw)
    except ValueError as e:
        raise PosteriorDeclarationError(f"{label}: {path} is not JSON ({e})") from None


def load_data(decl: PosteriorDeclaration, root: str | Path | None = None) -> dict:
    """The declared data (checksum checked): a dict whose lists become arrays."""
    raw = _json(decl.data, decl, root)
    if not isinstance(raw, dict):
        raise PosteriorDeclarationError(f"posterior {decl.name!r}: the data file must hold a JSON object")
    return {k: (np.asarray(v) if isinstance(v, list) else v) for k, v in raw.items()}


def load_reference_draws(decl: PosteriorDeclaration, order=None,
                         root: str | Path | None = None) -> tuple[list[str], np.ndarray]:
    """(names (p,), draws (chains, draws, p)) of the declared reference, in posteriordb's format; with ``order``
    (the model's parameter names) the columns follow it, and a parameter missing on either side is an error."""
    if decl.reference is None:
        raise LookupError(f"{decl.name}: the declaration ({decl.path}) has no reference draws")
    chains = _json(decl.reference, decl, root)
    if not (isinstance(chains, list) and chains and all(isinstance(c, dict) for c in chains)):
        raise PosteriorDeclarationError(f"posterior {decl.name!r}: reference draws must be a JSON list of chains, "
                                        "each {parameter: [draws]}")
    names = list(chains[0])
    if any(list(c) != names for c in chains):
        raise PosteriorDeclarationError(f"posterior {decl.name!r}: every chain must have the parameters {names}")
    if order is not None:
        if sorted(order) != sorted(names):
            raise PosteriorDeclarationError(
                f"posterior {decl.name!r}: the reference draws' parameters {names} differ from the model's {list(order)}")
        names = list(order)
    draws = np.stack([np.stack([np.asarray(c[n], float) for n in names], axis=-1) for c in chains])
    return names, draws


def model_builder(decl: PosteriorDeclaration, translated: dict) -> Callable:
    """The function data -> (d, names, logdensity, constrain, unconstrain) that ``model`` names: a key of
    ``translated`` (`posteriordb_models`' builders) or ``package.module:function``."""
    if ":" not in decl.model:
        if decl.model not in translated:
            raise PosteriorDeclarationError(
                f"posterior {decl.name!r} ({decl.path}): model {decl.model!r} is neither a translated posteriordb "
                f"model ({', '.join(sorted(translated))}) nor 'package.module:function'")
        return translated[decl.model]
    module, _, attr = decl.model.partition(":")
    try:
        fn = getattr(importlib.import_module(module), attr)
    except (ImportError, AttributeError) as e:
        raise PosteriorDeclarationError(f"posterior {decl.name!r} ({decl.path}): cannot import model "
                                        f"{decl.model!r} ({e})") from None
    if not callable(fn):
        raise PosteriorDeclarationError(f"posterior {decl.name!r}: {decl.model!r} is not callable")
    return fn
