"""ember.utils.tensorboard.SummaryWriter: event files read back with TensorBoard's own
EventAccumulator; projector, PR-curve, custom-scalar, mesh, audio, video, box and graph
logging written by torch's SummaryWriter and ember's and compared."""
import glob
import io
import os
import subprocess
import sys
import textwrap
import time
import wave

import numpy as np
import pytest
import torch

import ember

pytest.importorskip("tensorboard")
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator  # noqa
from tensorboard.backend.event_processing.event_file_loader import RawEventFileLoader  # noqa
from tensorboard.compat.proto.event_pb2 import Event  # noqa: E402
from tensorboard.compat.proto.graph_pb2 import GraphDef  # noqa: E402
from tensorboard.util import tensor_util  # noqa: E402
from torch.utils.tensorboard import SummaryWriter as TorchWriter  # noqa: E402

from ember.utils.tensorboard import SummaryWriter  # noqa: E402


def load(path):
    acc = EventAccumulator(str(path), size_guidance={"scalars": 0, "histograms": 0,
                                                     "images": 0, "tensors": 0})
    acc.Reload()
    return acc


def scalars(acc, tag):
    return [(e.step, e.value) for e in acc.Scalars(tag)]


@pytest.mark.parametrize("value", [0.5, 3, np.float32(0.5), np.array(0.5),
                                   ember.tensor(0.5), ember.tensor([0.5])])
def test_scalar_value_kinds(tmp_path, value):
    with SummaryWriter(tmp_path) as w:
        w.add_scalar("Loss/train", value, 7)
    assert scalars(load(tmp_path), "Loss/train") == [(7, pytest.approx(float(value)))]


def test_scalars_steps_and_tags(tmp_path):
    w = SummaryWriter(log_dir=str(tmp_path))
    for step in range(5):
        w.add_scalar("Loss/train", 1.0 / (step + 1), step)
        w.add_scalar("Loss/test", step * 2.0, step, walltime=1000.0 + step)
    w.close()
    acc = load(tmp_path)
    assert set(acc.Tags()["scalars"]) == {"Loss/train", "Loss/test"}
    assert scalars(acc, "Loss/train") == [(s, pytest.approx(1.0 / (s + 1))) for s in range(5)]
    assert [e.wall_time for e in acc.Scalars("Loss/test")] == [1000.0 + s for s in range(5)]


def test_scalar_new_style(tmp_path):
    with SummaryWriter(tmp_path) as w:
        w.add_scalar("a", 1.25, 1, new_style=True)
        w.add_scalar("b", 1.25, 1, new_style=True, double_precision=True)
    acc = load(tmp_path)
    assert acc.Tensors("a")[0].tensor_proto.float_val == [1.25]
    assert acc.Tensors("b")[0].tensor_proto.double_val == [1.25]


def test_add_scalars_writes_subfolder_runs(tmp_path):
    with SummaryWriter(tmp_path) as w:
        for step in range(3):
            w.add_scalars("run/loss", {"train": step, "val": step + 10}, step)
    for key, offset in (("train", 0), ("val", 10)):
        acc = load(tmp_path / f"run_loss_{key}")
        assert scalars(acc, "run/loss") == [(s, s + offset) for s in range(3)]


@pytest.mark.parametrize("bins", ["tensorflow", "auto", "fd", 10])
def test_histogram(tmp_path, bins):
    values = np.random.default_rng(0).standard_normal(1000)
    with SummaryWriter(tmp_path) as w:
        w.add_histogram("weights", ember.tensor(values), 3, bins=bins)
    histo = load(tmp_path).Histograms("weights")[0]
    assert histo.step == 3
    h = histo.histogram_value
    assert h.num == 1000 and sum(h.bucket) == 1000
    assert h.min == pytest.approx(values.min()) and h.max == pytest.approx(values.max())
    assert h.sum == pytest.approx(values.sum()) and h.sum_squares == pytest.approx(values @ values)


def test_histogram_empty_raises(tmp_path):
    with SummaryWriter(tmp_path) as w, pytest.raises(ValueError, match="no element"):
        w.add_histogram("w", np.array([]))


