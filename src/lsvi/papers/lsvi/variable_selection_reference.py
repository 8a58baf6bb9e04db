"""The SMC reference for variable selection on Concrete (Section 5.2, Figure 2 right), computed once and committed.

Why a separate reference
------------------------
Figure 2 (right) compares LSVI's inclusion probabilities with those of the paper's SMC benchmark (waste-free
tempering SMC of `particles`, N = 10⁵ particles, chain length P = 10⁴; `lsvi.papers.lsvi.smc`). A benchmark is a
reference only if its independent runs agree; at the cpu scale's N = 2·10⁴ they do not (spread up to 0.52 in the
cpu report), so notebook 30 cannot assess the figure there. The posterior does not depend on the scale (same data,
same prior), so the benchmark at the paper's own settings is run once by

    python -m lsvi.papers.lsvi.variable_selection_reference      # writes data/references/30_variable_selection/

and committed with its provenance (``smc_reference.json``: settings, the commit it ran from, each run's
inclusion probabilities, log Z*, tempering steps, evaluations and time, and the agreement between runs), as
posteriordb commits its reference draws. The fingerprint of notebook 30 includes this file
(`lsvi.pipeline.fingerprint.notebook_references`); no other notebook depends on it.

The runs (chosen here: the paper gives its settings, N = 10⁵, P = 10⁴, 3 runs, and nothing else)
-----------------------------------------------------------------------------------------------------
Run r (r = 0, …, ``runs`` − 1) is ``python -m lsvi.papers.lsvi.variable_selection_cli smc --num-particles N
--len-chain P --runs 1 --seed <seed + r>`` (`variable_selection_cli.run_cli`, one fresh process per run), ``processes``
of them at a time. A run does not depend on the thread count: with N = 4000, P = 200, seed 7, a run pinned to one core
with one BLAS and XLA thread and a run with the defaults on two cores gave the same particles bit for bit
(2026-12-02, 2 Intel Xeon vCPUs).
Each run's output is kept in ``workdir`` (``smc_N<N>_P<P>_seed<s>.npz``) and reused when it is there, so an
interrupted computation resumes where it stopped.

Agreement (the criterion of the cpu-scale issue, fixed before the runs)
------------------------------------------------------------------------
The runs agree when, for every predictor, max − min of their inclusion probabilities is ≤ `SPREAD_MAX` = 0.05;
the reference is then the mean over runs. Otherwise the file is still written (it records that the benchmark at the
paper's settings disagrees with itself) and notebook 30 reports Figure 2 (right) as NOT ASSESSABLE with that reason.

More chains (`MORE_CHAINS`). At the paper's N = 10⁵ and P = 10⁴, waste-free SMC resamples only M = N/P = 10
particles per tempering step, so one explanation of the disagreement is that ten ancestors cannot carry a multimodal
posterior from one temperature to the next. `MORE_CHAINS` (P = 100: M = 1000 chains, the same N and about the same
number of evaluations) tests it; its runs are written to their own file (`reference_file`), next to the paper's, and
notebook 30 reports both (``--len-chain 100`` on the command line).
"""
from __future__ import annotations

import argparse
import concurrent.futures
import json
from pathlib import Path
from typing import NamedTuple

import numpy as np

from lsvi.papers.lsvi import variable_selection_cli
from lsvi.pipeline.provenance import source_commit

REFERENCE_DIR = "data/references/30_variable_selection"  # relative to the repository root
REFERENCE_FILE = "smc_reference.json"
SPREAD_MAX = 0.05  # max over predictors of the run-to-run spread (max - min) of the inclusion probabilities


class Settings(NamedTuple):
    """The paper's SMC benchmark (App. C.3): N = ``num_particles``, P = ``len_chain``, ``runs`` runs seeded
    ``seed``, ``seed`` + 1, …"""

    num_particles: int = 100_000
    len_chain: int = 10_000
    runs: int = 3
    seed: int = 0


MORE_CHAINS = Settings(len_chain=100)  # M = N / P = 1000 resampled particles per tempering step instead of 10


def reference_file(settings: Settings = Settings()) -> str:
    """File name of the reference with ``settings`` (N and P; the runs are recorded inside): `REFERENCE_FILE` for the
    paper's settings, ``smc_reference_N<N>_P<P>.json`` otherwise."""
    if (settings.num_particles, settings.len_chain) == (Settings().num_particles, Settings().len_chain):
        return REFERENCE_FILE
    return f"smc_reference_N{settings.num_particles}_P{settings.len_chain}.json"


def _flags(settings: Settings) -> str:
    """The command-line flags that make ``settings`` (those that differ from the paper's)."""
    return "".join(f" --{k.replace('_', '-')} {v}" for k, v in settings._asdict().items() if v != getattr(Settings(), k))


class Reference(NamedTuple):
    """marginals (runs, d): inclusion probabilities of each run; log_evidence (runs,): log Z* of each run;
    provenance: the JSON record (settings, per-run records, agreement)."""

    marginals: np.ndarray
    log_evidence: np.ndarray
    provenance: dict

    @property
    def spread(self) -> np.ndarray:
        """(d,) max − min over runs of the inclusion probabilities."""
        return np.ptp(self.marginals, axis=0)

    @property
    def agrees(self) -> bool:
        """At least two runs, and their spread ≤ `SPREAD_MAX` in every predictor."""
        return agrees(self.marginals)

    @property
    def mean(self) -> np.ndarray:
        """(d,) the reference inclusion probabilities: the mean over runs."""
        return self.marginals.mean(axis=0)


