"""Which globals a pickle would import, read without unpickling it.

`get_unsafe_globals_in_checkpoint` must see every way a pickle can name a global: the
GLOBAL and INST opcodes carry the name in their argument, while STACK_GLOBAL (protocol
4 and later) takes it from two strings on the stack. So the scan runs the pickle's stack
machine symbolically: strings and the memo are tracked, every other value is opaque.
What cannot be decided statically (a STACK_GLOBAL whose operands are not plain strings,
the extension-registry opcodes, a malformed stream) is refused rather than guessed:
a scanner that says "nothing unsafe" must mean it.
"""
from __future__ import annotations

import pickle
import pickletools

_MARK = object()        # a mark on the simulated stack
_OPAQUE = object()      # any value the scan does not follow
_STRING_OPS = {"STRING", "BINSTRING", "SHORT_BINSTRING", "UNICODE", "BINUNICODE",
               "SHORT_BINUNICODE", "BINUNICODE8"}
_UNDECIDABLE = {"EXT1", "EXT2", "EXT4"}     # globals named through copyreg's registry


def imported_globals(data: bytes) -> list[tuple[str, str]]:
    """(module, name) of every global the pickle `data` imports, in order of appearance;
    raises pickle.UnpicklingError for a pickle the scan cannot decide."""
    stack: list = []
    memo: dict = {}
    found = []
    try:
        for op, arg, position in pickletools.genops(data):
            name = op.name
            if name in _UNDECIDABLE:
                raise pickle.UnpicklingError(f"{name} at byte {position} names a global "
                                             "through the extension registry")
            if name in ("GLOBAL", "INST"):
                found.append(tuple(arg.split(" ", 1)))
            if name == "STACK_GLOBAL":
                module, attribute = stack[-2:]
                if not (isinstance(module, str) and isinstance(attribute, str)):
                    raise pickle.UnpicklingError(f"STACK_GLOBAL at byte {position} takes its "
                                                 "name from values a static scan cannot follow")
                found.append((module, attribute))
            _step(op, arg, stack, memo)
    except (ValueError, IndexError) as e:       # what genops and an underflow raise
        raise pickle.UnpicklingError(f"the pickle is malformed: {e}") from e
    return found


def _step(op, arg, stack: list, memo: dict) -> None:
    """Apply one opcode's effect on the stack and the memo."""
    name = op.name
    if name == "MEMOIZE":
        memo[len(memo)] = stack[-1]
    elif name in ("PUT", "BINPUT", "LONG_BINPUT"):
        memo[arg] = stack[-1]
    elif name in ("GET", "BINGET", "LONG_BINGET"):
        stack.append(memo.get(arg, _OPAQUE))
    elif name == "DUP":
        stack.append(stack[-1])
    elif name in _STRING_OPS:
        stack.append(arg if isinstance(arg, str) else _OPAQUE)
    else:
        before = op.stack_before
        if pickletools.markobject in before:
            while stack.pop() is not _MARK:      # everything above the mark, then the mark
                pass
            before = before[:before.index(pickletools.markobject)]
        if len(before) > len(stack):
            raise IndexError(f"{name} needs {len(before)} values on the stack")
        del stack[len(stack) - len(before):]
        stack.extend(_MARK if item is pickletools.markobject else _OPAQUE
                     for item in op.stack_after)
