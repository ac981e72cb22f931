"""SummaryWriter: torch.utils.tensorboard's API on the tensorboard package's event writer.

Events go through tensorboard's EventFileWriter, which queues them and writes from a
background thread every `flush_secs`. Every open writer is also flushed when the
interpreter exits (atexit), so a script that never calls close(), or is stopped with
Ctrl-C, keeps the points it logged.
"""
from __future__ import annotations

import atexit
import os
import socket
import time
from datetime import datetime

try:
    from tensorboard.compat.proto.event_pb2 import Event, SessionLog, TaggedRunMetadata
    from tensorboard.summary.writer.event_file_writer import EventFileWriter
except ImportError as e:
    raise ImportError("ember.utils.tensorboard needs the 'tensorboard' package: pip install "
                      "ember[tensorboard]") from e

from . import _embedding, _graph
from . import summary as _summary

_OPEN_WRITERS = set()      # FileWriters not closed yet, flushed at exit


@atexit.register
def _flush_open_writers() -> None:
    for writer in list(_OPEN_WRITERS):
        writer.flush()


class FileWriter:
    """Writes Summary protos as Events to one event file in `log_dir`."""

    def __init__(self, log_dir: str, max_queue: int = 10, flush_secs: int = 120,
                 filename_suffix: str = "") -> None:
        self.event_writer = EventFileWriter(str(log_dir), max_queue, flush_secs,
                                            filename_suffix)
        _OPEN_WRITERS.add(self)

    def get_logdir(self) -> str:
        return self.event_writer.get_logdir()

    def add_event(self, event: Event, step=None, walltime=None) -> None:
        event.wall_time = time.time() if walltime is None else walltime
        if step is not None:
            event.step = int(step)
        self.event_writer.add_event(event)

    def add_summary(self, summary, global_step=None, walltime=None) -> None:
        self.add_event(Event(summary=summary), global_step, walltime)

    def add_graph(self, graph_profile, walltime=None) -> None:
        """A (GraphDef, RunMetadata) pair: the graph event, then the run metadata tagged
        'step1' as torch writes it."""
        graph_def, run_metadata = graph_profile
        self.add_event(Event(graph_def=graph_def.SerializeToString()), None, walltime)
        tagged = TaggedRunMetadata(tag="step1", run_metadata=run_metadata.SerializeToString())
        self.add_event(Event(tagged_run_metadata=tagged), None, walltime)

    def flush(self) -> None:
        self.event_writer.flush()

    def close(self) -> None:
        self.event_writer.close()
        _OPEN_WRITERS.discard(self)


