"""Acquisitions by id: share fetches whose records are held under a name the client chose
(docs/semantics.md#share-acquisitions-by-id).

A client that cannot keep a member (short-lived tasks that are retried or replayed, and a
driver that acknowledges after the fact) fetches with an ``acquisition_id`` instead. The records
such a fetch acquires are owned by ``acquisition:<principal>/<id>``, a name no member id may
take (``RESERVED_MEMBER_PREFIX``), under the usual lock; nothing else changes in the share
partitions. An acquisition belongs to the principal that made it (docs/security.md#ownership):
its name is derived from the caller's principal and the id, so another principal using the
same id names another acquisition, and fetches, listings and acknowledgements only ever see
the caller's own. The rule needs no state of its own: whoever knows the principal derives the
name. While the acquisition holds records, a fetch with the same id answers exactly those
records again and acquires nothing; once they are acknowledged, released or expired, the next
fetch with the id acquires anew. Nothing here is persisted: like every acquisition, these end
with a restart.

``AcquisitionBook`` is the index of one group: owner name → the locks its fetches took (a lock
names its share partition and its offsets, so a lookup reads those runs only, never every
partition of the group), the fetch under way per owner name, and the group's rotation over
partitions. An entry
goes once its locks hold nothing: at a lookup, or when the last of its deadlines passes.
``Acquisitions`` is the service the routes call: fetch, acknowledge, describe. Everything
changes synchronously on the event loop; only long polls and durable writes are awaited.
"""

from __future__ import annotations

import asyncio
import dataclasses
import heapq
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from app.awaiting import all_done
from app.errors import ErrorCode, NotFound
from app.share.coordinator import (
    AcquiredRange,
    AcquireRound,
    FetchAnswer,
    FetchedRecords,
    ShareGroupCoordinator,
    rotated,
)
from app.share.membership import RESERVED_MEMBER_PREFIX, ShareGroup
from app.share.partition import AckBatch, AckType, Lock, SharePartition, Staged

Runs = list[tuple[int, int, int]]  # (first, last, delivery count), ascending


def owner_of(principal: str | None, acquisition_id: str) -> str:
    """The owner of the records ``principal``'s acquisition holds (never a member id; no
    principal name has a ``/``, so the name is unambiguous)."""
    return f"{RESERVED_MEMBER_PREFIX}{principal or ''}/{acquisition_id}"


def is_acquisition(owner: str) -> bool:
    return owner.startswith(RESERVED_MEMBER_PREFIX)


@dataclass(slots=True)
class Entry:
    """One acquisition id: the locks its fetches took, and the latest of their deadlines
    (after it, the acquisition holds nothing)."""

    locks: list[Lock]
    until: int  # ms since the epoch


@dataclass(frozen=True, slots=True)
class Holding:
    """What one acquisition holds in one share partition."""

    partition: SharePartition
    runs: Runs

    @property
    def records(self) -> int:
        return sum(last - first + 1 for first, last, _ in self.runs)


@dataclass(frozen=True, slots=True)
class AcquisitionView:
    """An acquisition that holds records: (topic, partition, records) per share partition."""

    acquisition_id: str
    partitions: list[tuple[str, int, int]]

    @property
    def records(self) -> int:
        return sum(n for _, _, n in self.partitions)


def _ranges(runs: Runs) -> Runs:
    """Neighbouring runs with one delivery count as one range, as a fetch answers them."""
    out: Runs = []
    for first, last, dc in runs:
        if out and out[-1][1] == first - 1 and out[-1][2] == dc:
            out[-1] = (out[-1][0], last, dc)
        else:
            out.append((first, last, dc))
    return out


