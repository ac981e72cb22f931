"""KL divergence KL(p || q) between two distributions, dispatched on their types.

`register_kl(P, Q)` adds an implementation for p of type P (or a subclass) and q of
type Q. `kl_divergence` picks the most specific registered pair, comparing how far
up each class hierarchy the match lies.
"""
from __future__ import annotations

import math
import warnings

import ember
from ember import Tensor
from ember.nn.functional import softplus

from .bernoulli import Bernoulli
from .beta import Beta
from .binomial import Binomial
from .categorical import Categorical
from .cauchy import Cauchy
from .continuous_bernoulli import ContinuousBernoulli
from .dirichlet import Dirichlet
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .exponential import Exponential
from .gamma import Gamma
from .geometric import Geometric
from .gumbel import Gumbel
from .half_normal import HalfNormal
from .independent import Independent
from .laplace import Laplace
from .lowrank_multivariate_normal import (LowRankMultivariateNormal, _lowrank_logdet,
                                          _lowrank_mahalanobis)
from .multivariate_normal import MultivariateNormal, _batch_mahalanobis, _half_log_det
from .normal import Normal
from .one_hot_categorical import OneHotCategorical
from .pareto import Pareto
from .poisson import Poisson
from .transformed_distribution import TransformedDistribution
from .uniform import Uniform
from .utils import _sum_rightmost

__all__ = ["kl_divergence", "register_kl"]

_KL_REGISTRY: dict = {}   # (type_p, type_q) -> function(p, q)
_KL_MEMOIZE: dict = {}    # (type(p), type(q)) -> chosen function, cleared on registration


def register_kl(type_p: type, type_q: type):
    """Decorator registering a pairwise KL implementation:

        @register_kl(Normal, Normal)
        def kl_normal_normal(p, q): ...
    """
    if not isinstance(type_p, type) or not issubclass(type_p, Distribution):
        raise TypeError(f"Expected type_p to be a Distribution subclass but got {type_p}")
    if not isinstance(type_q, type) or not issubclass(type_q, Distribution):
        raise TypeError(f"Expected type_q to be a Distribution subclass but got {type_q}")

    def decorator(fun):
        _KL_REGISTRY[type_p, type_q] = fun
        _KL_MEMOIZE.clear()
        return fun

    return decorator


def _dispatch_kl(type_p: type, type_q: type):
    """The registered function for the closest (super_p, super_q) pair, or None."""
    matches = [(super_p, super_q) for super_p, super_q in _KL_REGISTRY
               if issubclass(type_p, super_p) and issubclass(type_q, super_q)]
    if not matches:
        return None

    def distances(pair):
        super_p, super_q = pair
        return type_p.__mro__.index(super_p), type_q.__mro__.index(super_q)

    # Most specific in p first, and most specific in q first; they should agree.
    left = min(matches, key=distances)
    right = min(matches, key=lambda pair: distances(pair)[::-1])
    left_fun, right_fun = _KL_REGISTRY[left], _KL_REGISTRY[right]
    if left_fun is not right_fun:
        warnings.warn(f"Ambiguous kl_divergence({type_p.__name__}, {type_q.__name__}). "
                      f"Please register_kl({left[0].__name__}, {right[1].__name__})",
                      RuntimeWarning)
    return left_fun


def kl_divergence(p: Distribution, q: Distribution) -> Tensor:
    """KL(p || q) = E_p[log p(x) - log q(x)], batched over the distributions' batch shape."""
    key = type(p), type(q)
    if key not in _KL_MEMOIZE:
        _KL_MEMOIZE[key] = _dispatch_kl(*key)
    fun = _KL_MEMOIZE[key]
    if fun is None:
        raise NotImplementedError(f"No KL(p || q) is implemented for p type "
                                  f"{p.__class__.__name__} and q type {q.__class__.__name__}")
    return fun(p, q)


def _infinite_where(condition: Tensor, values: Tensor) -> Tensor:
    return ember.where(condition, float("inf"), values)


