"""Small training scripts for ember.doctor's tests: a common prelude, and the `# <- check-id`
markers that name the line a check must point at."""
from __future__ import annotations

import re

# what every script starts with: the torch names bound to ember
PRELUDE = """\
import ember as torch
import ember.nn as nn
import ember.nn.functional as F
torch.manual_seed(0)
"""


def marked_lines(source: str) -> dict[int, str]:
    """{line number: check id} of the `# <- check-id` markers."""
    return {number: found.group(1) for number, line in enumerate(source.splitlines(), 1)
            if (found := re.search(r"# <- ([a-z-]+)", line))}
