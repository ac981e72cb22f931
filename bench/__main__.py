"""python -m bench [--tune-malloc] [suite ...]: run the side-by-side benchmarks (all
suites by default).

By default glibc's malloc is left as it is, since torch runs in the same process and
would share any tuning. --tune-malloc applies ember.backends.cpu.tune_malloc() first, as
`ember run` does, so the figures show what ember's own command gets.
"""
import importlib
import platform
import sys
import time

SUITES = ["core", "nn", "memory", "optim", "data", "distributed"]


def main(argv) -> None:
    tuned = "--tune-malloc" in argv
    suites = [a for a in argv if a != "--tune-malloc"] or SUITES
    if tuned:
        from ember.backends.cpu import tune_malloc
        tune_malloc()
    print(f"# ember vs torch, {time.strftime('%Y-%m-%d')}, {platform.machine()}, "
          f"{platform.processor() or 'cpu'}, python {platform.python_version()}, "
          f"malloc {'tuned' if tuned else 'untuned'}")
    for name in suites:
        print(f"## {name}")
        importlib.import_module(f"bench.{name}").run()


if __name__ == "__main__":
    main(sys.argv[1:])
