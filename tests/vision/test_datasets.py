"""ember.vision.datasets on small files written here in the real on-disk formats, plus the
offline Digits and MNIST1D datasets and make_grid/save_image."""
import gzip
import os
import pickle
import random

import numpy as np
import pytest
from PIL import Image

import ember
import ember.vision.datasets as D
import ember.vision.transforms as T
from ember.utils.data import DataLoader
from ember.vision.utils import make_grid, save_image

RNG = np.random.default_rng(0)


def write_idx(path, array, compress):
    codes = {np.uint8: 8, np.int32: 12}
    header = bytes([0, 0, codes[array.dtype.type], array.ndim])
    header += b"".join(int(n).to_bytes(4, "big") for n in array.shape)
    payload = header + array.astype(array.dtype.newbyteorder(">")).tobytes()
    opener = gzip.open if compress else open
    with opener(str(path) + (".gz" if compress else ""), "wb") as f:
        f.write(payload)


def make_mnist(root, name="MNIST", n=5, compress=False):
    raw = root / name / "raw"
    raw.mkdir(parents=True)
    images = RNG.integers(0, 256, (n, 28, 28), dtype=np.uint8)
    labels = RNG.integers(0, 10, n).astype(np.uint8)
    for split in ("train", "t10k"):
        write_idx(raw / f"{split}-images-idx3-ubyte", images, compress)
        write_idx(raw / f"{split}-labels-idx1-ubyte", labels, compress)
    return images, labels


@pytest.mark.parametrize("compress", [False, True])
@pytest.mark.parametrize("cls", [D.MNIST, D.FashionMNIST, D.KMNIST])
def test_mnist_family_reads_idx(tmp_path, cls, compress):
    images, labels = make_mnist(tmp_path, cls.__name__, compress=compress)
    ds = cls(str(tmp_path), train=False)
    assert ds.data.dtype == ember.uint8 and tuple(ds.data.shape) == (5, 28, 28)
    assert ds.targets.dtype == ember.int64
    np.testing.assert_array_equal(ds.data.numpy(), images)
    np.testing.assert_array_equal(ds.targets.numpy(), labels)
    img, target = ds[2]
    assert isinstance(img, Image.Image) and img.mode == "L" and target == labels[2]
    assert isinstance(target, int)
    np.testing.assert_array_equal(np.asarray(img), images[2])
    assert len(ds.classes) == 10 and ds.class_to_idx[ds.classes[3]] == 3


def test_mnist_old_attribute_names_warn(tmp_path):
    # MorvanZhou's 401_CNN read train_data.train_data and test_data.test_labels (torchvision
    # keeps them as warning aliases) and ember said 'MNIST' object has no attribute
    make_mnist(tmp_path)
    ds = D.MNIST(str(tmp_path))
    for old, new in [("train_data", "data"), ("test_data", "data"),
                     ("train_labels", "targets"), ("test_labels", "targets")]:
        with pytest.warns(UserWarning, match=f"^{old} has been renamed {new}$"):
            assert getattr(ds, old) is getattr(ds, new)


def test_mnist_transforms_repr_and_loader(tmp_path):
    images, labels = make_mnist(tmp_path)
    tf = T.Compose([T.ToTensor(), T.Normalize((0.1307,), (0.3081,))])
    ds = D.MNIST(str(tmp_path), transform=tf, target_transform=lambda y: y + 100)
    x, y = ds[0]
    assert tuple(x.shape) == (1, 28, 28) and y == labels[0] + 100
    np.testing.assert_allclose(x.numpy()[0], (images[0] / 255 - 0.1307) / 0.3081, atol=1e-5)
    assert repr(ds).startswith(f"Dataset MNIST\n    Number of datapoints: 5\n    Root location: "
                               f"{tmp_path}\n    Split: Train\n    StandardTransform\n"
                               "Transform: Compose(\n")
    batch_x, batch_y = next(iter(DataLoader(ds, batch_size=4)))
    assert tuple(batch_x.shape) == (4, 1, 28, 28) and batch_y.dtype == ember.int64


def test_mnist_missing_files(tmp_path):
    with pytest.raises(RuntimeError, match="Dataset not found. You can use download=True to "
                                           "download it") as info:
        D.MNIST(str(tmp_path))
    assert os.path.join(str(tmp_path), "MNIST", "raw") in str(info.value)
    assert "train-images-idx3-ubyte" in str(info.value)
    with pytest.raises(RuntimeError, match="ember cannot download MNIST") as info:
        D.MNIST(str(tmp_path), download=True)
    assert "https://ossci-datasets.s3.amazonaws.com/mnist/t10k-labels-idx1-ubyte.gz" in \
        str(info.value)


