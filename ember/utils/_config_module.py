"""Settings modules that behave like torch's (torch._dynamo.config, torch._inductor.config, ...).

A module becomes one by calling `install(__name__, aliases)` at its end. Then:
- an older name of a setting is an alias: reading or setting `cache_size_limit` reads or
  sets `recompile_limit` (scripts written for older torch versions set the old names);
- `patch(...)` changes settings for a `with` block or a decorated function, restoring
  them after;
- `get_config_copy()` is a dict of the settings.

Unlike torch, a setting of a name the module does not list is accepted (and read by
nothing): ember lists the settings scripts commonly set, not all of torch's.
"""
from __future__ import annotations

import contextlib
import copy
import sys
import types


class ConfigModule(types.ModuleType):
    """A module of settings (see the module docstring)."""

    def __getattr__(self, name: str):
        # Only called for names the module does not hold.
        target = vars(self).get("_ALIASES", {}).get(name)
        if target is None:
            raise AttributeError(f"{self.__name__}.{name} does not exist")
        return getattr(self, target)

    def __setattr__(self, name: str, value) -> None:
        super().__setattr__(vars(self).get("_ALIASES", {}).get(name, name), value)

    def get_config_copy(self) -> dict:
        """The settings, by name (a copy: changing it changes no setting)."""
        return {name: copy.deepcopy(value) for name, value in vars(self).items()
                if _is_setting(name, value)}

    def patch(self, arg1=None, arg2=None, **changes):
        """Change settings for a block or a function: patch("name", value),
        patch({"name": value, ...}) or patch(name=value, ...); dotted names reach nested
        groups (patch("triton.cudagraphs", False))."""
        if arg1 is None:
            if arg2 is not None:
                raise AssertionError("second positional argument is only valid when first "
                                     "argument is a key string")
        elif changes:
            raise AssertionError("cannot pass both positional and keyword arguments to patch")
        elif arg2 is not None:
            if not isinstance(arg1, str):
                raise AssertionError("first argument must be a string when passing 2 "
                                     "positional args to patch")
            changes = {arg1: arg2}
        elif isinstance(arg1, dict):
            changes = dict(arg1)
        else:
            raise AssertionError("first argument must be a dict when passing a single "
                                 "positional arg to patch")
        return _Patch(self, changes)


class _Patch(contextlib.ContextDecorator):
    """The settings `changes` of `config` while a block or a decorated function runs."""

    def __init__(self, config: ConfigModule, changes: dict) -> None:
        self.config, self.changes = config, changes
        self.saved = []                 # one dict of prior values per nested entry

    def __enter__(self) -> None:
        prior = {name: _get(self.config, name) for name in self.changes}
        for name, value in self.changes.items():
            _set(self.config, name, value)
        self.saved.append(prior)

    def __exit__(self, *exc_info) -> None:
        for name, value in self.saved.pop().items():
            _set(self.config, name, value)


def _get(config, dotted: str):
    for part in dotted.split("."):
        config = getattr(config, part)
    return config


def _set(config, dotted: str, value) -> None:
    *groups, name = dotted.split(".")
    setattr(_get(config, ".".join(groups)) if groups else config, name, value)


def _is_setting(name: str, value) -> bool:
    return not name.startswith("_") and not callable(value) and \
        not isinstance(value, types.ModuleType)


def install(module_name: str, aliases: dict | None = None) -> None:
    """Make the module `module_name` a settings module; `aliases` maps older names to the
    settings they stand for."""
    module = sys.modules[module_name]
    module.__class__ = ConfigModule
    vars(module)["_ALIASES"] = dict(aliases or {})
