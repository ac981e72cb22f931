"""ember.onnx: export models to ONNX by tracing (torch.onnx's TorchScript-style exporter).

`onnx` is an optional dependency (`pip install ember[onnx]`), imported only when
`export` runs, so `import ember` works without it.
"""
from ._export import OperatorExportTypes, TrainingMode, export, is_in_onnx_export

__all__ = ["export", "is_in_onnx_export", "TrainingMode", "OperatorExportTypes"]
