"""Convergence of LSVI-FC (Algorithm 3) on Pima at the paper's N = 10^5 (Figure 1), 20 repetitions, KL at a few
iterates with 10^4 common draws; Algorithm 1 as the reference. Run from the repository root (GPU: see
benchmarks/alg3_convergence.md)."""
import sys, time, numpy as np
sys.path.insert(0, "src")  # run from the repository root
from lsvi.papers.lsvi import logistic
p = logistic.problem("pima")
for name, alg, sch, N, T in (("alg1", "alg1", 3, 10_000, 10), ("alg3s1", "alg3", 1, 100_000, 100), ("alg3s2", "alg3", 2, 100_000, 100),
                             ("alg3s2_N2e4", "alg3", 2, 20_000, 100), ("alg3s2_T500", "alg3", 2, 100_000, 500)):
    t = time.time()
    r = logistic.run_method(p, alg, sch, N, T, 20, 0)
    its = np.unique(np.r_[0, 1, 2, 5, 10, 20, 50, 100, 200, T]); its = its[its <= T]
    kl = logistic.kl_curves(p, r.etas[:, its], 10_000, 1000)[0]
    m = kl.mean(0); s = kl.std(0)
    print(name, f"N={N} T={T} {time.time()-t:.1f}s eps mean {r.infos.eps.mean():.3g} halvings {r.infos.num_halvings.mean():.2f}")
    print("  t:", its.tolist()); print("  mean:", np.round(m, 3).tolist()); print("  sd:", np.round(s, 3).tolist())