@register_kl(Bernoulli, Bernoulli)
def _kl_bernoulli_bernoulli(p: Bernoulli, q: Bernoulli) -> Tensor:
    # p log(p/q) and (1-p) log((1-p)/(1-q)) via softplus of the logits; 0 log 0 = 0,
    # and mass where q has none makes the divergence infinite.
    heads = p.probs * (softplus(-q.logits) - softplus(-p.logits))
    heads = ember.where(p.probs == 0, 0.0, _infinite_where(q.probs == 0, heads))
    tails = (1 - p.probs) * (softplus(q.logits) - softplus(p.logits))
    tails = ember.where(p.probs == 1, 0.0, _infinite_where(q.probs == 1, tails))
    return heads + tails


@register_kl(Beta, Beta)
def _kl_beta_beta(p: Beta, q: Beta) -> Tensor:
    sum_p = p.concentration1 + p.concentration0
    sum_q = q.concentration1 + q.concentration0
    t1 = q.concentration1.lgamma() + q.concentration0.lgamma() + sum_p.lgamma()
    t2 = p.concentration1.lgamma() + p.concentration0.lgamma() + sum_q.lgamma()
    t3 = (p.concentration1 - q.concentration1) * ember.digamma(p.concentration1)
    t4 = (p.concentration0 - q.concentration0) * ember.digamma(p.concentration0)
    t5 = (sum_q - sum_p) * ember.digamma(sum_p)
    return t1 - t2 + t3 + t4 + t5


@register_kl(Binomial, Binomial)
def _kl_binomial_binomial(p: Binomial, q: Binomial) -> Tensor:
    if (p.total_count < q.total_count).any():
        raise NotImplementedError("KL between Binomials where q.total_count > p.total_count "
                                  "is not implemented")
    kl = p.total_count * (p.probs * (p.logits - q.logits) + (-p.probs).log1p()
                          - (-q.probs).log1p())
    # p can reach counts that q cannot.
    return _infinite_where(p.total_count > q.total_count, kl)


@register_kl(Categorical, Categorical)
def _kl_categorical_categorical(p: Categorical, q: Categorical) -> Tensor:
    terms = p.probs * (p.logits - q.logits)
    terms = _infinite_where((q.probs == 0).expand_as(terms), terms)
    terms = ember.where((p.probs == 0).expand_as(terms), 0.0, terms)
    return terms.sum(-1)


@register_kl(OneHotCategorical, OneHotCategorical)
def _kl_onehotcategorical_onehotcategorical(p: OneHotCategorical,
                                            q: OneHotCategorical) -> Tensor:
    return _kl_categorical_categorical(p._categorical, q._categorical)


@register_kl(Dirichlet, Dirichlet)
def _kl_dirichlet_dirichlet(p: Dirichlet, q: Dirichlet) -> Tensor:
    sum_p = p.concentration.sum(-1)
    sum_q = q.concentration.sum(-1)
    t1 = sum_p.lgamma() - sum_q.lgamma()
    t2 = (p.concentration.lgamma() - q.concentration.lgamma()).sum(-1)
    t3 = p.concentration - q.concentration
    t4 = p.concentration.digamma() - sum_p.digamma().unsqueeze(-1)
    return t1 - t2 + (t3 * t4).sum(-1)


@register_kl(Exponential, Exponential)
def _kl_exponential_exponential(p: Exponential, q: Exponential) -> Tensor:
    rate_ratio = q.rate / p.rate
    return -rate_ratio.log() + rate_ratio - 1


@register_kl(Gamma, Gamma)
def _kl_gamma_gamma(p: Gamma, q: Gamma) -> Tensor:
    t1 = q.concentration * ember.log(p.rate / q.rate)
    t2 = ember.lgamma(q.concentration) - ember.lgamma(p.concentration)
    t3 = (p.concentration - q.concentration) * ember.digamma(p.concentration)
    t4 = (q.rate - p.rate) * (p.concentration / p.rate)
    return t1 + t2 + t3 + t4


