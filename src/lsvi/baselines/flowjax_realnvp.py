"""A real NVP normalising flow (flowjax) as a variational `Family` for black-box VI (RABVI paper, Section 7.2).

The RABVI paper runs FASO with "real-NVP flow with 2 hidden layers, 8 hidden units, and 3 coupling layers"
(Dinh, Sohl-Dickstein & Bengio 2017). Here the flow is flowjax's `coupling_flow` with its default affine
transformer (θ_B = x_B ⊙ s(x_A) + t(x_A), s = softplus(·) + 0.01) on a standard normal base N(0, I_d):
``flow_layers`` = 3 coupling layers, each followed by a random permutation (flowjax's default), each
conditioner an MLP of depth ``nn_depth`` = 2 hidden layers of width ``nn_width`` = 8 (ReLU). The permutation after
each layer is the reversal of the coordinates (``alternate``, as Real NVP's alternating masks) instead of flowjax's
random one: with 3 layers a random permutation can leave a coordinate untransformed in all of them (it happened for
d = 10, 8schools_nc: two coordinates of q stayed N(0, 1)); with the reversal every coordinate is transformed
within two layers.

Its trainable arrays (`eqx.partition` by `eqx.is_inexact_array`, paramax's `NonTrainable` nodes kept static) are
ravelled into one vector λ (`jax.flatten_util.ravel_pytree`), so FASO's diagnostics (R̂, ESS, MCSE per
component) and the BBVI kernel apply unchanged. The family has no closed-form entropy: it gives
``sample_and_log_density(λ, z)`` = (T_λ(z_m), log N(z_m; 0, I) − log|det ∂T_λ/∂z(z_m)|) for base draws z (M, d),
paramax constraints unwrapped, and `lsvi.core.bbvi.kernel` estimates the ELBO from it.

Choice where the paper is silent: the last layer of every conditioner starts at zero (``zero_init``), so that
q_{λ⁽⁰⁾} = N(0, I_d), the start of the Gaussian families at λ⁽⁰⁾ = 0 (flowjax's transformer constructor maps a
zero output to the identity); the other weights keep flowjax's random initialisation.

References
----------
L. Dinh, J. Sohl-Dickstein, S. Bengio (2017). Density estimation using Real NVP. ICLR.
D. Ward (2023-). flowjax: distributions and normalising flows in JAX. https://github.com/danielward27/flowjax
M. Welandawe, M. R. Andersen, A. Vehtari, J. H. Huggins (2024). A framework for improving the reliability of
black-box variational inference. JMLR 25. (Section 7.2, Figs 10, C.17, C.18.)
"""
from __future__ import annotations

from typing import NamedTuple

import equinox as eqx
import jax
import jax.numpy as jnp
import paramax
from flowjax.bijections import Permute
from flowjax.distributions import StandardNormal
from flowjax.flows import coupling_flow
from jax.flatten_util import ravel_pytree

from lsvi.core.bbvi.families import Family


class FlowFamily(NamedTuple):
    """The `Family` (flat λ), the initial λ⁽⁰⁾ (P,) and ``to_flow`` λ -> the flowjax distribution."""

    family: Family
    init: jnp.ndarray
    to_flow: callable


def _is_static_leaf(x) -> bool:
    return isinstance(x, paramax.NonTrainable)


def realnvp(d: int, key, flow_layers: int = 3, nn_width: int = 8, nn_depth: int = 2,
            zero_init: bool = True, alternate: bool = True) -> FlowFamily:
    """Real NVP on R^d (d ≥ 2): flowjax `coupling_flow` with an affine transformer, as a flat-λ family."""
    if d < 2:
        raise ValueError("a coupling flow needs d >= 2")
    flow = coupling_flow(key, base_dist=StandardNormal((d,)), flow_layers=flow_layers, nn_width=nn_width,
                         nn_depth=nn_depth, invert=False)
    if alternate and d > 2:  # d = 2: flowjax already alternates (Flip)
        perm = lambda f: f.bijection.bijection.bijections[1]  # noqa: E731  (stacked over the layers)
        assert isinstance(perm(flow), Permute)
        rev = tuple(jnp.broadcast_to(jnp.arange(d)[::-1], a.shape) for a in perm(flow).permutation)
        flow = eqx.tree_at(lambda f: (perm(f).permutation, perm(f).inverse_permutation), flow, (rev, rev))
    if zero_init:
        last = lambda f: f.bijection.bijection.bijections[0].conditioner.layers[-1]  # noqa: E731
        layer = last(flow)
        flow = eqx.tree_at(lambda f: (last(f).weight, last(f).bias), flow,
                           (jnp.zeros_like(layer.weight), jnp.zeros_like(layer.bias)))
    params, static = eqx.partition(flow, eqx.is_inexact_array, is_leaf=_is_static_leaf)
    lam0, unravel = ravel_pytree(params)

    def to_flow(lam):
        return paramax.unwrap(eqx.combine(unravel(lam), static))

    def sample_and_log_density(lam, z):
        f = to_flow(lam)
        theta, logdet = jax.vmap(f.bijection.transform_and_log_det)(z)
        logq = jnp.sum(jax.scipy.stats.norm.logpdf(z), axis=-1) - logdet
        return theta, logq

    def sample(lam, z):
        return sample_and_log_density(lam, z)[0]

    fam = Family("realnvp", d, int(lam0.size), sample, None, None, None, sample_and_log_density)
    return FlowFamily(fam, jnp.asarray(lam0, float), to_flow)


def log_density(flow: FlowFamily, lam, theta):
    """log q_λ(θ) (S,) of points θ (S, d), by flowjax's inverse pass (checks `sample_and_log_density`)."""
    return flow.to_flow(lam).log_prob(theta)
