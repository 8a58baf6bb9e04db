"""The whitened regression of Section 4 as the paper writes it: eqs. (16)–(17), (42), Lemmas D.1 and D.3 (notebook 13).

Algorithms 2 and 3 regress f(μ + CZ) on a statistic t(Z) of Z ~ N(0, I_d) instead of f(X) on s(X). Two
statements make that possible, and each is checked here on an independent transcription of the paper's
formulas (plain numpy, float64; nothing of `lsvi.core` is used, so a typo in the paper shows as a FAIL,
as eq. (18) as printed does in `lsvi.papers.lsvi.checks.gaussian_maps`):

* **eqs. (16)–(17), (42).** "t is a one-to-one transformation such that the output vector has
  un-correlated components: E[t(Z)t(Z)ᵀ] = I", so that γ = argmin E[{γᵀt(Z) − f(μ + CZ)}²] = E[t(Z) f(μ + CZ)]
  needs no inversion of the Fisher matrix (eq. 46). `orthonormality_error`: max |E[t tᵀ] − I| by a
  Gauss–Hermite product rule exact for t tᵀ (degree ≤ 4 per coordinate).

      t(z) = (1, zᵀ, (z₁² − 1)/√2, z₁z₂, …, z₁z_d, (z₂² − 1)/√2, z₂z₃, …, (z_d² − 1)/√2)ᵀ     (16)
      t(z) = (1, zᵀ, (z₁² − 1)/√2, …, (z_d² − 1)/√2)ᵀ                                        (42)

* **Lemma D.1 (mean field, eqs. 39–40).** For x(z) = μ + σ ⊗ z and s(x) = (1, x, x²),

      γ = (η⁽⁰⁾ + η⁽¹⁾ᵀμ + η⁽²⁾ᵀ(μ_j² + σ_j²)_j,  η⁽¹⁾ ⊗ σ + 2η⁽²⁾ ⊗ μ ⊗ σ,  √2 η⁽²⁾ ⊗ σ²)      (39)

  satisfies γᵀt(z) = ηᵀs(x(z)) for every z (40).

* **Lemma D.3 (full covariance, eqs. 50–53).** For x(z) = μ + Cz, CCᵀ = Σ, and s(x) = (1, x, vec(xxᵀ))
  (1 + d + d² components),

      γ⁽⁰⁾ = η⁽⁰⁾ + η⁽¹⁾ᵀμ + η⁽²⁾ᵀvec(μμᵀ) + Σᵢ Γ_ii,   γ⁽¹⁾ = Cᵀη⁽¹⁾ + 2(μ ⊗ C)ᵀη⁽²⁾,          (51)
      Γ = unvec((C ⊗ C)ᵀη⁽²⁾),                                                                (52)
      γ⁽²⁾ = (√2Γ₁₁, 2Γ₁₂, …, 2Γ₁d, √2Γ₂₂, 2Γ₂₃, …, √2Γ_dd)                                    (53)

  satisfies γᵀt(z) = ηᵀs(x(z)) for every z (50), t of eq. (16). Read with unvec(η⁽²⁾) symmetric (η ∈ 𝒱
  defines Σ by eq. 15; for a non-symmetric unvec(η⁽²⁾) the term 2(μ ⊗ C)ᵀη⁽²⁾ would need its symmetric part).

`lemma_error`: max over random (η, μ, σ or C, z) of |γᵀt(z) − ηᵀs(x(z))| / (1 + |ηᵀs(x(z))|).
`claims`: the four rows, criteria fixed in advance (tolerance `TOLERANCE`, float64 rounding).
"""
from __future__ import annotations

import numpy as np

TOLERANCE = 1e-10  # float64: a correct identity leaves ~1e-14 relative; a wrong coefficient leaves O(1)


# ------------------------------------------------------------------ statistics, eqs. (16) and (42)
def t_fullcov(z: np.ndarray) -> np.ndarray:
    """t(z) of eq. (16), z (n, d) -> (n, 1 + d + d(d + 1)/2), in the paper's order."""
    n, d = z.shape
    cols = [np.ones(n)] + [z[:, i] for i in range(d)]
    for i in range(d):
        cols.append((z[:, i] ** 2 - 1.0) / np.sqrt(2.0))
        cols += [z[:, i] * z[:, j] for j in range(i + 1, d)]
    return np.stack(cols, axis=1)