@register_kl(Laplace, Laplace)
def _kl_laplace_laplace(p: Laplace, q: Laplace) -> Tensor:
    scale_ratio = p.scale / q.scale
    loc_abs_diff = (p.loc - q.loc).abs()
    t1 = -scale_ratio.log()
    t2 = loc_abs_diff / q.scale
    t3 = scale_ratio * ember.exp(-loc_abs_diff / p.scale)
    return t1 + t2 + t3 - 1


@register_kl(MultivariateNormal, MultivariateNormal)
def _kl_multivariatenormal_multivariatenormal(p: MultivariateNormal,
                                              q: MultivariateNormal) -> Tensor:
    if p.event_shape != q.event_shape:
        raise ValueError("KL-divergence between two Multivariate Normals with "
                         "different event shapes cannot be computed")
    p_tril, q_tril = p._unbroadcasted_scale_tril, q._unbroadcasted_scale_tril
    half_log_det_ratio = _half_log_det(q_tril) - _half_log_det(p_tril)
    n = p.event_shape[0]
    batch_shape = ember.broadcast_shapes(q_tril.shape[:-2], p_tril.shape[:-2])
    # trace(Sigma_q^-1 Sigma_p) = |L_q^-1 L_p|_F^2
    ratio = ember.linalg.solve_triangular(q_tril.expand(batch_shape + (n, n)),
                                          p_tril.expand(batch_shape + (n, n)), upper=False)
    trace_term = ratio.pow(2).sum((-2, -1))
    mahalanobis = _batch_mahalanobis(q_tril, q.loc - p.loc)
    return half_log_det_ratio + 0.5 * (trace_term + mahalanobis - n)


@register_kl(Normal, Normal)
def _kl_normal_normal(p: Normal, q: Normal) -> Tensor:
    var_ratio = (p.scale / q.scale).pow(2)
    t1 = ((p.loc - q.loc) / q.scale).pow(2)
    return 0.5 * (var_ratio + t1 - 1 - var_ratio.log())


@register_kl(Poisson, Poisson)
def _kl_poisson_poisson(p: Poisson, q: Poisson) -> Tensor:
    return p.rate * (p.rate.log() - q.rate.log()) - (p.rate - q.rate)


@register_kl(TransformedDistribution, TransformedDistribution)
def _kl_transformed_transformed(p: TransformedDistribution,
                                q: TransformedDistribution) -> Tensor:
    # A shared bijection leaves the KL unchanged, so compare the base distributions.
    if p.transforms != q.transforms:
        raise NotImplementedError("KL divergence between TransformedDistributions with "
                                  "different transforms is not implemented")
    if p.event_shape != q.event_shape:
        raise NotImplementedError("KL divergence between TransformedDistributions with "
                                  "different event shapes is not implemented")
    return kl_divergence(p.base_dist, q.base_dist)


@register_kl(Uniform, Uniform)
def _kl_uniform_uniform(p: Uniform, q: Uniform) -> Tensor:
    result = ((q.high - q.low) / (p.high - p.low)).log()
    return _infinite_where((q.low > p.low) | (q.high < p.high), result)


@register_kl(Independent, Independent)
def _kl_independent_independent(p: Independent, q: Independent) -> Tensor:
    if p.reinterpreted_batch_ndims != q.reinterpreted_batch_ndims:
        raise NotImplementedError("KL divergence between Independent distributions with "
                                  "different reinterpreted_batch_ndims is not implemented")
    result = kl_divergence(p.base_dist, q.base_dist)
    return _sum_rightmost(result, p.reinterpreted_batch_ndims)


# ------------------------------------------------------------------ different families
# KL(p || q) = -H(p) - E_p[log q(X)], and E_p[log q(X)] needs only a few moments of p.

_EULER_GAMMA = 0.57721566490153286061


def _second_moment(p: Distribution) -> Tensor:
    """E_p[X^2]."""
    return p.variance + p.mean.pow(2)


def _uniform_mean_x_log_x(low: Tensor, high: Tensor) -> Tensor:
    """E[log X] for X ~ Uniform(low, high) with low >= 0: the mean of d/dx (x log x - x)."""
    return (ember.xlogy(high, high) - ember.xlogy(low, low)) / (high - low) - 1


