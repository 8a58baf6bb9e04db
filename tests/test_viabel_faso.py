"""viabel 0.5.1 beside numpy 2: the shims live only inside `viabel_shims`; viabel's FASO recovers the exact
mean-field optimum of a 5-d Gaussian; the RAABBVI adapter hands eq. 21 to our regression."""
import sys

import numpy as np
import pytest

from lsvi.baselines import viabel_faso as vf
from lsvi.papers.rabvi import gaussian as rg


def test_shims_only_inside_context():
    assert "pystan" not in sys.modules and not hasattr(np, "product")
    with vf.viabel_shims():
        assert "pystan" in sys.modules and np.product is np.prod
        import viabel  # noqa: F401  (importable only with the stub)

        with pytest.raises(RuntimeError):
            sys.modules["pystan"].StanModel(model_code="")
    assert "pystan" not in sys.modules and not hasattr(np, "product")


def test_shims_removed_after_an_exception():
    with pytest.raises(ValueError):
        with vf.viabel_shims():
            raise ValueError
    assert "pystan" not in sys.modules and not hasattr(np, "product")


def test_viabel_faso_recovers_exact_meanfield_sd():
    V = rg.covariance("banded", 5)
    P = np.linalg.inv(V)
    sd_star = 1 / np.sqrt(np.diag(P))  # exact mean-field optimum: σ_i² = 1/[V⁻¹]_ii, mean 0
    res = vf.run_faso(P, 0.03, eps=0.1, k_max=20_000, seed=0)  # γ = 0.03: fewer iterations than 0.01
    assert res.stopped
    mu, sd = res.position[:5], np.exp(res.position[5:])
    assert np.max(np.abs(sd / sd_star - 1)) < 0.05  # ε = 0.1 bounds the MCSE of ψ; 5 % on σ is ~3× tighter than ε
    assert np.max(np.abs(mu) / sd_star) < 0.1
    assert "pystan" not in sys.modules and not hasattr(np, "product")


def test_raabbvi_adapter_uses_our_regression_and_returns_floats():
    calls = []

    def regression(log_gamma, log_delta, w, rho, fix_kappa):
        calls.append((log_gamma, log_delta, w, rho, fix_kappa))
        return 2.5, 0.7

    with vf.viabel_shims():
        import viabel

        cls = vf._adapted_raabbvi_class(regression)
        opt = cls(viabel.AveragedAdam(0.3, diagnostics=True), rho=0.5)
        fit, kappa, c = opt.weighted_linear_regression(None, np.log([1e-2, 3e-3]), np.log([0.15, 0.075]))
        b0, b1 = opt.wls(np.log([0.15, 0.075, 0.0375]), np.log([900.0, 1500.0, 2800.0]))
    (lg, ld, w, rho, fix), = calls
    assert fix and kappa == 1 and c == 2.5 and rho == 0.5  # κ fixed at 1 for the averaged optimisers, as viabel does
    np.testing.assert_allclose(w, [(1 + 1 / 9) ** -0.25, 1.0])  # eq. 25 weights, most recent epoch weight 1
    np.testing.assert_allclose(lg, np.log([0.15, 0.075]))
    assert isinstance(b0, float) and isinstance(b1, float) and b1 < 0  # fewer iterations at larger γ


def test_viabel_runs_are_deterministic_and_restore_the_timer():
    """Same seed, same run: viabel's draws are seeded and its timing-dependent check schedule uses the unit-cost timer
    (`viabel_deterministic`); viabel's own Timer / MCSE and numpy's global generator are restored afterwards."""
    P = np.linalg.inv(rg.covariance("banded", 3))
    np.random.seed(11)
    before = np.random.get_state()[1].copy()
    a, b = (vf.run_faso(P, 0.03, eps=0.1, k_max=10_000, seed=2) for _ in range(2))
    assert a.iterations == b.iterations and np.array_equal(a.position, b.position)
    np.testing.assert_array_equal(np.random.get_state()[1], before)
    with vf.viabel_shims():
        import viabel._mc_diagnostics as md
        import viabel._utils as vu
        import viabel.optimization as vo

        assert vo.Timer is vu.Timer and vo.MCSE is md.MCSE
