"""Summary protobufs for TensorBoard's plugins (scalars, histograms, images, text, hparams),
built from NumPy values with the tensorboard package's own proto classes."""
from __future__ import annotations

import io
import math

import numpy as np
from tensorboard.compat.proto.summary_pb2 import HistogramProto, Summary, SummaryMetadata
from tensorboard.compat.proto.tensor_pb2 import TensorProto
from tensorboard.compat.proto.tensor_shape_pb2 import TensorShapeProto

from ..._tensor import Tensor


def make_np(value) -> np.ndarray:
    """An ember tensor, NumPy array or Python number as a NumPy array."""
    if isinstance(value, Tensor):
        return value.detach().numpy(force=True)
    return np.asarray(value)


def _scalar_value(value) -> float:
    array = make_np(value)
    if array.size != 1:
        raise ValueError(f"scalar should be 0D, got an array of shape {array.shape}")
    return array.reshape(()).item()


def _plugin(name: str, content: bytes = b"") -> SummaryMetadata:
    return SummaryMetadata(plugin_data=SummaryMetadata.PluginData(plugin_name=name,
                                                                  content=content))


# ---------------------------------------------------------------- scalars
def scalar(tag: str, value, new_style: bool = False,
           double_precision: bool = False) -> Summary:
    """Legacy style stores simple_value; new style a tensor read by the scalars plugin."""
    number = _scalar_value(value)
    if not new_style:
        return Summary(value=[Summary.Value(tag=tag, simple_value=number)])
    tensor = TensorProto(double_val=[number], dtype="DT_DOUBLE") if double_precision \
        else TensorProto(float_val=[number], dtype="DT_FLOAT")
    return Summary(value=[Summary.Value(tag=tag, tensor=tensor,
                                        metadata=_plugin("scalars"))])


# ---------------------------------------------------------------- histograms
def default_bins() -> list:
    """TensorFlow's histogram bucket edges: +-1e-12 growing by 10% up to 1e20, and 0."""
    positive, edge = [], 1e-12
    while edge < 1e20:
        positive.append(edge)
        edge *= 1.1
    return [-v for v in reversed(positive)] + [0.0] + positive


def histogram(tag: str, values, bins, max_bins: int | None = None) -> Summary:
    values = make_np(values).astype(np.float64).reshape(-1)
    if values.size == 0:
        raise ValueError("The input has no element.")
    counts, limits = np.histogram(values, bins=bins)
    if max_bins is not None and len(counts) > max_bins:     # merge neighbouring bins
        group = len(counts) // max_bins
        counts = np.pad(counts, (0, -len(counts) % group)).reshape(-1, group).sum(axis=1)
        limits = np.append(limits[:-1:group], limits[-1])
    # Keep the bins from the first to the last non-empty one. TensorBoard reads only the
    # right edges, so one extra (empty) bin on the left carries the lowest edge.
    nonzero = np.flatnonzero(counts)
    start, end = nonzero[0], nonzero[-1] + 1
    counts = counts[start - 1:end] if start > 0 else np.concatenate([[0], counts[:end]])
    limits = limits[start:end + 1]
    proto = HistogramProto(min=values.min(), max=values.max(), num=values.size,
                           sum=values.sum(), sum_squares=values.dot(values),
                           bucket_limit=limits.tolist(), bucket=counts.tolist())
    return Summary(value=[Summary.Value(tag=tag, histo=proto)])


def histogram_raw(tag: str, min, max, num, sum, sum_squares, bucket_limits,
                  bucket_counts) -> Summary:
    proto = HistogramProto(min=min, max=max, num=num, sum=sum, sum_squares=sum_squares,
                           bucket_limit=bucket_limits, bucket=bucket_counts)
    return Summary(value=[Summary.Value(tag=tag, histo=proto)])


# ---------------------------------------------------------------- images
def make_grid(images: np.ndarray, ncols: int = 8) -> np.ndarray:
    """(N, C, H, W) images tiled row by row into one (C, rows*H, ncols*W) image."""
    n, c, h, w = images.shape
    ncols = min(n, ncols)
    nrows = math.ceil(n / ncols)
    padded = np.zeros((nrows * ncols, c, h, w), images.dtype)
    padded[:n] = images
    return padded.reshape(nrows, ncols, c, h, w).transpose(2, 0, 3, 1, 4) \
        .reshape(c, nrows * h, ncols * w)


def to_hwc(image: np.ndarray, dataformats: str) -> np.ndarray:
    """Reorder an image (or a batch, tiled into a grid) to height x width x 3 or 4."""
    dataformats = dataformats.upper()
    if len(set(dataformats)) != len(dataformats) or image.ndim != len(dataformats):
        raise ValueError(f"size of input tensor and input format are different. tensor "
                         f"shape: {image.shape}, input_format: {dataformats}")
    if "N" in dataformats:
        order = [dataformats.index(d) for d in ("N", "C", "H", "W") if d in dataformats]
        image = image.transpose(order)
        if "C" not in dataformats:
            image = image[:, None]
        if image.shape[1] == 1:
            image = np.repeat(image, 3, axis=1)
        return make_grid(image).transpose(1, 2, 0)
    order = [dataformats.index(d) for d in ("H", "W", "C") if d in dataformats]
    image = image.transpose(order)
    if "C" not in dataformats:
        image = image[:, :, None]
    if image.shape[2] == 1:
        image = np.repeat(image, 3, axis=2)
    return image


