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
from .constraint_registry import biject_to, transform_to
from .continuous_bernoulli import ContinuousBernoulli
from .dirichlet import Dirichlet
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .exponential import Exponential
from .fishersnedecor import FisherSnedecor
from .gamma import Gamma
from .generalized_pareto import GeneralizedPareto
from .geometric import Geometric
from .gumbel import Gumbel
from .half_cauchy import HalfCauchy
from .half_normal import HalfNormal
from .independent import Independent
from .inverse_gamma import InverseGamma
from .kl import kl_divergence, register_kl
from .kumaraswamy import Kumaraswamy
from .laplace import Laplace
from .lkj_cholesky import LKJCholesky
from .logistic_normal import LogisticNormal
from .log_normal import LogNormal
from .lowrank_multivariate_normal import LowRankMultivariateNormal
from .mixture_same_family import MixtureSameFamily
from .multinomial import Multinomial
from .multivariate_normal import MultivariateNormal
from .negative_binomial import NegativeBinomial
from .normal import Normal
from .one_hot_categorical import OneHotCategorical, OneHotCategoricalStraightThrough
from .pareto import Pareto
from .poisson import Poisson
from .relaxed_bernoulli import RelaxedBernoulli
from .relaxed_categorical import RelaxedOneHotCategorical
from .studentT import StudentT
from .transformed_distribution import TransformedDistribution
from .transforms import *  # noqa: F401,F403
from .uniform import Uniform
from .von_mises import VonMises
from .weibull import Weibull

__all__ = [
    "Bernoulli", "Beta", "Binomial", "Categorical", "Cauchy", "Chi2", "ContinuousBernoulli",
    "Dirichlet", "Distribution", "Exponential", "ExponentialFamily", "FisherSnedecor",
    "Gamma", "GeneralizedPareto", "Geometric", "Gumbel", "HalfCauchy", "HalfNormal",
    "Independent", "InverseGamma", "Kumaraswamy", "LKJCholesky", "Laplace", "LogNormal",
    "LogisticNormal", "LowRankMultivariateNormal", "MixtureSameFamily", "Multinomial",
    "MultivariateNormal", "NegativeBinomial", "Normal", "OneHotCategorical",
    "OneHotCategoricalStraightThrough", "Pareto", "Poisson", "RelaxedBernoulli",
    "RelaxedOneHotCategorical", "StudentT", "TransformedDistribution", "Uniform",
    "VonMises", "Weibull", "biject_to", "kl_divergence", "register_kl", "transform_to",
]
__all__.extend(transforms.__all__)