def _expected_log(p: Distribution) -> Tensor:
    """E_p[log X] for p a Beta, Exponential, Gamma or Uniform (on nonnegative values)."""
    if isinstance(p, Beta):
        return ember.digamma(p.concentration1) - ember.digamma(p.concentration1
                                                               + p.concentration0)
    if isinstance(p, Exponential):
        return -_EULER_GAMMA - p.rate.log()
    if isinstance(p, Gamma):
        return ember.digamma(p.concentration) - p.rate.log()
    return _uniform_mean_x_log_x(p.low, p.high)     # Uniform


@register_kl(Beta, Normal)
@register_kl(Exponential, Normal)
@register_kl(Gamma, Normal)
@register_kl(Laplace, Normal)
@register_kl(Uniform, Normal)
def _kl_to_normal(p: Distribution, q: Normal) -> Tensor:
    var = q.scale.pow(2)
    squared_distance = _second_moment(p) - 2 * q.loc * p.mean + q.loc.pow(2)
    expected_log_q = -0.5 * (2 * math.pi * var).log() - squared_distance / (2 * var)
    return -p.entropy() - expected_log_q


@register_kl(Beta, Exponential)
@register_kl(Gamma, Exponential)
def _kl_to_exponential(p: Distribution, q: Exponential) -> Tensor:
    return -p.entropy() - (q.rate.log() - q.rate * p.mean)


@register_kl(Beta, Gamma)
@register_kl(Exponential, Gamma)
def _kl_to_gamma(p: Distribution, q: Gamma) -> Tensor:
    expected_log_q = (q.concentration * q.rate.log() - q.concentration.lgamma()
                      + (q.concentration - 1) * _expected_log(p) - q.rate * p.mean)
    return -p.entropy() - expected_log_q


@register_kl(Uniform, Exponential)
def _kl_uniform_exponential(p: Uniform, q: Exponential) -> Tensor:
    return _infinite_where(p.low < 0, _kl_to_exponential(p, q))


@register_kl(Uniform, Gamma)
def _kl_uniform_gamma(p: Uniform, q: Gamma) -> Tensor:
    return _infinite_where(p.low < 0, _kl_to_gamma(p, q))


@register_kl(Uniform, Beta)
def _kl_uniform_beta(p: Uniform, q: Beta) -> Tensor:
    a, b = q.concentration1, q.concentration0
    expected_log_x = _uniform_mean_x_log_x(p.low, p.high)
    expected_log_1mx = _uniform_mean_x_log_x(1 - p.high, 1 - p.low)
    expected_log_q = ((a - 1) * expected_log_x + (b - 1) * expected_log_1mx
                      - (a.lgamma() + b.lgamma() - (a + b).lgamma()))
    return _infinite_where((p.high > 1) | (p.low < 0), -p.entropy() - expected_log_q)


@register_kl(Beta, Uniform)
def _kl_beta_uniform(p: Beta, q: Uniform) -> Tensor:
    result = -p.entropy() + (q.high - q.low).log()
    return _infinite_where((q.low > 0) | (q.high < 1), result)


@register_kl(Normal, Laplace)
def _kl_normal_laplace(p: Normal, q: Laplace) -> Tensor:
    # E|X - m| for X ~ N(mu, sigma^2), the mean of a folded normal.
    loc_diff = p.loc - q.loc
    mean_abs_diff = (math.sqrt(2 / math.pi) * p.scale
                     * ember.exp(-0.5 * (loc_diff / p.scale).pow(2))
                     + loc_diff * ember.erf(loc_diff / (math.sqrt(2) * p.scale)))
    return -p.entropy() + (2 * q.scale).log() + mean_abs_diff / q.scale


@register_kl(Bernoulli, Poisson)
def _kl_bernoulli_poisson(p: Bernoulli, q: Poisson) -> Tensor:
    return -p.entropy() - (p.probs * q.rate.log() - q.rate)


