"""Notebook 51 (Wu & Gardner, non-conjugate NGVI): gradient identities, the NGD step, the landscape, Remark 2."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from lsvi.papers.ngvi.checks import landscape as nl
from lsvi.core.families.gaussian import fullcov_to_natural
from lsvi.core.losses import kl_gaussian
from lsvi.pipeline.claims import claim
from lsvi.data import simulated
from lsvi.papers.ngvi import nonconjugate as nc
from lsvi.papers.ngvi import nonconjugate_claims as claims51
from lsvi.papers.ngvi.plotting import nonconjugate as plotting

jax.config.update("jax_enable_x64", True)
NODES = nl.hermite_nodes(48)


@pytest.fixture(scope="module")
def problem():
    Xf = jnp.asarray(simulated.flipped_design(3, 60, 3))
    m = jnp.array([0.3, -0.5, 0.2])
    W = jnp.array([[1.0, 0.2, 0.0], [0.2, 0.7, -0.1], [0.0, -0.1, 0.5]])
    return Xf, m, W @ W.T


def test_bonnet_price_identities_match_autodiff(problem):
    # ∇_m E f = E∇f and ∇_Σ E f = ½E∇²f (quadrature) against autodiff of the quadrature objective itself.
    Xf, m, S = problem
    g_m, G_S = nl.exact_moment_gradients(Xf, m, S, NODES)
    a_m, a_S = jax.grad(lambda m_, S_: nl.expected_loglik(Xf, m_, S_, NODES), argnums=(0, 1))(m, S)
    np.testing.assert_allclose(g_m, a_m, rtol=1e-4, atol=1e-8)  # both by the same quadrature
    np.testing.assert_allclose(G_S, 0.5 * (a_S + a_S.T), rtol=1e-4, atol=1e-8)


def test_price_estimator_is_unbiased(problem):
    Xf, m, S = problem
    Z = jax.random.normal(jax.random.PRNGKey(0), (200_000, 3))
    g_m, G_S = nl.price_gradients(Xf, m, jnp.linalg.cholesky(S), Z)
    e_m, E_S = nl.exact_moment_gradients(Xf, m, S, NODES)
    np.testing.assert_allclose(g_m, e_m, atol=0.05)
    np.testing.assert_allclose(G_S, E_S, atol=0.02)


def test_ngd_step_is_gradient_step_in_expectation_parameters(problem):
    # eq. (8): θ_{t+1} = θ_t − ρ ∇_ω ℓ(ω_t), ∇_ω by autodiff of the exact −ELBO in ω = (m, vech S).
    Xf, m, S = problem
    d, rho = 3, 0.3
    grad_w = jax.grad(lambda w: nl.neg_elbo(Xf, *nl.unpack_expectation(w, d), 1.0, NODES))(nl.pack_expectation(m, S))
    m1, S1 = nc.exact_ngd(Xf, 1.0, m, S, rho, 1, NODES)
    expected = fullcov_to_natural(m, S)[1:] - rho * grad_w
    np.testing.assert_allclose(fullcov_to_natural(m1, S1)[1:], expected, rtol=1e-4, atol=1e-6)  # quadrature-level


def test_logistic_nonconvex_in_omega_convex_in_sqrt():
    Xf = jnp.asarray(simulated.flipped_design(0, 200, 2))
    res = nl.logistic_landscape(Xf, 1.0, [0.01, 1.0], NODES)
    assert res["lam_by_s"][0] > 0 > res["lam_expectation"]  # small Σ: the KL dominates; s = 1: negative curvature
    assert res["fd_expectation"] == pytest.approx(res["lam_expectation"], rel=1e-4)
    assert res["lam_sqrt"] >= 1.0 - 1e-8  # strong convexity 1/v in (m, L)


def test_poisson_closed_form_and_nonconvexity():
    rng = np.random.default_rng(0)
    X = jnp.asarray(rng.normal(size=(10, 2)))
    y = jnp.asarray(rng.poisson(1.0, size=10).astype(float))
    m, S = jnp.array([0.2, -0.1]), jnp.array([[0.3, 0.05], [0.05, 0.2]])
    # closed-form E_q exp(xᵀβ) against Monte Carlo
    B = m + jax.random.normal(jax.random.PRNGKey(1), (400_000, 2)) @ jnp.linalg.cholesky(S).T
    mc = jnp.mean(jnp.sum(y * (B @ X.T) - jnp.exp(B @ X.T), axis=1))
    closed = -nl.poisson_neg_elbo(X, y, m, S, 1.0) + kl_gaussian(m, S, jnp.zeros(2), jnp.eye(2)) \
        + jnp.sum(jax.scipy.special.gammaln(y + 1.0))
    assert float(closed) == pytest.approx(float(mc), rel=5e-3)
    res = nl.poisson_landscape(X, y, [0.25, 2.0], 0.5)
    assert res["lam_expectation"] < 0 < res["lam_sqrt"]


def test_remark2_price_never_leaves_autodiff_does():
    # formerly the claim remark2_price_valid: it holds by algebra (Ĝ₂ = ½∇²f ⪯ 0 for a log-concave f, ρ ≤ 1), so it is an
    # implementation check of `domain_exits` and `price_gradients`; the counts must also react when the step can leave.
    Xf = jnp.asarray(simulated.flipped_design(2, 20, 2, scale=2.0))
    exits = nl.domain_exits(jax.random.PRNGKey(0), Xf, 1.0, jnp.eye(2), 1.0, 300)
    assert exits["price"] == (0, 0)
    assert 0 < exits["autodiff"][0] <= exits["autodiff"][1] < 300
    # ρ > 1 breaks the convex combination: (1 − ρ)(−½Σ⁻¹) is then positive definite and Price steps do leave
    over = nl.domain_exits(jax.random.PRNGKey(0), Xf, 1.0, 0.05 * jnp.eye(2), 3.0, 50)
    assert over["price"][0] > 0 and over["price"][1] == 0


def test_price_estimator_for_a_quadratic_against_its_closed_form():
    # f(β) = −½(β−a)ᵀA(β−a): E_q f = −½tr(A ω₂) + aᵀAω₁ − ½aᵀAa is linear in ω = (m, S), so the exact gradient is
    # (Aa, −½A). Eq. (11)'s ω₂ part is −½A on every draw; its ω₁ part −A(β − m) + Aa has covariance AΣA (not zero).
    A, a, m, Sigma = jnp.array([[2.0, 0.5], [0.5, 1.0]]), jnp.ones(2), jnp.array([0.3, -0.2]), 0.5 * jnp.eye(2)
    exact = jax.grad(lambda w1, w2: -0.5 * jnp.trace(A @ w2) + a @ A @ w1, argnums=(0, 1))(m, Sigma + jnp.outer(m, m))
    np.testing.assert_allclose(exact[0], A @ a)
    s = nl.quadratic_estimator_spread(jax.random.PRNGKey(0), A, a, m, Sigma, 4000)
    assert s["price_cov_maxdev"] <= 1e-12
    want_sd = float(np.sqrt(np.diag(np.asarray(A @ Sigma @ A))).max())
    assert s["price_omega1_sd"] == pytest.approx(want_sd, rel=0.05)  # the mean part does vary: sd √diag(AΣA)
    assert s["bonnet_mean_sd"] == pytest.approx(want_sd, rel=0.05)
    assert s["autodiff_cov_sd"] > 0.1
    # the builder's reading pair: as printed FAILs (ω₁ varies), narrowed PASSes; a zero-variance input passes both
    rows = {r["id"]: claim(**r).status for r in claims51.price_rows(s, float(jnp.linalg.norm(A)))}
    assert rows == {"price_zero_variance_quadratic_as_printed": "FAIL", "price_zero_variance_quadratic": "PASS"}
    rows = {r["id"]: claim(**r).status for r in claims51.price_rows({**s, "price_omega1_sd": 0.0}, 1.0)}
    assert set(rows.values()) == {"PASS"}
    rows = {r["id"]: claim(**r).status for r in claims51.price_rows({**s, "price_cov_maxdev": 1e-3}, 1.0)}
    assert set(rows.values()) == {"FAIL"}
    assert {r["kind"] for r in claims51.price_rows(s, 1.0)} == {"reading"}


def test_convexity_in_sqrt_parameters_at_random_distributions():
    Xf = jnp.asarray(simulated.flipped_design(0, 50, 2))
    means, covs = nl.random_gaussians(jax.random.PRNGKey(1), 2, 5)
    lams = nl.logistic_sqrt_min_eigs(Xf, 1.0, NODES, means, covs)
    assert lams.shape == (5,) and np.all(lams >= 1.0 - 1e-8)
    rng = np.random.default_rng(0)
    X, y = jnp.asarray(rng.normal(size=(10, 2))), jnp.asarray(rng.poisson(1.0, size=10).astype(float))
    assert np.all(nl.poisson_sqrt_min_eigs(X, y, 2.0, 0.5, means, covs) >= 2.0 - 1e-8)  # 1/v with v = 0.5
    # a non-log-concave "likelihood" (f = +½‖β‖² · 10) breaks it: the check can fail
    bad = nl.sqrt_min_eigs(lambda m, S: -5.0 * (m @ m + jnp.trace(S)) + kl_gaussian(m, S, jnp.zeros(2), jnp.eye(2)), 2, means, covs)
    assert np.all(bad < 0)


def test_proposition1_multistart_reaches_reference():
    Xf = jnp.asarray(simulated.flipped_design(1, 80, 2))
    means, covs = nc.multistart_ngd(Xf, 1.0, jax.random.PRNGKey(0), 5, 0.5, 80, NODES)
    m_ref, S_ref, g = nc.sqrt_optimum(Xf, 1.0, NODES)
    assert g <= 1e-6
    assert nl.relative_spread(means, covs, m_ref, S_ref) <= 1e-6


def test_stochastic_kernels_decrease_elbo_and_keep_sgd_projection(tmp_path):
    Xf = jnp.asarray(simulated.flipped_design(4, 100, 3))
    df, best = nc.tuned_runs(Xf, 1.0, 5, 30, {"sgd": [0.5], "sgd_price": [0.5], "ngd": [0.2]}, 0, NODES)
    for method in ("sgd", "sgd_price", "ngd"):
        v = df[df.method == method].set_index("t")["neg_elbo"]
        assert v.iloc[-1] < v.loc[0]
    assert best == {"sgd": 0.5, "sgd_price": 0.5, "ngd": 0.2}
    kernel = nc.build_sgd_kernel(Xf, 1.0, 2, "price", min_diag=0.3)
    state, _ = kernel(jax.random.PRNGKey(0), nc.sgd_init(jnp.zeros(3), 0.01 * jnp.eye(3)), 0.1)
    assert np.all(np.diag(state.L) >= 0.3) and np.allclose(np.triu(state.L, 1), 0.0)
    fig = plotting.ngvi_fig02_logistic({"sim": df}, {"sim": best})
    (ax,) = fig.axes
    for line, method in zip(ax.lines, ("sgd", "sgd_price", "ngd")):  # one step size each: the drawn curve is the run
        v = df[(df.method == method) & (df.t > 0)]
        np.testing.assert_allclose(line.get_xdata(), v["t"])
        np.testing.assert_allclose(line.get_ydata(), v["neg_elbo"])
    # held-out seeds: each method at its tuned step size, one row per seed; the tuning seed's run is reproduced
    held, record = nc.held_out_runs(Xf, 1.0, 5, 30, best, [0, 7], NODES)
    np.testing.assert_array_equal(record, nc.log_record(30))
    for method in ("sgd", "sgd_price", "ngd"):
        assert held[method].shape == (2, len(record))
        np.testing.assert_allclose(held[method][0], df[df.method == method]["neg_elbo"], rtol=1e-10)
        assert not np.allclose(held[method][1], held[method][0])


def test_average_pool():
    X = np.arange(2 * 784, dtype=float).reshape(2, 784)
    P = nc.average_pool(X, 28, 7)
    assert P.shape == (2, 49)
    assert P[0, 0] == pytest.approx(np.mean([r * 28 + c for r in range(4) for c in range(4)]))


# ---------------------------------------------------------------- the claim builders of notebook 51
def _st(rows):
    return {r["id"]: claim(**r).status for r in rows}


def test_landscape_rows_pass_fail_and_na():
    ok = _st(claims51.landscape_rows("logistic", -4.6, -4.6, "s = 1", np.full(12, 1.5), 1.0))
    assert set(ok.values()) == {"PASS"}
    bad = _st(claims51.landscape_rows("logistic", 0.3, 0.3, "s = 1", [*np.full(11, 1.5), 0.9], 1.0))
    assert set(bad.values()) == {"FAIL"}
    assert _st(claims51.landscape_rows("logistic", -4.6, -4.0, "s = 1", np.full(12, 1.5), 1.0))["landscape_logistic_nonconvex"] == "FAIL"
    # float64 cannot resolve lambda_min to better than ~eps * lambda_max: a -2e11 next to 1e29 is rounding (PASS), a
    # -2e11 next to 1e20 is not (FAIL)
    lo = np.array([*np.full(11, 1.5), -2.4e11])
    assert _st(claims51.landscape_rows("poisson", -1.0, -1.0, "c = 3", lo, 1.0, np.array([*np.full(11, 5.0), 1.1e29])))[
        "landscape_poisson_sqrt_convex"] == "PASS"
    assert _st(claims51.landscape_rows("poisson", -1.0, -1.0, "c = 3", lo, 1.0, np.array([*np.full(11, 5.0), 1e20])))[
        "landscape_poisson_sqrt_convex"] == "FAIL"
    few = _st(claims51.landscape_rows("poisson", -1.0, -1.0, "c = 3", np.full(3, 1.5), 1.0))
    assert few["landscape_poisson_sqrt_convex"] == "NOT ASSESSABLE"


def test_prop1_remark2_mushroom_rows():
    assert claim(**claims51.prop1_row(1e-6, 1e-8, 20)).status == "PASS"
    assert claim(**claims51.prop1_row(1e-2, 1e-8, 20)).status == "FAIL"
    assert claim(**claims51.prop1_row(1e-6, 1e-3, 20)).status == "FAIL"
    assert claim(**claims51.remark2_row(3, 5, 100)).status == "PASS"
    assert claim(**claims51.remark2_row(0, 5, 100)).status == "FAIL"
    assert claim(**claims51.mushroom_row(8124, 99)).status == "PASS"
    row = claims51.mushroom_row(5644, 77)
    assert claim(**row).status == "FAIL" and row["paper"].startswith("reconstructed:")


def test_fig2_rows_decide_on_held_out_seeds():
    rng = np.random.default_rng(0)
    base = 0.5 + 0.01 * rng.normal(size=(6, 2))
    t_idx = {"T/10": 0, "T": 1}
    tuned = {"sgd": 0.6, "sgd_price": 0.55, "ngd": 0.5}
    good = {"ngd": base - 0.05, "sgd_price": base, "sgd": base + 0.05}
    assert set(_st(claims51.fig2_rows("M", "m", good, t_idx, tuned, True)).values()) == {"PASS"}
    bad = {"ngd": base + 0.05, "sgd_price": base + 0.1, "sgd": base}
    assert set(_st(claims51.fig2_rows("M", "m", bad, t_idx, tuned, True)).values()) == {"FAIL"}
    tie = {"ngd": base + 0.01 * rng.normal(size=(6, 2)), "sgd_price": base + 0.01 * rng.normal(size=(6, 2)), "sgd": base}
    st = _st(claims51.fig2_rows("M", "m", tie, t_idx, tuned, True))
    assert "PASS" not in st.values()
    few = {k: v[:3] for k, v in good.items()}  # fewer than 5 held-out seeds: not assessable, even if it would pass
    assert set(_st(claims51.fig2_rows("M", "m", few, t_idx, tuned, True)).values()) == {"NOT ASSESSABLE"}
    none = {k: v[:0] for k, v in good.items()}
    assert set(_st(claims51.fig2_rows("M", "m", none, t_idx, tuned, True)).values()) == {"NOT ASSESSABLE"}
    assert set(_st(claims51.fig2_rows("M", "m", good, t_idx, tuned, False)).values()) == {"NOT ASSESSABLE"}
    diverged = {**good, "ngd": np.where(np.arange(2) == 1, np.nan, good["ngd"])}
    assert _st(claims51.fig2_rows("M", "m", diverged, t_idx, tuned, True))["fig2_ngd_faster_m"] == "FAIL"
    sgd_diverged = {**good, "sgd": np.where(np.arange(2) == 1, np.nan, good["sgd"])}
    assert _st(claims51.fig2_rows("M", "m", sgd_diverged, t_idx, tuned, True))["fig2_ngd_faster_m"] == "PASS"
