"""The transaction state machine: one enum, one table of legal previous states (``app.states``),
no I/O.

Each state says what moves it on (Kafka's ``TransactionState``):

- ``Empty``: no transaction open; InitProducerId lands here, a produce or offsets start one.
- ``Ongoing``: partitions or groups have joined; commit, abort, a newer instance or the timeout
  end it.
- ``PrepareCommit`` / ``PrepareAbort``: the decision is durable; markers are being written to
  every partition (recovery writes them again), then the groups' offsets are ended.
- ``CompleteCommit`` / ``CompleteAbort``: every marker is durable; the epoch has been bumped.
- Kafka's ``PrepareEpochFence`` is not a state here: a newer instance that fences an open
  transaction moves it straight to ``PrepareAbort`` with the bumped epoch
  (docs/semantics.md#transaction-fencing).
- ``Dead``: the transactional id expired.

Every change is staged: ``prepare`` validates the edge and sets ``pending`` (concurrent callers
then get CONCURRENT_TRANSACTIONS), the coordinator makes the target durable, then ``complete``
applies it, or ``abort_pending`` forgets it when the write failed.
"""

from __future__ import annotations

import dataclasses
import enum
from dataclasses import dataclass, field

from app.errors import Conflict, ErrorCode
from app.states import IllegalTransition, validate_transition


class TxnState(enum.Enum):
    EMPTY = "Empty"
    ONGOING = "Ongoing"
    PREPARE_COMMIT = "PrepareCommit"
    PREPARE_ABORT = "PrepareAbort"
    COMPLETE_COMMIT = "CompleteCommit"
    COMPLETE_ABORT = "CompleteAbort"
    DEAD = "Dead"

    @property
    def is_prepare(self) -> bool:
        return self in (TxnState.PREPARE_COMMIT, TxnState.PREPARE_ABORT)

    @property
    def is_complete(self) -> bool:
        return self in (TxnState.COMPLETE_COMMIT, TxnState.COMPLETE_ABORT)


_S = TxnState
_IDLE = frozenset({_S.EMPTY, _S.COMPLETE_COMMIT, _S.COMPLETE_ABORT})

# target state → the states it may be reached from
VALID_PREVIOUS: dict[TxnState, frozenset[TxnState]] = {
    _S.EMPTY: _IDLE,
    _S.ONGOING: _IDLE | {_S.ONGOING},
    _S.PREPARE_COMMIT: frozenset({_S.ONGOING}),
    _S.PREPARE_ABORT: _IDLE | {_S.ONGOING},
    _S.COMPLETE_COMMIT: frozenset({_S.PREPARE_COMMIT}),
    _S.COMPLETE_ABORT: frozenset({_S.PREPARE_ABORT}),
    _S.DEAD: _IDLE,
}

EPOCH_EXHAUSTED = 32766  # Short.MAX - 1: at or beyond it the next epoch rolls to a new id


@dataclass(frozen=True, slots=True)
class TxnTransit:
    """An immutable target of one staged change."""

    state: TxnState
    producer_id: int
    producer_epoch: int
    last_producer_id: int
    last_epoch: int
    timed_out_epoch: int
    timeout_ms: int
    partitions: frozenset[tuple[str, int]]
    groups: frozenset[str]
    start_ms: int
    updated_ms: int
    share_groups: frozenset[str] = frozenset()  # transactional share acknowledgements


@dataclass(slots=True)
class TxnMetadata:
    transactional_id: str
    producer_id: int
    producer_epoch: int
    timeout_ms: int
    state: TxnState = TxnState.EMPTY
    last_producer_id: int = -1
    last_epoch: int = -1
    timed_out_epoch: int = -1
    partitions: frozenset[tuple[str, int]] = field(default_factory=frozenset)
    groups: frozenset[str] = field(default_factory=frozenset)
    start_ms: int = -1
    updated_ms: int = 0
    share_groups: frozenset[str] = field(default_factory=frozenset)
    pending: TxnTransit | None = None

    def transit(self) -> TxnTransit:
        """The current values as a transit, to be changed with ``dataclasses.replace``."""
        return TxnTransit(
            self.state,
            self.producer_id,
            self.producer_epoch,
            self.last_producer_id,
            self.last_epoch,
            self.timed_out_epoch,
            self.timeout_ms,
            self.partitions,
            self.groups,
            self.start_ms,
            self.updated_ms,
            self.share_groups,
        )

    def prepare(self, target: TxnTransit) -> TxnTransit:
        """Stage ``target``; raises CONCURRENT_TRANSACTIONS while another change is pending."""
        if self.pending is not None:
            raise Conflict(
                ErrorCode.CONCURRENT_TRANSACTIONS,
                f"transaction {self.transactional_id!r} is changing "
                f"({self.state.value} → {self.pending.state.value}); retry",
            )
        validate_transition(VALID_PREVIOUS, self.state, target.state)
        self.pending = target
        return target

    def complete(self, transit: TxnTransit) -> None:
        if self.pending is not transit:
            raise IllegalTransition("completing a change that is not the pending one")
        for f in dataclasses.fields(TxnTransit):
            setattr(self, f.name, getattr(transit, f.name))
        self.pending = None

    def abort_pending(self) -> None:
        self.pending = None
