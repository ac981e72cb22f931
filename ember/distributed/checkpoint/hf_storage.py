"""torch.distributed.checkpoint.hf_storage: DCP readers/writers of Hugging Face safetensors
folders; not available in ember (see the package docstring)."""
from __future__ import annotations

from ..device_mesh import unsupported

__all__ = ["HuggingFaceStorageReader", "HuggingFaceStorageWriter"]


class HuggingFaceStorageReader:
    def __init__(self, path, *args, **kwargs):
        unsupported("HuggingFaceStorageReader")


class HuggingFaceStorageWriter:
    def __init__(self, path, *args, **kwargs):
        unsupported("HuggingFaceStorageWriter")
