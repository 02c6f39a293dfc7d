"""Epoch and sequence rules of one producer on one partition, pure
(docs/semantics.md#sequence-rules)."""

from __future__ import annotations

import pytest

from app.errors import Conflict, ErrorCode
from app.producers.manager import AppendPlan, ProducerStateManager
from app.producers.state import (
    MAX_SEQUENCE,
    NUM_BATCHES_TO_RETAIN,
    BatchMeta,
    ProducerEntry,
    check_batch,
    in_sequence,
    last_sequence,
)


def _code(
    entry: ProducerEntry | None, epoch: int, seq: int, n: int = 1, txn: bool = False
) -> ErrorCode:
    with pytest.raises(Conflict) as exc:
        check_batch(entry, epoch, seq, n, txn)
    return exc.value.code


def _append(
    m: ProducerStateManager, pid: int, epoch: int, seq: int, n: int, offset: int, txn: bool = False
) -> None:
    plan = m.prepare(pid, epoch, seq, n, txn)
    assert isinstance(plan, AppendPlan)
    m.commit(plan, offset, offset + n - 1, 0)


def test_sequence_arithmetic_wraps() -> None:
    assert last_sequence(MAX_SEQUENCE, 2) == 0
    assert last_sequence(5, 3) == 7
    assert in_sequence(MAX_SEQUENCE, 0)
    assert in_sequence(-1, 0)
    assert not in_sequence(MAX_SEQUENCE, 1)


def test_no_state_accepts_any_sequence_unless_transactional() -> None:
    assert check_batch(None, 0, 12345, 2, False) is None
    assert _code(None, 0, 3, txn=True) is ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER
    assert check_batch(None, 0, 0, 1, True) is None


def test_duplicate_window_keeps_the_last_five() -> None:
    m = ProducerStateManager()
    for i in range(NUM_BATCHES_TO_RETAIN + 2):
        _append(m, 1, 0, seq=3 * i, n=3, offset=10 * i)
    for i in range(2, NUM_BATCHES_TO_RETAIN + 2):
        dup = m.prepare(1, 0, 3 * i, 3, False)
        assert isinstance(dup, BatchMeta) and dup.first_offset == 10 * i
    for i in (0, 1):
        with pytest.raises(Conflict) as exc:
            m.prepare(1, 0, 3 * i, 3, False)
        assert exc.value.code is ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER


def test_duplicate_must_match_exactly() -> None:
    m = ProducerStateManager()
    _append(m, 1, 0, 0, 3, 0)
    assert _code(m.entries[1], 0, 0, 2) is ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER
    assert _code(m.entries[1], 0, 1, 3) is ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER


def test_duplicate_check_comes_before_the_epoch_check() -> None:
    entry = ProducerEntry(1, 2, [BatchMeta(0, 0, 5, 5, 0)])
    assert check_batch(entry, 2, 0, 1, False) == BatchMeta(0, 0, 5, 5, 0)
    assert _code(entry, 1, 0) is ErrorCode.INVALID_PRODUCER_EPOCH


def test_new_epoch_starts_at_zero_and_clears_the_window() -> None:
    m = ProducerStateManager()
    _append(m, 1, 0, 0, 2, 0)
    assert _code(m.entries[1], 1, 2) is ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER
    _append(m, 1, 1, 0, 1, 2)
    assert m.entries[1].epoch == 1 and len(m.entries[1].batches) == 1


def test_marker_ends_the_transaction_and_bumps_the_epoch() -> None:
    m = ProducerStateManager()
    _append(m, 1, 0, 0, 2, 0, txn=True)
    assert m.entries[1].txn_first_offset == 0
    assert _code(m.entries[1], 0, 2, txn=False) is ErrorCode.INVALID_TXN_STATE
    m.on_marker(1, 1, 100)
    e = m.entries[1]
    assert (e.epoch, e.txn_first_offset, e.batches) == (1, -1, [])
    assert _code(e, 0, 2, txn=True) is ErrorCode.INVALID_PRODUCER_EPOCH
    assert _code(e, 1, 2, txn=True) is ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER
    assert check_batch(e, 1, 0, 1, True) is None


def test_expiry_spares_open_transactions() -> None:
    m = ProducerStateManager()
    plan = m.prepare(1, 0, 0, 1, False)
    assert isinstance(plan, AppendPlan)
    m.commit(plan, 0, 0, 10)
    plan = m.prepare(2, 0, 0, 1, True)
    assert isinstance(plan, AppendPlan)
    m.commit(plan, 1, 1, 10)
    assert m.expire(11) == 1
    assert set(m.entries) == {2}


def test_snapshot_round_trip() -> None:
    m = ProducerStateManager()
    _append(m, 1, 0, 0, 2, 0)
    _append(m, 2, 3, 0, 1, 2, txn=True)
    other = ProducerStateManager()
    other.restore(m.snapshot())
    assert other.entries == m.entries
