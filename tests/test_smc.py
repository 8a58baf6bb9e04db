"""The variable-selection baseline (particles' waste-free tempering SMC, `lsvi.papers.lsvi.smc`), LSVI
(`lsvi.papers.lsvi.variable_selection_lsvi`) and the scores of Figure 8
(`lsvi.papers.lsvi.variable_selection_scores`), against exact enumeration on a small synthetic problem
(d = 10), and the fresh-process command line (`lsvi.papers.lsvi.variable_selection_cli`)."""
import numpy as np
import pytest

from lsvi.core import step_size
from lsvi.papers.lsvi.smc import num_chains, run_tempering_smc
from lsvi.papers.lsvi.variable_selection import log_posterior, vs_posterior
from lsvi.papers.lsvi.variable_selection_lsvi import exact_lsvi, exact_marginals, kl_bernoulli_to_posterior, run_lsvi
from lsvi.papers.lsvi.variable_selection_scores import (bernoulli_log_q, bernoulli_scores, empirical_measure,
                                                        marginal_gap, score_summary, smc_scores)


def synthetic(n=60, d=10, seed=0):
    """Intercept first, correlated pairs (1, 3) and (2, 4): inclusion probabilities strictly
    between 0 and 1 for several coordinates."""
    rng = np.random.default_rng(seed)
    Z = rng.standard_normal((n, d))
    Z[:, 3] = Z[:, 1] + 0.3 * rng.standard_normal(n)
    Z[:, 4] = Z[:, 2] + 0.5 * rng.standard_normal(n)
    Z[:, 0] = 1.0
    y = 1.0 + Z[:, 1] - 0.7 * Z[:, 2] + 0.3 * Z[:, 5] + rng.standard_normal(n)
    return Z, y


@pytest.fixture(scope="module")
def problem():
    Z, y = synthetic()
    post = vs_posterior(Z, y)
    marg, logz = exact_marginals(post)
    return Z, y, post, marg, logz


def test_exact_marginals_are_nontrivial(problem):
    *_, marg, _ = problem
    assert marg[0] > 0.99  # intercept
    assert np.sum((marg > 0.1) & (marg < 0.9)) >= 3


def test_waste_free_sizes():
    assert num_chains(100_000, 10_000) == 10  # the paper: N = 1e5 particles, P = 1e4
    with pytest.raises(ValueError):
        num_chains(1000, 300)


def test_smc_matches_enumeration(problem):
    Z, y, post, marg, logz = problem
    N, P = 2000, 20
    res = run_tempering_smc(Z, y, num_particles=N, len_chain=P, seed=1, evaluator="particles")
    M = N // P
    assert res.theta.shape == (N, Z.shape[1]) and res.M == M and res.P == P
    np.testing.assert_allclose(res.W.sum(), 1.0)
    assert res.exponents[-1] == 1.0
    # N at initialisation, then M chains × (P − 1) new states per tempering move
    assert res.num_evaluations == N + (res.num_steps - 1) * M * (P - 1)
    # Monte Carlo error of ~2000 dependent particles: a few 0.01
    assert np.max(np.abs(res.marginals - marg)) < 0.06
    assert abs(res.log_evidence - logz) < 0.5


def test_evaluators_agree(problem):
    """The JAX target shared with LSVI (default) and particles' own BayesianVS.loglik give
    the same run."""
    Z, y, *_ = problem
    a = run_tempering_smc(Z, y, 400, 20, seed=3, evaluator="jax")
    b = run_tempering_smc(Z, y, 400, 20, seed=3, evaluator="particles")
    np.testing.assert_array_equal(a.theta, b.theta)
    np.testing.assert_allclose(a.log_evidence, b.log_evidence, rtol=1e-10)


def test_lsvi_estimates_the_exact_iteration(problem):
    """Algorithm 1 with N draws vs the same iteration with exact expectations (ε = 0.5)."""
    *_, post, marg, _ = problem
    sched = step_size.constant(0.5)
    ex = exact_lsvi(post, 10, sched)
    res = run_lsvi(post, 5000, 10, sched, num_reps=1, seed=0)
    assert res.probs.shape == (1, 10) and res.num_evaluations == 5000 * 10
    assert np.max(np.abs(res.probs[0] - ex[-1])) < 0.03
    # the mean-field fixed point is close to, not equal to, the exact marginals
    assert 0.01 < np.max(np.abs(ex[-1] - marg)) < 0.25


def test_full_steps_can_cycle(problem):
    """With ε = 1 (schedule 3) the exact LSVI iteration on this correlated posterior ends in
    a 2-cycle instead of converging (a property of the map, not of Monte Carlo noise)."""
    *_, post, _, _ = problem
    ex = exact_lsvi(post, 20, step_size.constant(1.0))
    np.testing.assert_allclose(ex[-1], ex[-3], atol=1e-6)
    assert np.max(np.abs(ex[-1] - ex[-2])) > 0.3


