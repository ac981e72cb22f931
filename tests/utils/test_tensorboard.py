"""ember.utils.tensorboard.SummaryWriter: event files read back with TensorBoard's own
EventAccumulator."""
import glob
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import ember

pytest.importorskip("tensorboard")
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator  # noqa

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
    from PIL import Image
    import io
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