@pytest.mark.parametrize("shape, fmt, size", [
    ((3, 10, 20), "CHW", (10, 20)), ((10, 20, 3), "HWC", (10, 20)), ((10, 20), "HW", (10, 20)),
    ((1, 10, 20), "CHW", (10, 20)), ((4, 3, 10, 20), "NCHW", (10, 80)),
    ((10, 3, 8, 8), "NCHW", (16, 64)), ((2, 8, 8, 3), "NHWC", (8, 16)),
])
def test_images_sizes(tmp_path, shape, fmt, size):
    data = np.random.default_rng(0).random(shape).astype(np.float32)
    with SummaryWriter(tmp_path) as w:
        if fmt.startswith("N"):
            w.add_images("img", ember.tensor(data), 0, dataformats=fmt)
        else:
            w.add_image("img", ember.tensor(data), 0, dataformats=fmt)
    event = load(tmp_path).Images("img")[0]
    assert (event.height, event.width) == size
    assert event.encoded_image_string.startswith(b"\x89PNG")


def test_image_float_scaled_to_uint8(tmp_path):
    import io

    from PIL import Image
    data = np.zeros((3, 2, 2), np.float32)
    data[0] = 1.0
    data[1, 0, 0] = 0.5
    with SummaryWriter(tmp_path) as w:
        w.add_image("img", data)
    png = load(tmp_path).Images("img")[0].encoded_image_string
    pixels = np.asarray(Image.open(io.BytesIO(png)))
    assert pixels[0, 0].tolist() == [255, 127, 0] and pixels[1, 1].tolist() == [255, 0, 0]


def test_image_bad_format(tmp_path):
    with SummaryWriter(tmp_path) as w, pytest.raises(ValueError, match="input format"):
        w.add_image("img", np.zeros((3, 4, 4)), dataformats="HW")


def test_add_figure(tmp_path):
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig = plt.figure(figsize=(2, 1), dpi=50)
    plt.plot([0, 1], [1, 0])
    with SummaryWriter(tmp_path) as w:
        w.add_figure("fig", fig, 2)
    event = load(tmp_path).Images("fig")[0]
    assert (event.height, event.width, event.step) == (50, 100, 2)
    assert not plt.get_fignums()


def test_add_text(tmp_path):
    with SummaryWriter(tmp_path) as w:
        w.add_text("notes", "hello **world**", 4)
    event = load(tmp_path).Tensors("notes/text_summary")[0]
    assert event.step == 4
    assert event.tensor_proto.string_val == [b"hello **world**"]


def test_add_hparams(tmp_path):
    from tensorboard.plugins.hparams import plugin_data_pb2
    with SummaryWriter(tmp_path) as w:
        w.add_hparams({"lr": 0.1, "bsize": 4, "opt": "sgd", "nesterov": True},
                      {"hparam/accuracy": 0.9}, run_name="trial")
    acc = load(tmp_path / "trial")
    assert scalars(acc, "hparam/accuracy") == [(0, pytest.approx(0.9))]
    content = acc.PluginTagToContent("hparams")
    start = plugin_data_pb2.HParamsPluginData.FromString(
        content["_hparams_/session_start_info"]).session_start_info
    assert start.hparams["lr"].number_value == pytest.approx(0.1)
    assert start.hparams["opt"].string_value == "sgd"
    assert start.hparams["nesterov"].bool_value is True
    experiment = plugin_data_pb2.HParamsPluginData.FromString(
        content["_hparams_/experiment"]).experiment
    assert [m.name.tag for m in experiment.metric_infos] == ["hparam/accuracy"]
    assert {h.name for h in experiment.hparam_infos} == {"lr", "bsize", "opt", "nesterov"}


def test_add_hparams_default_run_is_subfolder(tmp_path):
    with SummaryWriter(tmp_path) as w:
        w.add_hparams({"lr": 0.1}, {"m": 1.0})
    assert len([p for p in tmp_path.iterdir() if p.is_dir()]) == 1


