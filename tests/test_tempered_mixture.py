"""α-VB for a Gaussian mixture with hidden labels (notebook 53, §2): the CAVI updates, the exact tempered
posterior, the observed information, the claims and the figure."""
import jax
import jax.numpy as jnp
import matplotlib
import numpy as np
import pandas as pd

matplotlib.use("Agg")
jax.config.update("jax_enable_x64", True)

from lsvi.papers.alquier import tempered_mixture as tm  # noqa: E402
from lsvi.papers.alquier import tempered_mixture_claims as tc  # noqa: E402
from lsvi.papers.alquier.plotting import tempered_mixture as tp  # noqa: E402
from lsvi.pipeline.claims import claim  # noqa: E402

MEANS = np.array([[-1.0], [1.5]])
W = jnp.array([0.4, 0.6])
PRIOR = dict(prior_mean=0.0, prior_var=25.0)


def _data(seed, n):
    x = tm.simulate(seed, n, MEANS, np.asarray(W))
    return jnp.asarray(x), jnp.ones(n), jnp.asarray(tm.init_means(x, 2)) if n >= 2 else jnp.array([[-0.5], [0.5]])


def _sweeps(x, a, m, alpha, num):
    @jax.jit
    def run(m):
        def body(carry, _):
            r, m, v = tm.cavi_step(x, a, carry[0], carry[1], W, alpha, 0.0, 25.0)
            return (m, v), (r, m, v, tm.elbo(x, a, r, m, v, W, alpha, 0.0, 25.0))

        return jax.lax.scan(body, (m, jnp.ones(2)), None, length=num)[1]

    r, m, v, L = run(m)
    return [(r[i], m[i], v[i], float(L[i])) for i in range(num)]


def _stationarity(x, a, r, m, v, alpha):
    """max |∇L_α| in (logits of r, m, log v): zero at a fixed point of CAVI (autodiff, not the updates)."""
    def L(params):
        logits, mm, logv = params
        return tm.elbo(x, a, jax.nn.softmax(logits, axis=1), mm, jnp.exp(logv), W, alpha, **PRIOR)

    g = jax.jit(jax.grad(L))((jnp.log(r), m, jnp.log(v)))
    return max(float(jnp.max(jnp.abs(t))) for t in g)


def test_cavi_raises_the_elbo_every_sweep_and_stops_at_a_stationary_point():
    # α = 1, one observation (the brute-force case), then α = 0.5 with n = 40.
    for x, a, m0, alpha in ((jnp.array([[0.7]]), jnp.ones(1), jnp.array([[-0.5], [0.5]]), 1.0), (*_data(3, 40), 0.5)):
        hist = _sweeps(x, a, m0, alpha, 200)
        L = np.array([h[3] for h in hist])
        assert np.all(np.diff(L) >= -1e-10), np.diff(L).min()
        assert L[-1] > L[0] + 1e-6  # it moved
        r, m, v, _ = hist[-1]
        assert _stationarity(x, a, r, m, v, alpha) < 1e-8
        res = jax.jit(tm.cavi)(x, a, m0, W, alpha, PRIOR["prior_mean"], PRIOR["prior_var"])
        assert float(res.change) < 1e-10 and int(res.sweeps) < 2000
        np.testing.assert_allclose(res.m, m, atol=1e-8)
        np.testing.assert_allclose(res.elbo, L[-1], atol=1e-8)