def t_meanfield(z: np.ndarray) -> np.ndarray:
    """t(z) of eq. (42), z (n, d) -> (n, 1 + 2d)."""
    return np.concatenate([np.ones((z.shape[0], 1)), z, (z ** 2 - 1.0) / np.sqrt(2.0)], axis=1)


def gauss_hermite_product(d: int, num_nodes: int = 3) -> tuple[np.ndarray, np.ndarray]:
    """Nodes Z (K^d, d) and weights w (K^d,) of N(0, I_d): Σ w h(Z) = E h(Z) for polynomials of degree
    ≤ 2K − 1 in each coordinate (numpy's probabilists' Gauss–Hermite rule)."""
    x, w = np.polynomial.hermite_e.hermegauss(num_nodes)
    w = w / w.sum()
    grids = np.meshgrid(*([x] * d), indexing="ij")
    weights = np.meshgrid(*([w] * d), indexing="ij")
    return np.stack([g.ravel() for g in grids], axis=1), np.prod(np.stack([g.ravel() for g in weights]), axis=0)


def orthonormality_error(t, d: int) -> float:
    """max |E[t(Z) t(Z)ᵀ] − I| for Z ~ N(0, I_d), exactly (3 nodes per axis: t tᵀ has degree ≤ 4 per
    coordinate, the rule is exact to degree 5)."""
    Z, w = gauss_hermite_product(d, 3)
    T = t(Z)
    return float(np.max(np.abs((T * w[:, None]).T @ T - np.eye(T.shape[1]))))


# ------------------------------------------------------------------ Lemmas D.1 and D.3
def gamma_meanfield(eta0, eta1, eta2, mu, sigma) -> np.ndarray:
    """γ of eq. (39) (Lemma D.1)."""
    g0 = eta0 + eta1 @ mu + eta2 @ (mu ** 2 + sigma ** 2)
    g1 = eta1 * sigma + 2.0 * eta2 * mu * sigma
    g2 = np.sqrt(2.0) * eta2 * sigma ** 2
    return np.concatenate([[g0], g1, g2])


def gamma_fullcov(eta0, eta1, eta2, mu, C) -> np.ndarray:
    """γ of eqs. (51)–(53) (Lemma D.3); ``eta2`` = vec(H) (d²,), column-major vec."""
    d = mu.size
    Gamma = (np.kron(C, C).T @ eta2).reshape(d, d, order="F")  # (52)
    g0 = eta0 + eta1 @ mu + eta2 @ np.outer(mu, mu).ravel(order="F") + np.trace(Gamma)
    g1 = C.T @ eta1 + 2.0 * np.kron(mu[:, None], C).T @ eta2
    g2 = [np.sqrt(2.0) * Gamma[i, i] if j == i else 2.0 * Gamma[i, j] for i in range(d) for j in range(i, d)]  # (53)
    return np.concatenate([[g0], g1, g2])


def _eta_s(eta0, eta1, eta2, X, full: bool) -> np.ndarray:
    """ηᵀs(x) for s(x) = (1, x, vec(xxᵀ)) (full) or (1, x, x²) (mean field), X (n, d)."""
    quad = np.einsum("ni,nj->nij", X, X).reshape(len(X), -1, order="F") if full else X ** 2
    # vec of xxᵀ column-major: index i + d j holds x_i x_j; xxᵀ is symmetric so the order is immaterial here
    return eta0 + X @ eta1 + quad @ eta2


