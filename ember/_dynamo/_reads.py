"""What a compiled function reads by name from outside the call: the globals its code
loads, the cells it closes over and its default arguments, and those of the helper
functions it calls from its own module's globals.

Their values are part of a plan's guard, compared by identity: a plan bakes in what the
traced call read (`x * scale` multiplies by the traced scale), so rebinding `scale = 2.0`
must trace again, as torch guards the globals and closure variables a frame reads.
Mutating an object in place (a dict entry, an attribute of a plain object) is not seen:
the guard holds which object a name refers to, not its contents (a module's attributes
are guarded separately, see _tracer.module_state).
"""
from __future__ import annotations

import dis
import functools
import types

_EMPTY = object()       # an unset global or an empty cell


class NamedReads:
    """The (globals dict, name) pairs, closure cells and defaults a function reads;
    `current()` gives the objects they hold now."""

    def __init__(self, fn):
        self._globals: list = []
        self._cells: list = []
        self._functions: list = []          # whose default arguments are read too
        self._collect(fn, set())

    def _collect(self, fn, seen: set) -> None:
        func = getattr(fn, "__func__", fn)          # a bound method's function
        if not isinstance(func, types.FunctionType) or func in seen:
            return
        seen.add(func)
        self._functions.append(func)
        self._cells += list(func.__closure__ or ())
        for name in _loaded_globals(func.__code__):
            self._globals.append((func.__globals__, name))
            value = func.__globals__.get(name)
            if isinstance(value, types.FunctionType) and value.__globals__ is func.__globals__:
                self._collect(value, seen)          # a helper of the same module

    def current(self) -> tuple:
        """The objects the names and cells hold now (_EMPTY where unset), and the
        functions' default arguments."""
        return tuple(d.get(name, _EMPTY) for d, name in self._globals) + \
            tuple(_contents(cell) for cell in self._cells) + \
            tuple(f.__defaults__ for f in self._functions) + \
            tuple(f.__kwdefaults__ for f in self._functions)


@functools.lru_cache(maxsize=1024)
def _loaded_globals(code: types.CodeType) -> tuple:
    """The global names a code object (and the functions, lambdas and comprehensions it
    defines) loads, in first-load order."""
    names = [i.argval for i in dis.get_instructions(code) if i.opname == "LOAD_GLOBAL"]
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names += _loaded_globals(const)
    return tuple(dict.fromkeys(names))


def _contents(cell):
    try:
        return cell.cell_contents
    except ValueError:                  # a cell whose variable is not bound yet
        return _EMPTY
