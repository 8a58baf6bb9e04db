"""The whitened-regression rows of notebook 13 (eqs. 16–17, 42, Lemmas D.1, D.3): each check PASSes on the
paper's formulas and FAILs on a plausible typo of them."""
from __future__ import annotations

import numpy as np

from lsvi.papers.lsvi.checks import whitening as w


def _status(c):
    return "PASS" if c["passed"] else "FAIL"


def test_paper_formulas_pass():
    errs, claims = w.study(dims_t=(1, 3), dims_lemma=(1, 4), num_cases=20)
    assert [c["id"] for c in claims] == ["eq16-t-orthonormal", "eq42-t-orthonormal", "lemmaD1-gamma-t-equals-eta-s",
                                         "lemmaD3-gamma-t-equals-eta-s"]
    assert all(_status(c) == "PASS" and c["kind"] == "paper" for c in claims)


def test_statistic_with_a_wrong_scale_fails():
    """(z² − 1)/2 instead of (z² − 1)/√2: the squared components have variance 1/2, not 1."""
    wrong = lambda z: np.concatenate([np.ones((len(z), 1)), z, (z ** 2 - 1) / 2], axis=1)
    err = w.orthonormality_error(wrong, 2)
    assert abs(err - 0.5) < 1e-12
    ok = {1: 0.0}
    c = w.claims({2: err}, ok, ok, ok)[0]
    assert _status(c) == "FAIL"


def test_lemma_with_a_wrong_coefficient_fails():
    """Eq. (39) without the factor 2 in η⁽¹⁾ ⊗ σ + 2η⁽²⁾ ⊗ μ ⊗ σ; eq. (53) with √2 on the off-diagonal."""
    def gamma_mf_wrong(eta0, eta1, eta2, mu, sigma):
        g = w.gamma_meanfield(eta0, eta1, eta2, mu, sigma)
        d = mu.size
        g[1:d + 1] = eta1 * sigma + eta2 * mu * sigma
        return g

    def gamma_fc_wrong(eta0, eta1, eta2, mu, C):
        g = w.gamma_fullcov(eta0, eta1, eta2, mu, C)
        d = mu.size
        Gamma = (np.kron(C, C).T @ eta2).reshape(d, d, order="F")
        off = [np.sqrt(2.0) * Gamma[i, j] for i in range(d) for j in range(i, d)]
        g[1 + d:] = off
        return g

    e1 = w.lemma_error(False, 3, 20, gamma=gamma_mf_wrong)
    e3 = w.lemma_error(True, 3, 20, gamma=gamma_fc_wrong)
    assert e1 > 1e-3 and e3 > 1e-3
    ok = {1: 0.0}
    rows = w.claims(ok, ok, {3: e1}, {3: e3})
    assert [_status(c) for c in rows] == ["PASS", "PASS", "FAIL", "FAIL"]


def test_the_library_statistics_match_the_transcriptions():
    """The library's whitened statistics (Algorithms 2 and 3) are the paper's eq. (42) and (16)."""
    from lsvi.core.algorithms import lsvi_fc, lsvi_mf

    z = np.random.default_rng(0).normal(size=(6, 4))
    np.testing.assert_allclose(np.asarray(lsvi_fc.whitened_statistic(z)), w.t_fullcov(z), atol=1e-14)
    np.testing.assert_allclose(np.asarray(lsvi_mf.whitened_statistic(z)), w.t_meanfield(z), atol=1e-14)
