"""StateWriter: the group commit of staged share-partition changes.

Staged changes of every partition that arrive while a round is running share the next round's
one SQLite commit (synchronous=FULL). A round is: take every staged change and the partitions'
durable views → append and fsync their dead-letter copies → commit the share state in one
transaction → hand back the ``Outcome``. The writer applies nothing itself: the coordinator
completes each committed change (or rolls back each failed one), then ``answer`` wakes the
callers of ``persist``, who so find their change applied when they return.

A partition can be kept out of the rounds for a while (``exclusive``): when a transaction ends,
the share partitions it acknowledged in have their durable view written in the transaction
coordinator's own SQLite transaction, and no round may write a view of them meanwhile (a view
without the ending, committed after it, would undo it). Their changes wait for the next round.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Callable, Collection
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

from app.errors import Conflict, ErrorCode, SluiceError, StorageError, Unavailable, reason
from app.metadata.share_store import PartitionRow, ShareStore
from app.share.dead_letters import DeadLetters
from app.share.partition import SharePartition, Staged

log = logging.getLogger("sluice.share")


def _reset_meanwhile() -> Conflict:
    return Conflict(ErrorCode.INVALID_RECORD_STATE, "the share partition was reset meanwhile")


@dataclass(slots=True)
class Outcome:
    """What one round made durable (``committed``) and what it could not (``failed``)."""

    partitions: list[SharePartition]
    committed: list[Staged] = field(default_factory=list)
    failed: list[tuple[Staged, SluiceError]] = field(default_factory=list)


class StateWriter:
    """Group-commits staged share-partition changes (see the module docstring)."""

    def __init__(
        self, store: ShareStore, dead_letters: DeadLetters, *, now_ms: Callable[[], int]
    ) -> None:
        self.store = store
        self.dead_letters = dead_letters
        self.now_ms = now_ms
        self._dirty: dict[SharePartition, None] = {}
        self._waiters: dict[Staged, asyncio.Future[None]] = {}
        self._flushes: dict[SharePartition, list[asyncio.Future[None]]] = {}
        self._wake = asyncio.Event()
        self._busy: set[SharePartition] = set()  # in the round under way
        self._reserved: set[SharePartition] = set()  # kept out of the rounds (``exclusive``)
        self._freed = asyncio.Event()  # set (and replaced) whenever partitions become free
        self.rounds = 0
        self.closed = False

    def mark(self, sp: SharePartition) -> None:
        """Write this partition's durable view in the next round."""
        self._dirty[sp] = None
        self._wake.set()

    async def persist(self, staged: Staged) -> None:
        """Return once ``staged`` is durable and applied; raise if it was rolled back."""
        if self.closed:
            raise Unavailable(ErrorCode.NOT_READY, "the server is stopping")
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters[staged] = fut
        self.mark(staged.partition)
        await fut

    async def flush(self, sp: SharePartition) -> None:
        """Return once the partition's durable view as of now is written."""
        if self.closed:
            raise Unavailable(ErrorCode.NOT_READY, "the server is stopping")
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._flushes.setdefault(sp, []).append(fut)
        self.mark(sp)
        await fut

    async def wait(self) -> None:
        """Return once a partition was marked since the last call."""
        await self._wake.wait()
        self._wake.clear()

    async def round(self, dead_letter_topic: Callable[[str], str | None]) -> Outcome:
        """Write every marked partition that is not reserved; ``dead_letter_topic`` names a
        group's dead-letter topic (None: no copies). The caller applies the outcome, then
        calls ``answer`` with it."""
        parts = [sp for sp in self._dirty if sp not in self._reserved]
        for sp in parts:
            del self._dirty[sp]
        outcome = Outcome(parts)
        if not parts:
            return outcome
        self._busy.update(parts)
        flushes = {sp: self._flushes.pop(sp) for sp in parts if sp in self._flushes}
        try:
            return await self._write(outcome, flushes, dead_letter_topic)
        except BaseException:  # cancelled mid-round: the next round takes it all again
            self._busy.difference_update(parts)
            self._free()
            for sp in parts:
                self.mark(sp)
            for sp, futs in flushes.items():
                self._flushes.setdefault(sp, [])[:0] = futs
            raise

    async def _write(
        self,
        outcome: Outcome,
        flushes: dict[SharePartition, list[asyncio.Future[None]]],
        dead_letter_topic: Callable[[str], str | None],
    ) -> Outcome:
        parts = outcome.partitions
        taken: list[Staged] = []
        rows: list[tuple[SharePartition, PartitionRow]] = []
        for sp in parts:
            mine = list(sp.staged)
            taken.extend(mine)
            if sp.retired:
                continue
            start, batches = sp.snapshot(frozenset(mine))
            sp.dirty = False
            rows.append(
                (
                    sp,
                    PartitionRow(
                        sp.group_id, sp.topic_id, sp.partition, sp.state_epoch, start, batches
                    ),
                )
            )
        error: SluiceError | None = None
        fenced: set[SharePartition] = set()
        try:
            await self.dead_letters.copy(taken, dead_letter_topic)
            live = [(sp, row) for sp, row in rows if not sp.retired]  # retired meanwhile: not
            written = await self.store.write([row for _, row in live], self.now_ms())
            fenced = {sp for (sp, _), ok in zip(live, written, strict=True) if not ok}
            fenced |= {sp for sp in parts if sp.retired}
        except StorageError as exc:  # logged once per episode by the storage health
            error = exc
        except SluiceError as exc:
            log.error("share state write failed: %s", exc)
            error = exc
        except Exception as exc:  # sqlite3 errors are mapped by Database; anything else too
            log.exception("share state write failed")
            error = StorageError(
                ErrorCode.KAFKA_STORAGE_ERROR, f"share state write failed: {reason(exc)}"
            )
        self.rounds += 1
        for sp in parts:
            if error is None and sp not in fenced:
                sp.persisted = True
        for sp, futs in flushes.items():
            failed = error or (_reset_meanwhile() if sp in fenced else None)
            for flushed in futs:
                if flushed.done():
                    continue
                if failed is None:
                    flushed.set_result(None)
                else:
                    flushed.set_exception(failed)
        for staged in taken:
            if error is None and staged.partition not in fenced:
                outcome.committed.append(staged)
            else:
                outcome.failed.append((staged, error or _reset_meanwhile()))
        return outcome

    def answer(self, outcome: Outcome) -> None:
        """After the caller applied ``outcome``: wake the callers of ``persist``."""
        for staged in outcome.committed:
            fut = self._waiters.pop(staged, None)
            if fut is not None and not fut.done():
                fut.set_result(None)
        for staged, failure in outcome.failed:
            fut = self._waiters.pop(staged, None)
            if fut is not None and not fut.done():
                fut.set_exception(failure)
        self._busy.difference_update(outcome.partitions)
        self._free()

    def _free(self) -> None:
        self._freed.set()
        self._freed = asyncio.Event()

    @asynccontextmanager
    async def exclusive(self, partitions: Collection[SharePartition]) -> AsyncIterator[None]:
        """Keep ``partitions`` out of the rounds for the block, once no round writes them and
        no other block holds them; their marked changes are written after it."""
        wanted = set(partitions)
        while wanted & (self._busy | self._reserved):
            await self._freed.wait()
        self._reserved |= wanted
        try:
            yield
        finally:
            self._reserved -= wanted
            self._free()
            if any(sp in self._dirty for sp in wanted):
                self._wake.set()

    def close(self) -> None:
        """After the last round: ``persist`` and ``flush`` answer NOT_READY."""
        self.closed = True
