"""Section 4.1 / App. B.2 of RABVI: |I_η − I_ζ| ≤ √(KL(η | ζ)/2) — the measurement (`lsvi.papers.rabvi.checks.interval_probability`)
and its claim builder (`lsvi.papers.rabvi.interval_claims`), driven to PASS, FAIL and NOT ASSESSABLE."""
import numpy as np
from scipy.stats import norm

from lsvi.papers.rabvi.checks import theory as rt
from lsvi.papers.rabvi.checks.interval_probability import interval_probability_gap
from lsvi.papers.rabvi.interval_claims import interval_probability_claims


def test_gap_is_the_exact_total_variation_in_one_dimension():
    """Two 1-d Gaussians with equal variance: the largest interval gap is their total variation 2Φ(|Δm|/2σ) − 1, and
    the bound √(KL/2) = |Δm|/(2σ)."""
    pair = [(1, np.array([0.0]), np.eye(1), np.array([0.7]), np.eye(1), np.eye(1))]
    got = interval_probability_gap(pair, 0, grid=4001)
    assert abs(got["gap"][0] - (2 * norm.cdf(0.35) - 1)) < 1e-5
    assert abs(got["bound"][0] - 0.35) < 1e-12


def test_claim_pass_fail_and_not_assessable():
    pib = interval_probability_gap(rt.random_gaussian_pairs(0, 1000), 0)
    row = interval_probability_claims(pib)[0]
    assert row["passed"] and row["assessable"] and row["kind"] == "paper"
    assert np.max(pib["ratio"]) > 0.5  # a bound half as large would be violated: the check has power
    row = interval_probability_claims({"ratio": np.append(pib["ratio"][:-1], 1.01)})[0]  # one violation
    assert not row["passed"] and row["assessable"] and "1 violations" in row["measured"]
    row = interval_probability_claims({"ratio": pib["ratio"][:100]})[0]  # too few pairs
    assert row["passed"] and not row["assessable"]
