"""The record state table (docs/semantics.md#share-record-states), every pair of states."""

from __future__ import annotations

import itertools

import pytest

from app.share.record_state import VALID_PREVIOUS, RecordState
from app.states import IllegalTransition, validate_transition

S = RecordState
LEGAL = {
    (S.AVAILABLE, S.ACQUIRED),
    (S.AVAILABLE, S.ARCHIVED),  # log start moved past it, or a gap
    (S.ACQUIRED, S.ACQUIRED),  # renew
    (S.ACQUIRED, S.AVAILABLE),
    (S.ACQUIRED, S.ACKNOWLEDGED),
    (S.ACQUIRED, S.ARCHIVED),
}


def test_persisted_ids_are_kafkas() -> None:
    assert [(s.name, int(s)) for s in S] == [
        ("AVAILABLE", 0),
        ("ACQUIRED", 1),
        ("ACKNOWLEDGED", 2),
        ("ARCHIVED", 4),
    ]


@pytest.mark.parametrize(("current", "target"), list(itertools.product(S, S)))
def test_every_pair(current: RecordState, target: RecordState) -> None:
    if (current, target) in LEGAL:
        assert validate_transition(VALID_PREVIOUS, current, target) is target
    else:
        with pytest.raises(IllegalTransition):
            validate_transition(VALID_PREVIOUS, current, target)


def test_the_table_has_exactly_the_legal_moves() -> None:
    assert set(VALID_PREVIOUS) == set(S)
    assert {(prev, target) for target, prevs in VALID_PREVIOUS.items() for prev in prevs} == LEGAL


def test_terminal_states_are_sticky() -> None:
    for state in (S.ACKNOWLEDGED, S.ARCHIVED):
        assert state.terminal
        assert not any(state in VALID_PREVIOUS[t] for t in S)
    assert not S.AVAILABLE.terminal and not S.ACQUIRED.terminal
