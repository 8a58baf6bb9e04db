"""A converged MCMC reference for the BSL toads posterior (Section 5.3, Figure 3), computed once and committed.

Why a separate reference
------------------------
The paper's benchmark is a random-walk Metropolis–Hastings chain on ξ = g(θ) with Blackjax ``sigma = 0.1`` and a
budget of twice LSVI's synthetic-likelihood evaluations (Table 1: 10 001 against 5 000). Notebook 31 runs that
benchmark for Table 1; at the cpu scale its chains are far from converged (split-R̂ 1.37, bulk ESS 15 in the cpu
report before this module): the estimate kept at the current state makes the pseudo-marginal chain stick, and a
step of 0.1 in every direction is 3–10 times the posterior sd of two coordinates of ξ. Figure 3's statement
"the full-covariance LSVI approximation matches the posterior obtained via MCMC" needs a posterior that is known,
so the rows comparing LSVI with "the posterior" use this reference instead: the same chain (pseudo-marginal
RWMH, `lsvi.baselines.rwmh` around Blackjax, P = 100 simulations per evaluation as the paper's MCMC), with an
adapted proposal and enough steps to meet the convergence criteria of the project (split-R̂ ≤ 1.01 and bulk
ESS ≥ 400 in every coordinate; Vehtari et al. 2021). It is the same posterior at every scale (same observed
data, same P), so it is computed once by

    python -m lsvi.papers.lsvi.toads_reference          # writes data/references/31_bsl_toads/

and committed with its provenance (``mcmc_reference.json``: settings, seed, time, the commit it ran from, the
diagnostics, the sha256 of the draws), as posteriordb commits its reference draws. The fingerprint of notebook 31
includes these files (`lsvi.pipeline.fingerprint.notebook_references`); no other notebook depends on them.

Algorithm (all in ξ-space, d = 3; chosen here, the paper gives no reference chain)
-----------------------------------------------------------------------------------
1. **Pilot**: ``pilot_chains`` chains of ``pilot_steps`` steps with the paper's proposal (sd 0.1), each from a
   draw of N(0, 0.1 I) (LSVI-FC's initial distribution, notebook 31's starting points).
2. **Adaptation**: the same chains, ``adapt_steps`` more steps with the proposal Σ^{1/2} = chol(2.38²/d · Σ̂),
   Σ̂ the covariance of the second half of the pilot (the optimal random-walk scaling of Roberts, Gelman & Gilks
   1997; Haario, Saksman & Tamminen 2001); Σ̂ and the mean m̂ are then re-estimated from the second half of
   this stage.
3. **Main run**: ``num_groups`` groups of ``chains_per_group`` chains (the chains of a group are vmapped), each
   chain from a draw of N(m̂, 4 Σ̂) (over-dispersed, so that split-R̂ can detect a chain that has not forgotten
   its start), ``burn_in + num_steps`` steps with the proposal chol(2.38²/d · Σ̂) of stage 2; the first
   ``burn_in`` are dropped. Group g uses the key ``fold_in(key_main, g)``, so the draws do not depend on how
   many processes run the groups (``processes``).
"""
from __future__ import annotations

import argparse
import concurrent.futures
import hashlib
import json
import multiprocessing
import time
from pathlib import Path
from typing import NamedTuple

import numpy as np

from lsvi.pipeline.provenance import source_commit

REFERENCE_DIR = "data/references/31_bsl_toads"  # relative to the repository root
DRAWS_FILE = "mcmc_reference.npz"
PROVENANCE_FILE = "mcmc_reference.json"
RHAT_MAX = 1.01  # split-R-hat of every coordinate (Vehtari et al. 2021)
ESS_MIN = 400  # bulk ESS of every coordinate
SCALING = 2.38  # optimal random-walk scaling 2.38^2 / d (Roberts, Gelman & Gilks 1997)


class Settings(NamedTuple):
    """The reference run's settings (module docstring): P = ``num_sims``; stage sizes; ``seed``."""

    num_sims: int = 100
    pilot_chains: int = 4
    pilot_steps: int = 300
    adapt_steps: int = 1000
    num_groups: int = 2
    chains_per_group: int = 4
    burn_in: int = 1000
    num_steps: int = 7000
    seed: int = 31


