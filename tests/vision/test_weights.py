"""The `*_Weights` enums, the model registry and the legacy `pretrained=` interface
(ember/vision/models/_api.py, _utils.py) and the ImageClassification preset
(transforms/_presets.py). The metadata, URLs and preset parameters were compared entry by
entry with torchvision 0.29.1; these tests pin what torchvision documents."""
import copy
import math
import pickle
import warnings

import numpy as np
import pytest
from PIL import Image

import ember
import ember.vision.models as M
from ember.vision.models import video
from ember.vision.transforms import InterpolationMode
from ember.vision.transforms._presets import ImageClassification
from tests.vision.torch_reference import assert_close_to_preset, classification_preset


@pytest.fixture
def hub(tmp_path, monkeypatch):
    """An empty hub cache: <tmp_path>/hub/checkpoints."""
    monkeypatch.setenv("TORCH_HOME", str(tmp_path))
    monkeypatch.setattr(ember.hub, "_hub_dir", None)
    checkpoints = tmp_path / "hub" / "checkpoints"
    checkpoints.mkdir(parents=True)
    return checkpoints


@pytest.fixture(scope="module")
def squeezenet_checkpoint(tmp_path_factory):
    """A squeezenet1_1 state_dict saved under the file name of its torchvision URL."""
    ember.manual_seed(0)
    state = M.squeezenet1_1().state_dict()
    path = tmp_path_factory.mktemp("checkpoint") / "squeezenet1_1-b8a52dc0.pth"
    ember.save(state, path)
    return path, state


def test_enum_members_and_default():
    weights = M.ResNet50_Weights
    assert list(weights.__members__) == ["IMAGENET1K_V1", "IMAGENET1K_V2", "DEFAULT"]
    assert weights.DEFAULT is weights.IMAGENET1K_V2
    assert list(weights) == [weights.IMAGENET1K_V1, weights.IMAGENET1K_V2]
    assert repr(weights.DEFAULT) == "ResNet50_Weights.IMAGENET1K_V2"
    assert weights.IMAGENET1K_V1.url == "https://download.pytorch.org/models/resnet50-0676ba61.pth"
    assert isinstance(weights.DEFAULT.value, M.Weights)
    assert M.ViT_H_14_Weights.DEFAULT is M.ViT_H_14_Weights.IMAGENET1K_SWAG_E2E_V1


def test_meta_as_torchvision_documents():
    meta = M.ResNet18_Weights.IMAGENET1K_V1.meta
    assert meta["num_params"] == 11_689_512 and meta["min_size"] == (1, 1)
    assert meta["_metrics"] == {"ImageNet-1K": {"acc@1": 69.758, "acc@5": 89.078}}
    assert meta["_ops"] == 1.814 and meta["_file_size"] == 44.661
    assert meta["recipe"].endswith("references/classification#resnet")
    assert meta["_docs"].startswith("These weights reproduce closely the results of the paper")
    categories = meta["categories"]
    assert len(categories) == 1000 and categories[:2] == ["tench", "goldfish"]
    assert categories[-1] == "toilet tissue"
    swag = M.ViT_B_16_Weights.IMAGENET1K_SWAG_E2E_V1.meta
    assert swag["license"].endswith("SWAG/blob/main/LICENSE")
    features = M.VGG16_Weights.IMAGENET1K_FEATURES.meta
    assert features["categories"] is None
    assert math.isnan(features["_metrics"]["ImageNet-1K"]["acc@1"])


def test_every_builder_matches_its_weights_num_params(fast_init):
    # meta["num_params"] is torchvision's published count for the architecture
    for name in M.list_models():
        # the entries of one enum differ in size only for ViT's larger SWAG images
        entries = {entry.meta["num_params"]: entry for entry in M.get_model_weights(name)}
        for entry in entries.values():
            if entry.meta["num_params"] > 100_000_000:
                continue
            kwargs = {"image_size": entry.meta["min_size"][0]} if name.startswith("vit") else {}
            model = M.get_model(name, **kwargs)
            assert sum(p.numel() for p in model.parameters()) == entry.meta["num_params"], \
                (name, entry)


