"""The agreement checks' switch, EMBER_DISTRIBUTED_CHECKS, on a stand-in for MPI's world:
every rank must make the same choice, or each raises at init_process_group."""
import numpy as np
import pytest

from ember.distributed import _checks


class World:
    """MPI's COMM_WORLD as one rank sees it: the other ranks chose `others`."""

    def __init__(self, others: list[int]):
        self.others = others

    def Get_size(self) -> int:
        return 1 + len(self.others)

    def Allgather(self, mine: np.ndarray, everyone: np.ndarray) -> None:
        everyone[:] = [int(mine[0]), *self.others]


@pytest.mark.parametrize("value, expected", [(None, True), ("1", True), ("0", False)])
def test_switch_when_every_rank_agrees(monkeypatch, value, expected):
    if value is None:
        monkeypatch.delenv(_checks.SWITCH, raising=False)
    else:
        monkeypatch.setenv(_checks.SWITCH, value)
    assert _checks.enabled(World([int(expected)] * 3)) is expected


def test_ranks_that_disagree_raise(monkeypatch):
    monkeypatch.setenv(_checks.SWITCH, "1")
    with pytest.raises(RuntimeError, match=r"EMBER_DISTRIBUTED_CHECKS differs between ranks "
                                           r"\(ranks \[2\] have 0\)"):
        _checks.enabled(World([1, 0]))


def test_bad_value(monkeypatch):
    monkeypatch.setenv(_checks.SWITCH, "off")
    with pytest.raises(ValueError, match="EMBER_DISTRIBUTED_CHECKS must be 0 or 1, got 'off'"):
        _checks.enabled(World([1]))