def lemma_error(full: bool, d: int, num_cases: int = 200, num_points: int = 10, seed: int = 0,
                gamma=None, t=None) -> float:
    """max over ``num_cases`` random (η, μ, σ or C) and ``num_points`` z ~ N(0, I) each of
    |γᵀt(z) − ηᵀs(x(z))| / (1 + |ηᵀs(x(z))|), γ by eq. (51)–(53) (``full``) or eq. (39), t of eq. (16) or (42).
    ``gamma`` / ``t`` replace the paper's formulas (the unit tests' wrong variants)."""
    gamma = gamma or (gamma_fullcov if full else gamma_meanfield)
    t = t or (t_fullcov if full else t_meanfield)
    rng = np.random.default_rng(seed)
    worst = 0.0
    for _ in range(num_cases):
        mu = rng.normal(size=d)
        z = rng.normal(size=(num_points, d))
        eta0, eta1 = rng.normal(), rng.normal(size=d)
        if full:
            A = rng.normal(size=(d, d))
            C = np.linalg.cholesky(A @ A.T + d * np.eye(d))  # Σ = CCᵀ, C = Chol(Σ)
            B = rng.normal(size=(d, d))
            H = -(B @ B.T + 0.1 * np.eye(d))  # unvec(η⁽²⁾): symmetric, negative definite (η ∈ 𝒱)
            eta2 = H.ravel(order="F")
            X = mu + z @ C.T
            g = gamma(eta0, eta1, eta2, mu, C)
        else:
            sigma = np.exp(rng.normal(size=d))
            eta2 = -np.exp(rng.normal(size=d))
            X = mu + sigma * z
            g = gamma(eta0, eta1, eta2, mu, sigma)
        rhs = _eta_s(eta0, eta1, eta2, X, full)
        worst = max(worst, float(np.max(np.abs(t(z) @ g - rhs) / (1.0 + np.abs(rhs)))))
    return worst


# ------------------------------------------------------------------ claims
def claims(err_t16: dict, err_t42: dict, err_d1: dict, err_d3: dict, tol: float = TOLERANCE) -> list[dict]:
    """The four rows, each {d: error} over the dimensions checked: PASS when every error is ≤ ``tol``, FAIL
    otherwise (a float64 check of an identity: nothing is left undecided)."""
    def row(cid, source, paper, errs, what):
        worst = max(errs.values())
        return dict(id=cid, source=source, paper=paper, kind="paper",
                    measured=f"max {what} = {worst:.1e} over d ∈ {sorted(errs)}",
                    criterion=f"max {what} ≤ {tol:g} for every d (an identity in float64; a wrong coefficient leaves O(1))",
                    passed=bool(worst <= tol), assessable=True,
                    note="independent transcription of the paper's formulas (numpy, float64), not the library's "
                         "whitened statistic or γ → η map")
    return [
        row("eq16-t-orthonormal", "Sec 4 (eq. 16–17)",
            "t of eq. (16) has uncorrelated components, E[t(Z)t(Z)ᵀ] = I: γ of eq. (17) is E[t f], no FIM inversion",
            err_t16, "|E[t tᵀ] − I| (exact Gauss–Hermite)"),
        row("eq42-t-orthonormal", "App D.3 (eq. 42, 46)", "t of eq. (42) (mean field): E[t(Z)t(Z)ᵀ] = I_m (eq. 46)",
            err_t42, "|E[t tᵀ] − I| (exact Gauss–Hermite)"),
        row("lemmaD1-gamma-t-equals-eta-s", "Lemma D.1 (eq. 39–40)",
            "with γ of eq. (39), γᵀt(z) = ηᵀs(μ + σ ⊗ z) for every z (mean field)", err_d1,
            "relative |γᵀt(z) − ηᵀs(x(z))|"),
        row("lemmaD3-gamma-t-equals-eta-s", "Lemma D.3 (eq. 50–53)",
            "with γ of eqs. (51)–(53), γᵀt(z) = ηᵀs(μ + Cz) for every z (full covariance, C = Chol(Σ))", err_d3,
            "relative |γᵀt(z) − ηᵀs(x(z))|"),
    ]


def study(dims_t=(1, 2, 3, 4), dims_lemma=(1, 2, 3, 5, 8), num_cases: int = 200, seed: int = 0) -> tuple[dict, list]:
    """All four checks: ({row: {d: error}}, claims)."""
    errs = {"t16": {d: orthonormality_error(t_fullcov, d) for d in dims_t},
            "t42": {d: orthonormality_error(t_meanfield, d) for d in dims_t},
            "d1": {d: lemma_error(False, d, num_cases, seed=seed) for d in dims_lemma},
            "d3": {d: lemma_error(True, d, num_cases, seed=seed) for d in dims_lemma}}
    return errs, claims(errs["t16"], errs["t42"], errs["d1"], errs["d3"])