class SummaryWriter:
    """Log scalars, histograms, images, text, hyperparameters, PR curves, meshes, audio,
    video, embeddings and model graphs for TensorBoard.

    Each instance writes one event file under `log_dir` (default
    'runs/<date>_<time>_<hostname><comment>'); `tensorboard --logdir runs` shows it.
    """

    def __init__(self, log_dir=None, comment: str = "", purge_step=None, max_queue: int = 10,
                 flush_secs: int = 120, filename_suffix: str = "") -> None:
        if not log_dir:
            stamp = datetime.now().strftime("%b%d_%H-%M-%S")
            log_dir = os.path.join("runs", f"{stamp}_{socket.gethostname()}{comment}")
        self.log_dir = str(log_dir)
        self.purge_step = purge_step
        self.max_queue = max_queue
        self.flush_secs = flush_secs
        self.filename_suffix = filename_suffix
        self.file_writer = self.all_writers = None
        self._projector_config = None     # every embedding logged, for projector_config.pbtxt
        self._get_file_writer()

    def _get_file_writer(self) -> FileWriter:
        """The writer of log_dir, created again if the SummaryWriter was closed."""
        if self.file_writer is None:
            self.file_writer = FileWriter(self.log_dir, self.max_queue, self.flush_secs,
                                          self.filename_suffix)
            self.all_writers = {self.file_writer.get_logdir(): self.file_writer}
            if self.purge_step is not None:
                # TensorBoard drops the events at steps >= purge_step written by earlier
                # runs into this directory (resuming after a crash).
                step = self.purge_step
                self.file_writer.add_event(Event(step=step, file_version="brain.Event:2"))
                self.file_writer.add_event(Event(step=step, session_log=SessionLog(
                    status=SessionLog.START)))
                self.purge_step = None
        return self.file_writer

    def get_logdir(self) -> str:
        return self.log_dir

    # ------------------------------------------------------------ scalars
    def add_scalar(self, tag: str, scalar_value, global_step=None, walltime=None,
                   new_style: bool = False, double_precision: bool = False) -> None:
        self._get_file_writer().add_summary(
            _summary.scalar(tag, scalar_value, new_style, double_precision), global_step,
            walltime)

    def add_scalars(self, main_tag: str, tag_scalar_dict: dict, global_step=None,
                    walltime=None) -> None:
        """One run per key (a writer in the subfolder '<main_tag>_<key>'), so TensorBoard
        draws the curves on one chart named main_tag."""
        walltime = time.time() if walltime is None else walltime
        base = self._get_file_writer().get_logdir()
        for tag, value in tag_scalar_dict.items():
            run_dir = os.path.join(base, main_tag.replace("/", "_") + "_" + tag)
            writer = self.all_writers.get(run_dir)
            if writer is None:
                writer = FileWriter(run_dir, self.max_queue, self.flush_secs,
                                    self.filename_suffix)
                self.all_writers[run_dir] = writer
            writer.add_summary(_summary.scalar(main_tag, value), global_step, walltime)

    # ------------------------------------------------------------ histograms
    def add_histogram(self, tag: str, values, global_step=None, bins="tensorflow",
                      walltime=None, max_bins=None) -> None:
        if isinstance(bins, str) and bins == "tensorflow":
            bins = _summary.default_bins()
        self._get_file_writer().add_summary(
            _summary.histogram(tag, values, bins, max_bins), global_step, walltime)

    def add_histogram_raw(self, tag: str, min, max, num, sum, sum_squares, bucket_limits,
                          bucket_counts, global_step=None, walltime=None) -> None:
        if len(bucket_limits) != len(bucket_counts):
            raise ValueError("len(bucket_limits) != len(bucket_counts), see the document.")
        self._get_file_writer().add_summary(
            _summary.histogram_raw(tag, min, max, num, sum, sum_squares, bucket_limits,
                                   bucket_counts), global_step, walltime)

    # ------------------------------------------------------------ images
    def add_image(self, tag: str, img_tensor, global_step=None, walltime=None,
                  dataformats: str = "CHW") -> None:
        self._get_file_writer().add_summary(
            _summary.image(tag, img_tensor, dataformats), global_step, walltime)

    def add_images(self, tag: str, img_tensor, global_step=None, walltime=None,
                   dataformats: str = "NCHW") -> None:
        """A batch of images, tiled into one grid image (8 per row)."""
        self.add_image(tag, img_tensor, global_step, walltime, dataformats)

    def add_figure(self, tag: str, figure, global_step=None, close: bool = True,
                   walltime=None) -> None:
        """A matplotlib figure (or a list of them, tiled) rendered as an image."""
        images = _summary.figure_to_image(figure, close)
        self.add_image(tag, images, global_step, walltime,
                       "NCHW" if images.ndim == 4 else "CHW")

    # ------------------------------------------------------------ text and hparams
    def add_text(self, tag: str, text_string: str, global_step=None, walltime=None) -> None:
        self._get_file_writer().add_summary(_summary.text(tag, text_string), global_step,
                                            walltime)

    def add_hparams(self, hparam_dict: dict, metric_dict: dict, hparam_domain_discrete=None,
                    run_name=None, global_step=None) -> None:
        """Hyperparameters and their final metrics, written as torch does into a new run
        (subfolder `run_name`, default the current time) for the HPARAMS tab."""
        if type(hparam_dict) is not dict or type(metric_dict) is not dict:
            raise TypeError("hparam_dict and metric_dict should be dictionary.")
        summaries = _summary.hparams(hparam_dict, metric_dict, hparam_domain_discrete)
        run_dir = os.path.join(self._get_file_writer().get_logdir(),
                               run_name or str(time.time()))
        with SummaryWriter(log_dir=run_dir) as run:
            for s in summaries:
                run.file_writer.add_summary(s, global_step)
            for k, v in metric_dict.items():
                run.add_scalar(k, v, global_step)

    def add_image_with_boxes(self, tag: str, img_tensor, box_tensor, global_step=None,
                             walltime=None, rescale=1, dataformats: str = "CHW",
                             labels=None) -> None:
        """An image with red (xmin, ymin, xmax, ymax) boxes drawn on it, each with its label
        when one label per box is given."""
        if labels is not None:
            if isinstance(labels, str):
                labels = [labels]
            if len(labels) != box_tensor.shape[0]:
                labels = None        # as torch: mismatched labels are dropped
        self._get_file_writer().add_summary(
            _summary.image_boxes(tag, img_tensor, box_tensor, rescale, dataformats, labels),
            global_step, walltime)

    def add_video(self, tag: str, vid_tensor, global_step=None, fps=4, walltime=None) -> None:
        """(N, T, C, H, W) clips as one animated GIF (torch encodes it with moviepy, ember
        with Pillow, so the GIF bytes differ)."""
        self._get_file_writer().add_summary(_summary.video(tag, vid_tensor, fps), global_step,
                                            walltime)

    # ------------------------------------------------------------ audio, tensors, meshes
    def add_audio(self, tag: str, snd_tensor, global_step=None, sample_rate: int = 44100,
                  walltime=None) -> None:
        self._get_file_writer().add_summary(
            _summary.audio(tag, snd_tensor, sample_rate), global_step, walltime)

    def add_tensor(self, tag: str, tensor, global_step=None, walltime=None) -> None:
        self._get_file_writer().add_summary(_summary.tensor_proto(tag, tensor), global_step,
                                            walltime)

    def add_mesh(self, tag: str, vertices, colors=None, faces=None, config_dict=None,
                 global_step=None, walltime=None) -> None:
        """A mesh or point cloud: (B, N, 3) vertices, optional colors and faces."""
        self._get_file_writer().add_summary(
            _summary.mesh(tag, vertices, colors, faces, config_dict), global_step, walltime)

    # ------------------------------------------------------------ PR curves, custom scalars
    def add_pr_curve(self, tag: str, labels, predictions, global_step=None,
                     num_thresholds: int = 127, weights=None, walltime=None) -> None:
        self._get_file_writer().add_summary(
            _summary.pr_curve(tag, labels, predictions, num_thresholds, weights),
            global_step, walltime)

    def add_pr_curve_raw(self, tag: str, true_positive_counts, false_positive_counts,
                         true_negative_counts, false_negative_counts, precision, recall,
                         global_step=None, num_thresholds: int = 127, weights=None,
                         walltime=None) -> None:
        """Precomputed counts; `weights` is accepted and unused, as in torch."""
        self._get_file_writer().add_summary(
            _summary.pr_curve_raw(tag, true_positive_counts, false_positive_counts,
                                  true_negative_counts, false_negative_counts, precision,
                                  recall, num_thresholds), global_step, walltime)

    def add_custom_scalars(self, layout: dict) -> None:
        """Charts grouping scalar tags: {category: {title: ['Multiline' or 'Margin',
        tags]}}. Write it once per writer."""
        self._get_file_writer().add_summary(_summary.custom_scalars(layout))

    def add_custom_scalars_multilinechart(self, tags, category: str = "default",
                                          title: str = "untitled") -> None:
        self.add_custom_scalars({category: {title: ["Multiline", tags]}})

    def add_custom_scalars_marginchart(self, tags, category: str = "default",
                                       title: str = "untitled") -> None:
        """tags = [value, lower bound, upper bound]."""
        if len(tags) != 3:
            raise AssertionError(f"Expected 3 tags, got {len(tags)}.")
        self.add_custom_scalars({category: {title: ["Margin", tags]}})

    # ------------------------------------------------------------ graph and projector
    def add_graph(self, model, input_to_model=None, verbose: bool = False,
                  use_strict_trace: bool = True) -> None:
        """The graph of ember ops one forward of `model` calls (see _graph.py; the nodes
        are ember's ops, not torch's JIT ones)."""
        self._get_file_writer().add_graph(
            _graph.graph(model, input_to_model, verbose, use_strict_trace))

    def add_embedding(self, mat, metadata=None, label_img=None, global_step=None,
                      tag: str = "default", metadata_header=None) -> None:
        """Points (rows of mat) for the projector, with optional labels and thumbnails."""
        from tensorboard.plugins.projector.projector_config_pb2 import ProjectorConfig
        if self._projector_config is None:
            self._projector_config = ProjectorConfig()
        _embedding.add_embedding(self._projector_config, self._get_file_writer().get_logdir(),
                                 mat, metadata, label_img, global_step, tag, metadata_header)

    # ------------------------------------------------------------ lifetime
    def flush(self) -> None:
        for writer in (self.all_writers or {}).values():
            writer.flush()

    def close(self) -> None:
        for writer in (self.all_writers or {}).values():
            writer.flush()
            writer.close()
        self.file_writer = self.all_writers = None

    def __enter__(self) -> "SummaryWriter":
        return self

    def __exit__(self, exc_type, exc_val, exc_tb) -> None:
        self.close()