def test_transforms_preset_repr_and_parameters():
    preset = M.ResNet18_Weights.DEFAULT.transforms()
    assert isinstance(preset, ImageClassification)
    assert repr(preset) == ("ImageClassification(\n    crop_size=[224]\n    resize_size=[256]\n"
                            "    mean=[0.485, 0.456, 0.406]\n    std=[0.229, 0.224, 0.225]\n"
                            "    interpolation=InterpolationMode.BILINEAR\n)")
    assert M.ResNet50_Weights.IMAGENET1K_V2.transforms().resize_size == [232]
    b3 = M.EfficientNet_B3_Weights.DEFAULT.transforms()
    assert (b3.crop_size, b3.resize_size, b3.interpolation) == \
        ([300], [320], InterpolationMode.BICUBIC)
    features = M.VGG16_Weights.IMAGENET1K_FEATURES.transforms()
    assert features.mean == [0.48235, 0.45882, 0.40784] and features.std[0] == 1 / 255
    assert "followed by a central crop of ``crop_size=[224]``" in preset.describe()


def test_image_classification_on_tensor_matches_torch():
    image = np.random.default_rng(0).integers(0, 256, (3, 300, 400), dtype=np.uint8)
    out = ImageClassification(crop_size=224)(ember.from_numpy(image))
    assert out.dtype == ember.float32 and tuple(out.shape) == (3, 224, 224)
    assert_close_to_preset(out.numpy(), classification_preset(image, (256, 341), 224))


def test_image_classification_on_pil_image():
    image = Image.fromarray(np.random.default_rng(1).integers(0, 256, (40, 60, 3), np.uint8))
    out = M.EfficientNet_B0_Weights.DEFAULT.transforms()(image)
    assert tuple(out.shape) == (3, 224, 224) and out.dtype == ember.float32


def test_verify():
    weights = M.ResNet18_Weights
    assert weights.verify(None) is None
    assert weights.verify("DEFAULT") is weights.IMAGENET1K_V1
    assert weights.verify("ResNet18_Weights.IMAGENET1K_V1") is weights.IMAGENET1K_V1
    with pytest.raises(TypeError, match="Invalid Weight class provided; expected ResNet18_Weights "
                                        "but received ResNet34_Weights."):
        weights.verify(M.ResNet34_Weights.DEFAULT)
    with pytest.raises(KeyError):
        weights.verify("IMAGENET1K_V9")


def test_members_survive_copy_and_pickle():
    member = M.MobileNet_V3_Large_Weights.DEFAULT
    assert copy.deepcopy(member) is member
    assert pickle.loads(pickle.dumps(member)) is member


def test_missing_checkpoint_fails_offline_with_where_to_put_it(hub):
    with pytest.raises(FileNotFoundError, match=r"SqueezeNet1_1_Weights.IMAGENET1K_V1: the "
                                                r"pretrained weights are not available offline"
                       ) as info:
        M.squeezenet1_1(weights="DEFAULT")
    message = str(info.value)
    assert str(hub / "squeezenet1_1-b8a52dc0.pth") in message
    assert "https://download.pytorch.org/models/squeezenet1_1-b8a52dc0.pth" in message
    assert not list(hub.iterdir())  # nothing was downloaded or created


def test_weights_load_from_the_hub_cache(hub, squeezenet_checkpoint):
    path, state = squeezenet_checkpoint
    (hub / path.name).write_bytes(path.read_bytes())
    for weights in ("DEFAULT", M.SqueezeNet1_1_Weights.IMAGENET1K_V1):
        model = M.squeezenet1_1(weights=weights)
        for key, value in model.state_dict().items():
            np.testing.assert_array_equal(value.numpy(), state[key].numpy())
    loaded = M.get_model("squeezenet1_1", weights="SqueezeNet1_1_Weights.DEFAULT")
    np.testing.assert_array_equal(loaded.features[0].weight.detach().numpy(),
                                  state["features.0.weight"].numpy())
    direct = M.SqueezeNet1_1_Weights.DEFAULT.get_state_dict(progress=False)
    assert list(direct) == list(state)


def test_weights_from_another_folder(tmp_path, squeezenet_checkpoint):
    path, state = squeezenet_checkpoint
    got = M.SqueezeNet1_1_Weights.DEFAULT.get_state_dict(model_dir=str(path.parent))
    assert list(got) == list(state)


def test_weights_fix_num_classes(hub, squeezenet_checkpoint):
    with pytest.raises(ValueError, match="The parameter 'num_classes' expected value 1000 but "
                                         "got 10 instead."):
        M.squeezenet1_1(weights="DEFAULT", num_classes=10)
    with pytest.raises(ValueError, match="The parameter 'groups' expected value 32 but got 8"):
        M.resnext50_32x4d(groups=8)


