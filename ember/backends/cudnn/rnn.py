"""torch.backends.cudnn.rnn: the fp32 precision of cuDNN's recurrent kernels (recorded only;
ember's RNNs compute in full float32). torch's cuDNN dropout-state helpers have no use
without cuDNN and are left out."""
from __future__ import annotations

from .. import _install_flags, _precision_flag

_install_flags(__name__, fp32_precision=_precision_flag("cuda", "tf32"))