def test_add_hparams_type_errors(tmp_path):
    with SummaryWriter(tmp_path) as w:
        with pytest.raises(TypeError, match="should be dictionary"):
            w.add_hparams([("lr", 0.1)], {})
        with pytest.raises(ValueError, match="value should be one of"):
            w.add_hparams({"lr": [0.1]}, {})


def test_default_log_dir_and_comment(tmp_path, monkeypatch):
    import socket
    monkeypatch.chdir(tmp_path)
    w = SummaryWriter(comment="_lr0.1")
    w.close()
    assert w.get_logdir().startswith("runs" + os.sep)
    assert w.get_logdir().endswith(socket.gethostname() + "_lr0.1")
    assert glob.glob(os.path.join(w.get_logdir(), "events.out.tfevents.*"))


def test_filename_suffix_and_reopen_after_close(tmp_path):
    w = SummaryWriter(tmp_path, filename_suffix=".ember")
    w.add_scalar("x", 1, 0)
    w.close()
    w.add_scalar("x", 2, 1)      # a closed writer opens a new event file, as torch's does
    w.close()
    assert len(glob.glob(str(tmp_path / "events.out.tfevents.*.ember"))) == 2
    assert scalars(load(tmp_path), "x") == [(0, 1.0), (1, 2.0)]


def test_purge_step_drops_later_points(tmp_path):
    with SummaryWriter(tmp_path) as w:
        for step in range(10):
            w.add_scalar("loss", step, step)
    # Event files are read in name order: the name holds the second and tensorboard's
    # process-wide writer count, unpadded (".9" sorts after ".10"), so files of one second
    # can be read out of order. The second run starts in the next second, as a resumed
    # run would.
    started = int(time.time())
    while int(time.time()) == started:
        time.sleep(0.05)
    with SummaryWriter(tmp_path, purge_step=5) as w:
        w.add_scalar("loss", 100, 5)
    assert scalars(load(tmp_path), "loss") == [(s, s) for s in range(5)] + [(5, 100)]


def test_flush_writes_pending_events(tmp_path):
    w = SummaryWriter(tmp_path, max_queue=1000, flush_secs=1000)
    w.add_scalar("x", 1.5, 0)
    w.flush()
    assert scalars(load(tmp_path), "x") == [(0, 1.5)]
    w.close()


@pytest.mark.parametrize("ending", ["pass", "raise KeyboardInterrupt"])
def test_unclosed_writer_is_flushed_at_exit(tmp_path, ending):
    script = textwrap.dedent(f"""
        from ember.utils.tensorboard import SummaryWriter
        w = SummaryWriter({str(tmp_path)!r}, max_queue=1000, flush_secs=1000)
        for step in range(20):
            w.add_scalar("loss", step * 0.5, step)
        {ending}
    """)
    subprocess.run([sys.executable, "-c", script], capture_output=True, cwd=os.getcwd())
    assert scalars(load(tmp_path), "loss") == [(s, s * 0.5) for s in range(20)]


def test_missing_tensorboard_package():
    script = ("import sys; sys.modules['tensorboard'] = None\n"
              "from ember.utils.tensorboard import SummaryWriter")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert "pip install ember[tensorboard]" in out.stderr and "ImportError" in out.stderr


RNG = np.random.default_rng(0)


def events(log_dir) -> list:
    """The events of every event file under log_dir (sub-runs included), minus the
    file-version header, with wall times cleared."""
    found = []
    for path in sorted(glob.glob(os.path.join(str(log_dir), "**", "events.out.tfevents.*"),
                                 recursive=True)):
        for record in RawEventFileLoader(path).Load():
            event = Event.FromString(record)
            if not event.file_version:
                event.wall_time = 0
                found.append(event)
    return found


def write_both(tmp_path, write):
    """Run write(writer, lib) with torch's writer (lib=torch) and ember's (lib=ember)."""
    dirs = []
    for name, lib, writer_class in (("torch", torch, TorchWriter),
                                    ("ember", ember, SummaryWriter)):
        log_dir = tmp_path / name
        with writer_class(str(log_dir)) as writer:
            write(writer, lib)
        dirs.append(log_dir)
    return dirs


