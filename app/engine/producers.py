"""The seam's producers and transactions: producer ids (InitProducerId), the end of a
transaction (alone, with work in the same request, or several at once), transactional
consumer-group offsets and share acknowledgements, and the description of transactions.

Used by ``app/api/routes/producers.py`` (``POST /v1/producers``) and
``app/api/routes/transactions.py`` (every handler), through ``deps.engine_of``; the event feed
reads the open transactions behind its ``FeedState``. Implemented by
``app.transactions.coordinator.TransactionCoordinator``
(``Broker.transactions``); on Kafka by InitProducerId, Produce, TxnOffsetCommit, EndTxn,
DescribeTransactions and ListTransactions (docs/kafka.md, "Producers and transactions"), which
refuses ``commit_all`` and ``add_acknowledgements`` with ``UNSUPPORTED_ON_KAFKA_BACKEND``.

Every transactional method may raise ``PRODUCER_FENCED``, ``INVALID_PRODUCER_EPOCH``,
``INVALID_PRODUCER_ID_MAPPING`` (the producer id is not the transactional id's),
``INVALID_TXN_STATE``, ``CONCURRENT_TRANSACTIONS`` (the previous end is still being
completed), ``TRANSACTION_TIMED_OUT`` (KIP-588) and ``KAFKA_STORAGE_ERROR``. The ACL checks
(``WRITE`` on the transactional id and the topics, ``READ`` on the groups) are the caller's,
except where the engine alone knows the names or the order: ``abort_prefix``'s, given as
``may_write``, and ``check_work``'s, given as ``check_reads``. The owner checks (a member of
another principal is refused ``UNKNOWN_MEMBER_ID``, docs/security.md#ownership) are the
engine's.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Protocol

from app.errors import SluiceError
from app.groups.group import OffsetCommit
from app.share.partition import AckBatch
from app.transactions.state import TxnMetadata, TxnState
from app.transactions.work import CommitAll, TxnIdentity, TxnWork


class Transactions(Protocol):
    async def init_producer_id(
        self,
        tid: str | None,
        timeout_ms: int,
        producer_id: int | None,
        producer_epoch: int | None,
        principal: str | None,
    ) -> tuple[int, int]:
        """``(producer_id, producer_epoch)``. Without ``tid``: a new idempotent producer id,
        recorded as issued to ``principal`` before it is answered. With ``tid``: the
        transactional id's next epoch, fencing older instances and aborting the open
        transaction first (its abort complete before the answer); with ``producer_id`` and
        ``producer_epoch``, the current instance's recovery (KIP-360). Raises
        ``INVALID_TRANSACTION_TIMEOUT``, ``CONCURRENT_TRANSACTIONS``, ``PRODUCER_FENCED``,
        ``INVALID_PRODUCER_EPOCH``."""
        ...

    async def end_txn(
        self, tid: str, producer_id: int, epoch: int, commit: bool
    ) -> tuple[int, int]:
        """Commit or abort the open transaction; answers the identity of the next one. The
        decision is durable, and with ``SLUICE_TXN_ANSWER=complete`` (the default) the markers,
        offsets and acknowledgements too, before it returns
        (docs/semantics.md#durability-order). A retried end answers as the first did."""
        ...

    async def check_work(
        self,
        work: TxnWork,
        principal: str | None,
        check_reads: Callable[[str, Iterable[str]], None],
    ) -> None:
        """The checks of ``commit_with``'s work that its groups decide, made before the
        commit's records are admitted: for each consumer group of ``work.offsets``, then each
        share group of ``work.acks``, ``check_reads(group_id, topics)`` (the caller's READ
        check, which raises to refuse) and then the owner of the member it names. Changes
        nothing. Raises what ``check_reads`` raises (``GROUP_AUTHORIZATION_FAILED``,
        ``TOPIC_AUTHORIZATION_FAILED``: 403) and ``UNKNOWN_MEMBER_ID``."""
        ...

    async def commit_with(
        self, tid: str, producer_id: int, epoch: int, work: TxnWork
    ) -> tuple[int, int]:
        """Add ``work`` (batches, group offsets, share acknowledgements), all checked before
        any is written, then commit, as ``end_txn``. Raises what ``end_txn`` and the produce
        of a transactional batch raise, and ``GROUPS_UNAVAILABLE`` (offsets on a server
        without consumer groups)."""
        ...

    async def add_offsets(
        self,
        tid: str,
        producer_id: int,
        epoch: int,
        group_id: str,
        member_id: str | None,
        member_epoch: int,
        group_instance_id: str | None,
        offsets: Sequence[OffsetCommit],
        principal: str | None,
    ) -> None:
        """KIP-447: the group's offsets, committed only if the transaction commits; pending
        and durable before it returns. Raises, first, ``UNKNOWN_MEMBER_ID`` for a member of
        another principal than ``principal``; then the group's member checks
        (``UNKNOWN_MEMBER_ID``, ``ILLEGAL_GENERATION``, ``FENCED_INSTANCE_ID``),
        ``GROUPS_UNAVAILABLE``."""
        ...

    async def add_acknowledgements(
        self,
        tid: str,
        producer_id: int,
        epoch: int,
        group_id: str,
        member_id: str,
        acks: Mapping[tuple[str, int], list[AckBatch] | SluiceError],
        principal: str | None,
    ) -> list[tuple[tuple[str, int], SluiceError | None]]:
        """Share acknowledgements held until the transaction ends (commit applies them, abort
        releases the records); per-partition errors in the answer. Raises
        ``UNKNOWN_MEMBER_ID`` (first for a member of another principal than ``principal``).
        On Kafka: ``UNSUPPORTED_ON_KAFKA_BACKEND``."""
        ...

    async def commit_all(
        self, txns: Sequence[TxnIdentity], key: str | None = None, owner: str | None = None
    ) -> CommitAll:
        """Commit several open transactions, all or none; with ``key`` (of ``owner``), a
        repeated request commits nothing and answers the first answer. On Kafka:
        ``UNSUPPORTED_ON_KAFKA_BACKEND``."""
        ...

    async def abort_prefix(self, prefix: str, may_write: Callable[[str], bool]) -> list[str]:
        """Abort and fence every open transaction whose id starts with ``prefix`` and that
        ``may_write`` allows; answers the ids, each abort complete."""
        ...

    async def all(self, state: TxnState | None = None) -> list[TxnMetadata]:
        """Every transactional id (of ``state``), as ``GET /v1/transactions`` shows them."""
        ...

    async def get(self, tid: str) -> TxnMetadata:
        """One transactional id. Raises ``NOT_FOUND`` when the server has none of that
        name."""
        ...
