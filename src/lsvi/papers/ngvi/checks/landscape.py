"""Theorem checks for Wu & Gardner, Section 5 / Appendix E (ELBO landscape), Proposition 1, Remark 2 / Appendix B,
and the zero-variance remark of Section 6.2.

* Non-convexity in the expectation parameter ω = (m, S = Σ + mmᵀ): λ_min of the Hessian of the negative ELBO
  in ω (autodiff, `hessian_min_eig`) at a point of the paper's subset {m = 0, S = s·I} (Appendix E.1: Σ small,
  many data), confirmed by a central second difference along the eigenvector (`second_difference`); the same
  point in (m, L) coordinates has a positive-definite Hessian (Domke 2020: strongly convex there).
* Poisson regression (Appendix E.2): closed-form E_q log p(y | β) = Σ_i y_i x_iᵀm − exp(x_iᵀm + ½x_iᵀΣx_i) − log y_i!.
* Remark 2 / Appendix B: one NGD step θ₂' = (1−ρ)θ₂ + ρ(θ₂ᵖ + Ĝ) leaves the domain {θ₂ ≺ 0} iff its largest
  eigenvalue is ≥ 0; counted for the autodiff and the Price estimates Ĝ.

References
----------
K. Wu, J. R. Gardner (2024). Understanding stochastic natural gradient variational inference.
ICML 2024 (arXiv:2406.01870).
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from lsvi.core.losses import kl_gaussian
from lsvi.core.targets import log_sigmoid


# ---------------------------------------------------------------- exact (quadrature) objective
def hermite_nodes(num_nodes: int = 64):
    """(z (K,), w (K,)): Σ_k w_k g(z_k) ≈ E g(Z), Z ~ N(0, 1) (probabilists' Gauss–Hermite)."""
    z, w = np.polynomial.hermite_e.hermegauss(num_nodes)
    return jnp.asarray(z), jnp.asarray(w / np.sqrt(2.0 * np.pi))


def expected_loglik(Xf, m, Sigma, nodes):
    """E_{N(m, Σ)} Σ_i log σ(x̃_iᵀβ) by n one-dimensional quadratures: Xf (n, d), m (d,), Σ (d, d) -> ()."""
    z, w = nodes
    mu = Xf @ m
    sd = jnp.sqrt(jnp.sum((Xf @ Sigma) * Xf, axis=1))
    return jnp.sum(log_sigmoid(mu[:, None] + sd[:, None] * z[None, :]) @ w)


def neg_elbo(Xf, m, Sigma, prior_var, nodes):
    """ℓ(m, Σ) = −E_q f + KL(q ‖ N(0, diag(prior_var))) (eq. 1), exact up to quadrature."""
    d = m.shape[0]
    return -expected_loglik(Xf, m, Sigma, nodes) + kl_gaussian(m, Sigma, jnp.zeros(d), jnp.diag(prior_var * jnp.ones(d)))


def exact_moment_gradients(Xf, m, Sigma, nodes):
    """(∇_m E f (d,), ∇_Σ E f (d, d)) by the Bonnet/Price identities with exact 1-D expectations."""
    z, w = nodes
    mu = Xf @ m
    sd = jnp.sqrt(jnp.sum((Xf @ Sigma) * Xf, axis=1))
    u = mu[:, None] + sd[:, None] * z[None, :]
    s = jax.nn.sigmoid(u)
    g1 = (1.0 - s) @ w  # E σ(−u_i)
    g2 = (s * (1.0 - s)) @ w  # E σ(u_i)σ(−u_i)
    return Xf.T @ g1, -0.5 * (Xf.T * g2) @ Xf


# ---------------------------------------------------------------- parameter maps
def tril_size(d: int) -> int:
    return d * (d + 1) // 2


def sym_from_vech(v, d: int):
    """Symmetric (d, d) from its upper-triangular entries v (d(d+1)/2,) (row-major)."""
    iu = jnp.triu_indices(d)
    U = jnp.zeros((d, d), v.dtype).at[iu].set(v)
    return U + U.T - jnp.diag(jnp.diag(U))


def vech(M):
    """Upper-triangular entries of M (d, d) -> (d(d+1)/2,)."""
    return M[jnp.triu_indices(M.shape[0])]


def tril_from_vec(v, d: int):
    """Lower-triangular L (d, d) from v (d(d+1)/2,)."""
    return jnp.zeros((d, d), v.dtype).at[jnp.tril_indices(d)].set(v)


def pack_expectation(m, Sigma):
    """ω = (m, vech(Σ + mmᵀ)) (d + d(d+1)/2,)."""
    return jnp.concatenate([m, vech(Sigma + jnp.outer(m, m))])


def unpack_expectation(omega, d: int):
    """(m, Σ = S − mmᵀ) from ω."""
    m = omega[:d]
    return m, sym_from_vech(omega[d:], d) - jnp.outer(m, m)


def pack_sqrt(m, Sigma):
    """(m, vec_tril(L)) with L = chol(Σ)."""
    return jnp.concatenate([m, jnp.linalg.cholesky(Sigma)[jnp.tril_indices(m.shape[0])]])


def unpack_sqrt(x, d: int):
    L = tril_from_vec(x[d:], d)
    return x[:d], L @ L.T


# ---------------------------------------------------------------- stochastic gradients of E_q f
def loglik_grad_hess(Xf, beta):
    """(∇f (d,), ∇²f (d, d)) of f(β) = Σ log σ(x̃_iᵀβ)."""
    u = Xf @ beta
    s = jax.nn.sigmoid(u)
    return Xf.T @ (1.0 - s), -(Xf.T * (s * (1.0 - s))) @ Xf


def price_gradients(Xf, m, L, Z):
    """Bonnet/Price estimates (eq. 11) from draws β_s = m + L z_s, Z (S, d): (ĝ_m = S⁻¹Σ∇f(β_s) (d,),
    Ĝ_Σ = ½S⁻¹Σ∇²f(β_s) (d, d)). For the logistic f, ∇²f(β) = −X̃ᵀdiag(σ(u)σ(−u))X̃ is linear in the weights, so
    the S Hessians are averaged through their weights: one (n × d²) product per step whatever S."""
    U = (m + Z @ L.T) @ Xf.T  # (S, n)
    s = jax.nn.sigmoid(U)
    return ((1.0 - s) @ Xf).mean(0), -0.5 * (Xf.T * (s * (1.0 - s)).mean(0)) @ Xf


def to_expectation_gradient(g_m, G_S, m):
    """Chain rule (m, Σ) -> ω = (m, S): (∇_{ω₁} = g_m − 2G_Σ m, ∇_{ω₂} = G_Σ)."""
    return g_m - 2.0 * G_S @ m, G_S


def autodiff_gradient(loglik, m, S, Z):
    """Algorithm 1: autodiff of S⁻¹Σ_s f(m + chol(S − mmᵀ) z_s) in ω = (m, S): (ĝ₁ (d,), Ĝ₂ (d, d))."""
    def mc(m_, S_):
        L = jnp.linalg.cholesky(S_ - jnp.outer(m_, m_))
        return jnp.mean(jax.vmap(loglik)(m_ + Z @ L.T))
    g1, G2 = jax.grad(mc, argnums=(0, 1))(m, S)
    return g1, 0.5 * (G2 + G2.T)


# ---------------------------------------------------------------- landscape
def hessian_min_eig(f, x):
    """(λ_min, unit eigenvector (p,)) of the autodiff Hessian of f: (p,) -> () at x (p,)."""
    w, V = jnp.linalg.eigh(jax.jit(jax.hessian(f))(x))
    return float(w[0]), V[:, 0]


def second_difference(f, x, v, h: float = 1e-4):
    """(f(x + hv) − 2f(x) + f(x − hv)) / h², the directional curvature vᵀ∇²f v (‖v‖ = 1) by finite differences."""
    return float((f(x + h * v) - 2.0 * f(x) + f(x - h * v)) / h**2)


def poisson_neg_elbo(X, y, m, Sigma, prior_var=1.0):
    """−E_q log p(y | β) + KL(q ‖ N(0, prior_var I)) for y_i ~ Poisson(exp(x_iᵀβ)) (closed form, App. E.2):
    E_q log p(y_i | β) = y_i x_iᵀm − exp(x_iᵀm + ½x_iᵀΣx_i) − log y_i!."""
    from jax.scipy.special import gammaln

    d = m.shape[0]
    ell = jnp.sum(y * (X @ m) - jnp.exp(X @ m + 0.5 * jnp.sum((X @ Sigma) * X, axis=1)) - gammaln(y + 1.0))
    return -ell + kl_gaussian(m, Sigma, jnp.zeros(d), prior_var * jnp.eye(d))


def landscape_point(objective, d: int, m, Sigma, hess_w=None):
    """Curvature of ``objective(m, Σ)`` at (m, Σ) in ω = (m, vech S) and in (m, tril L): dict(lam_expectation,
    fd_expectation (second difference along the eigenvector), lam_sqrt, fd_sqrt). ``hess_w``: a compiled Hessian
    in ω of the same objective, reused if given."""
    f_w = lambda w: objective(*unpack_expectation(w, d))  # noqa: E731  (3 evaluations each: not compiled)
    f_l = lambda x: objective(*unpack_sqrt(x, d))  # noqa: E731
    w0, x0 = pack_expectation(m, Sigma), pack_sqrt(m, Sigma)
    lam, V = jnp.linalg.eigh((hess_w or jax.jit(jax.hessian(f_w)))(w0))
    lam_w, v_w = float(lam[0]), V[:, 0]
    lam_l, v_l = hessian_min_eig(f_l, x0)
    h_w = 1e-3 * float(jnp.min(jnp.linalg.eigvalsh(Sigma)))
    return {"lam_expectation": lam_w, "fd_expectation": second_difference(f_w, w0, v_w, h_w),
            "lam_sqrt": lam_l, "fd_sqrt": second_difference(f_l, x0, v_l, 1e-4)}


def logistic_landscape(Xf, prior_var, scales, nodes):
    """Appendix E.1: λ_min in ω at m = 0, Σ = s·I for each s of ``scales`` (logistic negative ELBO, exact
    quadrature); at the most negative one, `landscape_point` (with s and the whole scan)."""
    d = Xf.shape[1]
    obj = lambda m, S: neg_elbo(Xf, m, S, prior_var, nodes)  # noqa: E731
    hess = jax.jit(jax.hessian(lambda w: obj(*unpack_expectation(w, d))))
    lams = [float(jnp.linalg.eigvalsh(hess(pack_expectation(jnp.zeros(d), s * jnp.eye(d))))[0]) for s in scales]
    s = scales[int(np.argmin(lams))]
    return {"s": float(s), "lam_by_s": lams, **landscape_point(obj, d, jnp.zeros(d), s * jnp.eye(d), hess)}


def poisson_landscape(X, y, scales, s: float, prior_var=1.0):
    """Appendix E.2: λ_min in ω at m = 0, Σ = s·I on the scaled data c·X for each c of ``scales``; at the most
    negative one, `landscape_point` (with c and the scan)."""
    d = X.shape[1]
    w0 = pack_expectation(jnp.zeros(d), s * jnp.eye(d))
    hess = jax.jit(jax.hessian(lambda w, c: poisson_neg_elbo(c * X, y, *unpack_expectation(w, d), prior_var)))
    lams = [float(jnp.linalg.eigvalsh(hess(w0, c))[0]) for c in scales]
    c = scales[int(np.argmin(lams))]
    obj = lambda m_, S_: poisson_neg_elbo(c * X, y, m_, S_, prior_var)  # noqa: E731
    return {"c": float(c), "lam_by_c": lams,
            **landscape_point(obj, d, jnp.zeros(d), s * jnp.eye(d), lambda w: hess(w, c))}


def domain_exits(key, Xf, prior_var, Sigma, rho: float, num_steps: int, num_samples: int = 1):
    """Remark 2 / Appendix B at q = N(0, Σ): over ``num_steps`` independent draws, the number of NGD steps
    θ₂' = (1−ρ)(−½Σ⁻¹) + ρ(−½V⁻¹ + Ĝ) that are not negative definite, and of Ĝ not negative semidefinite,
    for Ĝ = autodiff (Algorithm 1) and Price (eq. 11). Returns {estimator: (exits, not_nsd)}."""
    d = Xf.shape[1]
    m = jnp.zeros(d)
    L = jnp.linalg.cholesky(Sigma)
    theta2 = -0.5 * jnp.linalg.inv(Sigma)
    theta2_p = -0.5 * jnp.diag(1.0 / (prior_var * jnp.ones(d)))
    loglik = lambda b: jnp.sum(log_sigmoid(Xf @ b))  # noqa: E731

    def one(k):
        Z = jax.random.normal(k, (num_samples, d))
        G_auto = autodiff_gradient(loglik, m, Sigma + jnp.outer(m, m), Z)[1]
        G_price = price_gradients(Xf, m, L, Z)[1]
        out = []
        for G in (G_auto, G_price):
            new = (1.0 - rho) * theta2 + rho * (theta2_p + G)
            out += [jnp.linalg.eigvalsh(new)[-1] >= 0.0, jnp.linalg.eigvalsh(G)[-1] > 1e-12]
        return jnp.array(out)

    flags = np.asarray(jax.lax.map(one, jax.random.split(key, num_steps), batch_size=1000)).sum(0)
    return {"autodiff": (int(flags[0]), int(flags[1])), "price": (int(flags[2]), int(flags[3]))}


def quadratic_estimator_spread(key, A, a, m, Sigma, num_reps: int):
    """Section 6.2: log-likelihood f(β) = −½(β−a)ᵀA(β−a). Over ``num_reps`` one-sample estimates at q = N(m, Σ):
    max |Ĝ_Σ − (−½A)| of the Price (covariance) part, the sd of the Bonnet mean part ĝ_m, of eq. (11)'s first component
    ĝ₁ = ĝ_m − 2Ĝ_Σ m (the ω₁ part, under our reconstruction of eq. 11) and of the autodiff (Algorithm 1) covariance part
    (max over coordinates). Returns dict(price_cov_maxdev, bonnet_mean_sd, price_omega1_sd, autodiff_cov_sd)."""
    d = m.shape[0]
    L = jnp.linalg.cholesky(Sigma)
    f = lambda b: -0.5 * (b - a) @ A @ (b - a)  # noqa: E731

    def one(k):
        Z = jax.random.normal(k, (1, d))
        b = m + L @ Z[0]
        g_m, G_S = jax.grad(f)(b), 0.5 * jax.hessian(f)(b)
        return g_m, G_S, autodiff_gradient(f, m, Sigma + jnp.outer(m, m), Z)[1]

    g_m, G_S, G_auto = jax.vmap(one)(jax.random.split(key, num_reps))
    g1 = jax.vmap(lambda g, G: to_expectation_gradient(g, G, m)[0])(g_m, G_S)  # eq. (11), first component (ω₁)
    return {"price_cov_maxdev": float(jnp.max(jnp.abs(G_S + 0.5 * A))),
            "bonnet_mean_sd": float(jnp.max(jnp.std(g_m, axis=0))),
            "price_omega1_sd": float(jnp.max(jnp.std(g1, axis=0))),
            "autodiff_cov_sd": float(jnp.max(jnp.std(G_auto, axis=0)))}


def random_gaussians(key, d: int, num: int, mean_sd: float = 1.0):
    """``num`` random (m (d,), Σ (d, d)): m ~ N(0, mean_sd² I), Σ = WWᵀ/d + 0.05 I with W standard normal (arrays (num, d),
    (num, d, d)); the points at which convexity in (m, L) is checked."""
    k1, k2 = jax.random.split(key)
    W = jax.random.normal(k2, (num, d, d))
    return mean_sd * jax.random.normal(k1, (num, d)), W @ jnp.swapaxes(W, 1, 2) / d + 0.05 * jnp.eye(d)


def logistic_sqrt_min_eigs(Xf, prior_var, nodes, means, covs, with_max: bool = False):
    """`sqrt_min_eigs` of the logistic negative ELBO (exact quadrature) at (means[k], covs[k])."""
    return sqrt_min_eigs(lambda m, S: neg_elbo(Xf, m, S, prior_var, nodes), Xf.shape[1], means, covs, with_max)


def poisson_sqrt_min_eigs(X, y, c: float, prior_var, means, covs, with_max: bool = False):
    """`sqrt_min_eigs` of the Poisson negative ELBO on the data scaled by c (closed form) at (means[k], covs[k])."""
    return sqrt_min_eigs(lambda m, S: poisson_neg_elbo(c * X, y, m, S, prior_var), X.shape[1], means, covs, with_max)


def sqrt_min_eigs(objective, d: int, means, covs, with_max: bool = False):
    """λ_min of the autodiff Hessian of ``objective(m, Σ)`` in (m, tril L), Σ = LLᵀ, at each (means[k], covs[k]) -> (k,);
    with ``with_max`` also λ_max (k,), the scale of the eigen-solver's rounding error (≈ ε λ_max, Weyl)."""
    hess = jax.jit(jax.hessian(lambda x: objective(*unpack_sqrt(x, d))))
    ev = [jnp.linalg.eigvalsh(hess(pack_sqrt(m, S))) for m, S in zip(means, covs)]
    lo = np.asarray([float(e[0]) for e in ev])
    return (lo, np.asarray([float(e[-1]) for e in ev])) if with_max else lo


def relative_spread(means, covs, ref_mean, ref_cov):
    """max over starts of max(‖m − m*‖/‖m*‖, ‖Σ − Σ*‖_F/‖Σ*‖_F)."""
    em = jnp.linalg.norm(means - ref_mean, axis=1) / jnp.linalg.norm(ref_mean)
    ec = jnp.linalg.norm(covs - ref_cov, axis=(1, 2)) / jnp.linalg.norm(ref_cov)
    return float(jnp.max(jnp.maximum(em, ec)))
