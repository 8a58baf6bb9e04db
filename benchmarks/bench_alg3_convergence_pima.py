"""Convergence of LSVI-FC (Algorithm 3) on Pima at the paper's N = 10^5 (Figure 1), 20 repetitions, KL at a few
iterates with 10^4 common draws; Algorithm 1 as the reference. Run from the repository root in the project
environment (`make setup`), on a GPU for the paper's sizes; results in benchmarks/alg3_convergence.md.

    .venv/bin/python benchmarks/bench_alg3_convergence_pima.py
"""
import time

import numpy as np

from lsvi.papers.lsvi import logistic

# (name, algorithm, schedule, N, T)
RUNS = (("alg1", "alg1", 3, 10_000, 10), ("alg3s1", "alg3", 1, 100_000, 100), ("alg3s2", "alg3", 2, 100_000, 100),
        ("alg3s2_N2e4", "alg3", 2, 20_000, 100), ("alg3s2_T500", "alg3", 2, 100_000, 500))

p = logistic.problem("pima")
for name, alg, sch, N, T in RUNS:
    t = time.time()
    r = logistic.run_method(p, alg, sch, N, T, 20, 0)
    its = np.unique(np.r_[0, 1, 2, 5, 10, 20, 50, 100, 200, T])
    its = its[its <= T]
    kl = logistic.kl_curves(p, r.etas[:, its], 10_000, 1000)[0]
    print(name, f"N={N} T={T} {time.time() - t:.1f}s eps mean {r.infos.eps.mean():.3g} "
          f"halvings {r.infos.num_halvings.mean():.2f}")
    print("  t:", its.tolist())
    print("  mean:", np.round(kl.mean(0), 3).tolist())
    print("  sd:", np.round(kl.std(0), 3).tolist())
