"""RABVI paper (Welandawe et al.), Section 5.1 / Fig. 6b: the convergence detectors of Fig. 6 on one recorded
fixed-rate run on a posteriordb posterior (the paper: mcycle_gp, d = 66), mean-field Gaussian family on the
unconstrained space (`lsvi.papers.rabvi.posteriordb_models`).

The run and the detectors are those of `rabvi_ablations.detection_study` (avgAdam, M = 10, fixed γ, the five
`rabvi_ablations.DETECTORS` and the W = 100 window, checks every 100 iterations); two things differ because q* is not
known in closed form and the model is not a Gaussian:

* the reference optimum λ_ref is `rabvi_ablations.reference_optimum` (a long avgAdam run at γ = 0.05 then 0.005,
  averaged over its last half; not RABVI and no detector), started at `start_point`; e_k = √SKL(q_{λ^{(k)}}, q_{λ_ref})
  and k_ref (`rabvi_ablations.reference_point`) as for the Gaussian targets;
* the ΔELBO rule sees the Monte Carlo ELBO of the model's unnormalised log density (`elbo_estimates`, 100 draws, as
  Stan's).

Start (the paper gives none): λ^{(0)} is drawn around the unconstrained posteriordb reference mean c (the
translation check starts its NUTS chains there too, `posteriordb_models.NUTS_START`): τ = c + `init_scale`·N(0, I),
ψ = log 0.1 + 0.5·N(0, I) (`start_point`); λ_ref's run starts at (c, log 0.1). This start was chosen when the
translation's gradient was NaN from λ = 0 (the basis-function spectral density underflowing under a square root);
that is fixed in `posteriordb_models`, and the start is kept.

References
----------
M. Welandawe, M. R. Andersen, A. Vehtari, J. H. Huggins (2024). A framework for improving the
reliability of black-box variational inference. arXiv:2203.15945.
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from lsvi.core.bbvi import detection, families, kernel, optimizers
from lsvi.papers.rabvi import ablations as ra


def start_point(model, seed: int | None, init_scale: float = 0.5) -> np.ndarray:
    """λ^{(0)} (2d,) around the unconstrained posteriordb reference mean c: (c + init_scale·z₁, log 0.1 + 0.5·z₂),
    z ~ N(0, I) from `seed`; seed None gives the centre (c, log 0.1)."""
    from lsvi.papers.rabvi.posteriordb import reference_moments

    c = np.asarray(model.unconstrain(jnp.asarray(reference_moments(model.name).mean)), float)
    psi = np.full(model.dim, np.log(0.1))
    if seed is None:
        return np.concatenate([c, psi])
    rng = np.random.default_rng(20_000 + seed)
    return np.concatenate([c + init_scale * rng.standard_normal(model.dim), psi + 0.5 * rng.standard_normal(model.dim)])


def elbo_estimates(lams: np.ndarray, logdensity, num_draws: int, seed: int) -> np.ndarray:
    """Monte Carlo ELBO E_q[log p̃(θ)] + H(q) of the unnormalised `logdensity` ((d,) -> ()) at each mean-field λ of
    `lams` (J, 2d), `num_draws` draws each -> (J,)."""
    d = lams.shape[1] // 2
    z = np.random.default_rng(seed).standard_normal((len(lams), num_draws, d))
    theta = jnp.asarray(lams[:, None, :d] + np.exp(lams[:, None, d:]) * z)
    lp = np.asarray(jax.vmap(jax.vmap(logdensity))(theta))
    return lp.mean(1) + lams[:, d:].sum(1) + 0.5 * d * (1 + np.log(2 * np.pi))


def detection_study(name: str, *, num_steps: int, step_size: float = 0.1, seed: int = 0, ref_steps: int = 20_000,
                    init_scale: float = 0.5, num_samples: int = 10, elbo_samples: int = 100, eval_every: int = 100,
                    w_min: int = 200, fixed_window: int = 800, sasa_n_min: int = 100) -> dict:
    """Fig. 6b on posteriordb posterior `name`: avgAdam (M = `num_samples`) at fixed γ = `step_size` for `num_steps`
    iterations from `start_point(model, seed)`. Returns the same dict as `rabvi_ablations.detection_study` (name, d,
    num_steps, distance ‖λ^{(k)} − λ̄‖ (K + 1,), errors e_k (K + 1,), k_ref, level, triggers, elbo) plus the reference's
    spread (√SKL between the averages of its two quarters) and ref_steps; `nonfinite`: the run produced NaN/inf."""
    from lsvi.papers.rabvi import posteriordb_models

    model = posteriordb_models.build(name)
    fam = families.meanfield(model.dim)
    lam_ref, spread = ra.reference_optimum(fam, model.logdensity, ref_steps, seed=seed + 1,
                                           start=start_point(model, None))
    bb = kernel.build(fam, model.logdensity, optimizers.get("avg_adam"), num_samples)
    lam0 = start_point(model, seed, init_scale)
    _, trace, _ = bb.run(jax.random.PRNGKey(seed), bb.init(jnp.asarray(lam0)), jnp.asarray(step_size, float), num_steps)
    positions = np.concatenate([lam0[None], np.asarray(trace)])
    errors = np.sqrt(np.maximum(ra.meanfield_skl(positions, np.asarray(lam_ref)), 0.0))
    ks = np.arange(eval_every, num_steps + 1, eval_every)
    elbo = elbo_estimates(positions[ks], model.logdensity, elbo_samples, seed)
    k_ref, level = ra.reference_point(errors)
    trig = dict(zip(ra.DETECTORS, (
        detection.adaptive_rhat(positions[1:], w_min=w_min),
        detection.adaptive_sasa(detection.sasa_statistic(positions, step_size), n_min=sasa_n_min),
        detection.fixed_rhat(positions[1:], window=fixed_window),
        detection.delta_elbo(elbo, eval_every=eval_every),
        detection.distance_rule(positions))))
    trig[ra.DETECTOR_W100] = detection.fixed_rhat(positions[1:], window=ra.SMALL_WINDOW)
    avg = positions[num_steps // 2:].mean(0)
    return {"name": name, "d": model.dim, "num_steps": num_steps, "distance": np.linalg.norm(positions - avg, axis=1),
            "errors": errors, "k_ref": k_ref, "level": level, "triggers": trig, "elbo": elbo,
            "ref_spread": spread, "ref_steps": ref_steps, "nonfinite": not bool(np.isfinite(positions).all())}
