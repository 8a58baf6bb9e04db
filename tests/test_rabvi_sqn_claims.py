"""`rabvi_claims.c10_sqn_claims` ("SQN does not perform well with uniform covariance", Fig. C.10) driven to PASS,
FAIL and NOT ASSESSABLE with synthetic runs."""
from types import SimpleNamespace

import numpy as np

from lsvi.papers.rabvi import claims as rc

OK = SimpleNamespace(success=True, terminated=True, iterations=4000)


def _study(adam, sqn):
    return {"d": 100, "rabvi": {"avg_adam": {"true": np.array([1.0, adam]), "result": OK},
                                "sqn": {"true": np.array([1.0, sqn]), "result": OK}}}


def _runs(ratios: dict, seeds: int = 5, jitter: float = 0.05):
    """{target: ratio} → (studies at seed 0, replicates): SQN = ratio × avgAdam (0.1), ratio varied by ±jitter."""
    rng = np.random.default_rng(0)
    all_seeds = [{t: _study(0.1, 0.1 * r * np.exp(jitter * rng.normal())) for t, r in ratios.items()}
                 for _ in range(seeds)]
    return all_seeds[0], all_seeds[1:]


def _row(ratios, **kw):
    studies, reps = _runs(ratios, **kw)
    (row,) = rc.c10_sqn_claims(studies, reps)
    assert row["id"] == "figC10_sqn_poor_uniform" and row["kind"] == "paper"
    return row


def test_pass_when_poor_on_uniform_only():
    row = _row({"uniform": 5.0, "identity": 1.0, "banded": 1.2})
    assert row["assessable"] and row["passed"]


def test_fail_when_fine_on_uniform():
    row = _row({"uniform": 1.0, "identity": 1.0, "banded": 1.0})
    assert row["assessable"] and not row["passed"]


def test_fail_when_poor_everywhere():
    row = _row({"uniform": 5.0, "identity": 6.0, "banded": 4.0})
    assert row["assessable"] and not row["passed"]


def test_not_assessable_straddling_few_seeds_or_not_run():
    assert not _row({"uniform": 2.0, "identity": 1.0, "banded": 1.0}, jitter=0.5)["assessable"]
    assert not _row({"uniform": 5.0, "identity": 1.0, "banded": 1.0}, seeds=3)["assessable"]
    assert not _row({"uniform": 5.0, "identity": 1.0})["assessable"]
    studies = {"uniform": {"d": 4, "rabvi": {"avg_adam": {"true": np.array([0.1])}}}}
    (row,) = rc.c10_sqn_claims(studies)
    assert not row["assessable"] and "not run" in row["measured"]


def test_diverged_sqn_counts_as_poor():
    studies, reps = _runs({"uniform": 5.0, "identity": 1.0, "banded": 1.0})
    for st in [studies] + reps:  # SQN diverged on every uniform run
        st["uniform"]["rabvi"]["sqn"]["true"][-1] = np.nan
    (row,) = rc.c10_sqn_claims(studies, reps)
    assert row["assessable"] and row["passed"]


def test_t_interval_matches_scipy_and_degenerate_cases():
    import numpy as np
    from scipy import stats

    from lsvi.exact.intervals import t_interval

    x = np.array([0.1, 0.4, -0.2, 0.3, 0.25])
    m, lo, hi = t_interval(x)
    ref = stats.t.interval(0.95, x.size - 1, loc=x.mean(), scale=stats.sem(x))
    assert np.isclose(m, x.mean()) and np.allclose((lo, hi), ref)
    assert t_interval([2.0, 2.0, 2.0]) == (2.0, 2.0, 2.0)
    one = t_interval([1.5])
    assert one.mean == 1.5 and one.lo == float("-inf") and one.hi == float("inf")
