"""ember.optim: optimizers, learning-rate schedulers and weight averaging (torch.optim)."""
from . import lr_scheduler  # noqa: F401
from .adadelta import Adadelta
from .adafactor import Adafactor
from .adagrad import Adagrad
from .adam import Adam
from .adamax import Adamax
from .adamw import AdamW
from .asgd import ASGD
from .lbfgs import LBFGS
from .muon import Muon
from .nadam import NAdam
from .optimizer import Optimizer
from .radam import RAdam
from .rmsprop import RMSprop
from .rprop import Rprop
from .sgd import SGD
from .sparse_adam import SparseAdam
from .._naming import set_public_module

# torch keeps these two in private files and names them torch.optim.<name>.
set_public_module(__name__, Adafactor, Muon)

__all__ = ["ASGD", "Adadelta", "Adafactor", "Adagrad", "Adam", "AdamW", "Adamax", "LBFGS",
           "Muon", "NAdam", "Optimizer", "RAdam", "RMSprop", "Rprop", "SGD", "SparseAdam",
           "lr_scheduler", "swa_utils"]


def __getattr__(name: str):
    # swa_utils builds on ember.nn, which imports later than ember.optim: load it on first use.
    if name == "swa_utils":
        import importlib
        return importlib.import_module(".swa_utils", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