def test_elbo_matches_its_definition_by_monte_carlo_and_bounds_the_tempered_evidence():
    x, a, m0 = _data(4, 5)
    alpha = 0.5
    res = jax.jit(tm.cavi)(x, a, m0, W, alpha, PRIOR["prior_mean"], PRIOR["prior_var"])
    # Monte Carlo of α Σ_i E_q[log p(x_i, z_i | μ) − log q(z_i)] − K(q_μ, π) from draws of μ and z.
    rng = np.random.default_rng(0)
    S = 200_000
    r, m, v = (np.asarray(t) for t in (res.r, res.m, res.v))
    mu = m[None, :, 0] + np.sqrt(v)[None, :] * rng.normal(size=(S, 2))
    z = (rng.random((S, len(r))) > r[None, :, 0]).astype(int)  # q(z_i = 2) = r_i2
    xs = np.asarray(x)[:, 0]
    mz = np.take_along_axis(mu, z, axis=1)
    complete = np.log(np.asarray(W))[z] - 0.5 * (xs[None, :] - mz) ** 2 - 0.5 * np.log(2 * np.pi) - np.log(r[np.arange(len(r)), z])
    logq = np.sum(-0.5 * (mu - m[None, :, 0]) ** 2 / v - 0.5 * np.log(2 * np.pi * v), axis=1)
    logp = np.sum(-0.5 * mu**2 / 25.0 - 0.5 * np.log(2 * np.pi * 25.0), axis=1)
    draws = alpha * complete.sum(axis=1) + logp - logq
    np.testing.assert_allclose(res.elbo, draws.mean(), atol=4 * draws.std() / np.sqrt(S))
    # log Z_{n,α} = log ∫ π(μ) Π_i p_μ(x_i)^α dμ on a dense grid (trapezoid): the α-ELBO lies below it.
    h = 0.04
    g = np.arange(-22.0, 22.0, h)
    G = jnp.asarray(np.stack(np.meshgrid(g, g, indexing="ij"), -1).reshape(-1, 2))
    lf = jax.jit(tm.tempered_log_target(x, a, W, alpha, **PRIOR))(G)
    log_z = float(jax.scipy.special.logsumexp(lf) + 2 * np.log(h))
    assert float(res.elbo) < log_z
    assert float(res.elbo) > log_z - 5.0  # and not absurdly far (mean field loses the μ–z dependence)


def test_closed_form_gradient_and_hessian_match_autodiff():
    x, a, _ = _data(5, 25)
    x2 = jnp.asarray(np.random.default_rng(0).normal(size=(7, 2)))  # D = 2: the block structure of the Hessian
    for x, a, theta in ((x, a, jnp.array([-0.8, 1.2])), (x2, jnp.ones(7), jnp.array([0.1, -0.3, 0.5, 0.2]))):
        @jax.jit
        def both(theta):
            def f(t):
                return tm.tempered_log_target(x, a, W, 0.7, **PRIOR)(t[None, :])[0]

            return tm.grad_hess(x, a, W, 0.7, **PRIOR)(theta), (jax.grad(f)(theta), jax.hessian(f)(theta))

        (g, H), (g_ad, H_ad) = both(theta)
        np.testing.assert_allclose(g, g_ad, rtol=1e-10, atol=1e-10)
        np.testing.assert_allclose(H, H_ad, rtol=1e-10, atol=1e-10)


def test_exact_posterior_matches_a_dense_grid_on_the_ordered_region():
    x, a, m0 = _data(6, 30)
    alpha = 0.5
    res = jax.jit(tm.cavi)(x, a, m0, W, alpha, 0.0, 25.0)
    mean, cov, mean2, cov2, grad_norm = jax.jit(tm.exact_posterior)(x, a, W, alpha, 0.0, 25.0, res.m.ravel())
    assert float(grad_norm) < 1e-8
    # Riemann sum on [−25, 25]² ∩ {μ₁ < μ₂} (±5 prior sd), in NumPy (not the module's target): where one component
    # leaves the data the other still explains it, so the tails in μ₁ → −∞ and μ₂ → +∞ decay like the prior.
    h = 0.02
    g = np.arange(-25.0, 25.0, h)
    xs, w = np.asarray(x)[:, 0], np.asarray(W)
    lf = np.full((g.size, g.size), -np.inf)
    for i, u in enumerate(g):
        v = g[g > u]
        comp = np.log(w[0]) - 0.5 * (xs[:, None] - u) ** 2, np.log(w[1]) - 0.5 * (xs[:, None] - v[None, :]) ** 2
        lf[i, g > u] = alpha * np.logaddexp(*comp).sum(axis=0) - 0.5 * (u**2 + v**2) / 25.0
    p = np.exp(lf - lf.max())
    p /= p.sum()
    U, V = np.meshgrid(g, g, indexing="ij")
    m_grid = np.array([(p * U).sum(), (p * V).sum()])
    cov_grid = np.array([[(p * (U - m_grid[0]) * (A - m_grid[k])).sum() for k, A in enumerate((U, V))],
                         [(p * (V - m_grid[1]) * (A - m_grid[k])).sum() for k, A in enumerate((U, V))]])
    np.testing.assert_allclose(mean2, m_grid, atol=2e-4)
    np.testing.assert_allclose(cov2, cov_grid, atol=2e-4)
    np.testing.assert_allclose(mean, mean2, atol=2e-3)  # the error estimate of `study` is of this size


