"""ember.vision.datasets: torchvision's datasets read from their usual files (ember never
downloads), plus Digits and MNIST1D, small real datasets available offline. The datasets
ember does not implement import and raise NotImplementedError naming themselves."""
from ..tv_tensors._dataset_wrapper import wrap_dataset_for_transforms_v2  # noqa: F401
from ._optical_flow import FlyingChairs, FlyingThings3D, HD1K, KittiFlow, Sintel  # noqa: F401
from ._stereo_matching import (CarlaStereo, CREStereo, ETH3DStereo,  # noqa: F401
                               FallingThingsStereo, InStereo2k, Kitti2012Stereo,
                               Kitti2015Stereo, Middlebury2014Stereo, SceneFlowStereo,
                               SintelStereo)
from .caltech import Caltech101, Caltech256  # noqa: F401
from .celeba import CelebA  # noqa: F401
from .cityscapes import Cityscapes  # noqa: F401
from .clevr import CLEVRClassification  # noqa: F401
from .coco import CocoCaptions, CocoDetection  # noqa: F401
from .country211 import Country211  # noqa: F401
from .dtd import DTD  # noqa: F401
from .eurosat import EuroSAT  # noqa: F401
from .fer2013 import FER2013  # noqa: F401
from .fgvc_aircraft import FGVCAircraft  # noqa: F401
from .flickr import Flickr30k, Flickr8k  # noqa: F401
from .flowers102 import Flowers102  # noqa: F401
from .food101 import Food101  # noqa: F401
from .gtsrb import GTSRB  # noqa: F401
from .hmdb51 import HMDB51  # noqa: F401
from .imagenet import ImageNet  # noqa: F401
from .imagenette import Imagenette  # noqa: F401
from .inaturalist import INaturalist  # noqa: F401
from .kinetics import Kinetics  # noqa: F401
from .kitti import Kitti  # noqa: F401
from .lfw import LFWPairs, LFWPeople  # noqa: F401
from .lsun import LSUN, LSUNClass  # noqa: F401
from .moving_mnist import MovingMNIST  # noqa: F401
from .omniglot import Omniglot  # noqa: F401
from .oxford_iiit_pet import OxfordIIITPet  # noqa: F401
from .pcam import PCAM  # noqa: F401
from .phototour import PhotoTour  # noqa: F401
from .places365 import Places365  # noqa: F401
from .rendered_sst2 import RenderedSST2  # noqa: F401
from .sbd import SBDataset  # noqa: F401
from .sbu import SBU  # noqa: F401
from .semeion import SEMEION  # noqa: F401
from .stanford_cars import StanfordCars  # noqa: F401
from .stl10 import STL10  # noqa: F401
from .sun397 import SUN397  # noqa: F401
from .svhn import SVHN  # noqa: F401
from .ucf101 import UCF101  # noqa: F401
from .usps import USPS  # noqa: F401
from .voc import VOCDetection, VOCSegmentation  # noqa: F401
from .widerface import WIDERFace  # noqa: F401
from .cifar import CIFAR10, CIFAR100
from .digits import Digits
from .fakedata import FakeData
from .folder import DatasetFolder, ImageFolder
from .mnist import EMNIST, KMNIST, MNIST, QMNIST, FashionMNIST  # noqa: F401
from .mnist1d import MNIST1D
from .vision import StandardTransform, VisionDataset

__all__ = ["VisionDataset", "StandardTransform", "MNIST", "FashionMNIST", "KMNIST", "CIFAR10",
           "CIFAR100", "DatasetFolder", "ImageFolder", "FakeData", "Digits", "MNIST1D"]
