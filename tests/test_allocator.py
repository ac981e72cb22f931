"""Malloc tuning (ember/_cpu/allocator.py) is opt-in: importing ember leaves the host
process's allocator alone; ember.backends.cpu.tune_malloc() and `ember run` apply it.
(Its effect, fewer page faults per training step, is measured in bench/, not here.)"""
import subprocess
import sys
import textwrap

import ember.backends.cpu


def _libc_opened_by(code: str) -> list:
    """The C library loads that `code` makes through ctypes, in a fresh interpreter."""
    probe = textwrap.dedent("""
        import sys
        opened = []
        sys.addaudithook(lambda event, args: opened.append(str(args[0]))
                         if event == "ctypes.dlopen" else None)
        """) + textwrap.dedent(code) + "\nprint([n for n in opened if 'libc' in n])\n"
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                            timeout=120, check=True)
    return eval(result.stdout.strip().splitlines()[-1])


def test_importing_ember_does_not_tune_malloc():
    assert _libc_opened_by("import ember") == []


def test_tune_malloc_is_applied_on_request():
    assert ember.backends.cpu.tune_malloc() is True
    assert _libc_opened_by("import ember.backends.cpu\nember.backends.cpu.tune_malloc()") != []
