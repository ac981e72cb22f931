"""torchvision.io.image: reading, decoding and encoding images (libjpeg/libpng in
torchvision), not implemented in ember; the names import and raise NotImplementedError
naming themselves when used. PIL.Image.open with transforms.functional.pil_to_tensor
reads an image instead."""
from .. import _unavailable

__all__ = ["ImageReadMode", "decode_image", "decode_jpeg", "decode_png", "decode_avif",
           "decode_heic", "decode_webp", "decode_gif", "encode_jpeg", "encode_png", "read_file",
           "read_image", "write_file", "write_jpeg", "write_png"]
globals().update(_unavailable.stand_ins(__name__, __all__))
