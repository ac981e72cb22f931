"""ember.distributed figures, each from its own mpiexec run:

- all_reduce of 1, 16 and 64 MB float32 buffers on 2 ranks: ember's dist.all_reduce
  against mpi4py's own blocking comm.Allreduce on the same buffer (interleaved rounds,
  fastest of each), and ember's overhead in percent;
- DistributedDataParallel training throughput of the MNIST CNN (batch 32 per rank):
  2 ranks against 1.

`python -m bench distributed` runs it; `python -m bench.distributed` too.
"""
from __future__ import annotations

import os
import subprocess
import sys
import time

import numpy as np

SIZES_MB = (1, 16, 64)
DDP_BATCH = 32  # per rank
DDP_STEPS = 150


def _launch(n: int, mode: str, threads: int | None = None) -> str:
    env = dict(os.environ)
    if threads is not None:
        env.update(OMP_NUM_THREADS=str(threads), OPENBLAS_NUM_THREADS=str(threads))
    mpiexec = os.path.join(os.path.dirname(sys.executable), "mpiexec")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    done = subprocess.run([mpiexec, "-n", str(n), sys.executable, "-m", "bench.distributed",
                           "--worker", mode], cwd=root, env=env, capture_output=True,
                          text=True, timeout=300)
    if done.returncode != 0:
        raise RuntimeError(f"bench worker failed:\n{done.stderr}")
    return done.stdout


# ------------------------------------------------------------------ workers (under MPI)
def _best(step, repeats: int) -> float:
    step()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        step()
        times.append(time.perf_counter() - start)
    return min(times)


def _all_reduce_worker() -> None:
    import ember
    import ember.distributed as dist
    from mpi4py import MPI
    dist.init_process_group("mpi")
    comm = MPI.COMM_WORLD
    for mb in SIZES_MB:
        array = np.ones(mb * 1024 * 1024 // 4, np.float32)
        tensor = ember.from_numpy(array.copy())
        repeats = max(10, 400 // mb)
        steps = {"raw": lambda: comm.Allreduce(MPI.IN_PLACE, array, MPI.SUM),
                 "ours": lambda: dist.all_reduce(tensor)}
        times = {"raw": [], "ours": []}
        for round in range(6):  # alternate (and swap the order) so noise hits both alike
            for name in sorted(steps, reverse=round % 2 == 1):
                comm.Barrier()
                times[name].append(_best(steps[name], repeats))
        raw, ours = times["raw"], times["ours"]
        if dist.get_rank() == 0:
            print(f"ALLREDUCE {mb} {min(raw)} {min(ours)}")
    dist.destroy_process_group()


def _ddp_worker() -> None:
    import ember
    import ember.distributed as dist
    import ember.nn.functional as F
    from ember.nn.parallel import DistributedDataParallel
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))), "tests", "distributed", "scripts"))
    from ddp import MnistCNN
    dist.init_process_group("mpi")
    ember.manual_seed(0)
    model = DistributedDataParallel(MnistCNN())
    optimizer = ember.optim.SGD(model.parameters(), lr=0.01)
    rng = np.random.default_rng(dist.get_rank())
    images = ember.tensor(rng.standard_normal((DDP_BATCH, 1, 28, 28)).astype(np.float32))
    labels = ember.tensor(rng.integers(0, 10, DDP_BATCH))

    def step():
        optimizer.zero_grad()
        F.cross_entropy(model(images), labels).backward()
        optimizer.step()
    for _ in range(3):
        step()
    dist.barrier()
    start = time.perf_counter()
    for _ in range(DDP_STEPS):
        step()
    dist.barrier()
    seconds = time.perf_counter() - start
    if dist.get_rank() == 0:
        samples = DDP_STEPS * DDP_BATCH * dist.get_world_size()
        print(f"DDP {dist.get_world_size()} {samples / seconds}")
    dist.destroy_process_group()


# ------------------------------------------------------------------ driver
def _figures(output: str, tag: str) -> list[list[str]]:
    return [line.split()[1:] for line in output.splitlines() if line.startswith(tag + " ")]


def run() -> None:
    for mb, raw, ours in _figures(_launch(2, "allreduce"), "ALLREDUCE"):
        raw, ours = float(raw), float(ours)
        gbs = int(mb) / 1024 / ours
        print(f"{'all_reduce ' + mb + ' MB float32, 2 ranks':<44} mpi4py {raw * 1e3:8.2f} ms   "
              f"ember {ours * 1e3:8.2f} ms ({gbs:5.2f} GB/s)   overhead "
              f"{(ours / raw - 1) * 100:+5.1f}%")
    # The fair comparison on a 2-core machine gives each rank one BLAS thread; the
    # single process with NumPy's default threads is shown for reference.
    base = None
    for n, threads, label in [(1, 1, "1 rank, 1 BLAS thread"),
                              (2, 1, "2 ranks, 1 BLAS thread each"),
                              (1, None, "1 rank, default BLAS threads")]:
        (_, rate), = _figures(_launch(n, "ddp", threads), "DDP")
        rate = float(rate)
        base = base or rate
        print(f"{'DDP MNIST CNN, ' + label:<44} {rate:8.1f} samples/s   x{rate / base:4.2f} "
              "vs 1 rank, 1 thread")

if __name__ == "__main__":
    if sys.argv[1:2] == ["--worker"]:
        {"allreduce": _all_reduce_worker, "ddp": _ddp_worker}[sys.argv[2]]()
    else:
        run()