@register_kl(Exponential, Beta)
@register_kl(Exponential, Uniform)
@register_kl(Gamma, Beta)
@register_kl(Gamma, Uniform)
@register_kl(Laplace, Beta)
@register_kl(Laplace, Exponential)
@register_kl(Laplace, Gamma)
@register_kl(Laplace, Uniform)
@register_kl(Normal, Beta)
@register_kl(Normal, Exponential)
@register_kl(Normal, Gamma)
@register_kl(Normal, Uniform)
@register_kl(Poisson, Bernoulli)
@register_kl(Poisson, Binomial)
def _kl_infinity(p: Distribution, q: Distribution) -> Tensor:
    """p puts mass where q has none: infinite, shaped like p's parameters."""
    return ember.full_like(p.mean, float("inf"))


# ------------------------------------------------------------------ Cauchy, Geometric,
# Gumbel, HalfNormal and Pareto

@register_kl(Cauchy, Cauchy)
def _kl_cauchy_cauchy(p: Cauchy, q: Cauchy) -> Tensor:
    # Chyzak & Nielsen (2019): log(((s_p + s_q)^2 + (m_p - m_q)^2) / (4 s_p s_q)).
    t1 = ((p.scale + q.scale).pow(2) + (p.loc - q.loc).pow(2)).log()
    return t1 - (4 * p.scale * q.scale).log()


@register_kl(Geometric, Geometric)
def _kl_geometric_geometric(p: Geometric, q: Geometric) -> Tensor:
    # E_p[log q(X)] = E_p[X] log(1 - q) + log q, with E_p[X] = (1 - p) / p.
    return -p.entropy() - ember.log1p(-q.probs) / p.probs - q.logits


@register_kl(HalfNormal, HalfNormal)
def _kl_halfnormal_halfnormal(p: HalfNormal, q: HalfNormal) -> Tensor:
    # Folding both at zero changes neither density ratio nor its expectation.
    return _kl_normal_normal(p.base_dist, q.base_dist)


@register_kl(Gumbel, Gumbel)
def _kl_gumbel_gumbel(p: Gumbel, q: Gumbel) -> Tensor:
    scale_ratio = p.scale / q.scale
    loc_term = (p.loc - q.loc) / q.scale
    t1 = -scale_ratio.log() + loc_term + scale_ratio * _EULER_GAMMA
    t2 = ember.exp((1 + scale_ratio).lgamma() - loc_term)
    return t1 + t2 - (1 + _EULER_GAMMA)


def _expected_gumbel_log_density(q: Gumbel, mean: Tensor, centred_mgf: Tensor) -> Tensor:
    """E_p[log q(X)] for a Gumbel q, from E_p[X] and E_p[exp(-(X - q.loc) / q.scale)]."""
    return -(mean - q.loc) / q.scale - centred_mgf - q.scale.log()


@register_kl(Exponential, Gumbel)
def _kl_exponential_gumbel(p: Exponential, q: Gumbel) -> Tensor:
    # E[exp(-X / s)] for X ~ Exponential(rate) is rate s / (rate s + 1).
    rate_scale = p.rate * q.scale
    centred_mgf = ember.exp(q.loc / q.scale) * rate_scale / (rate_scale + 1)
    return -p.entropy() - _expected_gumbel_log_density(q, p.mean, centred_mgf)


@register_kl(Gamma, Gumbel)
def _kl_gamma_gumbel(p: Gamma, q: Gumbel) -> Tensor:
    # E[exp(-X / s)] for X ~ Gamma(a, b) is (1 + 1 / (b s))^-a.
    mgf = (1 + (p.rate * q.scale).reciprocal()).pow(-p.concentration)
    centred_mgf = ember.exp(q.loc / q.scale) * mgf
    return -p.entropy() - _expected_gumbel_log_density(q, p.mean, centred_mgf)


@register_kl(Normal, Gumbel)
def _kl_normal_gumbel(p: Normal, q: Gumbel) -> Tensor:
    # E[exp(-Y)] for Y ~ Normal(m, v) is exp(-m + v / 2).
    centred_mgf = ember.exp(-(p.loc - q.loc) / q.scale + 0.5 * (p.scale / q.scale).pow(2))
    return -p.entropy() - _expected_gumbel_log_density(q, p.loc, centred_mgf)