def assert_same_events(tmp_path, write, expected_count=None):
    torch_dir, ember_dir = write_both(tmp_path, write)
    expected, got = events(torch_dir), events(ember_dir)
    assert got == expected
    assert len(got) == (expected_count or len(got)) and got
    return got


def files(log_dir) -> dict:
    """Relative path -> bytes of every file except the event files."""
    result = {}
    for root, _, names in os.walk(log_dir):
        for name in names:
            if not name.startswith("events.out"):
                path = os.path.join(root, name)
                with open(path, "rb") as f:
                    result[os.path.relpath(path, log_dir)] = f.read()
    return result


# ------------------------------------------------------------------ add_embedding
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64])
def test_embedding_tensors_only(tmp_path, dtype):
    mat = (RNG.standard_normal((6, 3)) * 10).astype(dtype)
    torch_dir, ember_dir = write_both(
        tmp_path, lambda w, lib: w.add_embedding(lib.tensor(mat)))
    expected = files(torch_dir)
    tensors_file = os.path.join("00000", "default", "tensors.tsv")
    assert set(expected) == {"projector_config.pbtxt", tensors_file}
    assert files(ember_dir) == expected


def test_embedding_metadata_sprite_steps_and_tags(tmp_path):
    mat = RNG.standard_normal((5, 4)).astype(np.float32)
    images = RNG.random((5, 3, 6, 6)).astype(np.float32)
    gray = RNG.random((5, 1, 4, 4)).astype(np.float32)

    def write(w, lib):
        w.add_embedding(lib.tensor(mat), metadata=list("abcde"), label_img=lib.tensor(images),
                        global_step=3, tag="feat/a%b")
        w.add_embedding(lib.tensor(mat), metadata=[[i, i * 2] for i in range(5)],
                        metadata_header=["x", "twice"], global_step=12)
        w.add_embedding(mat[:, :2], label_img=lib.tensor(gray), tag="gray")

    torch_dir, ember_dir = write_both(tmp_path, write)
    expected = files(torch_dir)
    assert len(expected) == 8 and os.path.join("00003", "feat%2fa%25b", "sprite.png") in expected
    assert files(ember_dir) == expected


def test_embedding_numpy_label_img(tmp_path):
    # torch needs a torch tensor for label_img (it calls label_img.size(0)); ember also
    # takes a NumPy array and writes the same sprite.
    images = RNG.random((3, 3, 4, 4)).astype(np.float32)
    with TorchWriter(str(tmp_path / "torch")) as w:
        w.add_embedding(np.zeros((3, 2)), label_img=torch.tensor(images))
    with SummaryWriter(tmp_path / "ember") as w:
        w.add_embedding(np.zeros((3, 2)), label_img=images)
    assert files(tmp_path / "ember") == files(tmp_path / "torch")


def test_embedding_same_step_warns(tmp_path, capsys):
    with SummaryWriter(tmp_path) as w:
        w.add_embedding(np.zeros((2, 2)))
        w.add_embedding(np.ones((2, 2)))
    assert "Embedding dir exists" in capsys.readouterr().out


@pytest.mark.parametrize("kwargs, message", [
    (dict(mat=np.zeros((3, 2)), metadata=["a", "b"]), "#labels should equal"),
    (dict(mat=np.zeros((3, 2)), label_img=np.zeros((2, 3, 4, 4))), "#images should equal"),
    (dict(mat=np.zeros(3)), "mat should be 2D"),
    (dict(mat=np.zeros((2, 2)), metadata=[[1, 2], [3, 4]], metadata_header=["a"]),
     "len of header must be equal"),
])
def test_embedding_errors(tmp_path, kwargs, message):
    if "label_img" in kwargs:
        torch_kwargs = dict(kwargs, label_img=torch.tensor(kwargs["label_img"]))
    else:
        torch_kwargs = kwargs
    with TorchWriter(str(tmp_path / "torch")) as w, pytest.raises(AssertionError,
                                                                  match=message):
        w.add_embedding(**torch_kwargs)
    with SummaryWriter(tmp_path / "ember") as w, pytest.raises(AssertionError, match=message):
        w.add_embedding(**kwargs)


