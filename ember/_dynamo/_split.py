"""Graph breaks that keep a compiled prefix.

torch's dynamo rewrites a function's bytecode around a graph break, so that the part
before the break runs as one graph and the rest resumes in Python. ember cuts at
statements instead: when a trace breaks inside a top-level statement k of the compiled
function itself (a `print(loss.item())`, a `return loss.item()`), the function's source is
recompiled as two functions,

    prefix(<fn's parameters>)   statements 0 .. k-1, returning the names they bound
    rest(**names)               statements k .. end, run eagerly

sharing fn's globals and closure cells. The caller compiles `prefix` like any function
(its trace, guards and plan are its own) and calls `rest` with what it returns. Cutting is
refused (the whole call runs eagerly, as before) when the source is not available (or is
another function's: a functools.wraps wrapper's source is the wrapped function's), the
break is not in a top-level statement after the first, the statements before it can
return, yield or await, the function declares `global`/`nonlocal` names or uses private
names a class would mangle, or it is a generator or coroutine.
"""
from __future__ import annotations

import ast
import copy
import inspect
import textwrap
import types

_UNSET = object()       # a name the statements before the break did not bind


def split(fn, line_of) -> tuple | None:
    """(prefix, rest) for `fn` cut before the top-level statement holding the line
    `line_of(code)` gives for fn's code object (None: the break is not in fn's own
    frame), or None when fn cannot be cut there (module docstring)."""
    func = fn.__func__ if isinstance(fn, types.MethodType) else fn
    # A functools.wraps wrapper: inspect would give the wrapped function's source, not the
    # wrapper's, and cutting that would drop what the wrapper does.
    if getattr(func, "__wrapped__", None) is not None or \
            not isinstance(func, types.FunctionType) or \
            func.__code__.co_flags & (inspect.CO_GENERATOR | inspect.CO_COROUTINE |
                                      inspect.CO_ASYNC_GENERATOR | inspect.CO_ITERABLE_COROUTINE):
        return None
    line = line_of(func.__code__)
    try:
        lines, start = inspect.getsourcelines(func)
        tree = ast.increment_lineno(ast.parse(textwrap.dedent("".join(lines))), start - 1)
    except (OSError, TypeError, SyntaxError):
        return None
    node = tree.body[0] if tree.body else None
    if line is None or not isinstance(node, ast.FunctionDef) or _unsupported(node):
        return None
    k = next((i for i, s in enumerate(node.body) if s.lineno <= line <= s.end_lineno), None)
    if not k or any(_leaves(s) for s in node.body[:k]):
        return None
    names = _parameters(node.args) + [n for n in _bound(node.body[:k]) if n not in
                                      func.__code__.co_freevars]
    names = list(dict.fromkeys(names))
    prefix_code, rest_code = _compiled(node, k, names, func.__code__)
    cells = dict(zip(func.__code__.co_freevars, func.__closure__ or ()))
    prefix = _function(prefix_code, func, cells)
    prefix.__defaults__, prefix.__kwdefaults__ = func.__defaults__, func.__kwdefaults__
    rest = _function(rest_code, func, cells)
    rest.__kwdefaults__ = dict.fromkeys(names, _UNSET) | {"ember_unset_": _UNSET}
    if isinstance(fn, types.MethodType):
        prefix = types.MethodType(prefix, fn.__self__)
    return prefix, rest


def _unsupported(node: ast.FunctionDef) -> bool:
    """global/nonlocal declarations, or private names (a class body mangles them)."""
    for inner in ast.walk(node):
        if isinstance(inner, (ast.Global, ast.Nonlocal)):
            return True
        name = inner.id if isinstance(inner, ast.Name) else \
            inner.attr if isinstance(inner, ast.Attribute) else None
        if name and name.startswith("__") and not name.endswith("__"):
            return True
    return False


def _own_nodes(statement):
    """The nodes of a statement outside the functions, lambdas and classes it defines."""
    pending = [statement]
    while pending:
        node = pending.pop()
        yield node
        for child in ast.iter_child_nodes(node):
            if not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda,
                                      ast.ClassDef)):
                pending.append(child)


def _leaves(statement) -> bool:
    """Whether a statement can end the function (return) or suspend it."""
    return any(isinstance(n, (ast.Return, ast.Yield, ast.YieldFrom, ast.Await))
               for n in _own_nodes(statement))


def _parameters(args: ast.arguments) -> list:
    found = [a.arg for a in args.posonlyargs + args.args + args.kwonlyargs]
    found += [a.arg for a in (args.vararg, args.kwarg) if a is not None]
    return found


def _bound(statements) -> list:
    """Names the statements may bind (more is harmless: unbound ones are skipped)."""
    found = []
    for statement in statements:
        for node in ast.walk(statement):
            if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
                found.append(node.id)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                found.append(node.name)
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                found += [(a.asname or a.name).split(".")[0] for a in node.names]
            elif isinstance(node, ast.ExceptHandler) and node.name:
                found.append(node.name)
    return found


def _compiled(node: ast.FunctionDef, k: int, names: list, code: types.CodeType) -> tuple:
    """The code objects of prefix and rest (fn's file and line numbers), compiled inside
    an outer function that binds fn's free variables, so that they refer to them as fn
    does (the cells are given when the functions are made)."""
    prefix = copy.copy(node)
    prefix.decorator_list = []
    prefix.body = node.body[:k] + _at(node.body[k], (
        "ember_locals_ = locals()\n"
        f"return {{n: ember_locals_[n] for n in {tuple(names)!r} if n in ember_locals_}}"))
    rest = copy.copy(node)
    rest.decorator_list = []
    rest.args = ast.arguments(posonlyargs=[], args=[], vararg=None, kwarg=None, defaults=[],
                              kwonlyargs=[ast.arg(arg=n) for n in names + ["ember_unset_"]],
                              kw_defaults=[None] * (len(names) + 1))
    rest.body = _at(node.body[k], "".join(f"if {n} is ember_unset_:\n    del {n}\n"
                                          for n in names)) + node.body[k:]
    binding = " = ".join(code.co_freevars + ("None",)) if code.co_freevars else "pass"
    outer = ast.parse(f"def ember_outer_():\n    {binding}\n")
    outer.body[0].body += [prefix, rest]
    module = compile(ast.fix_missing_locations(outer), code.co_filename, "exec")
    inner = next(c for c in module.co_consts if isinstance(c, types.CodeType))
    return tuple(c for c in inner.co_consts if isinstance(c, types.CodeType))


def _at(statement, source: str) -> list:
    """The statements of `source`, placed at the line of `statement` (for tracebacks)."""
    added = ast.parse(source).body
    for node in added:
        for inner in ast.walk(node):
            if hasattr(inner, "lineno"):
                inner.lineno = inner.end_lineno = statement.lineno
                inner.col_offset, inner.end_col_offset = 0, 0
    return added


def _function(code: types.CodeType, func: types.FunctionType, cells: dict):
    made = types.FunctionType(code, func.__globals__, func.__name__, None,
                              tuple(cells[name] for name in code.co_freevars))
    made.__qualname__ = func.__qualname__
    return made
