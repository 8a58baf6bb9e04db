"""Algorithm 4's residual, the paper's s(X) against the authors' s(Z) (`lsvi.core.step_size`), for
LSVI-FC (Algorithm 3) schedule 1 (u² = 10, ε = 1) on Pima and Sonar at the paper's N = 10^5, T = 100,
with schedule 2 (u² = ∞: the residual plays no role) for reference. Run from the repository root in the project
environment (`make setup`), on a GPU for the paper's sizes; results in benchmarks/alg3_residual_z.md.

    python benchmarks/bench_alg3_residual_z.py [--reps 20] [--num-samples 100000] [--num-steps 100]
"""
import argparse
import time

import jax
import numpy as np

from lsvi.core.families.gaussian import fullcov_from_natural
from lsvi.papers.lsvi import logistic

ap = argparse.ArgumentParser()
ap.add_argument("--reps", type=int, default=20)
ap.add_argument("--num-samples", type=int, default=100_000)
ap.add_argument("--num-steps", type=int, default=100)
ap.add_argument("--kl-draws", type=int, default=10_000)
ap.add_argument("--datasets", default="sonar,pima")
args = ap.parse_args()
print(f"JAX {jax.__version__} on {jax.devices()[0]}; N={args.num_samples}, T={args.num_steps}, reps={args.reps}, "
      f"KL draws {args.kl_draws}, seed 0, KL seed 1000")
T = args.num_steps
its = np.unique(np.r_[0, 1, 2, 5, 10, 20, 50, T // 2, T])
its = its[its <= T]
for name in args.datasets.split(","):
    p = logistic.problem(name)
    for label, sch, residual in (("sch. 1, s(X)", 1, "X"), ("sch. 1, s(Z)", 1, "Z"), ("sch. 2", 2, "X")):
        t0 = time.time()
        r = logistic.run_method(p, "alg3", sch, args.num_samples, T, args.reps, 0, residual=residual)
        kl = logistic.kl_curves(p, r.etas, args.kl_draws, 1000)[0]
        blown = logistic.blow_ups(kl)
        fin = kl[:, -1]
        at_T = ~np.isfinite(fin) | (fin > kl[:, 0])
        print(f"\n{name} {label}: {time.time() - t0:.1f} s; blow-ups {int(blown.sum())}/{args.reps} "
              f"(first t above L_0: {[int(np.argmax(~(k[1:] <= k[0])) + 1) for k in kl[blown]]}); "
              f"above L_0 at T: {int(at_T.sum())}/{args.reps}")
        print(f"  t: {its.tolist()}")
        print(f"  KL mean:   {np.round(kl[:, its].mean(0), 2).tolist()}")
        print(f"  KL median: {np.round(np.median(kl[:, its], 0), 2).tolist()}")
        print(f"  KL sd:     {np.round(kl[:, its].std(0), 2).tolist()}")
        print(f"  final KL of the reps that do not blow up: mean {fin[~blown].mean() if (~blown).any() else np.nan:.3f}, "
              f"sd {fin[~blown].std() if (~blown).any() else np.nan:.3f}")
        ti = its[1:] - 1  # infos are per step t = 1..T
        print(f"  eps mean at t: {np.round(r.infos.eps[:, ti].mean(0), 4).tolist()}")
        print(f"  residual variance median at t: {np.round(np.median(r.infos.residual_var[:, ti], 0), 2).tolist()}")
        if label == "sch. 2":
            # the authors' residual variance at a fixed point q = N(μ, Σ): ‖Σ⁻¹μ‖² + ½‖Σ⁻¹ − I‖²_F
            # (η averaged over the repetitions that end below L_0: an average of valid η is valid)
            mu, S = fullcov_from_natural(r.etas[~at_T, -1].mean(0), p.d)
            P = np.linalg.inv(np.asarray(S))
            lim = float(np.sum((P @ np.asarray(mu)) ** 2) + 0.5 * np.sum((P - np.eye(p.d)) ** 2))
            print(f"  ‖Σ⁻¹μ‖² + ½‖Σ⁻¹ − I‖²_F at the final iterate (mean η over reps): {lim:.4g} "
                  f"-> authors' cap ε ≤ sqrt(10 / that) = {np.sqrt(10 / lim):.3g}")
