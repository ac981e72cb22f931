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


def pillow(feature: str):
    """PIL.Image, or an ImportError naming the extra that provides it."""
    try:
        from PIL import Image
    except ImportError as e:
        raise ImportError(f"{feature} needs the 'Pillow' package to encode images: pip "
                          "install ember[tensorboard]") from e
    return Image


def to_uint8(array: np.ndarray) -> np.ndarray:
    """Floats are taken to lie in [0, 1] and scaled to 0..255; uint8 is kept as is."""
    scale = 1.0 if array.dtype == np.uint8 else 255.0
    return np.clip(array.astype(np.float32) * scale, 0, 255).astype(np.uint8)


def _draw_box(draw, box, label, font) -> None:
    """A red xyxy rectangle, with its label on a red band along its bottom edge."""
    left, top, right, bottom = (float(v) for v in box)
    draw.line([(left, top), (left, bottom), (right, bottom), (right, top), (left, top)],
              width=2, fill="Red")
    if label:
        x0, y0, x1, y1 = font.getbbox(label)
        width, height = x1 - x0, y1 - y0
        margin = np.ceil(0.05 * height)
        draw.rectangle([(left, bottom - height - 2 * margin), (left + width, bottom)],
                       fill="Red")
        draw.text((left + margin, bottom - height - margin), label, fill="black", font=font)


def encode_image(hwc: np.ndarray, rescale: float = 1, boxes=None, labels=None,
                 feature: str = "add_image") -> Summary.Image:
    """A uint8 HWC image (boxes drawn on it, then resized by `rescale`) as a PNG Image proto.
    Like torch, the proto keeps the size before rescaling."""
    Image = pillow(feature)
    height, width, channels = hwc.shape
    picture = Image.fromarray(np.ascontiguousarray(hwc))
    if boxes is not None:
        from PIL import ImageDraw, ImageFont
        draw, font = ImageDraw.Draw(picture), ImageFont.load_default()
        for i, box in enumerate(boxes):
            _draw_box(draw, box, None if labels is None else labels[i], font)
    picture = picture.resize((int(width * rescale), int(height * rescale)),
                             Image.Resampling.LANCZOS)
    out = io.BytesIO()
    picture.save(out, format="PNG")
    return Summary.Image(height=height, width=width, colorspace=channels,
                         encoded_image_string=out.getvalue())


def image(tag: str, values, dataformats: str = "CHW") -> Summary:
    proto = encode_image(to_uint8(to_hwc(make_np(values), dataformats)))
    return Summary(value=[Summary.Value(tag=tag, image=proto)])


def image_boxes(tag: str, values, boxes, rescale: float = 1, dataformats: str = "CHW",
                labels=None) -> Summary:
    proto = encode_image(to_uint8(to_hwc(make_np(values), dataformats)), rescale,
                         make_np(boxes), labels, feature="add_image_with_boxes")
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


