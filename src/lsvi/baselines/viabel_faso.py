"""viabel 0.5.1 (Welandawe, Huggins et al.; the RABVI paper's reference package, autograd) side by side with
`lsvi.core.bbvi`: its FASO with its AveragedAdam / AveragedRMSProp, and its RAABBVI with the eq. 21 regression
supplied by an adapter.

Two incompatibilities with this environment are bridged, ONLY while viabel runs (`viabel_shims`):

* `import viabel` imports `pystan` (2.x; `viabel._utils`), which cannot be installed beside numpy 2: a stub
  module `pystan` is put in `sys.modules` (any use of it raises);
* `paragami` (viabel's parameter patterns) calls `np.product`, removed in numpy 2: `numpy.product` is aliased
  to `numpy.prod`.

Both are removed when the context exits (the stub only if it was ours, the alias only if numpy lacked it), as
the project does for `particles`. Import viabel inside the context: `with viabel_shims(): import viabel`.

RAABBVI adapter (`run_raabvi`): viabel fits eq. 21 with a compiled Stan model (`StanModel_cache`, pystan 2.19).
`AdaptedRAABBVI.weighted_linear_regression` replaces it by `regression(log_γ, log_δ, w, ρ, fix_κ) -> (Ĉ, κ̂)`
(the project's PyMC fit `lsvi.baselines.pymc_skl_regression.fit`, or the weighted least squares
`lsvi.core.bbvi.rabvi.wls_skl_regression`) with viabel's own weights w_t = (1 + (T − t)²/9)^{-1/4}, and
`StanModel_cache` is replaced by a stub for the duration of the call. viabel's RAABBVI needs its optimiser's
`diagnostics=True` (it reads `iterate_average_k_history`, only recorded then), and its `wls` (eq. 26) returns
(1,)-arrays that `int()` rejects under numpy 2.4: the adapter's `wls` calls it and returns floats. Everything else is viabel's code,
including what differs from our Algorithm 2 (listed in `VIABEL_DIFFERENCES`).

Reproducibility (`viabel_deterministic`, inside both runners). viabel's draws come from `MFGaussian(d, seed)`'s own
`RandomState`, seeded here from the caller's seed; numpy's global generator (which viabel's other objectives use) is
seeded from it too and restored afterwards. What still made two identical runs differ is viabel's FASO check
schedule: it rescales the next MCSE window by max(1.05, 1 + 1/√(1 + r)) with r measured by wall-clock timers
(`viabel._utils.Timer`). While viabel runs, that timer is replaced by a deterministic one counting one unit per
optimisation step and W units per MCSE over a window of W iterates, so r = (k + 1)/k ≈ 1 and the factor is
≈ χ(1) = 1.707, the value ours uses (r = 1). Iterations are then a function of the seed alone.

The target is N(0, V) given by its precision P = V⁻¹ (autograd log density −½ θᵀPθ).
"""
from __future__ import annotations

import contextlib
import io
import sys
import types
from typing import Callable, NamedTuple

import numpy as np
from lsvi.core import clock

VIABEL_DIFFERENCES = (
    "viabel FASO: convergence checked every k_check = W_min iterations (ours W_min/2); accuracy rule max_i MCSE_i < ε "
    "(ours: mean_i, as Algorithm 1 prints) and ESS > W_min/8 = 25 (ours ≥ 50); its own R̂/ESS estimators (ours ArviZ); "
    "recheck factor max(1.05, χ(r)) with r measured by wall-clock timers (here r ≈ 1 by a unit-cost timer, "
    "`viabel_deterministic`, as ours r = 1); optimiser state not reset between FASO calls except for the "
    "averaged optimisers. viabel RAABBVI: eq. 26 weights (1 + (T − t)²/81)^{-1/4}; if the fitted slope is ≥ 0 the "
    "first point is dropped and the refitted slope used whatever its sign (ours: K̂ = K_γ when α̂ ≥ 0); "
    "N_0 = iters0 = 1000 (ours 5 W_min = 1000)."
)


