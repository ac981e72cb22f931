"""torch._dynamo._trace_wrapped_higher_order_op: the one name libraries import from it.
transformers imports TransformGetItemToIndex at import time and enters it only to build
attention masks with vmap (not its default path)."""
from ..overrides import TorchFunctionMode

__all__ = ["TransformGetItemToIndex"]


class TransformGetItemToIndex(TorchFunctionMode):
    """torch's mode turning tensor[scalar tensor] into an index op under vmap; a torch
    function mode, so entering it raises NotImplementedError in ember."""
