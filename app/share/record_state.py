"""The state of a record in a share partition, and the one table of legal moves
(docs/semantics.md#share-record-states).

``AVAILABLE → ACQUIRED`` when a fetch acquires it, ``AVAILABLE → ARCHIVED`` when the log start
moves past it (or it turns out to be a gap: a control marker or a deleted offset);
``ACQUIRED → AVAILABLE | ACKNOWLEDGED | ARCHIVED`` when it is acknowledged, released, rejected,
its lock expires or its member leaves.
ACKNOWLEDGED and ARCHIVED are terminal: nothing moves a record out of them (sticky terminal
states). A move to the current state is illegal, except ``ACQUIRED → ACQUIRED`` which is
how a renew restarts the lock without changing the state. The ids are the persisted bytes.
The table lists, per state, the states it may be reached from (``app.states``).
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


# target state → the states it may be reached from
VALID_PREVIOUS: dict[RecordState, frozenset[RecordState]] = {
    # released, its lock expired or its member left
    RecordState.AVAILABLE: frozenset({RecordState.ACQUIRED}),
    # a fetch acquires it; ACQUIRED → ACQUIRED is a renew
    RecordState.ACQUIRED: frozenset({RecordState.AVAILABLE, RecordState.ACQUIRED}),
    RecordState.ACKNOWLEDGED: frozenset({RecordState.ACQUIRED}),
    # rejected or at the delivery limit; or never delivered: below the log start, or a gap
    RecordState.ARCHIVED: frozenset({RecordState.AVAILABLE, RecordState.ACQUIRED}),
}
