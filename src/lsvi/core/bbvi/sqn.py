"""Stochastic quasi-Newton (SQN) descent direction of the RABVI paper, Appendix B.5 (eqs B.8–B.10), as an optax
transform that the BBVI kernel (`lsvi.core.bbvi.kernel`) and RABVI use like any other optimiser of `optimizers`.

The paper follows Liu & Owen (with Monte Carlo instead of RQMC draws), who use the stochastic quasi-Newton approach
the paper cites as Chen, Wu, Chan & Lam (2019), itself built on the scheme of Byrd, Hansen, Nocedal & Singer (2016):
pairs from iterate averages every B iterations, as B.5 describes. The step is eq. B.9,

    λ^{(k+1)} = λ^{(k)} − γ H^{(k)} ĝ^{(k)},

where H^{(k)} ĝ^{(k)} is the L-BFGS two-loop product with the m most recent correction pairs (s_j, y_j), i.e. the
inverse-Hessian approximation obtained by applying the BFGS update of eq. B.10,

    H ← (I − ρ s yᵀ) H (I − ρ y sᵀ) + ρ s sᵀ,   ρ = 1/(sᵀy),

to H_0 = h I once per stored pair, oldest first. Pairs are not formed from consecutive iterates (too noisy) but every
B iterations from iterate averages over the most recent B iterations: with λ̄_t the mean of the B iterates of block t,
s_t = λ̄_t − λ̄_{t−1} and y_t = ĝ_y(λ̄_t) − ĝ_y(λ̄_{t−1}), the two gradient estimates computed with Monte Carlo draws
independent of those of the update step (B.5, last sentence).

**How it fits the kernel.** `kernel.build` calls `optimizer.update(ĝ, opt_state, λ)` and steps λ ← λ − γ d. An optax
transform sees ĝ and λ but cannot evaluate gradients elsewhere, and y_t needs gradients at the averages λ̄_t, λ̄_{t−1}.
So `sqn` takes a gradient estimator `grad_estimator(key, λ (P,)) -> ĝ (P,)` at construction (built for the same
family and target by `reparam_gradient`, which uses the kernel's estimator of eq. 3) and keeps its own PRNG key in the
optimiser state; the y draws are therefore independent of the kernel's update draws. RABVI's FASO re-initialises the
optimiser at every learning rate (`bbvi.init(λ̄_t)`); the state's key is then folded with the bits of the starting
λ, so that each epoch gets fresh y draws and a run is still reproducible from its seeds. No existing file of the
library changes.

**What optax provides.** The two-loop recursion (Nocedal & Wright, Algorithm 7.4) is optax's
`optax._src.transform._precondition_by_lbfgs` (the helper behind `optax.scale_by_lbfgs`), reused here with its ring
buffer convention (slots with ρ = 0 act as the identity). `optax.scale_by_lbfgs` itself cannot be used: it forms a
pair at every call from consecutive (params, updates), whereas SQN forms pairs every B calls from block averages and
extra gradient evaluations. The pair bookkeeping (block sums, averages, curvature check, H_0 scaling) is written here.

Constants (the paper states none): m = 10 pairs (optax's `scale_by_lbfgs` default memory), B = 20 (the averaging / update
period; both of the order Byrd et al. report, from memory, not checked against their paper), y from
`num_samples_y` = 100 draws with common random numbers for the two gradients of a pair (Byrd et al. take the
curvature sample several times the gradient sample; ours is 10× RABVI's M = 10), H_0 = (sᵀy / yᵀy) I from the newest
pair (the standard L-BFGS scaling, Nocedal & Wright eq. 7.20, used by Byrd et al.). Until the first pair exists Byrd
et al. take plain SGD steps (their first 2L iterations); at RABVI's γ_0 = 0.3 these diverge on the banded target
(precision eigenvalue ≈ 9 > 2/γ_0), so by default the direction before the first pair is avgRMSProp's ĝ/(√ν̄ + ε)
(`warmup="avg_rms"`; `warmup="sgd"` gives Byrd et al.'s). A pair is stored only if
sᵀy > `curvature_eps`·‖s‖‖y‖ (a stochastic y can have sᵀy ≤ 0, which would make H indefinite); otherwise it is
skipped. These are choices, not the paper's: Liu & Owen's exact settings were not available to us.

References
----------
M. Welandawe, M. R. Andersen, A. Vehtari, J. H. Huggins (2024). A framework for improving the reliability of
black-box variational inference. arXiv:2203.15945, Appendix B.5.
S. Liu, A. B. Owen (2021). Quasi-Monte Carlo quasi-Newton in variational Bayes. JMLR 22(243).
H. Chen, H.-C. Wu, S.-C. Chan, W.-H. Lam (2019). A stochastic quasi-Newton method for large-scale nonconvex
optimization with applications. IEEE Trans. Neural Netw. Learn. Syst. 31, 4776–4790 (the paper's [16]; not consulted
here: the scheme is implemented as B.5 describes it).
R. H. Byrd, S. L. Hansen, J. Nocedal, Y. Singer (2016). A stochastic quasi-Newton method for large-scale
optimization. SIAM J. Optim. 26(2), 1008–1031.
J. Nocedal, S. J. Wright (2006). Numerical Optimization, 2nd ed., Section 7.2.
"""
from __future__ import annotations