def test_embedding_path_is_a_file(tmp_path):
    os.makedirs(tmp_path / "00000")
    (tmp_path / "00000" / "default").write_text("")
    with SummaryWriter(tmp_path) as w, pytest.raises(NotADirectoryError, match="is a file"):
        w.add_embedding(np.zeros((2, 2)))


# ------------------------------------------------------------------ PR curves
@pytest.mark.parametrize("num_thresholds", [127, 10, 500])
@pytest.mark.parametrize("weighted", [False, True])
def test_pr_curve(tmp_path, num_thresholds, weighted):
    labels = RNG.integers(0, 2, 50)
    predictions = RNG.random(50).astype(np.float32)
    weights = RNG.random(50) if weighted else None

    def write(w, lib):
        w.add_pr_curve("pr", lib.tensor(labels), lib.tensor(predictions), 4,
                       num_thresholds=num_thresholds, weights=weights)
        w.add_pr_curve("pr_np", labels, predictions.astype(np.float64))

    got = assert_same_events(tmp_path, write, 2)
    values = tensor_util.make_ndarray(got[0].summary.value[0].tensor)
    assert values.shape == (6, min(num_thresholds, 127))
    assert got[0].summary.value[0].metadata.plugin_data.plugin_name == "pr_curves"


def test_pr_curve_raw(tmp_path):
    counts = [RNG.integers(0, 9, 5).astype(np.float32) for _ in range(4)]
    rates = [RNG.random(5) for _ in range(2)]

    def write(w, lib):
        w.add_pr_curve_raw("raw", *counts, *rates, global_step=2, num_thresholds=5)

    assert_same_events(tmp_path, write, 1)


# ------------------------------------------------------------------ custom scalars
def test_custom_scalars(tmp_path):
    layout = {"Taiwan": {"twse": ["Multiline", ["twse/0050", "twse/2330"]]},
              "USA": {"dow": ["Margin", ["dow/aaa", "dow/bbb", "dow/ccc"]]}}

    def write(w, lib):
        w.add_custom_scalars(layout)
        w.add_custom_scalars_multilinechart(["a", "b"])
        w.add_custom_scalars_marginchart(["v", "lo", "hi"], category="c", title="t")

    got = assert_same_events(tmp_path, write, 3)
    assert got[0].summary.value[0].tag == "custom_scalars__config__"


@pytest.mark.parametrize("call", [
    lambda w: w.add_custom_scalars_marginchart(["a", "b"]),
    lambda w: w.add_custom_scalars({"c": {"t": ["Margin", ["a"]]}}),
])
def test_custom_scalars_margin_needs_three_tags(tmp_path, call):
    for log_dir, writer_class in ((tmp_path / "t", TorchWriter), (tmp_path / "e", SummaryWriter)):
        with writer_class(str(log_dir)) as w, pytest.raises(AssertionError, match="3"):
            call(w)


# ------------------------------------------------------------------ tensors
@pytest.mark.parametrize("dtype", ["float32", "float64", "int8", "int16", "int32", "int64",
                                   "bool", "complex64", "complex128"])
def test_add_tensor(tmp_path, dtype):
    data = (RNG.standard_normal((2, 3)) * 5).astype(dtype)
    got = assert_same_events(tmp_path, lambda w, lib: w.add_tensor("t", lib.tensor(data), 3))
    np.testing.assert_array_equal(tensor_util.make_ndarray(got[0].summary.value[0].tensor),
                                  data)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "uint8"])
def test_add_tensor_readable_where_torch_is_not(tmp_path, dtype):
    # torch 2.13 writes float16/bfloat16 as float32 bit patterns and uint8 into
    # uint32_val; TensorBoard cannot read those back. ember writes what it reads.
    data = ember.tensor([[1.5, -2.0, 3.25]]).to(getattr(ember, dtype)) if dtype != "uint8" \
        else ember.tensor([[1, 200, 3]], dtype=ember.uint8)
    with SummaryWriter(tmp_path) as w:
        w.add_tensor("t", data)
    proto = events(tmp_path)[0].summary.value[0].tensor
    if dtype == "bfloat16":     # TensorBoard's NumPy stub has no bfloat16: decode by hand
        import ml_dtypes
        values = np.array(proto.half_val, np.uint16).view(ml_dtypes.bfloat16).reshape(1, 3)
    else:
        values = tensor_util.make_ndarray(proto)
    np.testing.assert_array_equal(values.astype(np.float64), data.double().numpy())


