"""What the ranks of a launched job leave for their launcher, in the folder named by the
environment variable EMBER_JOB_DIR (the launcher makes one per job):

- `rank<r>.json`, written when the rank initialises MPI: its pid, and the shared-memory
  segments MPI opened for it;
- `rank<r>.txt`, written by a rank that fails: its traceback, or how it exited.

MPICH keeps the channels between the processes of a machine in one POSIX shared-memory
segment per job, `/dev/shm/mpich_shm_<hash of the job's name>_<node>`, created in
MPI_Init and removed in MPI_Finalize. A job whose ranks raised, were killed or hung never
finalizes, and the 2 MiB segment stays until reboot. The launcher removes the segments
its own ranks recorded: by path, and only while the path still holds the very file (same
inode) they had open, so it can never touch another job's.
"""
from __future__ import annotations

import json
import os

JOB_DIR = "EMBER_JOB_DIR"
_SHARED_MEMORY = "/dev/shm/"
_MPI_SEGMENT_PREFIX = "mpich_"


def _mpi_segments() -> list[dict]:
    """The MPI shared-memory files this process has mapped: path, device and inode."""
    found = {}
    with open("/proc/self/maps", encoding="utf-8") as maps:
        for line in maps:
            fields = line.split()
            if len(fields) != 6:  # anonymous mappings, and files deleted already
                continue
            path = fields[5]
            if path.startswith(_SHARED_MEMORY) and \
                    os.path.basename(path).startswith(_MPI_SEGMENT_PREFIX):
                status = os.stat(path)
                found[path] = {"path": path, "device": status.st_dev, "inode": status.st_ino}
    return list(found.values())


def record_rank(rank: int) -> None:
    """In a rank that has just initialised MPI: note its pid and segments, if launched."""
    folder = os.environ.get(JOB_DIR)
    if not folder or not os.path.exists("/proc/self/maps"):
        return
    record = {"pid": os.getpid(), "segments": _mpi_segments()}
    with open(os.path.join(folder, f"rank{rank}.json"), "w", encoding="utf-8") as f:
        json.dump(record, f)


def record_failure(rank: int, text: str) -> None:
    """In a failing rank: leave `text` (its traceback) for the launcher, if launched.
    MPI_Abort can stop the job before the rank's stderr reached the terminal."""
    folder = os.environ.get(JOB_DIR)
    if folder:
        with open(os.path.join(folder, f"rank{rank}.txt"), "w", encoding="utf-8") as f:
            f.write(text)


def _by_rank(folder: str, suffix: str) -> dict[int, str]:
    """{rank: path} of the `rank<r><suffix>` files in `folder`."""
    found = {}
    for name in os.listdir(folder):
        if name.startswith("rank") and name.endswith(suffix):
            found[int(name[4:-len(suffix)])] = os.path.join(folder, name)
    return dict(sorted(found.items()))


def read_ranks(folder: str) -> dict[int, dict]:
    """{rank: record} of the ranks that initialised MPI."""
    records = {}
    for rank, path in _by_rank(folder, ".json").items():
        with open(path, encoding="utf-8") as f:
            records[rank] = json.load(f)
    return records


def read_failures(folder: str) -> dict[int, str]:
    """{rank: traceback} of the ranks that failed."""
    failures = {}
    for rank, path in _by_rank(folder, ".txt").items():
        with open(path, encoding="utf-8") as f:
            failures[rank] = f.read()
    return failures


def remove_segments(folder: str) -> list[str]:
    """Remove the shared-memory segments the job's ranks recorded that still exist (a
    finalized job removed its own); returns their paths."""
    removed = []
    for record in read_ranks(folder).values():
        for segment in record["segments"]:
            path = segment["path"]
            try:
                status = os.stat(path)
                if (status.st_dev, status.st_ino) == (segment["device"], segment["inode"]):
                    os.unlink(path)
                    removed.append(path)
            except FileNotFoundError:
                pass
    return removed
