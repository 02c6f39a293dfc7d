"""The values of transaction requests and answers that the seam (``app.engine.producers``)
names: the work a one-request commit adds (``TxnWork``: batches, consumer-group offsets, share
acknowledgements), a transaction named by its producer (``TxnIdentity``) and the answer of a
commit of several (``CommitAll``).

They are plain values, shared by the embedded coordinator
(``app.transactions.coordinator``), the wire layer and the Kafka backend, which imports them
from here rather than from the embedded coordinator.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from app.errors import SluiceError

if TYPE_CHECKING:
    from app.groups.group import OffsetCommit
    from app.producers.appender import ProduceBatch
    from app.share.partition import AckBatch


@dataclass(frozen=True, slots=True)
class GroupOffsets:
    """KIP-447 offsets of one consumer group, with the consumer's group metadata."""

    group_id: str
    member_id: str | None
    member_epoch: int
    group_instance_id: str | None
    offsets: Sequence[OffsetCommit]


@dataclass(frozen=True, slots=True)
class GroupAcks:
    """Share acknowledgements of one member of one share group, per partition."""

    group_id: str
    member_id: str
    acks: Mapping[tuple[str, int], list[AckBatch] | SluiceError]


@dataclass(frozen=True, slots=True)
class TxnWork:
    """Everything a commit in one request adds to the transaction before committing it."""

    batches: Sequence[ProduceBatch] = ()
    offsets: Sequence[GroupOffsets] = ()
    acks: Sequence[GroupAcks] = ()


@dataclass(frozen=True, slots=True)
class TxnIdentity:
    """A transactional id with a producer id and epoch: a transaction named by a commit of
    several, or the identity of its next transaction in the answer."""

    transactional_id: str
    producer_id: int
    producer_epoch: int


@dataclass(frozen=True, slots=True)
class CommitAll:
    """The answer of ``commit_all``: the identity of each transactional id's next transaction,
    in the request's order; ``duplicate`` when the idempotency key had been committed already
    (at ``committed_ms``), so that this request committed nothing."""

    duplicate: bool
    transactions: list[TxnIdentity]
    committed_ms: int | None = None