def test_transforms_argument_exclusive():
    with pytest.raises(ValueError, match="Only transforms or transform/target_transform"):
        D.VisionDataset("~", transforms=lambda a, b: (a, b), transform=T.ToTensor())
    assert D.VisionDataset("~/data").root == os.path.expanduser("~/data")


def write_cifar(root, folder, batches, meta_name, meta_key, label_key, n=4):
    path = root / folder
    path.mkdir()
    rows = {}
    for name in batches:
        data = RNG.integers(0, 256, (n, 3072), dtype=np.uint8)
        labels = RNG.integers(0, 10, n).tolist()
        with open(path / name, "wb") as f:
            pickle.dump({"data": data, label_key: labels}, f)
        rows[name] = (data, labels)
    with open(path / meta_name, "wb") as f:
        pickle.dump({meta_key: [f"class{i}" for i in range(10)]}, f)
    return rows


def test_cifar10(tmp_path):
    names = [f"data_batch_{i}" for i in range(1, 6)] + ["test_batch"]
    rows = write_cifar(tmp_path, "cifar-10-batches-py", names, "batches.meta", "label_names",
                       "labels")
    train = D.CIFAR10(str(tmp_path))
    assert train.data.shape == (20, 32, 32, 3) and train.data.dtype == np.uint8
    assert train.targets == sum((rows[n][1] for n in names[:5]), [])
    first = rows["data_batch_1"][0][0]
    np.testing.assert_array_equal(train.data[0, :, :, 1], first[1024:2048].reshape(32, 32))
    img, target = train[0]
    assert img.mode == "RGB" and img.size == (32, 32) and target == rows["data_batch_1"][1][0]
    test = D.CIFAR10(str(tmp_path), train=False)
    assert len(test) == 4 and test.classes[2] == "class2" and test.class_to_idx["class9"] == 9


def test_cifar100_and_missing(tmp_path):
    rows = write_cifar(tmp_path, "cifar-100-python", ["train", "test"], "meta",
                       "fine_label_names", "fine_labels")
    ds = D.CIFAR100(str(tmp_path), train=False, transform=T.ToTensor())
    assert ds.targets == rows["test"][1] and tuple(ds[1][0].shape) == (3, 32, 32)
    with pytest.raises(RuntimeError, match="Dataset not found or corrupted. You can use "
                                           "download=True"):
        D.CIFAR10(str(tmp_path))
    with pytest.raises(RuntimeError, match="cifar-10-python.tar.gz"):
        D.CIFAR10(str(tmp_path), download=True)


def make_tree(root):
    for cls, count in (("dog", 2), ("cat", 3)):
        (root / cls).mkdir()
        for i in range(count):
            Image.fromarray(np.full((4, 5, 3), i * 10, np.uint8)).save(root / cls / f"{i}.png")
    (root / "cat" / "notes.txt").write_text("not an image")


def test_image_folder(tmp_path):
    make_tree(tmp_path)
    ds = D.ImageFolder(str(tmp_path), transform=T.ToTensor())
    assert ds.classes == ["cat", "dog"] and ds.class_to_idx == {"cat": 0, "dog": 1}
    assert ds.targets == [0, 0, 0, 1, 1] and ds.imgs is ds.samples
    assert ds.samples[3] == (os.path.join(str(tmp_path), "dog", "0.png"), 1)
    x, y = ds[4]
    assert tuple(x.shape) == (3, 4, 5) and y == 1
    np.testing.assert_allclose(x.numpy(), 10 / 255, atol=1e-6)


def test_dataset_folder_options(tmp_path):
    make_tree(tmp_path)
    ds = D.DatasetFolder(str(tmp_path), loader=lambda p: p, extensions=(".txt",),
                         allow_empty=True)
    assert len(ds) == 1 and ds[0][0].endswith("notes.txt")
    with pytest.raises(FileNotFoundError, match="Found no valid file for the classes dog"):
        D.DatasetFolder(str(tmp_path), loader=lambda p: p, extensions=(".txt",))
    only_zero = D.ImageFolder(str(tmp_path), is_valid_file=lambda p: p.endswith("0.png"))
    assert [t for _, t in only_zero.samples] == [0, 1]
    with pytest.raises(ValueError, match="Both extensions and is_valid_file cannot be None"):
        D.DatasetFolder(str(tmp_path), loader=lambda p: p)
    with pytest.raises(FileNotFoundError, match="Couldn't find any class folder"):
        D.ImageFolder(str(tmp_path / "dog"))


