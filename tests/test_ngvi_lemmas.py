"""Notebook 50, section 4 (Wu & Gardner 2024, Appendices A.1, A.2, C): `lsvi.papers.ngvi.checks.lemmas` against closed forms on
small cases, and every claim builder of `lsvi.papers.ngvi.lemmas_claims` driven to PASS and to FAIL."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from scipy.optimize import linprog

from lsvi.papers.ngvi.checks import lemmas as nl
from lsvi.papers.ngvi.checks import rates as nr
from lsvi.core.losses import kl_gaussian_symmetric
from lsvi.papers.ngvi import conjugate as nc
from lsvi.papers.ngvi import lemmas_claims as nlc

jax.config.update("jax_enable_x64", True)
P = nr.simulated(0, 12, 2, s=0.8)
WEAK = nl.weak_problem()


# ----------------------------------------------------------------------------- numerical functions vs closed forms
def test_paper_natural_and_expectation_match_the_gaussian_relations():
    mean, cov = jnp.array([0.3, -1.2]), jnp.array([[1.5, 0.4], [0.4, 0.7]])
    t1, t2 = nl.paper_natural(nr.natural(mean, cov), 2)
    prec = np.linalg.inv(np.asarray(cov))
    np.testing.assert_allclose(t1, prec @ np.asarray(mean), rtol=1e-12)
    np.testing.assert_allclose(t2, -0.5 * prec, rtol=1e-12)
    w1, w2 = nl.expectation_from_natural(t1, t2)
    np.testing.assert_allclose(w1, mean, rtol=1e-12)
    np.testing.assert_allclose(w2, np.asarray(cov) + np.outer(mean, mean), rtol=1e-12)


def test_constants_against_brute_force():
    c = nl.constants(P)
    X, y, s2, n = np.asarray(P.X), np.asarray(P.y), P.s**2, P.X.shape[0]
    u = y[:, None] * X / s2
    V = X[:, :, None] * X[:, None, :] / (2 * s2)
    assert c.lam == pytest.approx(1.0)
    assert c.Theta == pytest.approx(n * max(np.linalg.norm(ui) for ui in u))
    assert c.V1 == pytest.approx(np.mean([np.sum((ui - u.mean(0)) ** 2) for ui in u]), rel=1e-12)
    assert c.V2 == pytest.approx(np.mean([np.sum((v - V.mean(0)) ** 2) for v in V]), rel=1e-12)
    # Lemma 5's λ follows the prior (and the initialisation when given)
    wide = nr.problem(P.X, P.y, P.s, prior_sd=2.0)
    assert nl.lemma5_lambda(wide) == pytest.approx(0.25)
    assert nl.lemma5_lambda(wide, cov0=9.0 * np.eye(2)) == pytest.approx(1 / 9)


def test_lemma7_8_bounds_are_the_exact_variances_by_enumeration():
    # B = 1: E‖Δ‖² = Σ_i (1/n) ‖n v_i − Σ_j v_j‖² exactly
    c = nl.constants(P)
    X, y, s2, n = np.asarray(P.X), np.asarray(P.y), P.s**2, P.X.shape[0]
    u = y[:, None] * X / s2
    V = -X[:, :, None] * X[:, None, :] / (2 * s2)
    b1, b2 = nl.lemma78_bounds(c, 1)
    assert b1 == pytest.approx(np.mean([np.sum((n * ui - u.sum(0)) ** 2) for ui in u]), rel=1e-12)
    assert b2 == pytest.approx(np.mean([np.sum((n * v - V.sum(0)) ** 2) for v in V]), rel=1e-12)
    assert nl.lemma78_bounds(c, 4)[0] == pytest.approx(b1 / 4)


def test_step_noise_delta_and_eq12_against_independent_routes():
    eta = nr.natural(jnp.array([0.2, -0.1]), jnp.array([[0.5, 0.1], [0.1, 0.3]]))
    rho, B, K, seed = 0.4, 3, 50, 7
    mc = nl.step_noise(seed, P, eta, rho, B, K)
    batches = np.random.default_rng(seed).integers(0, 12, (K, B))
    X, y, s2, n = np.asarray(P.X), np.asarray(P.y), P.s**2, 12
    # Δ₁ = (n/B) Σ_b u_b − Σ_i u_i from the data directly
    d1 = [np.linalg.norm(n / B * (y[b, None] * X[b]).sum(0) / s2 - X.T @ y / s2) for b in batches]
    np.testing.assert_allclose(mc["d1"], d1, rtol=1e-9)
    # eq. (12) as ρ⁻¹⟨Δ, ω − ω̃⟩ equals the Jeffreys divergence / ρ² (the route of `nr.gradient_variance`)
    me, ce = nr.moments(nr.ngd_step(P, eta, jnp.arange(n), rho))
    jef = [float(kl_gaussian_symmetric(*nr.moments(nr.ngd_step(P, eta, jnp.asarray(b), rho)), me, ce)) / rho**2 for b in batches]
    np.testing.assert_allclose(mc["sigma2"], jef, rtol=1e-8)
    # Monte Carlo mean of ‖Δ₁‖² close to Lemma 7's n²V₁/B (an equality in expectation)
    big = nl.step_noise(1, P, eta, rho, B, 4000)
    b1, b2 = nl.lemma78_bounds(nl.constants(P), B)
    assert np.mean(big["d1"] ** 2) == pytest.approx(b1, rel=0.1)
    assert np.mean(big["d2"] ** 2) == pytest.approx(b2, rel=0.1)


def test_lemma6_ratio_closed_form_and_a_violation():
    c, eps = 2.0, 0.5
    A, B = ((c + eps) * np.eye(3))[None], (c * np.eye(3))[None]
    s, f = nl.inverse_lipschitz_ratios(A, B, c)
    assert s[0] == pytest.approx(c / (c + eps), rel=1e-12) and f[0] == pytest.approx(c / (c + eps), rel=1e-12)
    # pairs below c (outside the lemma's region) break the bound
    s, _ = nl.inverse_lipschitz_ratios((0.5 * c * np.eye(2))[None], (0.6 * c * np.eye(2))[None], c)
    assert s[0] > 1
    A, B = nl.random_pairs_above(0, 4, c, 20)
    assert np.linalg.eigvalsh(A).min() >= c * (1 - 1e-12) and np.linalg.eigvalsh(B).min() >= c * (1 - 1e-12)


def test_gauge_closed_form_and_full_lp():
    U = np.eye(3)  # u_i = e_i: γ(θ) = ‖θ‖₁/n on the positive orthant, +inf outside the cone
    assert nl.gauge(U, np.array([0.5, 1.0, 0.25])) == pytest.approx(1.75 / 3)
    assert nl.gauge(U, np.array([0.5, -1.0, 0.2])) == np.inf
    assert nl.gauge(U, np.zeros(3)) == 0.0
    rng = np.random.default_rng(0)
    U = rng.normal(size=(2000, 4))
    for _ in range(3):
        th = 2000 * U[rng.integers(0, 2000, 5)].mean(0)
        full = linprog(np.ones(2000), A_eq=U.T, b_eq=th, bounds=(0, None), method="highs").fun / 2000
        assert nl.gauge(U, th, batch=50) == pytest.approx(full, rel=1e-7)


def test_trajectories_are_figure1_runs():
    key = jax.random.PRNGKey(3)
    runs = nc.compare(key, P, 2, 15, 4, 0.1, 10.0)
    etas = nl.trajectories(jax.random.split(key, 2)[:1], P, 15, 4)
    np.testing.assert_allclose(etas[0], runs["etas0"], rtol=1e-12)


def test_corollaries_and_lemma9_hold_along_ngd_and_fail_for_rho_above_one():
    s = nl.study(0, P, jax.random.split(jax.random.PRNGKey(0), 2), 2, 30, [0, 3], 40, 4, maps=False)
    assert s["gauge_max"] <= 1 + 1e-6 and s["cor1_max"] <= 1 and s["cor2_max"] <= 1 and s["prec_min"] >= 1 - 1e-9
    for v in s["noise"].values():
        assert v["l10_max"] <= 1 and v["l11_max"] <= 1 and v["l6_spec"] <= 1 and v["l6_frob"] <= 1
        assert v["sigma2"][0] <= s["lemma3_bound"]
    w = nl.study(0, WEAK, jax.random.split(jax.random.PRNGKey(1), 1), 1, 10, [0, 2], 40, 4, maps=False)
    assert w["gauge_max"] == pytest.approx(1.0, abs=1e-6) and w["cor1_max"] == pytest.approx(1.0, rel=1e-12)
    assert max(v["l10_max"] for v in w["noise"].values()) > 0.9  # nearly attained on the near-worst case
    bad = nl.rho_above_one(0, WEAK, 1, 1.2, 5)
    assert bad["first_t"] == 1 and bad["cor1_max"] > 1
    good = nl.rho_above_one(0, WEAK, 1, 1.0, 5)
    assert good["first_t"] is None and good["gauge_max"] <= 1 + 1e-6


def test_log_partition_is_the_gaussian_normaliser():
    mean, cov = np.array([0.3, -0.2]), np.array([[0.8, 0.2], [0.2, 0.5]])
    t1, t2 = nl.paper_natural(nr.natural(jnp.asarray(mean), jnp.asarray(cov)), 2)
    direct = 0.5 * mean @ np.linalg.solve(cov, mean) + 0.5 * np.log(np.linalg.det(2 * np.pi * cov))
    assert float(nl.log_partition(jnp.asarray(t1), jnp.asarray(t2))) == pytest.approx(direct, rel=1e-12)


def test_hessian_eigs_match_closed_form():
    s = np.array([1e-3, 1.0, 1e3])
    ed, ep = nl.hessian_eigs_1d(s)
    np.testing.assert_allclose(ed, np.sort(np.stack([1 / s, 1 / (2 * s**2)], 1), axis=1), rtol=1e-9)
    np.testing.assert_allclose(ep, np.sort(np.stack([s, 2 * s**2], 1), axis=1), rtol=1e-9)


def test_map_errors_small_on_random_gaussians():
    ew, et = nl.map_errors(nl.random_etas(0, 3, 5), 3)
    assert ew.max() < 1e-12 and et.max() < 1e-12


# ----------------------------------------------------------------------------- claim builders: PASS and FAIL
def fake_study(ratio=0.5, mc=1.0, se=0.05, sigma2=0.5, gauge=0.5, name="A"):
    noise = {t: dict(rho=0.5, d1sq=(mc, se), d2sq=(mc, se), bound1=1.0, bound2=1.0, l10_max=ratio, l11_max=ratio,
                     l6_spec=ratio, l6_frob=ratio, sigma2=(sigma2, se)) for t in (0, 10)}
    return {name: dict(constants=dict(lam=1.0, Theta=2.0, Omega=2.0, V1=1.0, V2=1.0, n=3), B=1, R=5, T=10,
                       cor1_max=ratio, cor2_max=ratio, prec_min=1.0, gauge_max=gauge, gauge_count=10,
                       a2=([1e-14], [1e-13]), noise=noise, lemma3_bound=1.0)}


RAND = dict(spectral=np.array([0.3, 0.99]), frobenius=np.array([0.5, 0.98]), d=2)


def test_lemma6_row():
    assert nlc.lemma6_row(RAND, fake_study(), 1.0)["passed"]
    assert not nlc.lemma6_row(dict(RAND, spectral=np.array([1.01])), fake_study(), 1.0)["passed"]
    assert not nlc.lemma6_row(RAND, fake_study(ratio=1.2), 1.0)["passed"]


def test_lemma78_rows():
    for which in ("1", "2"):
        assert nlc.lemma78_row(fake_study(mc=1.05, se=0.05), which)["passed"]  # 1 SE above the bound
        assert not nlc.lemma78_row(fake_study(mc=1.5, se=0.05), which)["passed"]  # 10 SE above
        assert nlc.lemma78_row(fake_study(mc=1.0 + 1e-13, se=0.0), which)["passed"]  # constant, equal up to rounding
        assert not nlc.lemma78_row(fake_study(mc=1.001, se=0.0), which)["passed"]


def test_bound_rows_lemma9_cor1_cor2():
    for builder in (nlc.lemma9_row, nlc.cor1_row, nlc.cor2_row):
        assert builder(fake_study(ratio=1.0, gauge=1.0))["passed"]
        assert not builder(fake_study(ratio=1.01, gauge=1.01))["passed"]
    assert not nlc.lemma9_row(fake_study(gauge=np.inf))["passed"]
    assert nlc.lemma9_row(fake_study(gauge=1 + 1e-7))["passed"]  # within the LP tolerance


def test_rho_above_one_row():
    fired = dict(rho=1.2, B=1, T=20, gauge_max=1.4, first_t=2, cor1_max=0.5, prec_min=-3.0)
    quiet = dict(fired, gauge_max=0.9, first_t=None)
    assert nlc.rho_above_one_row({"a": fired, "b": dict(fired, gauge_max=np.inf, first_t=1)})["passed"]
    assert not nlc.rho_above_one_row({"a": fired, "b": quiet})["passed"]
    assert nlc.rho_above_one_row({"a": fired})["kind"] == "beyond"


def test_lemma10_11_rows():
    for which in (10, 11):
        assert nlc.lemma10_11_row(fake_study(ratio=0.99), which)["passed"]
        assert not nlc.lemma10_11_row(fake_study(ratio=1.001), which)["passed"]


def test_lemma3_constant_row():
    assert nlc.lemma3_constant_row(fake_study(sigma2=1.1, se=0.05))["passed"]
    assert not nlc.lemma3_constant_row(fake_study(sigma2=2.0, se=0.05))["passed"]


def test_appA1_row():
    s = np.logspace(-4, 4, 9)
    ed, ep = nl.hessian_eigs_1d(s)
    assert nlc.appA1_row(s, ed, ep)["passed"]
    assert not nlc.appA1_row(s, np.clip(ed, 1e-3, 1e3), ep)["passed"]  # bounded eigenvalues: smooth and strongly convex
    plateau = ed.copy()
    plateau[0] = plateau[1]  # λ_max no longer growing at the end
    assert not nlc.appA1_row(s, plateau, ep)["passed"]
    short = np.logspace(-2, 2, 5)
    assert not nlc.appA1_row(short, *nl.hessian_eigs_1d(short))["passed"]  # growth 10⁴ < 10⁶


def test_appA2_row():
    ok = {"x": (np.array([1e-15, 1e-13]), np.array([1e-12]))}
    assert nlc.appA2_row(ok)["passed"]
    assert not nlc.appA2_row({"x": (np.array([1e-15]), np.array([1e-8]))})["passed"]


def test_claims_rows_have_the_keys_and_unique_ids():
    s = np.logspace(-4, 4, 9)
    rows = nlc.claims(fake_study(), {"a": dict(rho=1.2, B=1, T=20, gauge_max=1.4, first_t=2, cor1_max=0.5, prec_min=-3.0)},
                      RAND, 1.0, (s, *nl.hessian_eigs_1d(s)), {"x": (np.array([1e-15]), np.array([1e-15]))})
    assert len({r["id"] for r in rows}) == len(rows) == 12
    for r in rows:
        assert {"id", "kind", "source", "paper", "measured", "criterion", "passed", "note"} <= set(r)
        assert r["kind"] in {"paper", "reading", "beyond"}
        if r["kind"] == "reading":
            assert "reconstructed" in r["paper"]
    assert all(r["passed"] for r in rows)
    assert not nlc.lemmas_table(fake_study()).empty
