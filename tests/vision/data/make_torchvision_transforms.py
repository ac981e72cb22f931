"""Write torchvision_transforms.npz, the reference tests/vision/test_transforms_augment.py
compares ember's augmentation transforms with.

Each case is a Python expression giving a callable (a transform, or a lambda around a
functional), the name of an input image, a seed and a number of calls. The script seeds
torch, calls the callable on the image that many times, and saves every output (equal
outputs once) and a SHA-256 of torch's generator state afterwards; the test evaluates the
same expression with ember's T and F and must give the same arrays and the same generator
state. Needs
torch and torchvision (0.29 for the committed file):
python make_torchvision_transforms.py
"""
import hashlib
import json
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "torchvision_transforms.npz")


def images() -> dict:
    """The small fixed inputs, as arrays: CHW tensors, HWC for the PIL images."""
    rng = np.random.default_rng(0)
    u8 = rng.integers(0, 256, (3, 12, 16), dtype=np.uint8)
    u8[:, :4, :5] = 7  # a flat patch, so equalize and autocontrast see repeated levels
    return {
        "u8": u8,
        "f32": rng.random((3, 12, 16)).astype(np.float32),
        "u8_batch": rng.integers(0, 256, (2, 3, 12, 16), dtype=np.uint8),
        "f32_batch": rng.random((2, 1, 12, 16)).astype(np.float32),
        "gray": (rng.integers(40, 200, (1, 12, 16))).astype(np.uint8),
        "pil_rgb": u8.transpose(1, 2, 0).copy(),
        "pil_l": rng.integers(0, 256, (12, 16), dtype=np.uint8),
    }


ALL = ["u8", "f32", "u8_batch", "f32_batch", "gray", "pil_rgb", "pil_l"]
UINT8 = ["u8", "u8_batch", "gray", "pil_rgb", "pil_l"]

# (expression, inputs, seeds, calls per seed)
CASES = [
    ("lambda img: F.invert(img)", ALL, [0], 1),
    ("lambda img: F.posterize(img, 3)", UINT8, [0], 1),
    ("lambda img: F.posterize(img, 0)", ["u8"], [0], 1),
    ("lambda img: F.solarize(img, 128)", UINT8, [0], 1),
    ("lambda img: F.solarize(img, 0.4)", ["f32", "f32_batch"], [0], 1),
    ("lambda img: F.adjust_sharpness(img, 0.3)", ALL, [0], 1),
    ("lambda img: F.adjust_sharpness(img, 2.5)", ALL, [0], 1),
    ("lambda img: F.autocontrast(img)", ALL, [0], 1),
    ("lambda img: F.autocontrast(img[..., :1, :, :] * 0 + img[..., :1, :1, :1])",
     ["u8", "f32"], [0], 1),
    ("lambda img: F.equalize(img)", ["u8", "u8_batch", "gray", "pil_rgb", "pil_l"], [0], 1),
    ("lambda img: F.adjust_gamma(img, 0.5)", ALL, [0], 1),
    ("lambda img: F.adjust_gamma(img, 2.2, gain=1.3)", ALL, [0], 1),
    ("lambda img: F.adjust_saturation(img, 0.37)", ["u8_batch"], [0], 1),
    ("T.RandomInvert()", ["u8", "pil_rgb"], [0, 1], 4),
    ("T.RandomPosterize(bits=2, p=0.7)", ["u8_batch", "pil_l"], [0, 5], 4),
    ("T.RandomSolarize(threshold=100, p=0.4)", ["u8", "pil_rgb"], [2], 4),
    ("T.RandomAdjustSharpness(sharpness_factor=3.0)", ["f32", "pil_rgb"], [0, 3], 3),
    ("T.RandomAutocontrast(p=0.6)", ["f32_batch", "pil_l"], [1], 4),
    ("T.RandomEqualize()", ["u8", "pil_rgb"], [4], 4),
    # geometry
    ("lambda img: F.affine(img, 30.0, [2, -1], 1.2, [10.0, -5.0])", ALL, [0], 1),
    ("lambda img: F.affine(img, -45, (0, 3), 0.8, 15, InterpolationMode.BILINEAR, fill=[9])",
     ALL, [0], 1),
    ("lambda img: F.affine(img, 90.0, [0, 0], 1.0, [0.0], center=[3, 4], fill=50)",
     ["u8", "f32_batch", "pil_rgb"], [0], 1),
    ("lambda img: F.affine(img, 12.5, [1, 1], 1.1, 0.0, InterpolationMode.BILINEAR, "
     "fill=[10, 20, 30])", ["u8", "u8_batch", "pil_rgb"], [0], 1),
    ("lambda img: F.rotate(img, 33.0)", ["u8", "f32", "u8_batch"], [0], 1),
    ("lambda img: F.rotate(img, -20.0, InterpolationMode.BILINEAR, expand=True, fill=[5.0])",
     ["u8", "f32_batch"], [0], 1),
    ("lambda img: F.rotate(img, 90.0, center=[5, 3])", ["u8", "f32"], [0], 1),
    ("T.RandomAffine(25)", ["u8", "pil_rgb"], [0, 1], 2),
    ("T.RandomAffine((-10, 40), translate=(0.2, 0.1), scale=(0.7, 1.3), shear=8, "
     "interpolation=InterpolationMode.BILINEAR, fill=3)", ["u8", "f32", "pil_rgb"], [2], 3),
    ("T.RandomAffine(0, shear=(-5, 5, -10, 10), center=(4, 6))", ["u8_batch", "pil_l"], [3],
     2),
    ("T.RandomRotation(40, InterpolationMode.BILINEAR, expand=True, fill=(1, 2, 3))",
     ["u8", "f32"], [0], 2),
    ("lambda img: F.perspective(img, [[0, 0], [15, 0], [15, 11], [0, 11]], "
     "[[2, 1], [13, 0], [15, 9], [1, 11]])", ALL, [0], 1),
    ("lambda img: F.perspective(img, [[1, 2], [14, 0], [15, 11], [0, 10]], "
     "[[0, 0], [15, 0], [15, 11], [0, 11]], InterpolationMode.NEAREST, fill=[60])",
     ["u8", "f32_batch", "pil_l"], [0], 1),
    ("T.RandomPerspective(0.6, p=0.7, fill=(9, 8, 7))", ["u8", "f32", "pil_rgb"], [0, 1], 3),
    ("T.RandomPerspective(interpolation=InterpolationMode.NEAREST)", ["u8_batch", "pil_l"],
     [2], 3),
    ("T.FiveCrop((5, 7))", ["u8_batch", "pil_rgb"], [0], 1),
    ("T.TenCrop(6)", ["f32", "pil_l"], [0], 1),
    ("T.TenCrop((4, 9), vertical_flip=True)", ["u8"], [0], 1),
    ("T.LinearTransformation(torch.eye(192) * 0.5 + 0.01, torch.full((192,), 0.2))",
     ["f32_batch"], [0], 1),
    ("T.ElasticTransform(alpha=5.0, sigma=1.0)", ["f32", "u8", "pil_rgb"], [0], 2),
    ("T.ElasticTransform(alpha=(8.0, 3.0), sigma=(0.7, 1.3), fill=5,"
     " interpolation=InterpolationMode.NEAREST)", ["u8_batch", "f32_batch"], [1], 2),
    # auto-augment policies
    ("T.AutoAugment()", ["u8", "pil_rgb"], [0], 10),
    ("T.AutoAugment(T.AutoAugmentPolicy.CIFAR10, fill=[40, 50, 60])", ["u8_batch"], [1], 6),
    ("T.AutoAugment(T.AutoAugmentPolicy.SVHN, InterpolationMode.BILINEAR, fill=7)",
     ["pil_rgb", "gray"], [2], 8),
    ("T.RandAugment()", ["u8", "pil_rgb"], [0], 10),
    ("T.RandAugment(3, 20, interpolation=InterpolationMode.BILINEAR, fill=[128])",
     ["u8_batch", "pil_l"], [3], 5),
    ("T.TrivialAugmentWide()", ["u8", "pil_rgb"], [0], 10),
    ("T.TrivialAugmentWide(11, InterpolationMode.BILINEAR, fill=[1, 2, 3])", ["u8_batch"],
     [4], 6),
    ("T.AugMix()", ["u8", "pil_rgb"], [0], 4),
    ("T.AugMix(severity=7, mixture_width=2, chain_depth=2, alpha=0.5, all_ops=False, "
     "interpolation=InterpolationMode.NEAREST, fill=[20])", ["u8_batch", "pil_l"], [1], 3),
]


