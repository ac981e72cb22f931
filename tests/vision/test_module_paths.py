"""Every class and function torchvision defines is reachable at the same module path under
ember.vision (pickles and torch.serialization allow-lists name objects by path), and what
ember does not implement imports and raises NotImplementedError naming itself
(ember/vision/_unavailable.py and the stand-in modules). The list of names is
data/torchvision_names.txt, written from torchvision 0.29.1 by make_torchvision_names.py."""
import importlib
import os
import pickle
import subprocess
import sys
import textwrap

import pytest

import ember.vision.models as M

NAMES = os.path.join(os.path.dirname(__file__), "data", "torchvision_names.txt")


def torchvision_names():
    with open(NAMES) as f:
        return [line.split() for line in f if line.strip()]


def test_every_torchvision_name_is_at_its_path():
    missing = []
    for module_name, name in torchvision_names():
        ember_module = "ember.vision" + module_name[len("torchvision"):]
        try:
            module = importlib.import_module(ember_module)
        except ImportError:
            missing.append(f"{module_name} (module)")
            continue
        if not hasattr(module, name):
            missing.append(f"{module_name}.{name}")
    assert not missing, missing
    assert len(torchvision_names()) > 1000


@pytest.mark.parametrize("path,name", [
    ("ember.vision.models.resnet", "ResNet"), ("ember.vision.models.resnet", "Bottleneck"),
    ("ember.vision.models.mobilenetv2", "InvertedResidual"),
    ("ember.vision.models.mobilenetv3", "InvertedResidual"),
    ("ember.vision.models.vision_transformer", "EncoderBlock"),
    ("ember.vision.models.convnext", "LayerNorm2d"),
    ("ember.vision.models.efficientnet", "FusedMBConv"),
    ("ember.vision.ops.misc", "Conv2dNormActivation"),
    ("ember.vision.ops.stochastic_depth", "StochasticDepth"),
    ("ember.vision.transforms.transforms", "Compose"),
    ("ember.vision.transforms._presets", "ImageClassification"),
    ("ember.vision.models._api", "WeightsEnum"), ("ember.vision.io.image", "read_image")])
def test_implemented_classes_live_where_torchvision_defines_them(path, name):
    # defined there (not only re-exported), so pickling writes torchvision's path
    obj = getattr(importlib.import_module(path), name)
    assert obj.__module__ == path


def test_stand_ins_raise_naming_themselves():
    from ember.vision.datasets import CocoDetection
    from ember.vision.models.detection import (FasterRCNN_ResNet50_FPN_Weights,
                                               fasterrcnn_resnet50_fpn)
    from ember.vision.models.detection.faster_rcnn import FastRCNNPredictor
    from ember.vision.tv_tensors import Image
    with pytest.raises(NotImplementedError, match=r"^torchvision.models.detection.faster_rcnn."
                                                  r"fasterrcnn_resnet50_fpn is not implemented"):
        fasterrcnn_resnet50_fpn(weights="DEFAULT")
    with pytest.raises(NotImplementedError, match="FasterRCNN_ResNet50_FPN_Weights"):
        FasterRCNN_ResNet50_FPN_Weights.DEFAULT
    with pytest.raises(NotImplementedError, match="faster_rcnn.FastRCNNPredictor"):
        FastRCNNPredictor(1024, 2)
    with pytest.raises(NotImplementedError, match="torchvision.datasets.coco.CocoDetection"):
        CocoDetection("root", "annotations.json")
    with pytest.raises(NotImplementedError, match="torchvision.tv_tensors._image.Image"):
        Image([1])
    assert FastRCNNPredictor.__module__ == "ember.vision.models.detection.faster_rcnn"
    assert isinstance(object(), FastRCNNPredictor) is False
    assert pickle.loads(pickle.dumps(fasterrcnn_resnet50_fpn)) is fasterrcnn_resnet50_fpn
    assert M.detection.__doc__.startswith("torchvision.models.detection: not implemented")


def test_torchvision_paths_through_the_compat_alias():
    code = """
        import pickle
        import ember.compat
        ember.compat.install()
        import torchvision
        from torchvision.models.detection import fasterrcnn_resnet50_fpn
        from torchvision.models import ResNet18_Weights, get_model
        from torchvision.transforms import v2
        import ember.vision.models.resnet as resnet
        # the GLOBAL opcode a torch pickle of a ResNet block holds
        block = pickle.loads(b"ctorchvision.models.resnet\\nBasicBlock\\n.")
        assert block is resnet.BasicBlock
        weights = pickle.loads(pickle.dumps(ResNet18_Weights.DEFAULT))
        assert weights is resnet.ResNet18_Weights.IMAGENET1K_V1
        try:
            fasterrcnn_resnet50_fpn()
        except NotImplementedError as error:
            print(error)
        print(type(get_model("resnet18", num_classes=3)).__name__, v2.ToImage.__module__)
    """
    result = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        "torchvision.models.detection.faster_rcnn.fasterrcnn_resnet50_fpn is not implemented "
        "in ember", "ResNet ember.vision.transforms.v2._type_conversion"]


def test_backend_functions():
    import ember.vision as vision
    assert vision.get_image_backend() == "PIL" and vision.get_video_backend() == "pyav"
    vision.set_image_backend("PIL")
    vision.set_video_backend("video_reader")
    vision.disable_beta_transforms_warning()
    with pytest.raises(ValueError, match="Invalid backend 'cv2'. Options are 'PIL' and "
                                         "'accimage'"):
        vision.set_image_backend("cv2")
    with pytest.raises(NotImplementedError, match="accimage"):
        vision.set_image_backend("accimage")