def test_legacy_pretrained_true_maps_to_the_legacy_weights(hub, squeezenet_checkpoint):
    path, state = squeezenet_checkpoint
    (hub / path.name).write_bytes(path.read_bytes())
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = M.squeezenet1_1(pretrained=True)
    messages = [str(w.message) for w in caught]
    assert messages == [
        "The parameter 'pretrained' is deprecated since 0.13 and may be removed in the future, "
        "please use 'weights' instead.",
        "Arguments other than a weight enum or `None` for 'weights' are deprecated since 0.13 "
        "and may be removed in the future. The current behavior is equivalent to passing "
        "`weights=SqueezeNet1_1_Weights.IMAGENET1K_V1`. You can also use "
        "`weights=SqueezeNet1_1_Weights.DEFAULT` to get the most up-to-date weights."]
    np.testing.assert_array_equal(model.classifier[1].bias.detach().numpy(),
                                  state["classifier.1.bias"].numpy())


def test_legacy_pretrained_false_and_positional(fast_init):
    with pytest.warns(UserWarning, match=r"equivalent to passing `weights=None`\.$"):
        model = M.resnet18(pretrained=False, num_classes=3)
    assert model.fc.out_features == 3
    with pytest.warns(UserWarning, match="Using 'weights' as positional parameter"):
        M.mobilenet_v3_small(False)
    # resnet50's legacy weights are V1 although DEFAULT is V2
    with pytest.warns(UserWarning, match="`weights=ResNet50_Weights.IMAGENET1K_V1`"):
        with pytest.raises(FileNotFoundError, match="resnet50-0676ba61.pth"):
            M.resnet50(pretrained=True)
    with pytest.raises(ValueError, match="No weights available for model vit_h_14"):
        M.vit_h_14(pretrained=True)


def test_list_models():
    names = M.list_models()
    assert names == sorted(names) and len(names) == 48
    assert {"resnet18", "mobilenet_v3_large", "vit_b_16", "convnext_tiny",
            "resnext101_64x4d", "efficientnet_v2_s"} <= set(names)
    assert "googlenet" not in names and "fasterrcnn_resnet50_fpn" not in names
    assert M.list_models(include="resnet*", exclude=["*101", "*152"]) == \
        ["resnet18", "resnet34", "resnet50"]
    assert M.list_models(include=["vit_b*", "convnext_t*"]) == \
        ["convnext_tiny", "vit_b_16", "vit_b_32"]
    assert M.list_models(module=M) == names
    assert M.list_models(module=video) == []


def test_registry_lookups():
    assert M.get_model_builder("ResNet18") is M.resnet18
    assert M.get_model_weights("resnet18") is M.ResNet18_Weights
    assert M.get_model_weights(M.vit_b_16) is M.ViT_B_16_Weights
    assert M.get_weight("ResNet50_Weights.IMAGENET1K_V2") is M.ResNet50_Weights.IMAGENET1K_V2
    with pytest.raises(ValueError, match="Unknown model not_a_model"):
        M.get_model("not_a_model")
    with pytest.raises(ValueError, match="Invalid weight name provided: 'resnet'"):
        M.get_weight("resnet")
    with pytest.raises(ValueError, match="The weight enum 'Nope_Weights' for the specific "
                                         "method couldn't be retrieved."):
        M.get_weight("Nope_Weights.DEFAULT")


def test_models_ember_lacks_raise_naming_the_model():
    with pytest.raises(NotImplementedError, match=r"^torchvision.models.googlenet.googlenet is "
                                                  r"not implemented in ember"):
        M.get_model("googlenet")
    with pytest.raises(NotImplementedError, match="models.quantization.resnet.resnet50"):
        M.get_model("quantized_resnet50")
    with pytest.raises(NotImplementedError, match="torchvision.models.swin_transformer.swin_t "):
        M.get_model_weights("swin_t")


def test_weights_of_models_ember_lacks_raise_naming_them():
    with pytest.raises(NotImplementedError, match="detection.faster_rcnn."
                                                  "FasterRCNN_ResNet50_FPN_Weights is not"):
        M.get_weight("FasterRCNN_ResNet50_FPN_Weights.DEFAULT")
    with pytest.raises(NotImplementedError, match="models.regnet.regnet_y_400mf is not"):
        M.get_model_weights(M.regnet_y_400mf)
