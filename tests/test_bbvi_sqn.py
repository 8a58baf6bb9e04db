"""SQN (RABVI paper, Appendix B.5): the two-loop product against eq. B.10 applied explicitly, the pair bookkeeping,
shapes, argument checks, and SQN inside RABVI on a Gaussian target."""
import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest

jax.config.update("jax_enable_x64", True)

from lsvi.core import targets  # noqa: E402
from lsvi.core.bbvi import families, kernel, rabvi, sqn  # noqa: E402


def _explicit_h(pairs, h0, P):
    """Eq. B.10 applied to H_0 = h0 I, oldest pair first (dense matrices)."""
    H = h0 * np.eye(P)
    I = np.eye(P)
    for s, y in pairs:
        rho = 1.0 / (s @ y)
        H = (I - rho * np.outer(s, y)) @ H @ (I - rho * np.outer(y, s)) + rho * np.outer(s, s)
    return H


def test_two_loop_matches_explicit_bfgs_on_quadratic():
    rng = np.random.default_rng(0)
    P, m = 6, 4
    A = rng.normal(size=(P, P))
    A = A @ A.T + P * np.eye(P)  # Hessian of a deterministic quadratic ½ xᵀAx: y = A s exactly
    pairs = [(s, A @ s) for s in rng.normal(size=(7, P))]
    kept = pairs[-m:]  # the m most recent
    # ring buffer as the transform stores it: 7 pairs into 4 slots, next slot (oldest) = 7 % 4
    s_mem, y_mem, rho_mem = np.zeros((m, P)), np.zeros((m, P)), np.zeros(m)
    for j, (s, y) in enumerate(pairs):
        s_mem[j % m], y_mem[j % m], rho_mem[j % m] = s, y, 1 / (s @ y)
    s_new, y_new = kept[-1]
    h0 = (s_new @ y_new) / (y_new @ y_new)
    g = rng.normal(size=P)
    got = np.asarray(sqn.two_loop(jnp.asarray(g), jnp.asarray(s_mem), jnp.asarray(y_mem), jnp.asarray(rho_mem),
                                  jnp.asarray(7 % m), jnp.asarray(h0)))
    want = _explicit_h(kept, h0, P) @ g
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)
    # the secant equation of the newest pair holds: H y = s
    Hy = np.asarray(sqn.two_loop(jnp.asarray(y_new), jnp.asarray(s_mem), jnp.asarray(y_mem), jnp.asarray(rho_mem),
                                 jnp.asarray(7 % m), jnp.asarray(h0)))
    np.testing.assert_allclose(Hy, s_new, rtol=1e-10)


def test_transform_builds_pairs_from_block_averages():
    """Deterministic quadratic, exact gradient: the transform's stored pairs are differences of B-iterate block
    averages and their gradient differences, and its direction equals eq. B.10's H applied to ĝ."""
    rng = np.random.default_rng(1)
    P, B, m = 5, 3, 3
    A = np.diag(np.arange(1.0, P + 1))
    opt = sqn.sqn(lambda key, lam: jnp.asarray(A) @ lam, jax.random.PRNGKey(0), memory_size=m, block_size=B,
                  warmup="sgd")
    iterates = rng.normal(size=(4 * B, P))
    state = opt.init(jnp.asarray(iterates[0]))
    update = jax.jit(opt.update)
    for k, lam in enumerate(iterates):
        g = jnp.asarray(rng.normal(size=P))
        d, state = update(g, state, jnp.asarray(lam))
        if k < 2 * B - 1:  # no pair yet (the first block has no predecessor): plain gradient
            np.testing.assert_allclose(np.asarray(d), np.asarray(g))
    avgs = iterates.reshape(4, B, P).mean(1)
    pairs = [(avgs[t] - avgs[t - 1], A @ (avgs[t] - avgs[t - 1])) for t in range(1, 4)]
    assert int(state.num_pairs) == 3
    H = _explicit_h(pairs, (pairs[-1][0] @ pairs[-1][1]) / (pairs[-1][1] @ pairs[-1][1]), P)
    np.testing.assert_allclose(np.asarray(d), H @ np.asarray(g), rtol=1e-10)


