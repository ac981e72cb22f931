"""Probability distributions, torch.distributions' API on ember tensors.

    from ember.distributions import Normal, kl_divergence
    d = Normal(loc, scale)
    loss = -d.log_prob(x).mean()            # differentiable w.r.t. loc and scale
    z = d.rsample((16,))                    # reparameterized: gradients flow to loc, scale

Densities are written with ember's differentiable ops, so gradients (and double
backward) w.r.t. the parameters come from autograd. Sampling draws from ember's
random generator: seeded streams are reproducible but are not torch's numbers.
"""
from . import constraints, transforms  # noqa: F401  (torch.distributions.constraints)
from .bernoulli import Bernoulli
from .beta import Beta
from .binomial import Binomial
from .categorical import Categorical
from .cauchy import Cauchy
from .chi2 import Chi2
from .dirichlet import Dirichlet
from .distribution import Distribution
from .exponential import Exponential
from .gamma import Gamma
from .geometric import Geometric
from .gumbel import Gumbel
from .half_cauchy import HalfCauchy
from .half_normal import HalfNormal
from .independent import Independent
from .kl import kl_divergence, register_kl
from .laplace import Laplace
from .log_normal import LogNormal
from .mixture_same_family import MixtureSameFamily
from .multinomial import Multinomial
from .multivariate_normal import MultivariateNormal
from .negative_binomial import NegativeBinomial
from .normal import Normal
from .one_hot_categorical import OneHotCategorical
from .pareto import Pareto
from .poisson import Poisson
from .relaxed_bernoulli import RelaxedBernoulli
from .relaxed_categorical import RelaxedOneHotCategorical
from .studentT import StudentT
from .transformed_distribution import TransformedDistribution
from .transforms import *  # noqa: F401,F403
from .uniform import Uniform
from .weibull import Weibull

__all__ = [
    "Bernoulli", "Beta", "Binomial", "Categorical", "Cauchy", "Chi2", "Dirichlet",
    "Distribution", "Exponential", "Gamma", "Geometric", "Gumbel", "HalfCauchy", "HalfNormal",
    "Independent", "Laplace", "LogNormal", "MixtureSameFamily", "Multinomial",
    "MultivariateNormal", "NegativeBinomial", "Normal", "OneHotCategorical", "Pareto",
    "Poisson", "RelaxedBernoulli", "RelaxedOneHotCategorical", "StudentT",
    "TransformedDistribution", "Uniform", "Weibull", "kl_divergence", "register_kl",
]
__all__.extend(transforms.__all__)
