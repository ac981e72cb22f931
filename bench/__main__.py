"""python -m bench [suite ...]: run the side-by-side benchmarks (all suites by default)."""
import importlib
import platform
import sys
import time

SUITES = ["core", "nn", "memory", "optim", "data", "distributed"]


def main(argv) -> None:
    suites = argv or SUITES
    print(f"# ember vs torch, {time.strftime('%Y-%m-%d')}, {platform.machine()}, "
          f"{platform.processor() or 'cpu'}, python {platform.python_version()}")
    for name in suites:
        print(f"## {name}")
        importlib.import_module(f"bench.{name}").run()


if __name__ == "__main__":
    main(sys.argv[1:])