def _encode_png(hwc: np.ndarray) -> bytes:
    try:
        from PIL import Image
    except ImportError as e:
        raise ImportError("add_image needs the 'Pillow' package to encode PNG images: pip "
                          "install ember[tensorboard]") from e
    out = io.BytesIO()
    Image.fromarray(hwc).save(out, format="PNG")
    return out.getvalue()


def image(tag: str, values, dataformats: str = "CHW") -> Summary:
    """Floats are taken to lie in [0, 1] and scaled to 0..255; uint8 is stored as is."""
    array = make_np(values)
    hwc = to_hwc(array, dataformats)
    if array.dtype != np.uint8:
        hwc = np.clip(hwc.astype(np.float32) * 255.0, 0, 255).astype(np.uint8)
    height, width, channels = hwc.shape
    proto = Summary.Image(height=height, width=width, colorspace=channels,
                          encoded_image_string=_encode_png(np.ascontiguousarray(hwc)))
    return Summary(value=[Summary.Value(tag=tag, image=proto)])


def figure_to_image(figures, close: bool = True) -> np.ndarray:
    """Render matplotlib figure(s) to uint8 CHW (or NCHW for a list) arrays."""
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        import matplotlib.pyplot as plt
    except ImportError as e:
        raise ImportError("add_figure needs the 'matplotlib' package: pip install "
                          "matplotlib") from e

    def render(figure) -> np.ndarray:
        canvas = FigureCanvasAgg(figure)
        canvas.draw()
        rgba = np.asarray(canvas.buffer_rgba())
        if close:
            plt.close(figure)
        return rgba[:, :, :3].transpose(2, 0, 1).copy()

    if isinstance(figures, (list, tuple)):
        return np.stack([render(f) for f in figures])
    return render(figures)


# ---------------------------------------------------------------- text
def text(tag: str, text_string: str) -> Summary:
    from tensorboard.plugins.text.plugin_data_pb2 import TextPluginData
    metadata = _plugin("text", TextPluginData(version=0).SerializeToString())
    tensor = TensorProto(dtype="DT_STRING", string_val=[text_string.encode("utf-8")],
                         tensor_shape=TensorShapeProto(dim=[TensorShapeProto.Dim(size=1)]))
    return Summary(value=[Summary.Value(tag=tag + "/text_summary", metadata=metadata,
                                        tensor=tensor)])


# ---------------------------------------------------------------- hparams
def hparams(hparam_dict: dict, metric_dict: dict, hparam_domain_discrete=None) -> tuple:
    """The experiment, session-start and session-end summaries of the hparams plugin."""
    from google.protobuf import struct_pb2
    from tensorboard.plugins.hparams import api_pb2, metadata
    from tensorboard.plugins.hparams.plugin_data_pb2 import (HParamsPluginData,
                                                             SessionEndInfo, SessionStartInfo)
    domains = hparam_domain_discrete or {}
    if not isinstance(domains, dict):
        raise TypeError("parameter: hparam_domain_discrete should be a dictionary, nothing "
                        "logged.")
    for k, v in domains.items():
        if k not in hparam_dict or not isinstance(v, list) or \
                not all(isinstance(d, type(hparam_dict[k])) for d in v):
            raise TypeError(f"parameter: hparam_domain_discrete[{k}] should be a list of same "
                            f"type as hparam_dict[{k}].")
    start = SessionStartInfo()
    infos = []
    for k, v in hparam_dict.items():
        if v is None:
            continue
        if isinstance(v, Tensor) or isinstance(v, np.ndarray):
            v = float(make_np(v).reshape(-1)[0])
        if isinstance(v, bool):
            field, kind = "bool_value", "DATA_TYPE_BOOL"
        elif isinstance(v, (int, float)):
            field, kind = "number_value", "DATA_TYPE_FLOAT64"
        elif isinstance(v, str):
            field, kind = "string_value", "DATA_TYPE_STRING"
        else:
            raise ValueError("value should be one of int, float, str, bool, or torch.Tensor")
        setattr(start.hparams[k], field, v)
        domain = struct_pb2.ListValue(values=[struct_pb2.Value(**{field: d})
                                              for d in domains[k]]) if k in domains else None
        infos.append(api_pb2.HParamInfo(name=k, type=api_pb2.DataType.Value(kind),
                                        domain_discrete=domain))

    def plugin_summary(tag: str, **content) -> Summary:
        data = HParamsPluginData(version=metadata.PLUGIN_DATA_VERSION, **content)
        return Summary(value=[Summary.Value(
            tag=tag, metadata=_plugin(metadata.PLUGIN_NAME, data.SerializeToString()))])

    experiment = api_pb2.Experiment(
        hparam_infos=infos,
        metric_infos=[api_pb2.MetricInfo(name=api_pb2.MetricName(tag=k)) for k in metric_dict])
    end = SessionEndInfo(status=api_pb2.Status.Value("STATUS_SUCCESS"))
    return (plugin_summary(metadata.EXPERIMENT_TAG, experiment=experiment),
            plugin_summary(metadata.SESSION_START_INFO_TAG, session_start_info=start),
            plugin_summary(metadata.SESSION_END_INFO_TAG, session_end_info=end))
