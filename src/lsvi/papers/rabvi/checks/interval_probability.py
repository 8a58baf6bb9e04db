"""Interval probabilities and the KL divergence (Welandawe et al., RABVI, Section 4.1 and App. B.2, eqs B.5–B.7).

For distributions η and ζ on ℝ^d and I_{η,i,a,b} = P_η(ϑ_i ∈ [a, b]), Pinsker's inequality d_TV(η, ζ) ≤ √(KL(η | ζ)/2)
gives, since the indicator of [a, b] has range 1,

    |I_{η,i,a,b} − I_{ζ,i,a,b}| ≤ √(KL(η | ζ)/2)   for every i and a < b          (B.5–B.7)

— the reason the paper controls the KL divergence (Section 4.1). `interval_probability_gap` measures the left side
for Gaussian pairs exactly (normal cdfs of the marginals, the worst interval of a grid) against the exact Gaussian
KL (`lsvi.core.losses.kl_gaussian`), for notebook 40. Over a < b, I_η − I_ζ = D(b) − D(a) with D = F_η − F_ζ the
difference of the marginal cdfs, so the largest gap on a grid is max D − min D.

References
----------
M. Welandawe, M. R. Andersen, A. Vehtari, J. H. Huggins (2024). A framework for improving the
reliability of black-box variational inference. arXiv:2203.15945.
"""
from __future__ import annotations

import jax.numpy as jnp
import numpy as np
from scipy import special

from lsvi.core.losses import kl_gaussian


def interval_probability_gap(pairs, seed: int, grid: int = 201) -> dict:
    """Per pair (d, m_η, Σ_η, m_ζ, Σ_ζ, ·) of `lsvi.papers.rabvi.checks.theory.random_gaussian_pairs`: a random coordinate i
    (generator seeded by `seed` + 1) and the worst interval [a, b] of a `grid`-point grid over the union of the two
    marginals' ±6 sd ranges, against √(KL(η | ζ)/2). Returns arrays (n,) "gap" (largest |I_η − I_ζ|), "bound" and
    "ratio" = gap / bound (≤ 1 where eq. B.7 holds)."""
    rng = np.random.default_rng(seed + 1)
    gap, bound = [], []
    for d, m0, S0, m1, S1, *_ in pairs:
        i = int(rng.integers(d))
        s0, s1 = np.sqrt(S0[i, i]), np.sqrt(S1[i, i])
        x = np.linspace(min(m0[i] - 6 * s0, m1[i] - 6 * s1), max(m0[i] + 6 * s0, m1[i] + 6 * s1), grid)
        D = special.ndtr((x - m0[i]) / s0) - special.ndtr((x - m1[i]) / s1)
        gap.append(float(np.ptp(D)))
        kl = float(kl_gaussian(jnp.asarray(m0), jnp.asarray(S0), jnp.asarray(m1), jnp.asarray(S1)))
        bound.append(float(np.sqrt(max(kl, 0.0) / 2)))
    gap, bound = np.array(gap), np.array(bound)
    return {"gap": gap, "bound": bound, "ratio": gap / np.maximum(bound, 1e-300)}