@pytest.mark.parametrize("shape", [(), (0,), (2, 0, 3)])
def test_add_tensor_shapes(tmp_path, shape):
    data = RNG.standard_normal(shape).astype(np.float32)
    assert_same_events(tmp_path, lambda w, lib: w.add_tensor("t", lib.tensor(data)))


def test_add_tensor_unsupported_dtype(tmp_path):
    with SummaryWriter(tmp_path) as w, pytest.raises(ValueError,
                                                     match="t has unsupported tensor dtype"):
        w.add_tensor("t", np.zeros(2, np.uint16))


# ------------------------------------------------------------------ meshes
def test_add_mesh(tmp_path):
    vertices = np.array([[[1, 1, 1], [-1, -1, 1], [1, -1, -1], [-1, 1, -1]]], np.float32)
    colors = np.array([[[255, 0, 0], [0, 255, 0], [0, 0, 255], [255, 0, 255]]], np.int32)
    faces = np.array([[[0, 2, 3], [0, 3, 1], [0, 1, 2], [1, 3, 2]]], np.int32)
    config = {"camera": {"cls": "PerspectiveCamera", "fov": 75}}

    def write(w, lib):
        w.add_mesh("full", lib.tensor(vertices), lib.tensor(colors), lib.tensor(faces),
                   config, global_step=1)
        w.add_mesh("cloud", lib.tensor(vertices))

    got = assert_same_events(tmp_path, write, 2)
    assert [v.tag for v in got[0].summary.value] == ["full_VERTEX", "full_FACE", "full_COLOR"]


@pytest.mark.parametrize("shape", [(4, 3), (1, 1, 4, 3)])
def test_add_mesh_needs_3d(tmp_path, shape):
    with TorchWriter(str(tmp_path / "t")) as w, pytest.raises(ValueError, match="BxNx3"):
        w.add_mesh("m", torch.zeros(shape))
    with SummaryWriter(tmp_path / "e") as w, pytest.raises(ValueError, match="BxNx3"):
        w.add_mesh("m", ember.zeros(shape))


# ------------------------------------------------------------------ audio
@pytest.mark.parametrize("shape", [(100,), (1, 100), (100, 1)])
def test_add_audio(tmp_path, shape):
    sound = (RNG.random(shape) * 2 - 1).astype(np.float32)
    got = assert_same_events(
        tmp_path, lambda w, lib: w.add_audio("snd", lib.tensor(sound), 5, sample_rate=8000))
    proto = got[0].summary.value[0].audio
    assert (proto.sample_rate, proto.length_frames) == (8000, 100)
    with wave.open(io.BytesIO(proto.encoded_audio_string)) as wav:
        assert (wav.getframerate(), wav.getnframes(), wav.getsampwidth()) == (8000, 100, 2)


def test_add_audio_clips_loud_samples(tmp_path, capsys):
    sound = np.array([0.5, 3.0, -2.0])
    assert_same_events(tmp_path, lambda w, lib: w.add_audio("snd", lib.tensor(sound)))
    assert capsys.readouterr().out.count("auto clipped") == 2


def test_add_audio_needs_one_channel(tmp_path):
    with SummaryWriter(tmp_path) as w, pytest.raises(AssertionError, match="1 dimensional"):
        w.add_audio("snd", np.zeros((2, 10)))


