"""TxnEnder: the end of a transaction, from its decision on (the embedded engine's; on Kafka
the cluster's transaction coordinator ends transactions itself).

Ending a transaction is: Prepare* durable (``decide_all`` for several in one SQLite commit,
``persist`` for one) → markers on every partition, fsynced → the participants' endings
(consumer groups' offsets, share groups' acknowledgements) and Complete* with the bumped epoch
(transactions v2), durable in one SQLite commit (``finish``). With ``SLUICE_TXN_ANSWER=prepare``
a client's end is answered at its decision and completed in the background
(``complete_later``); the next request of the same transactional id waits for it
(``settled``), and a stop waits for all of them (``drain``).

``app.transactions.coordinator.TransactionCoordinator`` decides when a transaction ends and
holds the transactions (``TxnMetadata``); it gives the ender the store, the producer ids, the
marker writer (``TxnLog``) and the participants, and shares with it the owners of producer
ids, which ``next_epoch`` extends when an epoch is exhausted.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import Collection, Iterable, Sequence
from contextlib import AsyncExitStack
from typing import TYPE_CHECKING, Protocol

from app.awaiting import all_done
from app.clock import Clock
from app.config import Settings
from app.metadata.txn_store import CommitKeyRow, TransactionStore, TxnRow
from app.producers.appender import BatchResult
from app.producers.ids import ProducerIds
from app.transactions.participants import AckParticipant, OffsetParticipant, TxnWrite
from app.transactions.state import EPOCH_EXHAUSTED, TxnMetadata, TxnState, TxnTransit

if TYPE_CHECKING:
    from app.producers.appender import CheckedBatch, ProduceBatch
    from app.storage.log import PartitionLog

log = logging.getLogger("sluice.transactions")

_S = TxnState


class TxnLog(Protocol):
    """What the coordinator writes to the partition logs: markers, and the records of a
    transaction committed in one request."""

    async def append_markers(
        self, producer_id: int, epoch: int, commit: bool, partitions: Collection[tuple[str, int]]
    ) -> None:
        """A COMMIT or ABORT marker on each partition (of topics that still exist); returns
        once all are durable."""
        ...

    def resolve(self, b: ProduceBatch, parsed_under: int) -> PartitionLog:
        """The batch's log; raises UNKNOWN_TOPIC_OR_PARTITION or RECORD_TOO_LARGE."""
        ...

    def check_producer_batches(
        self,
        producer_id: int,
        epoch: int,
        batches: Sequence[tuple[PartitionLog, ProduceBatch, BatchResult]],
        *,
        transactional: bool,
        all_or_nothing: bool = False,
    ) -> list[CheckedBatch]:
        """Epoch and sequence checks of every batch, appending nothing."""
        ...

    def append_checked(
        self, producer_id: int, epoch: int, checked: list[CheckedBatch], *, transactional: bool
    ) -> list[PartitionLog]:
        """The appends of checked batches (synchronous); the logs to wait on."""
        ...

    async def wait_durable(self, logs: Iterable[PartitionLog], *, force: bool = False) -> None:
        """Everything appended so far to ``logs`` is durable."""
        ...

    async def make_durable(self, partitions: Collection[tuple[str, int]]) -> None:
        """Everything appended so far to the partitions is durable, under any fsync policy."""
        ...

    def open_transactions(self) -> dict[int, dict[tuple[str, int], int]]:
        """producer id → each partition with a transaction of it open, and its epoch there."""
        ...