def test_empirical_measure_and_scores(problem):
    *_, post, _, _ = problem
    theta = np.array([[1, 0, 1], [1, 0, 1], [0, 1, 1]] + [[0, 0, 0]], bool)
    W = np.array([0.2, 0.3, 0.5, 0.0])
    uniq, mass = empirical_measure(theta, W)
    assert {tuple(u): m for u, m in zip(uniq.astype(int), mass)} == {(1, 0, 1): 0.5, (0, 1, 1): 0.5, (0, 0, 0): 0.0}
    # log q with exact 0/1 probabilities: 0·log 0 = 0, impossible γ → -inf
    g = np.array([[1.0, 0.0, 1.0], [0.0, 0.0, 1.0]])
    lq = np.asarray(bernoulli_log_q(g, np.array([1.0, 0.5, 0.25])))
    np.testing.assert_allclose(lq[0], np.log(0.5) + np.log(0.25))
    assert lq[1] == -np.inf
    # smc_scores drops zero-mass points and returns log π* − log mass
    Z, y = synthetic()
    p3 = vs_posterior(Z[:, :3], y)
    s, m = smc_scores(p3, theta, W)
    assert len(s) == 2
    lp = np.asarray(log_posterior(p3, np.array([[0.0, 1.0, 1.0], [1.0, 0.0, 1.0]])))
    np.testing.assert_allclose(np.sort(s), np.sort(lp - np.log(0.5)))


def test_score_summary_estimates_elbo_and_evidence(problem):
    """The mean score of γ ~ q is the ELBO log Z − KL(q‖π) (exact here by enumeration), the
    importance-sampling estimate is close to log Z when q is close to π, and never below the
    ELBO estimate (Jensen)."""
    *_, post, marg, logz = problem
    p = np.clip(marg, 1e-3, 1 - 1e-3)
    s = bernoulli_scores(post, p, 40_000, seed=2)
    summ = score_summary(s)
    exact_elbo = logz - kl_bernoulli_to_posterior(post, p)
    assert summ.n == 40_000 and np.isclose(summ.se, summ.sd / 200.0)
    assert abs(summ.elbo - exact_elbo) < 4 * summ.se
    assert summ.log_evidence_is >= summ.elbo
    assert abs(summ.log_evidence_is - logz) < 0.1
    # a weighted empirical measure: exact mean over its support, no standard error
    w = np.array([0.25, 0.75])
    ws = score_summary(np.array([1.0, 3.0]), w)
    assert np.isclose(ws.elbo, 2.5) and np.isclose(ws.sd, np.sqrt(0.75)) and np.isnan(ws.se)


def test_marginal_gap():
    m, M, k = marginal_gap([0.1, 0.5, 0.9], [0.2, 0.5, 0.4])
    assert np.isclose(m, 0.2) and np.isclose(M, 0.5) and k == 2


def test_rejected_steps_are_reported(problem):
    """With N draws and a probability at the clipping bound, N·p ≪ 1 makes that coordinate
    constant in the draws: the regression is singular, the step is rejected and η stays put.
    `run_lsvi` reports it (``accepted``) instead of passing a frozen run for a fixed point."""
    *_, post, _, _ = problem
    frozen = run_lsvi(post, 30, 3, step_size.constant(0.5), num_reps=1, seed=0, clip=1e-3, p0=1e-3)
    assert frozen.accepted.shape == (1, 3) and not frozen.accepted.any()
    np.testing.assert_allclose(frozen.etas[0, -1], frozen.etas[0, 0])
    fine = run_lsvi(post, 2000, 3, step_size.constant(0.5), num_reps=1, seed=0)
    assert fine.accepted.all()


def test_command_line_writes_the_runs_of_one_method(tmp_path, capsys):
    """`python -m lsvi.papers.lsvi.variable_selection_cli lsvi ...` (notebook 30's fresh-process
    runs), in-process on 3 predictors of Concrete + the intercept: one JSON line and the arrays."""
    import json

    from lsvi.papers.lsvi import variable_selection_cli
    from lsvi.pipeline.paths import DATA_DIR

    out = tmp_path / "lsvi.npz"
    assert variable_selection_cli.main(["lsvi", "--num-samples", "300", "--num-steps", "3", "--eps", "0.5", "--runs", "2",
                                        "--subset", "3", "--data-dir", DATA_DIR, "--out", str(out)]) == 0
    info = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert info["method"] == "lsvi" and info["d"] == 4 and len(info["times_s"]) == 2
    assert info["evaluations_per_run"] == 900 and info["max_rss_gib"] > 0
    with np.load(out) as f:
        assert f["probs"].shape == (2, 4) and f["etas"].shape == (2, 4, 5) and f["accepted"].shape == (2, 3)
        assert np.all((f["probs"] >= 1e-3) & (f["probs"] <= 1 - 1e-3))
