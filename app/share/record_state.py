"""The state of a record in a share partition, and the one table of legal moves (A1.1).

``AVAILABLE → ACQUIRED`` when a fetch acquires it, ``AVAILABLE → ARCHIVED`` when the log start
moves past it (or it turns out to be a gap: a control marker or a deleted offset);
``ACQUIRED → AVAILABLE | ACKNOWLEDGED | ARCHIVED`` when it is acknowledged, released, rejected,
its lock expires or its member leaves.
ACKNOWLEDGED and ARCHIVED are terminal: nothing moves a record out of them (sticky terminal
states, C2). A move to the current state is illegal, except ``ACQUIRED → ACQUIRED`` which is
how a renew restarts the lock without changing the state. The ids are the persisted bytes.
"""

from __future__ import annotations

import enum


class RecordState(enum.IntEnum):
    AVAILABLE = 0
    ACQUIRED = 1
    ACKNOWLEDGED = 2
    ARCHIVED = 4

    @property
    def terminal(self) -> bool:
        return self in (RecordState.ACKNOWLEDGED, RecordState.ARCHIVED)

    @property
    def label(self) -> str:
        return self.name.lower()


_ALLOWED: dict[RecordState, frozenset[RecordState]] = {
    RecordState.AVAILABLE: frozenset({RecordState.ACQUIRED, RecordState.ARCHIVED}),
    RecordState.ACQUIRED: frozenset({RecordState.ACQUIRED,  # renew
                                     RecordState.AVAILABLE, RecordState.ACKNOWLEDGED,
                                     RecordState.ARCHIVED}),
    RecordState.ACKNOWLEDGED: frozenset(),
    RecordState.ARCHIVED: frozenset(),
}


class IllegalTransition(Exception):
    """A programming error: the share partition asked for a move the table forbids."""


def can_move(current: RecordState, target: RecordState) -> bool:
    return target in _ALLOWED[current]


def validate_transition(current: RecordState, target: RecordState) -> RecordState:
    """``target`` if the move is legal; raises ``IllegalTransition`` otherwise."""
    if target not in _ALLOWED[current]:
        raise IllegalTransition(f"{current.name} → {target.name} is not a legal move")
    return target