@contextlib.contextmanager
def viabel_shims():
    """Stub `pystan` in `sys.modules` and alias `numpy.product = numpy.prod` for the duration of the block."""
    added_stub = "pystan" not in sys.modules
    added_alias = not hasattr(np, "product")
    if added_stub:
        stub = types.ModuleType("pystan")
        stub.__doc__ = "stub inserted by lsvi.baselines.viabel_faso (pystan 2 is not installable here)"

        def _unavailable(*args, **kwargs):
            raise RuntimeError("pystan is not available: lsvi.baselines.viabel_faso supplies the eq. 21 regression")

        stub.StanModel = _unavailable
        sys.modules["pystan"] = stub
    if added_alias:
        np.product = np.prod
    try:
        yield
    finally:
        if added_stub:
            sys.modules.pop("pystan", None)
        if added_alias and hasattr(np, "product"):
            del np.product


@contextlib.contextmanager
def viabel_deterministic(seed: int):
    """Inside `viabel_shims`: numpy's global generator seeded from `seed` (restored on exit), and viabel's wall-clock
    `Timer` and `MCSE` in `viabel.optimization` replaced by a unit-cost timer (1 per optimisation step, W per MCSE
    over W iterates): the check-cost ratio r ≈ 1, as ours, and no dependence on the machine's timing."""
    import viabel.optimization as vo

    state = {"mcse_calls": 0, "w": 0}
    mcse = vo.MCSE

    def counted_mcse(x, *args, **kwargs):
        state["mcse_calls"] += 1
        state["w"] = len(x)
        return mcse(x, *args, **kwargs)

    class UnitTimer:
        def __enter__(self):
            self._calls = state["mcse_calls"]
            return self

        def __exit__(self, *args):
            self.interval = float(state["w"]) if state["mcse_calls"] > self._calls else 1.0

    saved_timer, saved_rng = vo.Timer, np.random.get_state()
    vo.Timer, vo.MCSE = UnitTimer, counted_mcse
    np.random.seed(seed)
    try:
        yield
    finally:
        vo.Timer, vo.MCSE = saved_timer, mcse
        np.random.set_state(saved_rng)


class ViabelResult(NamedTuple):
    position: np.ndarray  # returned iterate average λ̄ = (μ, log σ) (2d,)
    iterations: int  # total iterations run
    stopped: bool  # FASO: accuracy rule met; RAABBVI: termination rule fired
    seconds: float  # on `lsvi.core.clock` (optimisation and diagnostics, viabel's printing silenced)
    learning_rates: list  # RAABBVI: learning rates visited (FASO: [γ])
    averages: list  # RAABBVI: iterate average after each learning rate


def _objective(precision, num_samples: int, seed: int):
    import autograd.numpy as anp
    import viabel

    P = np.asarray(precision, float)
    d = P.shape[0]
    model = viabel.Model(lambda x: -0.5 * anp.sum((x @ P) * x, axis=-1))
    return viabel.ExclusiveKL(viabel.MFGaussian(d, seed=seed), model, num_samples)


def _optimizer(name: str, learning_rate: float, diagnostics: bool = False):
    import viabel

    cls = {"avg_adam": viabel.AveragedAdam, "avg_rmsprop": viabel.AveragedRMSProp}[name]
    return cls(learning_rate, diagnostics=diagnostics)


