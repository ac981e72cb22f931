"""The files of TensorBoard's embedding projector, laid out as torch writes them.

Each add_embedding call writes a folder '<step:05d>/<tag>' under the run's log dir with
tensors.tsv (one point per row), optionally metadata.tsv (labels) and sprite.png (one
thumbnail per point, tiled into a square), and rewrites projector_config.pbtxt, which
lists every embedding the writer has logged so far.
"""
from __future__ import annotations

import math
import os

import numpy as np

from .summary import make_grid, make_np, pillow


def encode_tag(tag: str) -> str:
    """The tag as one folder name: '%', '/' and '\\' escaped as %xx."""
    for char in ("%", "/", "\\"):
        tag = tag.replace(char, f"%{ord(char):02x}")
    return tag


def prepare_folder(save_path: str) -> None:
    if not os.path.exists(save_path):
        os.makedirs(save_path)
    elif os.path.isdir(save_path):
        print("warning: Embedding dir exists, did you set global_step for add_embedding()?")
    else:
        raise NotADirectoryError(f"Path: `{save_path}` exists, but is a file. Cannot proceed.")


def write_metadata(metadata, save_path: str, metadata_header=None) -> None:
    """One label per line; with a header, tab-separated columns under a header line."""
    if not metadata_header:
        lines = [str(label) for label in metadata]
    else:
        if len(metadata_header) != len(metadata[0]):
            raise AssertionError("len of header must be equal to the number of columns in "
                                 "metadata")
        lines = ["\t".join(str(v) for v in row) for row in [metadata_header, *metadata]]
    with open(os.path.join(save_path, "metadata.tsv"), "wb") as f:
        f.write(("\n".join(lines) + "\n").encode("utf-8"))


def write_sprite(label_img: np.ndarray, save_path: str) -> None:
    """(N, C, H, W) thumbnails in [0, 1], tiled ceil(sqrt(N)) per row on a square canvas
    as wide as the tiling (torch's layout; the projector expects a square sprite)."""
    Image = pillow("add_embedding")
    if label_img.shape[1] == 1:
        label_img = np.repeat(label_img, 3, axis=1)
    grid = make_grid(label_img, ncols=math.ceil(label_img.shape[0] ** 0.5)).transpose(1, 2, 0)
    square = np.zeros((grid.shape[1], grid.shape[1], 3))
    square[:grid.shape[0]] = grid
    picture = Image.fromarray(np.uint8((square * 255).clip(0, 255)))
    picture.save(os.path.join(save_path, "sprite.png"), format="PNG")


def write_tensors(mat: np.ndarray, save_path: str) -> None:
    with open(os.path.join(save_path, "tensors.tsv"), "wb") as f:
        for row in mat.tolist():
            f.write(("\t".join(str(v) for v in row) + "\n").encode("utf-8"))


def embedding_info(metadata, label_img, subdir: str, global_step: int, tag: str):
    from tensorboard.plugins.projector.projector_config_pb2 import EmbeddingInfo
    info = EmbeddingInfo(tensor_name=f"{tag}:{str(global_step).zfill(5)}",
                         tensor_path=os.path.join(subdir, "tensors.tsv"))
    if metadata is not None:
        info.metadata_path = os.path.join(subdir, "metadata.tsv")
    if label_img is not None:
        info.sprite.image_path = os.path.join(subdir, "sprite.png")
        info.sprite.single_image_dim.extend([label_img.shape[3], label_img.shape[2]])
    return info


def add_embedding(config, log_dir: str, mat, metadata=None, label_img=None, global_step=None,
                  tag: str = "default", metadata_header=None) -> None:
    """Write one embedding's files and append it to `config` (a ProjectorConfig), which
    is then saved as the run's projector_config.pbtxt. Checks run in torch's order."""
    from google.protobuf import text_format
    mat = make_np(mat)
    global_step = 0 if global_step is None else global_step
    subdir = f"{str(global_step).zfill(5)}/{encode_tag(tag)}"
    save_path = os.path.join(log_dir, subdir)
    prepare_folder(save_path)
    if metadata is not None:
        if mat.shape[0] != len(metadata):
            raise AssertionError("#labels should equal with #data points")
        write_metadata(metadata, save_path, metadata_header)
    if label_img is not None:
        label_img = make_np(label_img)
        if mat.shape[0] != label_img.shape[0]:
            raise AssertionError("#images should equal with #data points")
        write_sprite(label_img, save_path)
    if mat.ndim != 2:
        raise AssertionError("mat should be 2D, where mat.size(0) is the number of data points")
    write_tensors(mat, save_path)
    config.embeddings.append(embedding_info(metadata, label_img, subdir, global_step, tag))
    with open(os.path.join(log_dir, "projector_config.pbtxt"), "wb") as f:
        f.write(text_format.MessageToString(config).encode("utf-8"))
