"""What a launched job's ranks leave for the launcher, and the launcher's clean-up of
their MPI shared memory: exactly the files the ranks had open, never a newer file that
has taken the same name (another job's)."""
import os
import uuid

import pytest

from ember.distributed import _job_files

SHM = "/dev/shm"
pytestmark = pytest.mark.skipif(not os.path.isdir(SHM), reason="no /dev/shm here")


@pytest.fixture
def segment():
    """A file named as MPICH names its segments, mapped by this process as by a rank."""
    import mmap
    path = os.path.join(SHM, f"mpich_shm_ember_test_{uuid.uuid4().hex}_0")
    with open(path, "wb") as f:
        f.write(b"\0" * 4096)
    with open(path, "r+b") as f:
        mapping = mmap.mmap(f.fileno(), 4096)
    yield path
    mapping.close()
    if os.path.exists(path):
        os.unlink(path)


def test_rank_records_its_mpi_segments_and_launcher_removes_them(tmp_path, monkeypatch,
                                                                 segment):
    monkeypatch.setenv(_job_files.JOB_DIR, str(tmp_path))
    _job_files.record_rank(3)
    record = _job_files.read_ranks(str(tmp_path))[3]
    assert record["pid"] == os.getpid()
    assert segment in [s["path"] for s in record["segments"]]
    assert _job_files.remove_segments(str(tmp_path)) == [segment]
    assert not os.path.exists(segment)
    assert _job_files.remove_segments(str(tmp_path)) == []  # gone already: nothing to do


def test_launcher_leaves_a_new_file_of_the_same_name_alone(tmp_path, monkeypatch, segment):
    monkeypatch.setenv(_job_files.JOB_DIR, str(tmp_path))
    _job_files.record_rank(0)
    os.unlink(segment)
    with open(segment, "wb") as f:  # another job's segment, under the same name
        f.write(b"\0")
    assert _job_files.remove_segments(str(tmp_path)) == []
    assert os.path.exists(segment)


def test_failures_by_rank(tmp_path, monkeypatch):
    monkeypatch.setenv(_job_files.JOB_DIR, str(tmp_path))
    _job_files.record_failure(1, "Traceback ...\nValueError: boom\n")
    _job_files.record_failure(0, "exited with 3\n")
    assert _job_files.read_failures(str(tmp_path)) == {
        0: "exited with 3\n", 1: "Traceback ...\nValueError: boom\n"}


def test_nothing_recorded_outside_a_launched_job(tmp_path, monkeypatch):
    monkeypatch.delenv(_job_files.JOB_DIR, raising=False)
    _job_files.record_rank(0)
    _job_files.record_failure(0, "text")
    assert os.listdir(tmp_path) == []
