"""torchvision.datasets.samplers.clip_sampler: not implemented in ember; the names import and
raise NotImplementedError naming themselves when used."""
from ... import _unavailable

__all__ = ["DistributedSampler", "UniformClipSampler", "RandomClipSampler"]
globals().update(_unavailable.stand_ins(__name__, __all__))
