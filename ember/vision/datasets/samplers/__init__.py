"""torchvision.datasets.samplers: the video clip samplers (not implemented in ember)."""
from .clip_sampler import DistributedSampler, RandomClipSampler, UniformClipSampler  # noqa: F401
