"""ember.utils.tensorboard: torch.utils.tensorboard's SummaryWriter for ember.

Needs the optional `tensorboard` package (`pip install ember[tensorboard]`); no TensorFlow.
"""
from .writer import FileWriter, SummaryWriter

__all__ = ["FileWriter", "SummaryWriter"]
