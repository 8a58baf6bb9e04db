"""Claims row of notebook 40_rabvi_theory for Section 4.1 / App. B.2 of RABVI (Welandawe et al.): interval
probabilities are controlled by the KL divergence, |I_η − I_ζ| ≤ √(KL(η | ζ)/2) (eq. B.7). Criterion fixed before the
run: zero violations over ≥ 1,000 random Gaussian pairs (the worst interval of a grid per pair,
`lsvi.papers.rabvi.checks.interval_probability`), as the other random-pair propositions of notebook 40 (`rabvi_claims`)."""
from __future__ import annotations

import numpy as np

SRC = "Welandawe et al. (RABVI)"


def interval_probability_claims(pib: dict, min_pairs: int = 1000) -> list[dict]:
    """One row from `interval_probability_gap`'s output: PASS with no violation, FAIL with one, NOT ASSESSABLE on
    fewer than `min_pairs` pairs. The note says how tight the bound is (a bound 1/max ratio times smaller would
    already be violated), i.e. that the check can fail."""
    ratio = np.asarray(pib["ratio"], float)
    n, bad = ratio.size, int(np.sum(ratio > 1 + 1e-12))
    top = float(ratio.max()) if n else float("nan")
    med = float(np.median(ratio)) if n else float("nan")
    return [dict(id="secB2_interval_probability_kl", source=f"{SRC}, Section 4.1 and App. B.2 (eqs B.5–B.7)",
                 paper="|I_{η,i,a,b} − I_{ζ,i,a,b}| ≤ √(KL(η | ζ)/2) for all a < b and i (Pinsker's inequality)",
                 measured=(f"{bad} violations in {n} random Gaussian pairs (per pair a random coordinate and the worst "
                           f"interval of a grid); largest gap / bound {top:.3f}, median {med:.3f}"),
                 criterion=f"0 violations in ≥ {min_pairs} random cases", passed=bad == 0, assessable=n >= min_pairs,
                 kind="paper",
                 note=(f"how tight: a bound {1 / top:.2f}× smaller than √(KL/2) would be violated by the tightest pair, "
                       "so the check can fail" if n and top > 0 else ""))]