@register_kl(Uniform, Gumbel)
def _kl_uniform_gumbel(p: Uniform, q: Gumbel) -> Tensor:
    # E[exp(-X / s)] for X ~ Uniform(l, h) is s (e^(-l/s) - e^(-h/s)) / (h - l).
    low, high = (p.low - q.loc) / q.scale, (p.high - q.loc) / q.scale
    centred_mgf = q.scale * (ember.exp(-low) - ember.exp(-high)) / (p.high - p.low)
    return -p.entropy() - _expected_gumbel_log_density(q, p.mean, centred_mgf)


@register_kl(Pareto, Pareto)
def _kl_pareto_pareto(p: Pareto, q: Pareto) -> Tensor:
    scale_ratio = p.scale / q.scale
    alpha_ratio = q.alpha / p.alpha
    result = q.alpha * scale_ratio.log() - alpha_ratio.log() + alpha_ratio - 1
    # p puts mass below q's lower bound.
    return _infinite_where(p.scale < q.scale, result)


def _pareto_moments(p: Pareto) -> tuple:
    """E_p[log X], E_p[X] and Var_p(X), the last two as formulas that are only meaningful
    for alpha > 1 and alpha > 2 (callers mark the rest infinite)."""
    mean = p.alpha * p.scale / (p.alpha - 1)
    variance = p.scale.pow(2) * p.alpha / ((p.alpha - 1).pow(2) * (p.alpha - 2))
    return p.scale.log() + p.alpha.reciprocal(), mean, variance


@register_kl(Pareto, Exponential)
def _kl_pareto_exponential(p: Pareto, q: Exponential) -> Tensor:
    _, mean, _ = _pareto_moments(p)
    result = -p.entropy() - q.rate.log() + q.rate * mean
    return _infinite_where(p.alpha <= 1, result)     # the mean is infinite


@register_kl(Pareto, Gamma)
def _kl_pareto_gamma(p: Pareto, q: Gamma) -> Tensor:
    expected_log, mean, _ = _pareto_moments(p)
    expected_log_q = (q.concentration * q.rate.log() - q.concentration.lgamma()
                      + (q.concentration - 1) * expected_log - q.rate * mean)
    return _infinite_where(p.alpha <= 1, -p.entropy() - expected_log_q)


@register_kl(Pareto, Normal)
def _kl_pareto_normal(p: Pareto, q: Normal) -> Tensor:
    _, mean, variance = _pareto_moments(p)
    squared_distance = variance + (mean - q.loc).pow(2)
    expected_log_q = (-0.5 * (2 * math.pi * q.scale.pow(2)).log()
                      - squared_distance / (2 * q.scale.pow(2)))
    return _infinite_where(p.alpha <= 2, -p.entropy() - expected_log_q)   # infinite E[X^2]


@register_kl(Uniform, Pareto)
def _kl_uniform_pareto(p: Uniform, q: Pareto) -> Tensor:
    # log q(x) = log alpha + alpha log scale - (alpha + 1) log x.
    expected_log_q = (q.alpha.log() + q.alpha * q.scale.log()
                      - (q.alpha + 1) * _uniform_mean_x_log_x(p.low, p.high))
    return _infinite_where(p.low < q.scale, -p.entropy() - expected_log_q)


register_kl(Gumbel, Normal)(_kl_to_normal)
for _p, _q in [(Beta, Pareto), (Exponential, Pareto), (Gamma, Pareto), (Gumbel, Beta),
               (Gumbel, Exponential), (Gumbel, Gamma), (Gumbel, Pareto), (Gumbel, Uniform),
               (Laplace, Pareto), (Normal, Pareto), (Pareto, Beta), (Pareto, Uniform)]:
    register_kl(_p, _q)(_kl_infinity)


# ------------------------------------------------------------------ ExponentialFamily,
# ContinuousBernoulli and LowRankMultivariateNormal


