"""python -m bench [--tune-malloc] [--doctor] [suite ...]: run the side-by-side benchmarks
(all suites by default).

By default glibc's malloc is left as it is, since torch runs in the same process and
would share any tuning. --tune-malloc applies ember.backends.cpu.tune_malloc() first, as
`ember run` does, so the figures show what ember's own command gets. --doctor adds the
`ember+doctor` column: ember with ember.doctor's checks on, as `ember run --doctor` runs
(the nn suite's training steps show what the checks cost).
"""
import importlib
import platform
import sys
import time

SUITES = ["core", "nn", "compiled", "memory", "first_step", "optim", "data", "distributed"]


def main(argv) -> None:
    tuned = "--tune-malloc" in argv
    if "--doctor" in argv:
        from bench.runner import DOCTOR, EXTRA_COLUMNS
        EXTRA_COLUMNS.append(DOCTOR)
    suites = [a for a in argv if a not in ("--tune-malloc", "--doctor")] or SUITES
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
