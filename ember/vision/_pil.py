"""Lazy access to the optional Pillow dependency (pip install ember[vision])."""
from __future__ import annotations

import sys


def pil_image():
    """The PIL.Image module, or an ImportError that names the extra to install."""
    try:
        from PIL import Image
    except ImportError as err:
        raise ImportError("ember.vision needs Pillow for PIL images: "
                          "pip install ember[vision]") from err
    return Image


def is_pil_image(obj) -> bool:
    # An object can only be a PIL image if PIL.Image was imported: checking sys.modules
    # keeps `import ember.vision` from importing Pillow.
    module = sys.modules.get("PIL.Image")
    return module is not None and isinstance(obj, module.Image)