from typing import Callable, NamedTuple

import jax
import jax.numpy as jnp
import optax
from optax._src.transform import _precondition_by_lbfgs  # the two-loop recursion of optax.scale_by_lbfgs

from lsvi.core.bbvi.families import Family
from lsvi.core.bbvi.optimizers import scale_by_averaged_rms


class SqnState(NamedTuple):
    key: jnp.ndarray  # PRNG key of the y draws
    count: jnp.ndarray  # iterations seen in the current block (0..B−1)
    block_sum: jnp.ndarray  # (P,) sum of the current block's iterates
    prev_avg: jnp.ndarray  # (P,) λ̄_{t−1}
    has_prev: jnp.ndarray  # bool: λ̄_{t−1} exists
    s_mem: jnp.ndarray  # (m, P) correction pairs s_j (ring buffer)
    y_mem: jnp.ndarray  # (m, P) y_j
    rho_mem: jnp.ndarray  # (m,) 1/(s_jᵀy_j), 0 for an empty slot
    idx: jnp.ndarray  # next slot to write = the oldest pair
    num_pairs: jnp.ndarray  # pairs stored so far
    h0: jnp.ndarray  # H_0 = h0 I
    warm: optax.OptState  # state of the direction used before the first pair


def reparam_gradient(family: Family, log_target: Callable, num_samples: int) -> Callable:
    """`grad_estimator(key, λ (P,)) -> ĝ (P,)`: the reparameterisation gradient of −ELBO with `num_samples` draws
    z ~ N(0, I_d), the estimator `kernel.build` uses (exact entropy; log q by sampling when it has none)."""
    if num_samples < 1:
        raise ValueError(f"num_samples must be >= 1, got {num_samples}")
    logp = jax.vmap(log_target)
    if family.entropy is not None:
        def neg_elbo(lam, z):
            return -jnp.mean(logp(family.sample(lam, z))) - family.entropy(lam)
    else:
        def neg_elbo(lam, z):
            theta, logq = family.sample_and_log_density(lam, z)
            return -jnp.mean(logp(theta) - logq)
    grad = jax.grad(neg_elbo)

    def grad_estimator(key, lam):
        return grad(lam, jax.random.normal(key, (num_samples, family.dim)))

    return grad_estimator


def two_loop(g, s_mem, y_mem, rho_mem, idx, h0):
    """H g by the L-BFGS two-loop recursion (optax's helper): H is eq. B.10 applied to H_0 = h0 I with the pairs of
    the ring buffers `s_mem`, `y_mem` (m, P), oldest at slot `idx`; slots with `rho_mem` = 0 are skipped. g (P,)."""
    return _precondition_by_lbfgs(g, s_mem, y_mem, rho_mem, h0, idx)


def _fold_params(key, params):
    """Fold the bits of Σλ into `key` (a fresh y stream for each starting point of an epoch)."""
    x = jnp.sum(params)
    bits = jax.lax.bitcast_convert_type(x, jnp.uint64 if x.dtype == jnp.float64 else jnp.uint32)
    lo = (bits & 0xFFFFFFFF).astype(jnp.uint32)
    hi = (bits >> 32).astype(jnp.uint32) if x.dtype == jnp.float64 else jnp.uint32(0)
    return jax.random.fold_in(jax.random.fold_in(key, lo), hi)