class TxnEnder:
    def __init__(
        self,
        store: TransactionStore,
        ids: ProducerIds,
        clock: Clock,
        settings: Settings,
        *,
        log: TxnLog,
        offsets: OffsetParticipant | None,
        acks: AckParticipant | None,
        owners: dict[int, str],
    ) -> None:
        self.store = store
        self.ids = ids
        self.clock = clock
        self.settings = settings
        self.log = log
        self.offsets = offsets
        self.acks = acks
        self.owners = owners  # the coordinator's: producer id → its transactional id
        # transactional ids whose end is being finished: the sweeper leaves them alone
        self.finishing: set[str] = set()
        # ends answered at their decision whose markers are still being written; the next
        # request of the same transactional id waits for them (``settled``)
        self.completing: dict[str, asyncio.Task[None]] = {}
        self.closing = False

    async def next_epoch(
        self, producer_id: int, epoch: int, principal: str | None
    ) -> tuple[int, int]:
        if epoch + 1 < EPOCH_EXHAUSTED:
            return producer_id, epoch + 1
        pid = await self.ids.next_id(principal)
        if (owner := self.owners.get(producer_id)) is not None:
            self.owners[pid] = owner  # the new id of an exhausted transactional producer
        return pid, 0

    async def end_all(self, tms: Sequence[TxnMetadata], *, fenced: bool = False) -> None:
        """Abort every transaction of ``tms`` (their decisions in one SQLite commit) and
        finish them all: ``end`` for several at once."""
        await self.decide_all(tms, commit=False, fenced=fenced)
        await all_done([self.finish(tm) for tm in tms])

    async def decide_all(
        self,
        tms: Sequence[TxnMetadata],
        *,
        commit: bool,
        fenced: bool = False,
        key: CommitKeyRow | None = None,
    ) -> None:
        """The Prepare* of every transaction of ``tms`` (checked by the caller, with no await
        since) and the idempotency key ``key``, durable in one SQLite commit: all of them or
        none. A commit: staged, the transactions take no more records, and every record
        appended to them is made durable before the decision (a decision never precedes its
        records, under any fsync policy, as in ``end_txn``)."""
        staged: list[tuple[TxnMetadata, TxnTransit]] = []
        try:
            for tm in tms:
                staged.append((tm, tm.prepare(self.decision(tm, commit, fenced=fenced))))
            if commit and tms:
                await self.log.make_durable({tp for tm in tms for tp in tm.partitions})
            if key is not None:
                key = dataclasses.replace(key, committed_ms=self.clock.now_ms())
            await self.store.save_many(
                [row_of(tm.transactional_id, transit) for tm, transit in staged], key=key
            )
        except BaseException:
            for tm, transit in staged:
                if tm.pending is transit:
                    tm.abort_pending()
            raise
        for tm, transit in staged:
            tm.complete(transit)

    # -- ending -------------------------------------------------------------------------------

    async def end(
        self, tm: TxnMetadata, commit: bool, *, timed_out: bool = False, fenced: bool = False
    ) -> None:
        """Prepare* durable, then ``finish``: for the coordinator's own ends (fencing,
        timeouts), which go on only once the end is complete."""
        await self.persist(tm, self.decision(tm, commit, timed_out=timed_out, fenced=fenced))
        await self.finish(tm)

    def decision(
        self, tm: TxnMetadata, commit: bool, *, timed_out: bool = False, fenced: bool = False
    ) -> TxnTransit:
        """Prepare*. ``last_producer_id``/``last_epoch`` name who may retry this end once it
        is complete: the producer that ended it (or timed out), nobody when a newer instance
        fenced it. Persisted, so that a stop before the fencing init's own bump still leaves
        the older instance fenced."""
        return dataclasses.replace(
            tm.transit(),
            state=_S.PREPARE_COMMIT if commit else _S.PREPARE_ABORT,
            last_producer_id=-1 if fenced else tm.producer_id,
            last_epoch=-1 if fenced else tm.producer_epoch,
            timed_out_epoch=tm.producer_epoch if timed_out else -1,
            updated_ms=self.clock.now_ms(),
        )

    async def after_decision(self, tm: TxnMetadata, *, answer_early: bool) -> tuple[int, int]:
        """From a durable Prepare*: the markers and the endings (``finish``), then the
        identity for the next transaction. With ``txn_answer=prepare`` a client's end is
        answered at once and completed in the background (``complete_later``), except when
        the epoch is exhausted: the next identity is then a new producer id, known only once
        the end completes."""
        early = answer_early and self.settings.txn_answer == "prepare" and not self.closing
        if not early or tm.producer_epoch + 1 >= EPOCH_EXHAUSTED:
            await self.finish(tm)
            return tm.producer_id, tm.producer_epoch
        self.complete_later(tm)
        return tm.producer_id, tm.producer_epoch + 1  # what ``finish`` moves to

    def complete_later(self, tm: TxnMetadata) -> None:
        tid = tm.transactional_id
        self.finishing.add(tid)  # the sweeper leaves it alone from now on
        task = asyncio.get_running_loop().create_task(self.finish(tm), name=f"txn-end {tid}")
        self.completing[tid] = task

        def done(t: asyncio.Task[None]) -> None:
            if self.completing.get(tid) is t:
                del self.completing[tid]
            if not t.cancelled() and (exc := t.exception()) is not None:
                log.warning("transaction %r: its end did not complete (%s); retried", tid, exc)

        task.add_done_callback(done)

    async def settled(self, tid: str | None) -> None:
        """Wait while an end of ``tid`` answered at its decision is still completing: the
        next request of the same transactional id sees it complete."""
        task = self.completing.get(tid) if tid is not None else None
        if task is not None and not task.done():
            await asyncio.wait([task])

    async def drain(self) -> None:
        """Wait for every end being completed in the background (at stop)."""
        self.closing = True  # ends from now on complete before they are answered
        while pending := [t for t in self.completing.values() if not t.done()]:
            await asyncio.wait(pending)

    async def finish(self, tm: TxnMetadata) -> None:
        """From Prepare*: markers (epoch + 1) → the participants' endings (the consumer groups'
        offsets, then the share groups' acknowledgements, each in one order) → written with
        Complete* and the new epoch in one SQLite commit."""
        tid = tm.transactional_id
        self.finishing.add(tid)
        try:
            commit = tm.state is _S.PREPARE_COMMIT
            if tm.partitions:
                await self.log.append_markers(
                    tm.producer_id, tm.producer_epoch + 1, commit, tm.partitions
                )
            # a transactional id's producer ids are its own (its ACL guards them), whichever
            # principal's block they come from: an exhausted epoch here draws from no one's
            pid, epoch = await self.next_epoch(tm.producer_id, tm.producer_epoch, None)
            async with AsyncExitStack() as stack:
                endings: list[TxnWrite] = []
                offsets, acks = self.offsets, self.acks
                if tm.groups and offsets is None:
                    log.warning("transaction %r has group offsets but no groups run here", tid)
                elif offsets is not None:
                    for group_id in sorted(tm.groups):  # the groups' locks, in one order
                        ending = await stack.enter_async_context(
                            offsets.ending_txn_offsets(group_id, tm.producer_id, commit)
                        )
                        if ending is not None:
                            endings.append(ending)
                if tm.share_groups and acks is None:
                    log.warning(
                        "transaction %r has share acknowledgements but no share groups run here",
                        tid,
                    )
                elif acks is not None:
                    for group_id in sorted(tm.share_groups):  # their partitions, in one order
                        ending = await stack.enter_async_context(
                            acks.ending_txn_acks(group_id, tm.producer_id, commit)
                        )
                        if ending is not None:
                            endings.append(ending)
                transit = tm.prepare(
                    dataclasses.replace(
                        tm.transit(),
                        state=_S.COMPLETE_COMMIT if commit else _S.COMPLETE_ABORT,
                        producer_id=pid,
                        producer_epoch=epoch,
                        partitions=frozenset(),
                        groups=frozenset(),
                        start_ms=-1,
                        updated_ms=self.clock.now_ms(),
                        share_groups=frozenset(),
                    )
                )
                try:
                    await self.store.save(
                        row_of(tid, transit), also=[e.statements for e in endings]
                    )
                except BaseException:
                    tm.abort_pending()
                    raise
                tm.complete(transit)
                for ending in endings:
                    ending.complete()
        finally:
            self.finishing.discard(tid)

    async def persist(self, tm: TxnMetadata, target: TxnTransit) -> None:
        transit = tm.prepare(target)
        try:
            await self.store.save(row_of(tm.transactional_id, transit))
        except BaseException:
            tm.abort_pending()
            raise
        tm.complete(transit)


def row_of(tid: str, t: TxnTransit) -> TxnRow:
    return TxnRow(
        tid,
        t.producer_id,
        t.producer_epoch,
        t.last_producer_id,
        t.last_epoch,
        t.timed_out_epoch,
        t.timeout_ms,
        t.state.value,
        sorted(t.partitions),
        sorted(t.groups),
        t.start_ms,
        t.updated_ms,
        sorted(t.share_groups),
    )