def as_input(name: str, array: np.ndarray, torch, to_pil):
    if name.startswith("pil"):
        return to_pil(array)
    return torch.from_numpy(array.copy())


def as_array(out) -> np.ndarray:
    if isinstance(out, (tuple, list)):
        return np.stack([as_array(o) for o in out])
    return out.numpy() if hasattr(out, "numpy") else np.asarray(out)


def store(arrays: dict, array: np.ndarray) -> str:
    """Save array under a name made from its contents (equal outputs are stored once)."""
    digest = hashlib.sha256(array.tobytes() + str((array.dtype, array.shape)).encode())
    name = "out_" + digest.hexdigest()[:16]
    arrays[name] = array
    return name


def state_digest(state: np.ndarray) -> str:
    return hashlib.sha256(np.ascontiguousarray(state).tobytes()).hexdigest()


def main() -> None:
    import torch
    import torchvision.transforms as T
    import torchvision.transforms.functional as F
    from PIL import Image
    from torchvision.transforms import InterpolationMode

    namespace = {"T": T, "F": F, "InterpolationMode": InterpolationMode, "torch": torch}
    inputs = images()
    arrays = {f"input_{name}": array for name, array in inputs.items()}
    cases = []
    for expression, names, seeds, calls in CASES:
        for name in names:
            for seed in seeds:
                key = f"case{len(cases)}"
                torch.manual_seed(seed)
                transform = eval(expression, namespace)
                img = as_input(name, inputs[name], torch, Image.fromarray)
                outputs = [store(arrays, as_array(transform(img))) for _ in range(calls)]
                cases.append({"key": key, "expression": expression, "input": name,
                              "seed": seed, "outputs": outputs,
                              "state": state_digest(torch.get_rng_state().numpy())})
    arrays["cases"] = np.array(json.dumps(cases))
    np.savez_compressed(OUT, **arrays)
    print(f"{len(cases)} cases, {os.path.getsize(OUT)} bytes -> {OUT}")


if __name__ == "__main__":
    main()