def video(tag: str, values, fps: float = 4) -> Summary:
    """(N, T, C, H, W) clips, tiled into one grid per frame, as an animated GIF."""
    frames = make_np(values)
    if frames.ndim != 5:
        raise ValueError(f"add_video expects a 5D (N, T, C, H, W) tensor, got shape "
                         f"{frames.shape}")
    if frames.dtype == np.uint8:
        frames = frames.astype(np.float32) / 255.0
    # torch pads the batch to a power of two and lays it out in a 2^k by 2^j grid.
    n = frames.shape[0]
    padded = 1 << (n - 1).bit_length() if n > 0 else 0
    frames = np.concatenate([frames, np.zeros((padded - n, *frames.shape[1:]))])
    rows = 2 ** ((n.bit_length() - 1) // 2)
    _, t, c, h, w = frames.shape
    grid = frames.reshape(rows, padded // rows, t, c, h, w).transpose(2, 0, 4, 1, 5, 3) \
        .reshape(t, rows * h, padded // rows * w, c)
    grid = to_uint8(grid)
    Image = pillow("add_video")
    pictures = [Image.fromarray(frame[:, :, 0] if c == 1 else frame) for frame in grid]
    out = io.BytesIO()
    pictures[0].save(out, format="GIF", save_all=True, append_images=pictures[1:],
                     duration=1000.0 / fps, loop=0)
    proto = Summary.Image(height=rows * h, width=padded // rows * w, colorspace=c,
                          encoded_image_string=out.getvalue())
    return Summary(value=[Summary.Value(tag=tag, image=proto)])


# ---------------------------------------------------------------- audio
def audio(tag: str, values, sample_rate: int = 44100) -> Summary:
    """A mono clip with samples in [-1, 1] as 16-bit PCM WAV."""
    import wave
    samples = make_np(values).squeeze()
    if np.abs(samples).max() > 1:
        print("warning: audio amplitude out of range, auto clipped.")
        samples = samples.clip(-1, 1)
    if samples.ndim != 1:
        raise AssertionError("input tensor should be 1 dimensional.")
    pcm = (samples * np.iinfo(np.int16).max).astype("<i2")
    out = io.BytesIO()
    with wave.open(out, "wb") as wav:
        wav.setnchannels(1)
        wav.setsampwidth(2)
        wav.setframerate(sample_rate)
        wav.writeframes(pcm.tobytes())
    proto = Summary.Audio(sample_rate=sample_rate, num_channels=1, length_frames=len(pcm),
                          encoded_audio_string=out.getvalue(), content_type="audio/wav")
    return Summary(value=[Summary.Value(tag=tag, audio=proto)])


# ---------------------------------------------------------------- raw tensors
def _shape_proto(shape) -> TensorShapeProto:
    return TensorShapeProto(dim=[TensorShapeProto.Dim(size=d) for d in shape])


def _field_values(array: np.ndarray, field: str) -> list:
    """The array's values as a TensorProto field holds them: 16-bit floats as their bit
    patterns, complex numbers as (real, imaginary) pairs, the rest as Python numbers."""
    flat = array.reshape(-1)
    if field == "half_val":
        return flat.view(np.uint16).tolist()
    if field.endswith("complex_val"):
        return np.stack([flat.real, flat.imag], axis=-1).reshape(-1).tolist()
    return flat.tolist()


# NumPy dtype name -> (TensorProto dtype, value field). Deliberate departures from
# torch 2.13, whose protos TensorBoard cannot read back: torch stores float16 and bfloat16
# as float32 bit patterns (TensorBoard expects the 16-bit patterns written here) and uint8
# in uint32_val (TensorBoard reads int_val).
_TENSOR_FIELDS = {
    "float16": ("DT_HALF", "half_val"), "bfloat16": ("DT_BFLOAT16", "half_val"),
    "float32": ("DT_FLOAT", "float_val"), "float64": ("DT_DOUBLE", "double_val"),
    "int8": ("DT_INT8", "int_val"), "uint8": ("DT_UINT8", "int_val"),
    "int16": ("DT_INT16", "int_val"), "int32": ("DT_INT32", "int_val"),
    "int64": ("DT_INT64", "int64_val"), "bool": ("DT_BOOL", "bool_val"),
    "complex64": ("DT_COMPLEX64", "scomplex_val"),
    "complex128": ("DT_COMPLEX128", "dcomplex_val"),
}


def tensor_proto(tag: str, tensor) -> Summary:
    """The whole tensor, for the (plugin-less) 'tensor' summaries."""
    array = make_np(tensor)
    if array.nbytes >= 1 << 31:
        raise ValueError("tensor is bigger than protocol buffer's hard limit of 2GB in size")
    if array.dtype.name not in _TENSOR_FIELDS:
        dtype = tensor.dtype if isinstance(tensor, Tensor) else array.dtype
        raise ValueError(f"{tag} has unsupported tensor dtype {dtype}")
    kind, field = _TENSOR_FIELDS[array.dtype.name]
    proto = TensorProto(dtype=kind, tensor_shape=_shape_proto(array.shape),
                        **{field: _field_values(array, field)})
    return Summary(value=[Summary.Value(tag=tag, metadata=_plugin("tensor"), tensor=proto)])


# ---------------------------------------------------------------- precision-recall curves
def pr_curve_raw(tag: str, tp, fp, tn, fn, precision, recall,
                 num_thresholds: int = 127) -> Summary:
    """The pr_curves plugin's 6 x num_thresholds float tensor: TP, FP, TN, FN counts,
    precision and recall at each threshold."""
    from tensorboard.plugins.pr_curve.plugin_data_pb2 import PrCurvePluginData
    num_thresholds = min(num_thresholds, 127)      # as torch: larger values are capped
    data = np.stack([make_np(v) for v in (tp, fp, tn, fn, precision, recall)])
    content = PrCurvePluginData(version=0, num_thresholds=num_thresholds).SerializeToString()
    proto = TensorProto(dtype="DT_FLOAT", float_val=data.reshape(-1).tolist(),
                        tensor_shape=_shape_proto(data.shape[:2]))
    return Summary(value=[Summary.Value(tag=tag, metadata=_plugin("pr_curves", content),
                                        tensor=proto)])


def pr_curve(tag: str, labels, predictions, num_thresholds: int = 127,
             weights=None) -> Summary:
    """Bucket the predictions into num_thresholds bins, then count, for the threshold at
    each bin, the (weighted) positives and negatives predicted above it."""
    num_thresholds = min(num_thresholds, 127)
    labels = make_np(labels).astype(np.float64)
    weights = 1.0 if weights is None else make_np(weights)
    buckets = np.floor(make_np(predictions) * (num_thresholds - 1)).astype(np.int32)

    def counts_from(bucket_weights):
        per_bucket, _ = np.histogram(buckets, bins=num_thresholds,
                                     range=(0, num_thresholds - 1), weights=bucket_weights)
        return np.cumsum(per_bucket[::-1])[::-1]      # everything at or above each bucket

    tp, fp = counts_from(labels * weights), counts_from((1.0 - labels) * weights)
    tn, fn = fp[0] - fp, tp[0] - tp
    precision = tp / np.maximum(1e-7, tp + fp)
    recall = tp / np.maximum(1e-7, tp + fn)
    return pr_curve_raw(tag, tp, fp, tn, fn, precision, recall, num_thresholds)


# ---------------------------------------------------------------- custom scalars
def custom_scalars(layout: dict) -> Summary:
    """The custom_scalars plugin's Layout: {category: {chart title: [kind, tags]}}, kind
    'Margin' (tags = value, lower, upper) or anything else for a multi-line chart."""
    from tensorboard.plugins.custom_scalar import layout_pb2
    categories = []
    for category, charts in layout.items():
        protos = []
        for title, (kind, tags) in ((t, spec[:2]) for t, spec in charts.items()):
            if kind == "Margin":
                if len(tags) != 3:
                    raise AssertionError("len(tags) != 3")
                series = layout_pb2.MarginChartContent.Series(value=tags[0], lower=tags[1],
                                                              upper=tags[2])
                protos.append(layout_pb2.Chart(
                    title=title, margin=layout_pb2.MarginChartContent(series=[series])))
            else:
                protos.append(layout_pb2.Chart(
                    title=title, multiline=layout_pb2.MultilineChartContent(tag=tags)))
        categories.append(layout_pb2.Category(title=category, chart=protos))
    serialized = layout_pb2.Layout(category=categories).SerializeToString()
    proto = TensorProto(dtype="DT_STRING", string_val=[serialized],
                        tensor_shape=TensorShapeProto())
    return Summary(value=[Summary.Value(tag="custom_scalars__config__", tensor=proto,
                                        metadata=_plugin("custom_scalars"))])


# ---------------------------------------------------------------- meshes
def mesh(tag: str, vertices, colors=None, faces=None, config_dict=None) -> Summary:
    """One value per given part (vertices, faces, colors), each a (B, N, 3) float tensor
    whose metadata names the parts present and the three.js JSON config. (The metadata
    builder raises torch's ValueError for other shapes.)"""
    import json
    from tensorboard.plugins.mesh import metadata
    from tensorboard.plugins.mesh.plugin_data_pb2 import MeshPluginData
    config = "{}" if config_dict is None else json.dumps(config_dict, sort_keys=True)
    parts = [(values, kind) for values, kind in ((vertices, MeshPluginData.VERTEX),
                                                 (faces, MeshPluginData.FACE),
                                                 (colors, MeshPluginData.COLOR))
             if values is not None]
    components = metadata.get_components_bitmask([kind for _, kind in parts])
    summary_values = []
    for values, kind in parts:
        array = make_np(values)
        part_metadata = metadata.create_summary_metadata(
            tag, None, kind, components, array.shape, None, json_config=config)
        proto = TensorProto(dtype="DT_FLOAT", float_val=array.reshape(-1).tolist(),
                            tensor_shape=_shape_proto(array.shape))
        summary_values.append(Summary.Value(tag=metadata.get_instance_name(tag, kind),
                                            tensor=proto, metadata=part_metadata))
    return Summary(value=summary_values)


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