def run_faso(precision, learning_rate: float, *, optimizer: str = "avg_adam", w_min: int = 200, eps: float = 0.1,
             k_max: int = 100_000, num_samples: int = 10, seed: int = 0, init=None) -> ViabelResult:
    """viabel's FASO with its AveragedAdam / AveragedRMSProp on N(0, P⁻¹), mean-field family, from `init` (default 0)."""
    with viabel_shims():
        import viabel

        obj = _objective(precision, num_samples, seed)
        d = obj.approx.dim
        lam0 = np.zeros(2 * d) if init is None else np.asarray(init, float)
        faso = viabel.FASO(_optimizer(optimizer, learning_rate), mcse_threshold=eps, W_min=w_min)
        t0 = clock.seconds()
        with viabel_deterministic(seed), contextlib.redirect_stdout(io.StringIO()), \
                contextlib.redirect_stderr(io.StringIO()):
            out = faso.optimize(k_max, obj, lam0)
        wall = clock.seconds() - t0
    stopped = out["k_stopped"] is not None
    iters = out["k_stopped"] + 1 if stopped else len(out["variational_param_history"])
    return ViabelResult(np.asarray(out["opt_param"]), int(iters), stopped, wall, [learning_rate], [out["opt_param"]])


def _adapted_raabbvi_class(regression: Callable):
    import viabel

    class AdaptedRAABBVI(viabel.RAABBVI):
        """viabel's RAABBVI with eq. 21 fitted by `regression` instead of its compiled Stan model."""

        def weighted_linear_regression(self, model, y, x, s=9, a=0.25, n_chains=4):
            n = len(y)
            w = 1 / (1 + np.arange(n)[::-1] ** 2 / s) ** a  # viabel's weights, eq. 25
            fix = isinstance(self._sgo, (viabel.AveragedRMSProp, viabel.AveragedAdam))
            c, kappa = regression(np.asarray(x, float), np.asarray(y, float), w, self._rho, fix)
            return {"log_c": np.array([np.log(c)]), "kappa": np.array([kappa])}, (1 if fix else kappa), c

        def wls(self, x, y, s=9, a=0.25):
            """viabel's eq. 26 fit, returning floats: its (1,)-arrays break `int(...)` under numpy 2.4."""
            b0, b1 = super().wls(np.asarray(x, float), np.asarray(y, float), s, a)
            return float(np.ravel(b0)[0]), float(np.ravel(b1)[0])

    return AdaptedRAABBVI


def run_raabvi(precision, *, regression: Callable, optimizer: str = "avg_adam", gamma0: float = 0.3,
               w_min: int = 200, xi: float = 0.1, tau: float = 1.0, rho: float = 0.5, iters0: int = 1000,
               k_max: int = 100_000, num_samples: int = 10, seed: int = 0, init=None) -> ViabelResult:
    """viabel's RAABBVI (Algorithm 2) through the adapter; ε_0 = ξ (viabel's mcse_threshold default is ξ too)."""
    with viabel_shims():
        import viabel.optimization as vo

        obj = _objective(precision, num_samples, seed)
        d = obj.approx.dim
        lam0 = np.zeros(2 * d) if init is None else np.asarray(init, float)
        opt = _adapted_raabbvi_class(regression)(_optimizer(optimizer, gamma0, diagnostics=True), rho=rho, iters0=iters0,
                                                 accuracy_threshold=xi, inefficiency_threshold=tau,
                                                 mcse_threshold=xi, W_min=w_min)
        saved = vo.StanModel_cache
        vo.StanModel_cache = lambda *a, **k: None  # the compiled regression model is not needed by the adapter
        try:
            t0 = clock.seconds()
            with viabel_deterministic(seed), contextlib.redirect_stdout(io.StringIO()), \
                    contextlib.redirect_stderr(io.StringIO()):
                out = opt.optimize(k_max, obj, lam0)
            wall = clock.seconds() - t0
        finally:
            vo.StanModel_cache = saved
    stopped = out["k_stopped_final"] is not None
    n_iter = len(out["variational_param_history"])
    rates = [gamma0 * rho ** t for t in range(len(out["iterate_average_curr_hist"]) - 1)]
    return ViabelResult(np.asarray(out["opt_param"]), int(n_iter), stopped, wall, rates,
                        list(out["iterate_average_curr_hist"][1:]))