@register_kl(ExponentialFamily, ExponentialFamily)
def _kl_expfamily_expfamily(p: ExponentialFamily, q: ExponentialFamily) -> Tensor:
    """The Bregman divergence of the log normaliser F between the natural parameters:
    F(theta_q) - F(theta_p) - <theta_q - theta_p, grad F(theta_p)>."""
    if type(p) is not type(q):
        raise NotImplementedError("The cross KL-divergence between different exponential "
                                  "families cannot be computed using Bregman divergences")
    p_params = [param.detach().requires_grad_() for param in p._natural_params]
    q_params = q._natural_params
    p_log_normalizer = p._log_normalizer(*p_params)
    gradients = ember.autograd.grad(p_log_normalizer.sum(), p_params, create_graph=True)
    result = q._log_normalizer(*q_params) - p_log_normalizer
    for p_param, q_param, gradient in zip(p_params, q_params, gradients):
        result = result - _sum_rightmost((q_param - p_param) * gradient, len(q.event_shape))
    return result


def _expected_log_continuous_bernoulli(mean: Tensor, q: ContinuousBernoulli) -> Tensor:
    """E_p[log q(X)] for q continuous Bernoulli: log q(x) = x logit_q + log(1 - p_q) + log C."""
    return mean * q.logits + ember.log1p(-q.probs) + q._cont_bern_log_norm()


@register_kl(ContinuousBernoulli, ContinuousBernoulli)
@register_kl(Beta, ContinuousBernoulli)
def _kl_to_continuous_bernoulli(p: Distribution, q: ContinuousBernoulli) -> Tensor:
    return -p.entropy() - _expected_log_continuous_bernoulli(p.mean, q)


@register_kl(Uniform, ContinuousBernoulli)
def _kl_uniform_continuous_bernoulli(p: Uniform, q: ContinuousBernoulli) -> Tensor:
    # torch also answers inf when the interval only touches 0 or 1 (a null set); here only
    # an interval reaching outside [0, 1] gives inf.
    return _infinite_where((p.high > 1) | (p.low < 0), _kl_to_continuous_bernoulli(p, q))


@register_kl(ContinuousBernoulli, Uniform)
def _kl_continuous_bernoulli_uniform(p: ContinuousBernoulli, q: Uniform) -> Tensor:
    # Infinite unless [0, 1] lies inside q's support (torch is inclusive at the ends, see above).
    return _infinite_where((q.low > 0) | (q.high < 1), -p.entropy() + (q.high - q.low).log())


register_kl(ContinuousBernoulli, Exponential)(_kl_to_exponential)
register_kl(ContinuousBernoulli, Normal)(_kl_to_normal)
for _p, _q in [(ContinuousBernoulli, Pareto), (Exponential, ContinuousBernoulli),
               (Gamma, ContinuousBernoulli), (Gumbel, ContinuousBernoulli),
               (Laplace, ContinuousBernoulli), (Normal, ContinuousBernoulli),
               (Pareto, ContinuousBernoulli)]:
    register_kl(_p, _q)(_kl_infinity)


def _check_same_event(p: Distribution, q: Distribution, what: str) -> None:
    if p.event_shape != q.event_shape:
        raise ValueError(f"KL-divergence between two {what} with different event shapes "
                         "cannot be computed")


def _frobenius2(matrix: Tensor) -> Tensor:
    """Squared Frobenius norm of each matrix in a batch: trace(M M.T)."""
    return matrix.pow(2).sum((-2, -1))


def _gaussian_kl(log_det_ratio: Tensor, trace: Tensor, mahalanobis: Tensor, n: int) -> Tensor:
    """KL between Gaussians from log(det Sq / det Sp), trace(Sq^-1 Sp) and the squared
    Mahalanobis distance of the means under Sq."""
    return 0.5 * (log_det_ratio + trace + mahalanobis - n)