def test_observed_information_matches_the_hessian_form_by_monte_carlo():
    I = tm.observed_information(MEANS, np.asarray(W))
    rng = np.random.default_rng(1)
    z = rng.choice(2, size=100_000, p=np.asarray(W))
    xs = jnp.asarray(MEANS[z] + rng.normal(size=(z.size, 1)))

    def logp(theta, x):
        return tm.mixture_loglik(x[None, :], jnp.ones(1), W)(theta[None, :])[0]

    H = jax.jit(jax.vmap(jax.hessian(logp), in_axes=(None, 0)))(jnp.asarray(MEANS.ravel()), xs)
    np.testing.assert_allclose(I, -np.asarray(H).mean(axis=0), atol=6e-3)
    rho = tm.spread_ratio_prediction(MEANS, np.asarray(W))
    assert np.all((rho > 0.5) & (rho < 1.0))  # missing information: the complete-data information is larger
    far = tm.spread_ratio_prediction([[-20.0], [20.0]], [0.4, 0.6])  # separated components: nothing is missing
    np.testing.assert_allclose(far, 1.0, atol=1e-10)


def test_label_distance():
    truth = jnp.array([[-1.0, 0.0], [2.0, 1.0]])
    np.testing.assert_allclose(tm.label_distance(truth[::-1] + 0.1, truth), 0.2, atol=1e-12)
    np.testing.assert_allclose(tm.label_distance(truth + jnp.array([[0.3, 0.0], [0.0, 0.4]]), truth), 0.5, atol=1e-12)


def test_study_table_has_its_columns_and_masked_rows_change_nothing():
    df = tm.study(0, [40, 80], [0.5, 1.0], reps=2, means=MEANS, weights=[0.4, 0.6], ref_reps=1)
    assert len(df) == 8 and df["ordered"].all()
    assert {"err", "spread", "sd_vb_1", "sd_vb_2", "ratio_1", "ratio_2", "ref_err_sd", "sweeps"} <= set(df)
    assert df.loc[df.rep == 0, "ratio_1"].notna().all() and df.loc[df.rep == 1, "ratio_1"].isna().all()
    # both α on the same data sets: the spreads scale by √(1/α)
    s = df.pivot_table(index=["rep", "n"], columns="alpha", values="sd_vb_1")
    np.testing.assert_allclose(s[0.5] / s[1.0], np.sqrt(2.0), rtol=0.05)
    # the study pads n = 40 to 80 rows with masked zeros: the unpadded data set gives the same numbers
    x = tm.simulate((0, 0, 40), 40, MEANS, [0.4, 0.6])
    one = tm.analyse(jnp.asarray(x), jnp.ones(40), 0.5, jnp.asarray(tm.init_means(x, 2)), W, 0.0, 25.0, jnp.asarray(MEANS))
    row = df[(df.rep == 0) & (df.n == 40) & (df.alpha == 0.5)].iloc[0]
    for k in ("err", "spread", "elbo", "mean_gap_sd", "err_exact"):
        np.testing.assert_allclose(one[k], row[k], rtol=1e-8, atol=1e-12)
    np.testing.assert_allclose(one["sd_exact"], row[["sd_exact_1", "sd_exact_2"]].to_numpy(float), rtol=1e-8)