def test_negative_curvature_pair_skipped():
    opt = sqn.sqn(lambda key, lam: -lam, jax.random.PRNGKey(0), block_size=1, warmup="sgd")  # concave: sᵀy < 0
    state = opt.init(jnp.zeros(3))
    update = jax.jit(opt.update)
    for lam in ([0.0, 0, 0], [1.0, 2, 3], [2.0, 1, 0]):
        d, state = update(jnp.ones(3), state, jnp.asarray(lam))
    assert int(state.num_pairs) == 0
    np.testing.assert_allclose(np.asarray(d), np.ones(3))


def test_shapes_and_reparam_gradient():
    d = 3
    fam = families.meanfield(d)
    grad = sqn.reparam_gradient(fam, targets.gaussian_logdensity(jnp.eye(d)), 50)
    g = grad(jax.random.PRNGKey(0), jnp.zeros(2 * d))
    assert g.shape == (2 * d,)
    # at λ = 0 for π = N(0, I): E ĝ_τ = 0, ĝ_ψ = mean(z²) − 1 per coordinate (−H gives −1, −log π gives σ²z²)
    assert np.all(np.abs(np.asarray(g[:d])) < 1.0)
    opt = sqn.sqn_for(fam, targets.gaussian_logdensity(jnp.eye(d)), jax.random.PRNGKey(1), num_samples_y=20)
    st = opt.init(jnp.zeros(2 * d))
    assert st.s_mem.shape == (10, 2 * d) and st.rho_mem.shape == (10,)
    out, _ = jax.jit(opt.update)(jnp.ones(2 * d), st, jnp.zeros(2 * d))
    assert out.shape == (2 * d,)


def test_bad_arguments_refused():
    f = lambda key, lam: lam  # noqa: E731
    with pytest.raises(ValueError, match="memory_size"):
        sqn.sqn(f, jax.random.PRNGKey(0), memory_size=0)
    with pytest.raises(ValueError, match="block_size"):
        sqn.sqn(f, jax.random.PRNGKey(0), block_size=2.5)
    with pytest.raises(ValueError, match="curvature_eps"):
        sqn.sqn(f, jax.random.PRNGKey(0), curvature_eps=-1.0)
    with pytest.raises(ValueError, match="warmup"):
        sqn.sqn(f, jax.random.PRNGKey(0), warmup="adam")
    with pytest.raises(TypeError, match="callable"):
        sqn.sqn(None, jax.random.PRNGKey(0))
    with pytest.raises(ValueError, match="num_samples"):
        sqn.reparam_gradient(families.meanfield(2), lambda th: -th @ th, 0)
    opt = sqn.sqn(f, jax.random.PRNGKey(0))
    with pytest.raises(ValueError, match="flat parameter"):
        opt.init(jnp.zeros((2, 2)))
    with pytest.raises(ValueError, match="current parameters"):
        opt.update(jnp.zeros(2), opt.init(jnp.zeros(2)))


def test_sqn_inside_rabvi_converges_on_gaussian():
    d = 5
    V = np.diag(np.arange(1.0, d + 1))
    log_target = targets.gaussian_logdensity(jnp.asarray(np.linalg.inv(V)))
    fam = families.meanfield(d)
    bb = kernel.build(fam, log_target, sqn.sqn_for(fam, log_target, jax.random.PRNGKey(7)), num_samples=10)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        res = rabvi.rabvi(bb, fam, jnp.zeros(2 * d), jax.random.PRNGKey(0), r=1.0, k_max=20_000, fix_kappa=False)
    lam_star = fam.init(np.zeros(d), V)
    err = float(np.sqrt(families.skl(fam, jnp.asarray(res.position), lam_star)))
    assert res.success and err < 0.2, (res.success, res.terminated, err)