def _lowrank_inverse_terms(q: LowRankMultivariateNormal):
    """Sq^-1 = D^-1 - A.T A (Woodbury): returns D^-1/2 (as a column) and A."""
    wt_dinv = q._unbroadcasted_cov_factor.mT / q._unbroadcasted_cov_diag.unsqueeze(-2)
    a = ember.linalg.solve_triangular(q._capacitance_tril, wt_dinv, upper=False)
    return q._unbroadcasted_cov_diag.rsqrt().unsqueeze(-1), a


def _lowrank_log_det(p: LowRankMultivariateNormal) -> Tensor:
    return _lowrank_logdet(p._unbroadcasted_cov_diag, p._capacitance_tril)


def _lowrank_mahalanobis_of_means(p: Distribution, q: LowRankMultivariateNormal) -> Tensor:
    return _lowrank_mahalanobis(q._unbroadcasted_cov_factor, q._unbroadcasted_cov_diag,
                                q.loc - p.loc, q._capacitance_tril)


@register_kl(LowRankMultivariateNormal, LowRankMultivariateNormal)
def _kl_lowrank_lowrank(p: LowRankMultivariateNormal, q: LowRankMultivariateNormal) -> Tensor:
    _check_same_event(p, q, "Low Rank Multivariate Normals")
    q_dinv_sqrt, a = _lowrank_inverse_terms(q)
    p_factor, p_diag = p._unbroadcasted_cov_factor, p._unbroadcasted_cov_diag
    # trace((D^-1 - A.T A)(Wp Wp.T + Dp)), never forming an n x n matrix.
    trace = ((p_diag / q._unbroadcasted_cov_diag).sum(-1) + _frobenius2(p_factor * q_dinv_sqrt)
             - _frobenius2(a * p_diag.sqrt().unsqueeze(-2)) - _frobenius2(a @ p_factor))
    return _gaussian_kl(_lowrank_log_det(q) - _lowrank_log_det(p), trace,
                        _lowrank_mahalanobis_of_means(p, q), p.event_shape[0])


@register_kl(MultivariateNormal, LowRankMultivariateNormal)
def _kl_multivariatenormal_lowrank(p: MultivariateNormal,
                                   q: LowRankMultivariateNormal) -> Tensor:
    _check_same_event(p, q, "(Low Rank) Multivariate Normals")
    q_dinv_sqrt, a = _lowrank_inverse_terms(q)
    p_tril = p._unbroadcasted_scale_tril
    trace = _frobenius2(p_tril * q_dinv_sqrt) - _frobenius2(a @ p_tril)
    return _gaussian_kl(_lowrank_log_det(q) - 2 * _half_log_det(p_tril), trace,
                        _lowrank_mahalanobis_of_means(p, q), p.event_shape[0])


@register_kl(LowRankMultivariateNormal, MultivariateNormal)
def _kl_lowrank_multivariatenormal(p: LowRankMultivariateNormal,
                                   q: MultivariateNormal) -> Tensor:
    _check_same_event(p, q, "(Low Rank) Multivariate Normals")
    n = p.event_shape[0]
    q_tril = q._unbroadcasted_scale_tril
    p_factor = p._unbroadcasted_cov_factor
    batch_shape = ember.broadcast_shapes(q_tril.shape[:-2], p_factor.shape[:-2])
    q_tril = q_tril.expand(batch_shape + (n, n))
    # trace(Sq^-1 (Wp Wp.T + Dp)) = |Lq^-1 Wp|^2 + |Lq^-1 Dp^1/2|^2.
    p_diag_sqrt = ember.diag_embed(p._unbroadcasted_cov_diag.sqrt()).expand(batch_shape + (n, n))
    factor_part = ember.linalg.solve_triangular(
        q_tril, p_factor.expand(batch_shape + p_factor.shape[-2:]), upper=False)
    diag_part = ember.linalg.solve_triangular(q_tril, p_diag_sqrt, upper=False)
    trace = _frobenius2(factor_part) + _frobenius2(diag_part)
    return _gaussian_kl(2 * _half_log_det(q_tril) - _lowrank_log_det(p), trace,
                        _batch_mahalanobis(q._unbroadcasted_scale_tril, q.loc - p.loc), n)