# ---------------------------------------------------------------- claims and figure (synthetic tables)
RHO = np.array([0.78, 0.82])
NS = (50, 158, 500, 1581, 5000)


def synthetic_table(slope=-0.5, ratio_slope=0.0, reps=20, ns=NS, ref_reps=None, ref_err=1e-4):
    rng = np.random.default_rng(0)
    rows = []
    ref_reps = reps if ref_reps is None else ref_reps
    for alpha in (0.5, 1.0):
        for n in ns:
            for r in range(reps):
                err = 2.0 * n**slope * np.exp(0.3 * rng.normal())
                row = dict(rep=r, n=n, alpha=alpha, err=err, spread=1 / np.sqrt(alpha * n), sd_vb_1=0.1, sd_vb_2=0.1,
                           elbo=-n, sweeps=30.0, change=1e-11, ordered=True)
                if r < ref_reps:
                    row.update({f"ratio_{k + 1}": RHO[k] * (n / ns[0]) ** ratio_slope * (1 + 0.01 * rng.normal())
                                for k in range(2)})
                    row.update(err_exact=err, ref_err_sd=ref_err, mean_gap_sd=0.01)
                rows.append(row)
    return pd.DataFrame(rows)


def _st(df):
    return {r["id"]: claim(**r).status for r in tc.claims(df, RHO)}


IDS = {f"mixture_avb_{k}_alpha{a}" for k in ("rate", "spread") for a in ("0.5", "1")}


def test_claims_pass_on_a_consistent_table():
    rows = tc.claims(synthetic_table(), RHO)
    st = {r["id"]: claim(**r).status for r in rows}
    assert set(st) == IDS and set(st.values()) == {"PASS"}, st
    assert {r["kind"] for r in rows} == {"illustration"}


def test_claims_fail_on_no_consistency_and_a_collapsing_spread():
    st = _st(synthetic_table(slope=0.0, ratio_slope=-0.5))  # error flat in n; sd_VB falls faster than sd_exact
    assert set(st.values()) == {"FAIL"}, st


def test_claims_not_assessable_on_a_smoke_grid_an_undecided_slope_or_a_poor_reference():
    st = _st(synthetic_table(reps=3, ns=(50, 200)))
    assert set(st.values()) == {"NOT ASSESSABLE"}, st
    st = _st(synthetic_table(ns=(50, 100, 250)))  # < 1 decade
    assert set(st.values()) == {"NOT ASSESSABLE"}, st
    st = _st(synthetic_table(slope=-0.25))  # the interval straddles −0.25
    assert st["mixture_avb_rate_alpha1"] == "NOT ASSESSABLE"
    st = _st(synthetic_table(ref_err=0.05))
    assert st["mixture_avb_spread_alpha1"] == "NOT ASSESSABLE" and st["mixture_avb_rate_alpha1"] == "PASS"
    st = _st(synthetic_table(ref_reps=3))
    assert st["mixture_avb_spread_alpha0.5"] == "NOT ASSESSABLE"
    st = _st(synthetic_table().drop(columns=["ratio_1", "ratio_2", "err_exact", "ref_err_sd", "mean_gap_sd"]))
    assert st["mixture_avb_spread_alpha0.5"] == "NOT ASSESSABLE"


def test_figure_draws_the_table():
    df = synthetic_table(reps=6)
    fig = tp.tempered_mixture_consistency(df, RHO)
    left, right = fig.axes
    for k, alpha in enumerate((0.5, 1.0)):
        means = df[df.alpha == alpha].groupby("n")["err"].mean()
        np.testing.assert_allclose(np.asarray(left.containers[k].lines[0].get_ydata(), float), means.to_numpy())
        ratio = df[df.alpha == alpha].groupby("n")["ratio_1"].mean()
        np.testing.assert_allclose(np.asarray(right.containers[2 * k].lines[0].get_ydata(), float), ratio.to_numpy())
    assert right.get_ylim()[0] < RHO.min() < 1.0 < right.get_ylim()[1]