def agrees(marginals: np.ndarray, spread_max: float = SPREAD_MAX) -> bool:
    """Whether ≥ 2 runs (rows of ``marginals`` (runs, d)) agree within ``spread_max`` in every predictor."""
    marginals = np.asarray(marginals, float)
    return bool(marginals.shape[0] >= 2 and np.ptp(marginals, axis=0).max() <= spread_max)


def run_file(workdir: str | Path, settings: Settings, seed: int) -> Path:
    """Where run ``seed`` of ``settings`` is kept."""
    return Path(workdir) / f"smc_N{settings.num_particles}_P{settings.len_chain}_seed{seed}.npz"


def _run_one(settings: Settings, seed: int, workdir: Path, data_dir: str | None) -> dict:
    """Run (or reuse) one SMC run in a fresh process; return its record."""
    out = run_file(workdir, settings, seed)
    if not out.is_file():
        variable_selection_cli.run_cli("smc", out, num_particles=settings.num_particles, len_chain=settings.len_chain,
                                       runs=1, seed=seed, data_dir=data_dir)
    with np.load(out) as z:
        info = json.loads(str(z["info"]))
        if (info["num_particles"], info["len_chain"]) != (settings.num_particles, settings.len_chain):
            raise ValueError(f"{out} holds N={info['num_particles']}, P={info['len_chain']}, not {settings}")
        return {"seed": seed, "marginals": z["marginals"][0].tolist(), "log_evidence": float(z["log_evidence"][0]),
                "num_steps": int(z["num_steps"][0]), "num_evaluations": int(z["num_evaluations"][0]),
                "seconds": round(float(z["times"][0]), 1), "max_rss_gib": round(info["max_rss_gib"], 3),
                "evaluator": info["evaluator"],
                # how degenerate the final particle system is: distinct models among the N particles, ESS of W
                "distinct_particles": int(len(np.unique(z["theta"][0], axis=0))),
                "ess": round(float(1.0 / np.sum(z["W"][0] ** 2)), 1)}


def compute(settings: Settings = Settings(), workdir: str | Path = "results/references/30_variable_selection",
            processes: int = 2, data_dir: str | None = None) -> Reference:
    """The ``settings.runs`` runs, ``processes`` at a time (reusing those already in ``workdir``)."""
    import jax

    workdir = Path(workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    seeds = [settings.seed + r for r in range(settings.runs)]
    record_commit = source_commit()  # the code that runs is the checkout's at the start
    with concurrent.futures.ThreadPoolExecutor(max(1, processes)) as pool:
        runs = list(pool.map(lambda s: _run_one(settings, s, workdir, data_dir), seeds))
    marginals = np.array([r["marginals"] for r in runs])
    log_z = np.array([r["log_evidence"] for r in runs])
    spread = np.ptp(marginals, axis=0)
    provenance = {"commit": record_commit, "settings": settings._asdict(), "runs": runs, "jax": jax.__version__,
                  "criteria": {"spread_max": SPREAD_MAX},
                  "agreement": {"max_spread": float(spread.max()), "argmax_spread": int(spread.argmax()),
                                "mean_spread": float(spread.mean()),
                                "num_predictors_above": int(np.sum(spread > SPREAD_MAX)),
                                "log_evidence_range": float(np.ptp(log_z)), "agrees": agrees(marginals)}}
    return Reference(marginals, log_z, provenance)


def save(reference: Reference, out: str | Path) -> Path:
    """Write the reference (provenance, per-run marginals) under ``out``, named by `reference_file`."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    settings = Settings(**reference.provenance["settings"])
    path = out / reference_file(settings)
    prov = {**reference.provenance,
            "licence": "CC BY 4.0 (derived from the UCI Concrete Compressive Strength data, data/README.md)",
            "command": f"python -m lsvi.papers.lsvi.variable_selection_reference --out {out}{_flags(settings)}"}
    path.write_text(json.dumps(prov, indent=1) + "\n")
    return path


def load(directory: str | Path = REFERENCE_DIR, settings: Settings = Settings()) -> Reference:
    """The committed reference with ``settings`` (N, P) under ``directory`` (relative paths: to the repository root);
    raises ``FileNotFoundError`` naming the command that makes it when it is missing."""
    from lsvi.pipeline.paths import resolve

    path = resolve(directory) / reference_file(settings)
    if not path.is_file():
        raise FileNotFoundError(f"no variable-selection SMC reference {path}: run "
                                f"`python -m lsvi.papers.lsvi.variable_selection_reference --out {path.parent}"
                                f"{_flags(settings)}`")
    prov = json.loads(path.read_text())
    runs = prov["runs"]
    return Reference(np.array([r["marginals"] for r in runs]), np.array([r["log_evidence"] for r in runs]), prov)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=REFERENCE_DIR, help="output folder (default: %(default)s)")
    parser.add_argument("--workdir", default="results/references/30_variable_selection",
                        help="where each run's output is kept and reused (default: %(default)s)")
    parser.add_argument("--processes", type=int, default=2, help="runs at a time (default 2)")
    parser.add_argument("--data-dir", default=None)
    for name, default in Settings()._asdict().items():
        parser.add_argument(f"--{name.replace('_', '-')}", type=int, default=default)
    args = parser.parse_args(argv)
    settings = Settings(**{k: getattr(args, k) for k in Settings._fields})
    reference = compute(settings, args.workdir, args.processes, args.data_dir)
    path = save(reference, args.out)
    print(json.dumps({"path": str(path), **reference.provenance["agreement"],
                      "seconds": [r["seconds"] for r in reference.provenance["runs"]]}))
    return 0 if reference.agrees else 1


if __name__ == "__main__":
    raise SystemExit(main())
