"""ember.vision.datasets: torchvision's datasets read from their usual files (ember never
downloads), plus Digits and MNIST1D, small real datasets available offline."""
from .cifar import CIFAR10, CIFAR100
from .digits import Digits
from .fakedata import FakeData
from .folder import DatasetFolder, ImageFolder
from .mnist import KMNIST, MNIST, FashionMNIST
from .mnist1d import MNIST1D
from .vision import StandardTransform, VisionDataset

__all__ = ["VisionDataset", "StandardTransform", "MNIST", "FashionMNIST", "KMNIST", "CIFAR10",
           "CIFAR100", "DatasetFolder", "ImageFolder", "FakeData", "Digits", "MNIST1D"]