def sqn(grad_estimator: Callable, key, *, memory_size: int = 10, block_size: int = 20, curvature_eps: float = 1e-8,
        scale_init: bool = True, warmup: str = "avg_rms") -> optax.GradientTransformation:
    """SQN direction d = H ĝ (eqs B.9–B.10, module docstring) as an optax transform without the learning rate.

    `grad_estimator(key, λ (P,)) -> (P,)` estimates ∇_λ D at the block averages with its own draws (e.g.
    `reparam_gradient(family, log_target, 100)`); `key` seeds those draws; `memory_size` = m pairs; `block_size` = B
    iterations per pair; `scale_init`: H_0 = (sᵀy/yᵀy) I (else I); `warmup`: the direction before the first pair,
    "sgd" (ĝ, Byrd et al.) or "avg_rms" (ĝ/(√ν̄ + ε), eq. 18's averaged RMS; module docstring).
    `update(ĝ (P,), state, λ (P,))` needs λ."""
    if not callable(grad_estimator):
        raise TypeError("grad_estimator must be a callable (key, λ) -> ĝ")
    if int(memory_size) != memory_size or memory_size < 1:
        raise ValueError(f"memory_size must be an integer >= 1, got {memory_size}")
    if int(block_size) != block_size or block_size < 1:
        raise ValueError(f"block_size must be an integer >= 1, got {block_size}")
    if not curvature_eps >= 0:
        raise ValueError(f"curvature_eps must be >= 0, got {curvature_eps}")
    if warmup not in ("sgd", "avg_rms"):
        raise ValueError(f"warmup must be 'sgd' or 'avg_rms', got {warmup!r}")
    key = jnp.asarray(key)
    m, B = int(memory_size), int(block_size)
    warm = optax.identity() if warmup == "sgd" else scale_by_averaged_rms()

    def init_fn(params):
        params = jnp.asarray(params)
        if params.ndim != 1:
            raise ValueError(f"sqn works on a flat parameter vector λ (P,), got shape {params.shape}")
        z = jnp.zeros_like(params)
        return SqnState(_fold_params(key, params), jnp.zeros([], jnp.int32), z, z, jnp.zeros([], bool),
                        jnp.zeros((m,) + params.shape, params.dtype), jnp.zeros((m,) + params.shape, params.dtype),
                        jnp.zeros(m, params.dtype), jnp.zeros([], jnp.int32), jnp.zeros([], jnp.int32),
                        jnp.ones([], params.dtype), warm.init(params))

    def new_pair(state, avg):
        k, sub = jax.random.split(state.key)
        s = avg - state.prev_avg
        y = grad_estimator(sub, avg) - grad_estimator(sub, state.prev_avg)  # common draws for the two gradients
        sy = jnp.vdot(s, y)
        ok = state.has_prev & jnp.isfinite(sy) & (sy > curvature_eps * jnp.linalg.norm(s) * jnp.linalg.norm(y))
        rho = jnp.where(ok, 1.0 / jnp.where(ok, sy, 1.0), 0.0)
        h0 = jnp.where(ok, sy / jnp.where(ok, jnp.vdot(y, y), 1.0), state.h0) if scale_init else state.h0
        s_mem = jnp.where(ok, state.s_mem.at[state.idx].set(s), state.s_mem)
        y_mem = jnp.where(ok, state.y_mem.at[state.idx].set(y), state.y_mem)
        rho_mem = jnp.where(ok, state.rho_mem.at[state.idx].set(rho), state.rho_mem)
        idx = jnp.where(ok, (state.idx + 1) % m, state.idx)
        return state._replace(key=k, count=jnp.zeros([], jnp.int32), block_sum=jnp.zeros_like(avg), prev_avg=avg,
                              has_prev=jnp.ones([], bool), s_mem=s_mem, y_mem=y_mem, rho_mem=rho_mem, idx=idx,
                              num_pairs=state.num_pairs + ok.astype(jnp.int32), h0=h0)

    def update_fn(updates, state, params=None):
        if params is None:
            raise ValueError("sqn needs the current parameters λ (the kernel passes them)")
        state = state._replace(count=state.count + 1, block_sum=state.block_sum + params)
        state = jax.lax.cond(state.count == B, lambda st: new_pair(st, st.block_sum / B), lambda st: st, state)
        g_warm, warm_state = warm.update(updates, state.warm, params)
        state = state._replace(warm=warm_state)
        d = jax.lax.cond(state.num_pairs > 0,
                         lambda g: two_loop(g, state.s_mem, state.y_mem, state.rho_mem, state.idx, state.h0),
                         lambda g: g_warm, updates)
        return d, state

    return optax.GradientTransformation(init_fn, update_fn)


def sqn_for(family: Family, log_target: Callable, key, *, num_samples_y: int = 100, **options):
    """`sqn` with the reparameterisation gradient of `family` / `log_target` and `num_samples_y` draws per y."""
    return sqn(reparam_gradient(family, log_target, num_samples_y), key, **options)