class AcquisitionBook:
    """The acquisitions of one share group (see the module docstring)."""

    def __init__(self, group: ShareGroup) -> None:
        self.group = group
        self.entries: dict[str, Entry] = {}  # by owner name (``owner_of``)
        self.busy: dict[str, asyncio.Future[None]] = {}  # a fetch under way, per owner name
        self.rotation = 0
        self._expiry: list[tuple[int, str]] = []  # (until, owner name), a heap

    def add(self, owner: str, locks: list[Lock]) -> None:
        until = max(lock.deadline for lock in locks)
        entry = self.entries.get(owner)
        if entry is None:
            self.entries[owner] = Entry(list(locks), until)
        else:
            entry.locks.extend(locks)
            entry.until = max(entry.until, until)
        heapq.heappush(self._expiry, (until, owner))

    def prune(self, now: int) -> None:
        """Forget the acquisitions whose every lock has passed its deadline."""
        while self._expiry and self._expiry[0][0] <= now:
            _, owner = heapq.heappop(self._expiry)
            entry = self.entries.get(owner)
            if entry is not None and entry.until <= now:
                del self.entries[owner]

    def holdings(self, owner: str, now: int) -> list[Holding]:
        """What the acquisition holds now, per share partition in the order it acquired them;
        locks that hold nothing any more are dropped, and the entry with the last of them."""
        entry = self.entries.get(owner)
        if entry is None:
            return []
        by_partition: dict[SharePartition, Runs] = {}
        kept = []
        for lock in entry.locks:
            # held_under answers nothing for a dead lock or a retired partition; a lock whose
            # runs all have a change in progress still holds them
            runs = lock.partition.held_under(lock, now)
            if runs:
                by_partition.setdefault(lock.partition, []).extend(runs)
                kept.append(lock)
            elif (
                lock.deadline > now
                and not lock.partition.retired
                and lock.partition.under_lock(lock)
            ):
                kept.append(lock)
        entry.locks = kept
        if not kept:
            del self.entries[owner]
            return []
        return [Holding(sp, sorted(runs)) for sp, runs in by_partition.items()]

    def ids(self, principal: str | None, ids: list[str] | None, prefix: str | None) -> list[str]:
        """The known ids of ``principal`` among ``ids``, or those starting with ``prefix``,
        sorted."""
        if ids is not None:
            return sorted({i for i in ids if owner_of(principal, i) in self.entries})
        scope = owner_of(principal, "")
        start = scope + (prefix or "")
        return sorted(name[len(scope) :] for name in self.entries if name.startswith(start))


