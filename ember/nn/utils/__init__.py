"""ember.nn.utils: gradient clipping, parameter/vector conversion, weight and spectral
normalization, packed sequences (rnn), conv/linear + BatchNorm fusion, functional calls."""
from .clip_grad import (clip_grad_norm, clip_grad_norm_, clip_grad_value_,  # noqa: F401
                        clip_grads_with_norm_, get_total_norm)
from .convert_parameters import parameters_to_vector, vector_to_parameters  # noqa: F401
from .init import skip_init  # noqa: F401
from . import fusion, parametrizations, parametrize, prune, rnn, stateless  # noqa: F401
from .fusion import (fuse_conv_bn_eval, fuse_conv_bn_weights, fuse_linear_bn_eval,  # noqa: F401
                     fuse_linear_bn_weights)
from .weight_norm import remove_weight_norm, weight_norm  # noqa: F401
from .spectral_norm import remove_spectral_norm, spectral_norm  # noqa: F401