# ------------------------------------------------------------------ images with boxes
@pytest.mark.parametrize("labels", [None, ["cat", "dog"], "one", ["too", "many", "labels"]])
@pytest.mark.parametrize("rescale", [1, 2])
def test_add_image_with_boxes(tmp_path, labels, rescale):
    img = RNG.random((3, 40, 50)).astype(np.float32)
    boxes = np.array([[2, 3, 20, 25], [10, 5, 45, 38]], np.float32)
    if labels == "one":
        boxes = boxes[:1]

    def write(w, lib):
        w.add_image_with_boxes("boxed", lib.tensor(img), lib.tensor(boxes), 2, rescale=rescale,
                               labels=labels)

    got = assert_same_events(tmp_path, write, 1)
    assert got[0].summary.value[0].image.encoded_image_string.startswith(b"\x89PNG")


def test_add_image_with_boxes_uint8_hwc(tmp_path):
    img = RNG.integers(0, 256, (30, 20, 3)).astype(np.uint8)
    boxes = np.array([[1, 1, 10, 10]])
    assert_same_events(tmp_path, lambda w, lib: w.add_image_with_boxes(
        "b", img, boxes, dataformats="HWC"))


# ------------------------------------------------------------------ video
@pytest.mark.parametrize("shape", [(1, 3, 3, 8, 6), (3, 2, 1, 4, 4), (4, 5, 3, 4, 4)])
def test_add_video_gif(tmp_path, shape):
    # torch encodes with moviepy (not installed here); ember with Pillow. Compare the
    # frames' count, size and timing with torch's grid layout, not the GIF bytes.
    from PIL import Image
    clips = RNG.random(shape).astype(np.float32)
    with SummaryWriter(tmp_path) as w:
        w.add_video("clip", ember.tensor(clips), 1, fps=5)
    proto = events(tmp_path)[0].summary.value[0].image
    n, t, c, h, w = shape
    rows = 2 ** ((n.bit_length() - 1) // 2)
    cols = (1 << (n - 1).bit_length()) // rows
    assert (proto.height, proto.width, proto.colorspace) == (rows * h, cols * w, c)
    gif = Image.open(io.BytesIO(proto.encoded_image_string))
    assert gif.format == "GIF" and gif.size == (cols * w, rows * h)
    assert gif.n_frames == t and gif.info["duration"] == 200


def test_add_video_uint8_frames(tmp_path):
    from PIL import Image
    clips = np.zeros((1, 2, 3, 4, 4), np.uint8)
    clips[0, 1] = 255
    with SummaryWriter(tmp_path) as w:
        w.add_video("clip", clips)
    gif = Image.open(io.BytesIO(events(tmp_path)[0].summary.value[0].image
                                .encoded_image_string))
    gif.seek(1)
    assert np.asarray(gif.convert("RGB")).min() == 255


# ------------------------------------------------------------------ add_graph
class Net(ember.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = ember.nn.Linear(4, 3)
        self.block = ember.nn.Sequential(ember.nn.ReLU(), ember.nn.BatchNorm1d(3))
        self.fc2 = ember.nn.Linear(3, 2)

    def forward(self, x):
        return self.fc2(self.block(self.fc1(x))) + 1


def graph_def(log_dir) -> GraphDef:
    graphs = [GraphDef.FromString(e.graph_def) for e in events(log_dir) if e.graph_def]
    assert len(graphs) == 1
    return graphs[0]


def test_add_graph_nodes_scoped_by_module(tmp_path):
    # torch's nodes come from its JIT ('aten::linear', 'prim::GetAttr'); ember's are its
    # own op names, so the graphs are compared by structure, not for equality.
    model = Net()
    model.train()
    with SummaryWriter(tmp_path) as w:
        w.add_graph(model, ember.zeros(5, 4))
    assert model.training and model.block[1].training     # restored after the eval trace
    nodes = {n.name: n for n in graph_def(tmp_path).node}
    assert nodes["input/x"].op == "IO Node"
    assert list(nodes["Net/Linear[fc1]/linear"].input) == [
        "input/x", "Net/Linear[fc1]/weight", "Net/Linear[fc1]/bias"]
    assert nodes["Net/Sequential[block]/ReLU[0]/relu"].input == ["Net/Linear[fc1]/linear"]
    assert nodes["Net/Sequential[block]/BatchNorm1d[1]/running_mean"].op == "Buffer"
    assert nodes["Net/Linear[fc2]/weight"].op == "Parameter"
    add = nodes["Net/add"]
    assert add.input == ["Net/Linear[fc2]/linear"]
    assert nodes["output/output.1"].input == ["Net/add"]
    shape = add.attr["_output_shapes"].list.shape[0]
    assert [d.size for d in shape.dim] == [5, 2]
    for node in nodes.values():          # every input names a node of the graph
        assert all(i.split(":")[0] in nodes for i in node.input)


def test_add_graph_event_layout_matches_torch(tmp_path):
    # Same events as torch's add_graph (a graph_def, then 'step1' run metadata on the CPU).
    tnet = torch.nn.Linear(2, 2)
    with TorchWriter(str(tmp_path / "t")) as w:
        w.add_graph(tnet, torch.zeros(1, 2))
    with SummaryWriter(tmp_path / "e") as w:
        w.add_graph(ember.nn.Linear(2, 2), ember.zeros(1, 2))
    expected, got = events(tmp_path / "t"), events(tmp_path / "e")
    assert [e.WhichOneof("what") for e in got] == [e.WhichOneof("what") for e in expected]
    assert got[1].tagged_run_metadata == expected[1].tagged_run_metadata
    ops = {n.op for n in graph_def(tmp_path / "e").node}
    assert ops == {"IO Node", "Parameter", "linear"}


def test_add_graph_several_inputs_and_outputs(tmp_path):
    class Two(ember.nn.Module):
        def forward(self, a, b):
            return ember.split(a * b, 1, dim=1)

    with SummaryWriter(tmp_path) as w:
        w.add_graph(Two(), (ember.ones(2, 2), ember.ones(2, 2)))
    nodes = {n.name: n for n in graph_def(tmp_path).node}
    assert nodes["Two/mul"].input == ["input/a", "input/b"]
    # the node's settings are the primitive's arguments: the dim and each block's bounds
    assert nodes["Two/split"].attr["attr"].s == b"{dim=1, bounds=[(0, 1), (1, 2)]}"
    assert nodes["output/output.1"].input == ["Two/split:0"]
    assert nodes["output/output.2"].input == ["Two/split:1"]


def test_add_graph_strict_trace_refuses_dict_outputs(tmp_path):
    def model_of(lib, container):
        class Out(lib.nn.Module):
            def forward(self, x):
                return container(y=x * 2) if container is dict else container([x * 2])
        return Out()

    with TorchWriter(str(tmp_path / "t")) as w:
        with pytest.raises(RuntimeError, match="Encountering a dict at"):
            w.add_graph(model_of(torch, dict), torch.zeros(2))
        w.add_graph(model_of(torch, list), torch.zeros(2))      # lists are accepted
    with SummaryWriter(tmp_path / "e") as w:
        with pytest.raises(RuntimeError, match="Encountering a dict at"):
            w.add_graph(model_of(ember, dict), ember.zeros(2))
        w.add_graph(model_of(ember, list), ember.zeros(2))
        w.add_graph(model_of(ember, dict), ember.zeros(2), use_strict_trace=False)
    graphs = [GraphDef.FromString(e.graph_def) for e in events(tmp_path / "e") if e.graph_def]
    assert len(graphs) == 2
    for graph in graphs:
        nodes = {n.name: n for n in graph.node}
        assert nodes["output/output.1"].input == ["Out/mul"]


def test_add_graph_verbose_prints(tmp_path, capsys):
    with SummaryWriter(tmp_path) as w:
        w.add_graph(ember.nn.Linear(2, 2), ember.zeros(1, 2), verbose=True)
    assert "Linear/linear" in capsys.readouterr().out


def test_pillow_missing_names_the_extra(tmp_path):
    import subprocess
    import sys
    script = ("import sys, numpy as np; sys.modules['PIL'] = None\n"
              "from ember.utils.tensorboard import SummaryWriter\n"
              f"w = SummaryWriter({str(tmp_path)!r})\n"
              "w.add_embedding(np.zeros((1, 2)), label_img=np.zeros((1, 3, 2, 2)))")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert "ImportError" in out.stderr and "pip install ember[tensorboard]" in out.stderr