class Acquisitions:
    """Fetch, acknowledge and describe by acquisition id (see the module docstring)."""

    def __init__(self, coordinator: ShareGroupCoordinator) -> None:
        self.share = coordinator
        self.clock = coordinator.clock
        self._books: dict[str, AcquisitionBook] = {}

    def _book(self, group: ShareGroup) -> AcquisitionBook:
        book = self._books.get(group.group_id)
        if book is None or book.group is not group:
            groups = self.share.groups
            for gone in [g for g, b in self._books.items() if groups.get(g) is not b.group]:
                del self._books[gone]  # deleted (or deleted and created again)
            book = self._books[group.group_id] = AcquisitionBook(group)
        return book

    def _check(self, group: ShareGroup) -> None:
        """After an await: the group must still be the one the request started with."""
        if self.share.groups.get(group.group_id) is not group:
            raise NotFound(
                ErrorCode.GROUP_ID_NOT_FOUND, f"share group {group.group_id!r} was deleted"
            )

    # -- fetch --------------------------------------------------------------------------------

    async def fetch(
        self,
        group_id: str,
        acquisition_id: str,
        subscribed: list[str],
        principal: str | None,
        *,
        max_records: int,
        max_wait_ms: int,
        record_limit: bool,
        max_bytes: int,
        held_only: bool = False,
        check_topics: Callable[[Iterable[str]], None] = lambda _: None,
        batches: bool = False,
    ) -> FetchAnswer:
        """As ``_fetch``; with ``batches``, the answer carries the stored batches of the
        records it answers, read once the fetch is done."""
        answer = await self._fetch(
            group_id,
            acquisition_id,
            subscribed,
            principal,
            max_records=max_records,
            max_wait_ms=max_wait_ms,
            record_limit=record_limit,
            max_bytes=max_bytes,
            held_only=held_only,
            check_topics=check_topics,
        )
        if not batches:
            return answer
        return dataclasses.replace(
            answer, batches=self.share.acquired_batches(group_id, answer.acquired)
        )

    async def _fetch(
        self,
        group_id: str,
        acquisition_id: str,
        subscribed: list[str],
        principal: str | None,
        *,
        max_records: int,
        max_wait_ms: int,
        record_limit: bool,
        max_bytes: int,
        held_only: bool,
        check_topics: Callable[[Iterable[str]], None],
    ) -> FetchAnswer:
        """The records ``principal``'s acquisition holds, again (nothing acquired, counts
        unchanged; ``check_topics`` is given their topics first and raises to refuse);
        otherwise a fetch over every partition of ``subscribed`` whose records it then holds,
        or, ``held_only``, nothing (a replay that must not take records its first run never
        saw).
        One fetch per id at a time: another with the same id waits for it and answers what it
        acquired, so concurrent attempts of one task never hold different records."""
        share = self.share
        group = await share.membership.group_for_join(group_id)
        book = self._book(group)
        book.prune(self.clock.now_ms())
        owner = owner_of(principal, acquisition_id)
        deadline = self.clock.monotonic() + max_wait_ms / 1000
        while True:
            held = book.holdings(owner, self.clock.now_ms())
            if held:
                check_topics(sorted({h.partition.topic for h in held}))
                return self._replay(group, acquisition_id, held)
            busy = book.busy.get(owner)
            if held_only and busy is None:
                return self._answer(group, acquisition_id, AcquireRound())
            if busy is None:
                break
            remaining = deadline - self.clock.monotonic()
            if remaining <= 0 or share.stopping:
                return self._answer(group, acquisition_id, AcquireRound())
            await asyncio.wait([busy], timeout=remaining)
            self._check(group)
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        book.busy[owner] = done
        try:
            got = await self._acquire(
                book,
                owner,
                subscribed,
                deadline,
                max_records=max_records,
                max_wait_ms=max_wait_ms,
                record_limit=record_limit,
                max_bytes=max_bytes,
            )
        finally:
            del book.busy[owner]
            done.set_result(None)
        return self._answer(group, acquisition_id, got)

    async def _acquire(
        self,
        book: AcquisitionBook,
        owner: str,
        subscribed: list[str],
        deadline: float,
        *,
        max_records: int,
        max_wait_ms: int,
        record_limit: bool,
        max_bytes: int,
    ) -> AcquireRound:
        """Acquire as a member's fetch does (long poll included), over every partition of
        the subscribed topics, starting at the next partition of the group's rotation."""
        share, group = self.share, book.group
        while True:
            self._check(group)
            keys = rotated(share.partitions_of(subscribed), book.rotation)
            if keys:
                book.rotation += 1
            await share.ensure_partitions(group, keys)
            self._check(group)
            got = share.acquire(group, owner, keys, max_records, record_limit, max_bytes)
            if got.locks:
                book.add(owner, got.locks)
            if got.records or max_wait_ms <= 0 or share.stopping:
                return got
            remaining = deadline - self.clock.monotonic()
            if remaining <= 0 or not got.touched:
                return got
            await share.polls.park(got.touched, remaining)

    def _replay(self, group: ShareGroup, acquisition_id: str, held: list[Holding]) -> FetchAnswer:
        got = AcquireRound()
        for h in held:
            sp = h.partition
            records = self.share.read_held(group, sp, h.runs)
            if records:
                got.records.append(FetchedRecords(sp.topic, sp.partition, records))
            got.acquired.extend(
                AcquiredRange(sp.topic, sp.partition, a, b, dc) for a, b, dc in _ranges(h.runs)
            )
        return self._answer(group, acquisition_id, got)

    @staticmethod
    def _answer(group: ShareGroup, acquisition_id: str, got: AcquireRound) -> FetchAnswer:
        return FetchAnswer(
            None,
            got.records,
            got.acquired,
            group.config.record_lock_duration_ms,
            [],
            acquisition_id,
        )

    # -- acknowledge --------------------------------------------------------------------------

    async def acknowledge(
        self,
        group_id: str,
        ids: list[str] | None,
        prefix: str | None,
        kind: AckType,
        principal: str | None,
        check_topics: Callable[[Iterable[str]], None] = lambda _: None,
    ) -> list[tuple[str, int]]:
        """Acknowledge (``kind``) every record the acquisitions of ``principal`` named by
        ``ids`` or ``prefix`` hold, and answer, once that is durable, (id, records) of each
        that held something. ``check_topics`` is given the topics of those records first (it
        raises to refuse)."""
        group = self.share.membership.group(group_id)
        book = self._book(group)
        now = self.clock.now_ms()
        book.prune(now)
        plan = [
            (i, held)
            for i in book.ids(principal, ids, prefix)
            if (held := book.holdings(owner_of(principal, i), now))
        ]
        check_topics(sorted({h.partition.topic for _, hs in plan for h in hs}))
        limits = group.config.limits
        staged: list[Staged] = []
        answer: list[tuple[str, int]] = []
        for acquisition_id, holdings in plan:
            owner = owner_of(principal, acquisition_id)
            for h in holdings:
                # the runs were just read as held by the owner under a live lock, with no
                # change in progress: the partition's checks pass, nothing is refused
                s = h.partition.acknowledge(
                    owner,
                    [AckBatch(first, last, [kind]) for first, last, _ in h.runs],
                    now=now,
                    limits=limits,
                )
                if s is not None:
                    staged.append(s)
            answer.append((acquisition_id, sum(h.records for h in holdings)))
        # the records of a failed write are still held: the caller calls again
        await all_done([self.share.writer.persist(s) for s in staged])
        return answer

    # -- describe -----------------------------------------------------------------------------

    async def describe(
        self,
        group_id: str,
        prefix: str | None,
        principal: str | None,
        visible: Callable[[str], bool] = lambda _: True,
    ) -> list[AcquisitionView]:
        """``principal``'s acquisitions (all, or those whose id starts with ``prefix``) that
        hold records of topics ``visible`` lets the caller see, by id, with their records per
        partition (answered from memory, without awaiting)."""
        group = self.share.membership.group(group_id)
        book = self._book(group)
        now = self.clock.now_ms()
        book.prune(now)
        out = []
        for acquisition_id in book.ids(principal, None, prefix):
            parts = sorted(
                (h.partition.topic, h.partition.partition, h.records)
                for h in book.holdings(owner_of(principal, acquisition_id), now)
                if visible(h.partition.topic)
            )
            if parts:
                out.append(AcquisitionView(acquisition_id, parts))
        return out
