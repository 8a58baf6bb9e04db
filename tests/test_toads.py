"""Toads movement model, summaries, synthetic likelihood (lsvi.papers.lsvi.toads) and the RWMH wrapper (lsvi.baselines.rwmh)."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
import scipy.stats as st

from lsvi.baselines import rwmh
from lsvi.papers.lsvi import toads

# jit once per shape: op-by-op (eager) execution would compile every primitive separately
_draws = jax.jit(toads.draws_from_uniforms, static_argnames="convention")
_positions = jax.jit(toads.positions_from_draws)
_summary = jax.jit(toads.summary, static_argnames="lags")


def _uniforms(seed, shape):
    return jnp.asarray(np.random.default_rng(seed).uniform(1e-9, 1 - 1e-9, (4, *shape)))


# ----------------------------------------------------------------------------- stable draws
_stable = jax.jit(toads.stable_symmetric, static_argnames="shape")


@pytest.mark.parametrize("alpha", [1.0, 1.3, 1.7, 2.0])
def test_stable_draws_match_scipy(alpha):
    scale = 2.0
    x = np.asarray(_stable(jax.random.PRNGKey(0), alpha, scale, shape=(40_000,)))
    assert np.all(np.isfinite(x))
    # CDF at fixed points vs scipy (Kolmogorov-type bound at n = 40 000: 4 sd ≈ 0.01)
    pts = np.array([-6.0, -3.0, -1.0, 0.0, 1.0, 3.0, 6.0])
    emp = (x[:, None] <= pts).mean(0)
    ref = st.levy_stable.cdf(pts, alpha, 0.0, scale=scale)
    np.testing.assert_allclose(emp, ref, atol=0.01)
    # characteristic function exp(-|scale u|^alpha)
    u = np.array([0.05, 0.2, 0.5])
    np.testing.assert_allclose(np.cos(np.outer(u, x)).mean(1), np.exp(-np.abs(scale * u) ** alpha), atol=0.015)


def test_stable_alpha_two_is_gaussian_with_variance_two_scale_squared():
    x = np.asarray(_stable(jax.random.PRNGKey(1), 2.0, 3.0, shape=(40_000,)))
    assert abs(x.var() / (2 * 9.0) - 1) < 0.03


# ----------------------------------------------------------------------------- simulator
def _loop_reference(moves, new, back):
    """Eq. (22) as a plain loop over days."""
    M, D = moves.shape
    Y = np.zeros((M, D))
    Y[:, 0] = moves[:, 0]
    for t in range(1, D):
        Y[:, t] = np.where(new[:, t - 1], Y[:, t - 1] + moves[:, t - 1], Y[np.arange(M), back[:, t - 1]])
    return Y


@pytest.mark.parametrize("p0", [0.0, 0.4, 0.9])
def test_positions_equal_loop_over_days(p0):
    U = _uniforms(2, (7, 15))
    draws = _draws(U[:2], U[2:], jnp.array([1.6, 20.0, p0]))
    moves, new, back = map(np.asarray, draws)
    assert np.all(back < np.arange(1, 15))  # t' <= t (0-based: back <= t-1)
    np.testing.assert_array_equal(np.asarray(_positions(*draws)), _loop_reference(moves, new, back))


_small_sim = jax.jit(lambda k, th: toads.simulate(k, th, num_toads=5, num_days=9))


def test_simulator_deterministic_properties_and_vmap():
    key = jax.random.PRNGKey(3)
    Y = np.asarray(_small_sim(key, jnp.array(toads.THETA_STAR)))
    assert Y.shape == (5, 9) and np.all(np.isfinite(Y))
    # p0 = 0 (paper convention: never a new refuge): every toad stays at its initial refuge
    Y0 = np.asarray(_small_sim(key, jnp.array([1.7, 35.0, 0.0])))
    assert np.all(Y0 == Y0[:, :1])
    # the same with the Marchand convention and p0 = 1 (always returns)
    U = _uniforms(3, (7, 15))
    Ym = np.asarray(_positions(*_draws(U[:2], U[2:], jnp.array([1.7, 35.0, 1.0]), convention="marchand")))
    assert np.all(Ym == Ym[:, :1])
    # the number of distinct positions is at most 1 + the number of new refuges
    draws = _draws(U[:2], U[2:], jnp.array([1.5, 35.0, 0.5]))
    Yd = np.asarray(_positions(*draws))
    n_new = np.asarray(draws[1]).sum(1)
    assert all(len(np.unique(Yd[i])) <= 1 + n_new[i] for i in range(7))
    # vmap over θ and keys; the key alone determines a simulation (vmap-invariant)
    thetas = jnp.array([[1.5, 30.0, 0.5], [1.9, 50.0, 0.7]])
    keys = jax.random.split(key, 2)
    Yb = jax.jit(jax.vmap(_small_sim))(keys, thetas)
    assert Yb.shape == (2, 5, 9)
    np.testing.assert_allclose(np.asarray(Yb[1]), np.asarray(_small_sim(keys[1], thetas[1])), rtol=1e-12)


# ----------------------------------------------------------------------------- summaries
def _numpy_summary(Y, lags=(1, 2, 4, 8), thr=10.0):
    out = []
    for l in lags:
        d = np.abs(Y[:, l:] - Y[:, :-l]).ravel()
        moved = d[d > thr]
        q = np.quantile(moved, np.linspace(0, 1, 11))
        out += [np.sum(d <= thr), np.median(moved), *np.log(np.diff(q))]
    return np.array(out)


def test_summary_of_hand_made_data_equals_numpy():
    rng = np.random.default_rng(0)
    # 3 toads, 12 days: returns (exact ties), sub-threshold jitters and long moves
    Y = np.cumsum(rng.standard_cauchy((3, 12)) * 30.0, axis=1)
    Y[0, 5] = Y[0, 2]
    Y[1, 7] = Y[1, 6] + 3.0
    Y[2, 9] = Y[2, 1]
    s = np.asarray(_summary(jnp.asarray(Y)))
    assert s.shape == (48,)
    np.testing.assert_allclose(s, _numpy_summary(Y), rtol=1e-12, atol=1e-12)
    # a small explicit case: lag-1 displacements of one toad are 5, 20, 40, 0 (returns: 5, 0)
    Yt = np.array([[0.0, 5.0, 25.0, -15.0, -15.0, 100.0, 200.0, 300.0, 400.0, 500.0]])
    s1 = np.asarray(_summary(jnp.asarray(Yt), lags=(1,)))
    assert s1[0] == 2 and s1[1] == np.median([20, 40, 115, 100, 100, 100, 100])


def test_summary_of_simulated_data_equals_numpy_and_backends_agree():
    Y, s = toads.observed_data()
    np.testing.assert_allclose(np.asarray(s), _numpy_summary(np.asarray(Y)), rtol=1e-10)
    x = np.abs(np.random.default_rng(5).standard_cauchy((3, 500)))
    x[:, :50] = np.inf
    x = jnp.asarray(x)
    np.testing.assert_array_equal(np.asarray(toads.sort_nonnegative(x, "xla")),
                                  np.asarray(toads.sort_nonnegative(x, "numpy")))
    np.testing.assert_array_equal(np.asarray(toads.sort_nonnegative(x, "xla")), np.sort(np.asarray(x), axis=-1))


def test_masked_quantiles_match_numpy():
    rng = np.random.default_rng(6)
    x = np.abs(rng.standard_cauchy(200))
    qs = jnp.linspace(0, 1, 11)
    mq = jax.jit(toads.masked_quantiles)
    for n in (1, 2, 3, 57, 200):
        mask = np.zeros(200, bool)
        mask[rng.choice(200, n, replace=False)] = True
        q, cnt = mq(jnp.asarray(x), jnp.asarray(mask), qs)
        assert int(cnt) == n
        np.testing.assert_allclose(np.asarray(q), np.quantile(x[mask], np.asarray(qs)), rtol=1e-12)
    q, _ = mq(jnp.asarray(x), jnp.zeros(200, bool), qs)
    assert np.all(np.isnan(np.asarray(q)))


# ----------------------------------------------------------------------------- synthetic likelihood
def test_shrinkage_covariance():
    S = np.random.default_rng(7).normal(size=(30, 4)) @ np.diag([1.0, 2.0, 3.0, 4.0])
    C = np.cov(S, rowvar=False)
    sd = np.sqrt(np.diag(C))
    R = C / np.outer(sd, sd)
    ref = np.diag(sd) @ (0.5 * R + 0.5 * np.eye(4)) @ np.diag(sd)
    np.testing.assert_allclose(np.asarray(jax.jit(toads.shrinkage_covariance)(jnp.asarray(S), 0.5)), ref, rtol=1e-12)
    obs = np.ones(4)
    ll = float(jax.jit(toads.gaussian_synthetic_loglik)(jnp.asarray(S), jnp.asarray(obs), 0.5))
    np.testing.assert_allclose(ll, st.multivariate_normal(S.mean(0), ref).logpdf(obs), rtol=1e-10)


def test_synthetic_likelihood_peaks_near_theta_star():
    Y_obs, s_obs = toads.observed_data()
    assert Y_obs.shape == (toads.NUM_TOADS, toads.NUM_DAYS) and s_obs.shape == (48,)
    assert np.all(np.isfinite(np.asarray(s_obs)))
    grid = np.array([15.0, 35.0, 70.0])  # δ, the other coordinates at θ*
    ll = jax.jit(lambda k, th: toads.synthetic_loglik(k, th, s_obs, 30))
    keys = jax.random.split(jax.random.PRNGKey(8), 2 * len(grid))
    vals = []
    for i, d in enumerate(np.tile(grid, 2)):
        th = np.array(toads.THETA_STAR)
        th[1] = d
        vals.append(float(ll(keys[i], jnp.asarray(th))))
    vals = np.array(vals).reshape(2, -1).mean(0)
    assert np.argmax(vals) == 1 and vals[1] - vals.max(initial=-np.inf, where=np.arange(3) != 1) > 20


def test_transforms_and_log_targets(monkeypatch):
    xi = jnp.array([[-1.0, 0.3, 2.0], [0.0, 0.0, 0.0]])
    th = toads.from_unconstrained(xi)
    np.testing.assert_allclose(np.asarray(toads.to_unconstrained(th)), np.asarray(xi), atol=1e-12)
    jac = jax.jit(jax.vmap(jax.jacobian(toads.from_unconstrained)))(xi)
    np.testing.assert_allclose(np.asarray(toads.log_abs_det_jacobian(xi)),
                               np.log(np.abs(np.linalg.det(np.asarray(jac)))), rtol=1e-12)
    assert float(toads.log_prior(jnp.array([2.5, 30.0, 0.5]))) == -np.inf
    # wiring of the log targets, with a cheap stand-in for the synthetic likelihood
    fake = lambda key, theta, obs, num_sims, gamma, convention: (
        -jnp.sum((theta - obs[:3]) ** 2) + jax.random.normal(key))
    monkeypatch.setattr(toads, "synthetic_loglik", fake)
    obs = jnp.concatenate([jnp.asarray(toads.THETA_STAR), jnp.zeros(45)])
    key = jax.random.PRNGKey(9)
    box = jax.jit(toads.make_log_target(obs, 20, "box", batch_size=1))
    logit = jax.jit(toads.make_log_target(obs, 20, "logit", batch_size=None))
    v_box, v_logit = np.asarray(box(key, th)), np.asarray(logit(key, xi))
    # same keys -> same noise: the two differ by the log-Jacobian only
    np.testing.assert_allclose(v_logit - v_box, np.asarray(toads.log_abs_det_jacobian(xi)), rtol=1e-9)
    assert np.asarray(box(key, jnp.array([[2.5, 30.0, 0.5]])))[0] == -np.inf
    # independent noise across points by default, shared with common random numbers
    same = jnp.tile(jnp.asarray(toads.THETA_STAR), (2, 1))
    assert np.ptp(np.asarray(box(key, same))) > 0
    crn = jax.jit(toads.make_log_target(obs, 20, "box", common_random_numbers=True))
    assert np.ptp(np.asarray(crn(key, same))) == 0


# ----------------------------------------------------------------------------- MCMC wrapper
def test_rwmh_keeps_the_current_estimate_and_samples_a_gaussian():
    noisy = lambda key, x: -0.5 * jnp.sum(x**2) + 0.3 * jax.random.normal(key)
    tr = rwmh.run_chains(jax.random.PRNGKey(10), noisy, jnp.zeros((2, 2)), jnp.full(2, 1.5), 1500)
    acc = np.asarray(tr.is_accepted)
    ld = np.asarray(tr.logdensity)
    # pseudo-marginal: a rejected step keeps the log-density estimate of the current state
    rej = ~acc[:, 1:]
    assert np.all(ld[:, 1:][rej] == ld[:, :-1][rej])
    x = np.asarray(tr.positions)[:, 200:].reshape(-1, 2)
    assert np.all(np.abs(x.mean(0)) < 0.2) and np.all(np.abs(x.var(0) - 1) < 0.25)
    # MCWM variant: the current state is re-estimated, so the kept value changes
    tr2 = rwmh.run_chains(jax.random.PRNGKey(11), noisy, jnp.zeros((1, 2)), jnp.full(2, 1.5), 100,
                          refresh_current=True)
    a2, l2 = np.asarray(tr2.is_accepted)[0], np.asarray(tr2.logdensity)[0]
    assert np.any(l2[1:][~a2[1:]] != l2[:-1][~a2[1:]])


def test_run_sequential_times_the_same_chains_as_the_sampler():
    """`rwmh.run_sequential` compiles once and times one run per key; its chains are those of
    the jitted sampler called directly with the same key (timing changes nothing)."""
    noisy = lambda key, x: -0.5 * jnp.sum(x**2) + 0.1 * jax.random.normal(key)
    sampler = rwmh.build_sampler(noisy, jnp.full(2, 1.0), 50)
    keys = jax.random.split(jax.random.PRNGKey(3), 2)
    x0 = jnp.zeros((3, 2))
    out = rwmh.run_sequential(sampler, keys, x0)
    assert out.traces.positions.shape == (2, 3, 50, 2) and out.times.shape == (2,) and np.all(out.times > 0)
    np.testing.assert_array_equal(out.traces.positions[1], np.asarray(sampler(keys[1], x0).positions))
    assert not np.array_equal(out.traces.positions[0], out.traces.positions[1])


def test_gaussian_xi_to_theta_maps_the_full_covariance_gaussian_into_the_box():
    from lsvi.core.families.gaussian import fullcov_to_natural

    m = jnp.array([0.5, -1.0, 2.0])
    C = jnp.array([[0.04, 0.01, 0.0], [0.01, 0.09, 0.0], [0.0, 0.0, 0.01]])
    z = jax.random.normal(jax.random.PRNGKey(0), (20_000, 3))
    th = np.asarray(toads.gaussian_xi_to_theta(fullcov_to_natural(m, C), z))
    assert np.all((th > toads.LOWER) & (th < toads.UPPER))
    xi = np.asarray(toads.to_unconstrained(jnp.asarray(th)))
    np.testing.assert_allclose(xi.mean(0), m, atol=0.01)
    np.testing.assert_allclose(np.cov(xi, rowvar=False), C, atol=0.005)