def test_fake_data_deterministic_per_index():
    ds = D.FakeData(size=3, image_size=(3, 6, 5), num_classes=4, transform=T.PILToTensor())
    ember.manual_seed(123)
    expected_next = ember.rand(1).item()
    ember.manual_seed(123)
    a, ya = ds[1]
    b, yb = ds[1]
    assert ember.rand(1).item() == expected_next  # global random state untouched
    assert (a == b).all() and ya == yb and 0 <= ya < 4 and tuple(a.shape) == (3, 6, 5)
    assert not (ds[0][0] == a).all()
    with pytest.raises(IndexError, match="FakeData index out of range"):
        ds[3]
    assert repr(ds).splitlines()[:2] == ["Dataset FakeData", "    Number of datapoints: 3"]


def test_digits():
    from sklearn.datasets import load_digits
    train, test = D.Digits(), D.Digits(train=False)
    assert len(train) == 1437 and len(test) == 360
    assert train.data.dtype == ember.uint8 and int(train.data.max().item()) == 16
    full = load_digits()
    both = np.concatenate([train.data.numpy(), test.data.numpy()]).reshape(1797, -1)
    assert sorted(map(bytes, both)) == sorted(map(bytes, full.images.astype(np.uint8)
                                                  .reshape(1797, -1)))
    x, y = train[0]
    assert x.dtype == ember.float32 and tuple(x.shape) == (1, 8, 8)
    np.testing.assert_allclose(x.numpy()[0], train.data.numpy()[0] / 16)
    assert y == int(train.targets[0].item())
    assert D.Digits(transform=lambda v: v * 2)[0][0].max().item() <= 2.0


def test_mnist1d_matches_generator():
    from mnist1d.data import get_dataset_args, make_dataset
    np.random.seed(5)
    random.seed(5)
    before = np.random.random(), random.random()
    np.random.seed(5)
    random.seed(5)
    train, test = D.MNIST1D(), D.MNIST1D(train=False)
    assert (np.random.random(), random.random()) == before  # global state restored
    reference = make_dataset(get_dataset_args())
    assert len(train) == 4000 and len(test) == 1000
    np.testing.assert_allclose(test.data.numpy(), reference["x_test"], rtol=1e-6)
    np.testing.assert_array_equal(train.targets.numpy(), reference["y"])
    x, y = train[7]
    assert tuple(x.shape) == (1, 40) and x.dtype == ember.float32 and y == reference["y"][7]


def test_make_grid_layout():
    batch = ember.arange(1.0, 6.0).reshape(5, 1, 1, 1).expand(5, 3, 2, 2).contiguous()
    grid = make_grid(batch, nrow=2, padding=1, pad_value=-1)
    assert tuple(grid.shape) == (3, 3 * 3 + 1, 2 * 3 + 1)
    g = grid.numpy()[0]
    assert (g[1:3, 1:3] == 1).all() and (g[1:3, 4:6] == 2).all() and (g[7:9, 1:3] == 5).all()
    assert (g[0] == -1).all() and (g[7:9, 4:6] == -1).all()
    single = make_grid(ember.zeros(1, 4, 4))
    assert tuple(single.shape) == (3, 4, 4)  # one gray image: three channels, no padding
    with pytest.raises(TypeError, match="tensor or list of tensors expected, got"):
        make_grid(np.zeros((2, 3, 4, 4)))


def test_make_grid_normalize():
    batch = ember.tensor([[[[0.0, 2.0]]], [[[4.0, 8.0]]]])
    whole = make_grid(batch, normalize=True, padding=0).numpy()[0]
    np.testing.assert_allclose(whole, [[0, 0.25, 0.5, 1.0]])
    each = make_grid(batch, normalize=True, scale_each=True, padding=0).numpy()[0]
    np.testing.assert_allclose(each, [[0, 1, 0, 1]])
    ranged = make_grid(batch, normalize=True, value_range=(0, 4), padding=0).numpy()[0]
    np.testing.assert_allclose(ranged, [[0, 0.5, 1, 1]])


def test_save_image(tmp_path):
    x = ember.tensor(RNG.random((2, 3, 4, 4)).astype(np.float32))
    path = tmp_path / "grid.png"
    save_image(x, str(path), padding=0)
    saved = np.asarray(Image.open(path))
    expected = np.clip(make_grid(x, padding=0).numpy() * 255 + 0.5, 0, 255).astype(np.uint8)
    np.testing.assert_array_equal(saved, expected.transpose(1, 2, 0))
