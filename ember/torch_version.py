"""torch.torch_version: TorchVersion, the str subclass torch.__version__ is.

Scripts compare torch.__version__ with strings (`>= "2.0"`), with tuples (`>= (2, 0)`) and
parse it with `packaging.version`. A TorchVersion is a plain str for everything else, and
compares by PEP 440 version order when the other side reads as a version; otherwise (say
"parrot") it falls back to string comparison, as torch's does.
"""
from __future__ import annotations

import math
import operator
import re
from collections.abc import Iterable

from .version import __version__ as _torch_release

__all__ = ["TorchVersion"]

# PEP 440 public versions with an optional local part ("2.13.0+cpu", "1.10.0a0", "2.1.post1").
_PEP440 = re.compile(r"""
    v?(?:(?P<epoch>\d+)!)?
    (?P<release>\d+(?:\.\d+)*)
    (?:[-_.]?(?P<pre>alpha|beta|preview|pre|rc|a|b|c)[-_.]?(?P<pre_n>\d+)?)?
    (?:-(?P<post_implicit>\d+)|[-_.]?(?P<post>post|rev|r)[-_.]?(?P<post_n>\d+)?)?
    (?:[-_.]?(?P<dev>dev)[-_.]?(?P<dev_n>\d+)?)?
    (?:\+(?P<local>[a-z0-9]+(?:[-_.][a-z0-9]+)*))?
""", re.VERBOSE | re.IGNORECASE)
_PRE_RANK = {"a": 0, "alpha": 0, "b": 1, "beta": 1, "rc": 2, "c": 2, "pre": 2, "preview": 2}


class _InvalidVersion(ValueError):
    pass


def _sort_key(text: str) -> tuple:
    """A tuple ordering versions as PEP 440 does: 1.0.dev0 < 1.0a1 < 1.0 < 1.0+cpu < 1.0.post1."""
    m = _PEP440.fullmatch(text.strip())
    if m is None:
        raise _InvalidVersion(text)
    release = [int(n) for n in m["release"].split(".")]
    while release and release[-1] == 0:          # 2.0 == 2.0.0
        release.pop()
    has_post = m["post"] is not None or m["post_implicit"] is not None
    if m["pre"] is not None:
        pre = (_PRE_RANK[m["pre"].lower()], int(m["pre_n"] or 0))
    elif m["dev"] is not None and not has_post:
        pre = (-1, 0)                             # 1.0.dev0 sorts before 1.0a0
    else:
        pre = (3, 0)                              # a final release sorts after its pre-releases
    post = int(m["post_implicit"] or m["post_n"] or 0) if has_post else -1
    dev = int(m["dev_n"] or 0) if m["dev"] is not None else math.inf
    # Local segments: numbers sort above words; no local part sorts below any.
    local = tuple((1, int(part), "") if part.isdigit() else (0, 0, part.lower())
                  for part in re.split(r"[-_.]", m["local"] or "") if part)
    return int(m["epoch"] or 0), tuple(release), pre, post, dev, local


def _version_text(other) -> str:
    if isinstance(other, str):
        return other
    if isinstance(other, Iterable):              # (2, 0) -> "2.0", (1, 20, 1) -> "1.20.1"
        return ".".join(str(part) for part in other)
    raise _InvalidVersion(other)


class TorchVersion(str):
    """A version string that also compares with version strings and tuples.

    `TorchVersion("2.13.0+cpu") >= (2, 0)` and `>= "2.0"` are True; comparisons with
    something that is not a version fall back to plain string comparison.
    """
    __slots__ = ()
    __hash__ = str.__hash__       # defining __eq__ would otherwise drop str's hash

    def _compare(self, other, name: str):
        try:
            mine, theirs = _sort_key(self), _sort_key(_version_text(other))
        except _InvalidVersion:
            return getattr(str, name)(self, other)
        return getattr(operator, name)(mine, theirs)

    def __eq__(self, other):
        return self._compare(other, "__eq__")

    def __lt__(self, other):
        return self._compare(other, "__lt__")

    def __le__(self, other):
        return self._compare(other, "__le__")

    def __gt__(self, other):
        return self._compare(other, "__gt__")

    def __ge__(self, other):
        return self._compare(other, "__ge__")


__version__ = TorchVersion(_torch_release)
