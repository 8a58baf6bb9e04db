"""Convergence of LSVI-FC (Algorithm 3) on Sonar at the paper's N = 10^5 (Figure 4, right), 10 repetitions, with and
without the centred eq. (20) estimator. Run from the repository root in the project environment (`make setup`), on a
GPU for the paper's sizes; results in benchmarks/alg3_convergence.md.

    .venv/bin/python benchmarks/bench_alg3_convergence_sonar.py
"""
import time

import numpy as np

from lsvi.papers.lsvi import logistic

# (name, schedule, N, T, centred eq. 20)
RUNS = (("alg3s1", 1, 100_000, 100, False), ("alg3s2", 2, 100_000, 100, False),
        ("alg3s2_centred", 2, 100_000, 100, True), ("alg3s2_centred_T500", 2, 100_000, 500, True))

p = logistic.problem("sonar")
for name, sch, N, T, centre in RUNS:
    t = time.time()
    r = logistic.run_method(p, "alg3", sch, N, T, 10, 0, centre=centre)
    its = np.unique(np.r_[0, 1, 2, 5, 10, 20, 50, 100, 200, T])
    its = its[its <= T]
    kl = logistic.kl_curves(p, r.etas[:, its], 10_000, 1000)[0]
    print(name, f"N={N} T={T} {time.time() - t:.1f}s eps {r.infos.eps.mean():.3g} "
          f"halvings {r.infos.num_halvings.mean():.2f}")
    print("  t:", its.tolist())
    print("  mean:", np.round(kl.mean(0), 3).tolist())
    print("  sd:", np.round(kl.std(0), 3).tolist())
