"""The transaction state table, exhaustively, and the staged-change protocol."""

from __future__ import annotations

import dataclasses
import itertools

import pytest

from app.errors import Conflict, ErrorCode
from app.states import IllegalTransition, validate_transition
from app.transactions.state import VALID_PREVIOUS, TxnMetadata, TxnState

S = TxnState

# docs/semantics.md#transaction-states, written out again independently of the module
EXPECTED: set[tuple[TxnState, TxnState]] = {
    *((prev, S.EMPTY) for prev in (S.EMPTY, S.COMPLETE_COMMIT, S.COMPLETE_ABORT)),
    *((prev, S.ONGOING) for prev in (S.ONGOING, S.EMPTY, S.COMPLETE_COMMIT, S.COMPLETE_ABORT)),
    (S.ONGOING, S.PREPARE_COMMIT),
    *(
        (prev, S.PREPARE_ABORT)
        for prev in (S.ONGOING, S.EMPTY, S.COMPLETE_COMMIT, S.COMPLETE_ABORT)
    ),
    (S.PREPARE_COMMIT, S.COMPLETE_COMMIT),
    (S.PREPARE_ABORT, S.COMPLETE_ABORT),
    *((prev, S.DEAD) for prev in (S.EMPTY, S.COMPLETE_COMMIT, S.COMPLETE_ABORT)),
}


@pytest.mark.parametrize(("current", "target"), list(itertools.product(S, S)))
def test_every_pair_of_states(current: TxnState, target: TxnState) -> None:
    if (current, target) in EXPECTED:
        assert validate_transition(VALID_PREVIOUS, current, target) is target
    else:
        with pytest.raises(IllegalTransition):
            validate_transition(VALID_PREVIOUS, current, target)


def test_table_covers_every_state() -> None:
    assert set(VALID_PREVIOUS) == set(S)
    assert {
        (prev, target) for target, prevs in VALID_PREVIOUS.items() for prev in prevs
    } == EXPECTED


def test_kafka_spelling() -> None:
    assert [s.value for s in S] == [
        "Empty",
        "Ongoing",
        "PrepareCommit",
        "PrepareAbort",
        "CompleteCommit",
        "CompleteAbort",
        "Dead",
    ]


def _meta() -> TxnMetadata:
    return TxnMetadata("t", producer_id=7, producer_epoch=3, timeout_ms=1000)


def test_prepare_then_complete_applies_the_target() -> None:
    tm = _meta()
    target = dataclasses.replace(
        tm.transit(), state=S.ONGOING, partitions=frozenset({("a", 0)}), start_ms=5
    )
    transit = tm.prepare(target)
    assert tm.pending is transit and tm.state is S.EMPTY  # nothing applied yet
    tm.complete(transit)
    assert (tm.state, tm.partitions, tm.start_ms) == (S.ONGOING, frozenset({("a", 0)}), 5)
    assert tm.transit() == target
    pending: object = tm.pending  # the assert above narrowed tm.pending for the type checker
    assert pending is None


def test_a_pending_change_turns_others_away() -> None:
    tm = _meta()
    tm.prepare(dataclasses.replace(tm.transit(), state=S.ONGOING))
    with pytest.raises(Conflict) as exc:
        tm.prepare(dataclasses.replace(tm.transit(), state=S.EMPTY))
    assert exc.value.code is ErrorCode.CONCURRENT_TRANSACTIONS
    assert exc.value.code.retriable


def test_abort_pending_leaves_the_state_unchanged() -> None:
    tm = _meta()
    tm.prepare(dataclasses.replace(tm.transit(), state=S.ONGOING, producer_epoch=9))
    tm.abort_pending()
    assert (tm.state, tm.producer_epoch, tm.pending) == (S.EMPTY, 3, None)
    tm.prepare(dataclasses.replace(tm.transit(), state=S.ONGOING))  # free again


def test_illegal_target_is_refused_without_staging() -> None:
    tm = _meta()
    with pytest.raises(IllegalTransition):
        tm.prepare(dataclasses.replace(tm.transit(), state=S.COMPLETE_COMMIT))
    assert tm.pending is None


def test_completing_something_else_than_the_pending_change_fails() -> None:
    tm = _meta()
    tm.prepare(dataclasses.replace(tm.transit(), state=S.ONGOING))
    with pytest.raises(IllegalTransition):
        tm.complete(dataclasses.replace(tm.transit(), state=S.ONGOING))


def test_prepare_and_complete_flags() -> None:
    assert {s for s in S if s.is_prepare} == {S.PREPARE_COMMIT, S.PREPARE_ABORT}
    assert {s for s in S if s.is_complete} == {S.COMPLETE_COMMIT, S.COMPLETE_ABORT}