class Reference(NamedTuple):
    """The reference draws: xi and theta (chains, num_steps, 3) after burn-in, the acceptance rate of each chain
    (chains,), and the provenance record (settings, times, diagnostics, sha256)."""

    xi: np.ndarray
    theta: np.ndarray
    acceptance: np.ndarray
    provenance: dict


def _proposal_root(draws: np.ndarray) -> np.ndarray:
    """chol(2.38²/d · Σ̂) for draws (n, d): the Cholesky factor of the scaled sample covariance."""
    d = draws.shape[-1]
    return np.linalg.cholesky(SCALING ** 2 / d * np.cov(draws, rowvar=False))


def _log_target(num_sims: int):
    from lsvi.papers.lsvi import toads

    _, s_obs = toads.observed_data()
    return toads.pointwise(toads.make_log_target(s_obs, num_sims, "logit"))


def adapt(settings: Settings):
    """Stages 1 and 2 (module docstring). Returns (mean (3,), proposal root (3, 3), Σ̂ (3, 3), record dict)."""
    import jax
    import jax.numpy as jnp

    from lsvi.baselines import rwmh

    s = settings
    key = jax.random.PRNGKey(s.seed)
    log_target = _log_target(s.num_sims)
    x0 = jnp.sqrt(0.1) * jax.random.normal(jax.random.fold_in(key, 1), (s.pilot_chains, 3))
    t0 = time.perf_counter()
    pilot = rwmh.build_sampler(log_target, 0.1 * jnp.ones(3), s.pilot_steps)(jax.random.fold_in(key, 2), x0)
    pos = np.asarray(pilot.positions)
    root = _proposal_root(pos[:, s.pilot_steps // 2:].reshape(-1, 3))
    adapted = rwmh.build_sampler(log_target, jnp.asarray(root), s.adapt_steps)(jax.random.fold_in(key, 3),
                                                                              jnp.asarray(pos[:, -1]))
    apos = np.asarray(adapted.positions)[:, s.adapt_steps // 2:].reshape(-1, 3)
    cov = np.cov(apos, rowvar=False)
    record = {"pilot_acceptance": float(np.mean(np.asarray(pilot.is_accepted)[:, s.pilot_steps // 2:])),
              "adapt_acceptance": float(np.mean(np.asarray(adapted.is_accepted)[:, s.adapt_steps // 2:])),
              "adapt_seconds": round(time.perf_counter() - t0, 1)}
    return apos.mean(0), _proposal_root(apos), cov, record


def run_group(settings: Settings, group: int, mean, root, cov):
    """Stage 3 for one group: xi (chains_per_group, burn_in + num_steps, 3), accepted (same, without d), seconds."""
    import jax
    import jax.numpy as jnp

    from lsvi.baselines import rwmh

    s = settings
    key = jax.random.fold_in(jax.random.fold_in(jax.random.PRNGKey(s.seed), 4), group)
    k0, k_run = jax.random.split(key)
    starts = jnp.asarray(mean) + jax.random.normal(k0, (s.chains_per_group, 3)) @ (2.0 * jnp.linalg.cholesky(
        jnp.asarray(cov))).T
    t0 = time.perf_counter()
    trace = rwmh.build_sampler(_log_target(s.num_sims), jnp.asarray(root), s.burn_in + s.num_steps)(k_run, starts)
    xi = np.asarray(jax.block_until_ready(trace.positions))
    return xi, np.asarray(trace.is_accepted), time.perf_counter() - t0


def _run_group_job(args):
    import jax

    jax.config.update("jax_enable_x64", True)
    return run_group(*args)


def diagnostics(theta: np.ndarray) -> dict:
    """Split-R̂ and bulk/tail ESS of each coordinate of theta (chains, draws, 3) (`lsvi.baselines.rwmh.diagnostics`)."""
    from lsvi.baselines import rwmh
    from lsvi.papers.lsvi import toads

    return rwmh.diagnostics(theta, 0, toads.PARAM_NAMES)


def converged(diag: dict) -> bool:
    """Every coordinate with split-R̂ ≤ `RHAT_MAX` and bulk ESS ≥ `ESS_MIN`."""
    return all(v["rhat"] <= RHAT_MAX and v["ess_bulk"] >= ESS_MIN for v in diag.values())


def compute(settings: Settings = Settings(), processes: int = 1) -> Reference:
    """Stages 1–3; the groups of stage 3 run in ``processes`` worker processes (the draws do not depend on it)."""
    import jax
    import jax.numpy as jnp

    from lsvi.papers.lsvi import toads

    s = settings
    record_commit = source_commit()  # the code that runs is the checkout's at the start
    mean, root, cov, record = adapt(s)
    jobs = [(s, g, mean, root, cov) for g in range(s.num_groups)]
    if processes > 1:
        ctx = multiprocessing.get_context("spawn")
        with concurrent.futures.ProcessPoolExecutor(processes, mp_context=ctx) as pool:
            out = list(pool.map(_run_group_job, jobs))
    else:
        out = [run_group(*job) for job in jobs]
    xi = np.concatenate([o[0][:, s.burn_in:] for o in out])
    accepted = np.concatenate([o[1][:, s.burn_in:] for o in out])
    theta = np.asarray(toads.from_unconstrained(jnp.asarray(xi)))
    diag = diagnostics(theta)
    record.update(group_seconds=[round(o[2], 1) for o in out], processes=processes, jax=jax.__version__)
    provenance = {"settings": s._asdict(), "record": record, "commit": record_commit, "diagnostics": diag, "converged": converged(diag),
                  "criteria": {"rhat_max": RHAT_MAX, "ess_bulk_min": ESS_MIN},
                  "proposal_root": root.tolist(), "mean_xi": mean.tolist()}
    return Reference(xi, theta, accepted.mean(axis=1), provenance)


def save(reference: Reference, out: str | Path) -> Path:
    """Write ``mcmc_reference.npz`` (xi, acceptance; theta is recomputed on `load`) and ``mcmc_reference.json`` (provenance, with the
    npz's sha256 and the commit the run started from, or this checkout's) under ``out``."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    draws = out / DRAWS_FILE
    np.savez_compressed(draws, xi=reference.xi, acceptance=reference.acceptance)  # theta = g^{-1}(xi), on load
    prov = {"commit": source_commit(), **reference.provenance, "sha256": hashlib.sha256(draws.read_bytes()).hexdigest(),
            "licence": "MIT (computed by this project's code from its simulated data set)",
            "command": f"python -m lsvi.papers.lsvi.toads_reference --out {out}"}
    (out / PROVENANCE_FILE).write_text(json.dumps(prov, indent=1) + "\n")
    return draws


def load(directory: str | Path = REFERENCE_DIR) -> Reference:
    """The committed reference under ``directory`` (relative paths: to the repository root); raises ``FileNotFoundError`` naming the command that makes it
    when it is missing, and ``ValueError`` when the draws' sha256 is not the one recorded."""
    from lsvi.pipeline.paths import resolve

    directory = resolve(directory)
    draws, prov_file = directory / DRAWS_FILE, directory / PROVENANCE_FILE
    if not draws.is_file() or not prov_file.is_file():
        raise FileNotFoundError(f"no BSL MCMC reference in {directory}: run "
                                f"`python -m lsvi.papers.lsvi.toads_reference --out {directory}` (66 min on 2 Intel Xeon vCPUs)")
    prov = json.loads(prov_file.read_text())
    sha = hashlib.sha256(draws.read_bytes()).hexdigest()
    if sha != prov["sha256"]:
        raise ValueError(f"{draws}: sha256 {sha} differs from the recorded {prov['sha256']} ({prov_file})")
    from lsvi.papers.lsvi import toads

    with np.load(draws) as z:
        xi, acceptance = z["xi"], z["acceptance"]
    return Reference(xi, np.asarray(toads.from_unconstrained(xi)), acceptance, prov)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=REFERENCE_DIR, help="output folder (default: %(default)s)")
    parser.add_argument("--processes", type=int, default=2, help="worker processes for the groups (default 2)")
    for name, default in Settings()._asdict().items():
        parser.add_argument(f"--{name.replace('_', '-')}", type=int, default=default)
    args = parser.parse_args(argv)
    import jax

    jax.config.update("jax_enable_x64", True)
    settings = Settings(**{k: getattr(args, k) for k in Settings._fields})
    reference = compute(settings, args.processes)
    path = save(reference, args.out)
    for name, v in reference.provenance["diagnostics"].items():
        print(f"{name}: R-hat {v['rhat']:.4f}, bulk ESS {v['ess_bulk']:.0f}, tail ESS {v['ess_tail']:.0f}")
    print(f"converged: {reference.provenance['converged']}; {path} ({path.stat().st_size} bytes); "
          f"{reference.provenance['record']}")
    return 0 if reference.provenance["converged"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
