"""SharePartition: the in-flight window of one (group, topic, partition)
(docs/semantics.md#share-groups).

No I/O, no asyncio: the coordinator hands in a log reader and the time, and persists what this
class stages. The window ``[start_offset, end_offset)`` (SPSO, exclusive SPEO) is a list of
*runs*: contiguous offsets sharing one state, delivery count, owner and lock. A fetch that
acquires a produce batch creates one run; a run is cut only where an operation covers part of
it, so the common path costs O(batches), not O(records).

Changes that must be durable are *staged*: the runs concerned get a ``pending`` marker and a
``target``; the coordinator writes the durable view (``snapshot``) and then calls ``complete``
(or ``rollback``). A pending run is neither acquired, acknowledged, renewed nor expired by
anyone else (docs/semantics.md#share-pending-changes). Renew alone and acquisition are never
persisted (docs/semantics.md#share-durability).

A transactional acknowledgement (docs/semantics.md#transactional-acknowledgements) is
validated like a plain one, then *held*: its runs stay ACQUIRED by the member with a ``txn``
marker and no lock (no expiry: the transaction timeout bounds it). A held run is neither
acknowledged, renewed, released by a leaving member nor expired; ``end_txn`` stages its outcome
when the transaction commits or aborts.
"""

from __future__ import annotations

import bisect
import enum
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import partial
from typing import Protocol

from app.errors import Conflict, ErrorCode, InvalidRequest
from app.share.record_state import VALID_PREVIOUS, RecordState
from app.states import validate_transition
from app.storage.log import ReadResult
from app.storage.record import BatchHeader, StoredRecord, record_size

AVAILABLE = RecordState.AVAILABLE
ACQUIRED = RecordState.ACQUIRED
ACKNOWLEDGED = RecordState.ACKNOWLEDGED
ARCHIVED = RecordState.ARCHIVED

Reader = Callable[[int, int, int, int], ReadResult]
"""``read(offset, max_records, upto, max_bytes)``: records of the log from ``offset`` below
``upto`` (at least one when there is one, whatever its size)."""

REASON_REJECTED = "rejected"
REASON_DELIVERY_LIMIT = "delivery_count_limit"


class AckType(enum.Enum):
    ACCEPT = "accept"
    RELEASE = "release"
    REJECT = "reject"
    RENEW = "renew"


@dataclass(slots=True)
class AckBatch:
    """One acknowledgement range: one type for all offsets, or one type per offset."""

    first: int
    last: int
    types: list[AckType]
    delivery_count: int | None = None
    delay_ms: int = 0

    def segments(self, lo: int, hi: int) -> Iterator[tuple[int, int, AckType]]:
        """Sub-ranges of ``[lo, hi]`` with one type each."""
        if len(self.types) == 1:
            yield lo, hi, self.types[0]
            return
        start = lo
        for off in range(lo + 1, hi + 2):
            if off > hi or self.types[off - self.first] is not self.types[start - self.first]:
                yield start, off - 1, self.types[start - self.first]
                start = off


@dataclass(frozen=True, slots=True)
class Limits:
    """The group's configuration as the partition needs it."""

    lock_ms: int = 30_000
    delivery_limit: int = 5
    max_locks: int = 2000
    renew_enabled: bool = True


@dataclass(eq=False, slots=True)
class Lock:
    """One acquisition lock: every run acquired by one fetch (or renewed by one ack) shares it."""

    partition: SharePartition
    member: str
    first: int
    last: int
    deadline: int  # ms since the epoch


class Timers(Protocol):
    def schedule_lock(self, lock: Lock) -> None: ...

    def schedule_wake(self, partition: SharePartition, at_ms: int) -> None: ...


@dataclass(frozen=True, slots=True)
class TxnAck:
    """A transactional acknowledgement holding a run until its transaction ends."""

    producer_id: int
    kind: AckType
    delay_ms: int = 0
    member: str = ""  # the member the run stays acquired by (its lock is suspended)


@dataclass(frozen=True, slots=True)
class Target:
    """Where a staged change moves a run once it is durable."""

    state: RecordState
    delivery_count: int
    available_at: int = 0  # ms; a release with delay is not acquired before this


@dataclass(slots=True)
class Rare:
    """The fields of a run that most runs never set; a run carries one only while one of them
    is set (``Run.rare`` is None otherwise), and never shares it with another run."""

    available_at: int = 0  # ms; a release with delay is not acquired before this
    pending: Staged | None = None
    target: Target | None = None
    txn: TxnAck | None = None  # held by an open transaction (lock suspended)

    @property
    def empty(self) -> bool:
        return self.pending is None and self.txn is None and not self.available_at


@dataclass(slots=True)
class Run:
    """Contiguous offsets sharing one state, delivery count, owner and lock.

    A window holds up to one run per in-flight record, so a run is kept small: six slots, the
    rare fields (``available_at``, ``pending``, ``target``, ``txn``) in one optional ``Rare``,
    and the owning member read from the lock (or from the held acknowledgement while the
    lock is suspended) rather than stored. A single-offset run refers to one int object as
    both ``first`` and ``last``."""

    first: int
    last: int
    state: RecordState
    delivery_count: int = 0
    lock: Lock | None = None  # ACQUIRED and not held: the lock it was acquired or renewed under
    rare: Rare | None = None

    @property
    def size(self) -> int:
        return self.last - self.first + 1

    @property
    def member(self) -> str | None:
        if self.lock is not None:
            return self.lock.member
        if self.rare is not None and self.rare.txn is not None:
            return self.rare.txn.member
        return None

    @property
    def available_at(self) -> int:
        return 0 if self.rare is None else self.rare.available_at

    @property
    def pending(self) -> Staged | None:
        return None if self.rare is None else self.rare.pending

    @property
    def target(self) -> Target | None:
        return None if self.rare is None else self.rare.target

    @property
    def txn(self) -> TxnAck | None:
        return None if self.rare is None else self.rare.txn


@dataclass(slots=True)
class DlqItem:
    first: int
    last: int
    delivery_count: int
    reason: str


class StagedKind(enum.Enum):
    """What a staged change does."""

    ACK = "ack"  # acknowledgements of one request
    EXPIRY = "expiry"  # acquisition locks that expired
    LEAVE = "leave"  # the records of a member that left
    TXN = "txn"  # transactional acknowledgements held until their transaction ends
    TXN_END = "txn_end"  # the outcome of held acknowledgements, when their transaction ends


@dataclass(eq=False, slots=True)
class Staged:
    """A change awaiting its durable write: ``complete`` it after the write, or roll it back."""

    partition: SharePartition
    kind: StagedKind
    runs: list[Run] = field(default_factory=list)
    dlq: list[DlqItem] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class HeldAck:
    """One durable row of a held transactional acknowledgement."""

    first: int
    last: int
    producer_id: int
    kind: AckType
    delay_ms: int
    delivery_count: int
    member: str


@dataclass(slots=True)
class Acquired:
    records: list[tuple[StoredRecord, int]]  # (record, delivery count), increasing offsets
    ranges: list[tuple[int, int, int]]  # (first, last, delivery count)
    bytes: int = 0
    lock: Lock | None = None  # the lock of the records acquired (None when there are none)


@dataclass(slots=True)
class RunView:
    """Offsets ``[first, last]`` of the window that agree on state, delivery count, member and
    lock expiry; ``member_id`` and ``lock_expires_at`` only for acquired records."""

    first: int
    last: int
    state: RecordState
    delivery_count: int
    member_id: str | None
    lock_expires_at: int | None


@dataclass(frozen=True, slots=True)
class RecordView:
    offset: int
    state: RecordState
    delivery_count: int
    member_id: str | None
    lock_expires_at: int | None
    available_at: int | None


def _first(run: Run) -> int:
    return run.first


def _new_run(first: int, last: int, state: RecordState, delivery_count: int = 0) -> Run:
    """A run; a single-offset one holds one int object as both ends (ints above 256 are
    objects of their own)."""
    return Run(first, first if first == last else last, state, delivery_count)


def _fit(got: ReadResult, budget: int, allow_oversize: bool) -> tuple[list[StoredRecord], int]:
    """The longest prefix of the records read within ``budget`` bytes (the first one
    regardless, with ``allow_oversize``), and its size as reads count it (``record_size``)."""
    if got.bytes <= budget:
        return got.records, got.bytes
    total = 0
    for i, r in enumerate(got.records):
        size = record_size(r)
        if total + size > budget and (i or not allow_oversize):
            return got.records[:i], total
        total += size
    return got.records, total


def _left_out(lo: int, hi: int, headers: list[BatchHeader]) -> Iterator[tuple[int, int, bool]]:
    """``[lo, hi]`` (offsets a read returned no record for) cut into sub-ranges, each with
    whether it lies in a data batch that the read left out: under read_committed, a batch of
    an aborted transaction (a read returns every other data record it passes)."""
    at = lo
    for h in sorted((h for h in headers if not h.is_control), key=lambda h: h.base_offset):
        a, b = max(h.base_offset, at), min(h.last_offset, hi)
        if a > b:
            continue
        if a > at:
            yield at, a - 1, False
        yield a, b, True
        at = b + 1
    if at <= hi:
        yield at, hi, False


# The most offsets a read for several AVAILABLE runs passes between two of them: decoding a
# record costs about a sixteenth of a read of its own (finding its batch, reading and
# decoding that), so runs further apart are read apart.
_SPAN_GAP = 16


def _offset(record: StoredRecord) -> int:
    return record.offset


class _RunReads:
    """The reads of the AVAILABLE runs of one ``acquire`` call. After releases the window
    holds many short runs between acquired ones, and a read of its own for each would read
    and decode the same stored batches once per run. Instead one read covers the span from a
    run up to where the call can stop (``span``), its records are held, and each run is
    served from them exactly as a read of its own would answer: the same records, byte
    budget (the first record whatever its size) and next offset. A run the held records do
    not settle is read on its own, as before: one inside a gap of the span (control markers,
    aborted data, offsets below the log start), and one the held read ends inside of unless
    that read began at the same offset with the same budget; a run past the held records
    starts another read of its span."""

    __slots__ = ("batches", "budget", "held", "next_offset", "read", "start")

    def __init__(self, read: Reader) -> None:
        self.read = read
        self.held: list[StoredRecord] = []  # increasing offsets
        self.start = -1  # where the held read began, with what budget and where it ended
        self.budget = -1
        self.next_offset = -1
        self.batches: list[BatchHeader] = []

    def run(self, first: int, chunk: int, budget: int, span: Callable[[], int]) -> ReadResult:
        """What ``read(first, chunk, first + chunk, budget)`` answers; ``span()`` is where a
        new held read would end (at least ``first + chunk``)."""
        if first < self.start or first >= self.next_offset:
            self._hold(first, budget, span())
        got = self._serve(first, chunk, budget)
        if got is None and self.start != first and self._ends_in(first):
            self._hold(first, budget, span())
            got = self._serve(first, chunk, budget)
        if got is None:
            got = self.read(first, chunk, first + chunk, budget)
        return got

    def _hold(self, first: int, budget: int, upto: int) -> None:
        got = self.read(first, upto - first, upto, budget)
        self.held, self.batches = got.records, got.batches
        self.start, self.budget, self.next_offset = first, budget, got.next_offset

    def _ends_in(self, first: int) -> bool:
        """Whether the held records run without a gap from ``first`` to the end of the held
        read (a read from ``first`` would go on past it)."""
        held = self.held
        i = bisect.bisect_left(held, first, key=_offset)
        return (
            i < len(held)
            and held[i].offset == first
            and held[-1].offset - first == len(held) - 1 - i
            and held[-1].offset + 1 == self.next_offset
        )

    def _serve(self, first: int, chunk: int, budget: int) -> ReadResult | None:
        """The answer from the held records, or None when they do not settle it."""
        held = self.held
        k = bisect.bisect_left(held, first, key=_offset)
        out: list[StoredRecord] = []
        total = 0
        want = first
        while len(out) < chunk:
            if k == len(held):
                # the held records ran out: a read from ``first`` stops here too only when
                # the held one began there, with this budget, and ended right after them
                if self.start != first or self.budget != budget or want != self.next_offset:
                    return None
                break
            r = held[k]
            if r.offset != want:
                return None  # a gap: the read of the run alone says what it holds
            size = record_size(r)
            if out and total + size > budget:
                break
            out.append(r)
            total += size
            want += 1
            k += 1
        if not out:
            return None
        return ReadResult(out, want, total, self.batches)


def _is_gap(run: Run) -> bool:
    """Offsets archived without ever being delivered (control markers, deleted offsets): an
    acknowledgement range may cover them; they are skipped."""
    return (
        run.state is ARCHIVED
        and run.delivery_count == 0
        and (run.rare is None or run.rare.pending is None)
    )


def _unstage(run: Run) -> None:
    """Clear the run's staged change; its ``Rare`` goes when nothing else is set in it."""
    rare = run.rare
    assert rare is not None
    if rare.txn is None and not rare.available_at:
        run.rare = None
    else:
        rare.pending = rare.target = None


class SharePartition:
    def __init__(
        self,
        group_id: str,
        topic: str,
        partition: int,
        topic_id: int,
        start_offset: int,
        timers: Timers,
        *,
        state_epoch: int = 0,
    ) -> None:
        self.group_id = group_id
        self.topic = topic
        self.partition = partition
        self.topic_id = topic_id
        self.timers = timers
        self.state_epoch = state_epoch
        self.start_offset = start_offset
        self.end_offset = start_offset
        self.runs: list[Run] = []
        self.staged: list[Staged] = []  # awaiting the writer, in staging order
        self.dirty = False  # the durable view changed outside a staged change
        self.retired = False  # replaced by an admin reset or deleted
        self.persisted = False  # its start offset is durable: records may be acquired
        self.delivery_limit_archived = 0  # records archived at the delivery limit (in memory)

    @classmethod
    def load(
        cls,
        group_id: str,
        topic: str,
        partition: int,
        topic_id: int,
        start_offset: int,
        batches: list[tuple[int, int, int, int]],
        timers: Timers,
        *,
        state_epoch: int,
        held: list[HeldAck] | None = None,
    ) -> SharePartition:
        """Rebuild from persisted state. Gaps between batches are "maybe not fetched yet"
        (docs/semantics.md#share-durability): they become AVAILABLE with delivery count 0, never
        skipped."""
        sp = cls(
            group_id, topic, partition, topic_id, start_offset, timers, state_epoch=state_epoch
        )
        at = start_offset
        for first, last, state, dc in sorted(batches):
            if last < at:
                continue
            first = max(first, at)
            if first > at:
                sp.runs.append(_new_run(at, first - 1, AVAILABLE))
            sp.runs.append(_new_run(first, last, RecordState(state), dc))
            at = last + 1
        sp.end_offset = at
        sp.persisted = True
        for h in sorted(held or (), key=lambda h: h.first):
            sp._hold_loaded(h)
        sp._advance()
        return sp

    def _hold_loaded(self, h: HeldAck) -> None:
        """Restore a held acknowledgement after a restart: its records are ACQUIRED by the
        member again (never handed to anyone else) until its transaction ends."""
        lo = max(h.first, self.start_offset)
        if h.last < lo:
            return
        if h.last >= self.end_offset:  # not fetched as far as the durable view shows
            self.runs.append(_new_run(self.end_offset, h.last, AVAILABLE))
            self.end_offset = h.last + 1
        for run in self._span(lo, h.last):
            if run.state is not AVAILABLE:
                continue  # decided before the restart (terminal): nothing to hold
            self._set(run, ACQUIRED)
            run.delivery_count = h.delivery_count
            run.lock = None
            run.rare = Rare(txn=TxnAck(h.producer_id, h.kind, h.delay_ms, h.member))

    # -- run bookkeeping ----------------------------------------------------------------------

    def _index(self, offset: int) -> int:
        """Index of the run holding ``offset``, or -1."""
        i = bisect.bisect_right(self.runs, offset, key=_first) - 1
        if i >= 0 and self.runs[i].last >= offset:
            return i
        return -1

    def _cut(self, offset: int) -> None:
        """Make ``offset`` the first offset of a run (if a run holds it)."""
        i = self._index(offset)
        if i >= 0 and self.runs[i].first != offset:
            self._cut_at(i, offset)

    def _cut_at(self, i: int, offset: int) -> None:
        """Cut the ``i``-th run, which holds ``offset`` past its first, before ``offset``."""
        run = self.runs[i]
        rare = run.rare
        assert rare is None or rare.pending is None, "a pending run is never cut"
        last = run.last
        tail = Run(
            last if last == offset else offset,  # single-offset runs: one int for both ends
            last,
            run.state,
            run.delivery_count,
            run.lock,
            None if rare is None else Rare(rare.available_at, None, None, rare.txn),
        )
        head_last = offset - 1
        run.last = run.first if run.first == head_last else head_last
        self.runs.insert(i + 1, tail)

    def _overlapping(self, lo: int, hi: int) -> Iterator[Run]:
        i = max(bisect.bisect_right(self.runs, lo, key=_first) - 1, 0)
        while i < len(self.runs) and self.runs[i].first <= hi:
            run = self.runs[i]
            if run.last >= lo:
                yield run
            i += 1

    def _span(self, lo: int, hi: int) -> list[Run]:
        """The runs exactly covering ``[lo, hi]`` (cutting at both ends)."""
        return self._span_from(-1, lo, hi)[0]

    def _span_from(self, at: int, lo: int, hi: int) -> tuple[list[Run], int]:
        """``_span``, and the index after its runs. The run at ``lo`` is found from the
        ``at``-th on when that run starts at or before ``lo`` (ascending ranges, each from
        where the last ended: a step or two), else by one search; the rest are its
        neighbours."""
        runs = self.runs
        if 0 <= at < len(runs) and runs[at].first <= lo:
            i = at
            while i + 1 < len(runs) and runs[i + 1].first <= lo:
                i += 1
        else:
            i = bisect.bisect_right(runs, lo, key=_first) - 1
        if i < 0 or runs[i].last < lo:
            i += 1  # no run holds lo: from the next one on
        elif runs[i].first != lo:
            self._cut_at(i, lo)
            i += 1
        out = []
        while i < len(runs) and runs[i].first <= hi:
            run = runs[i]
            if run.last > hi:
                self._cut_at(i, hi + 1)
            out.append(run)
            i += 1
        return out, i

    def _advance(self) -> None:
        """Move the start past the leading terminal runs (docs/semantics.md#share-window)."""
        k = 0
        runs = self.runs
        while k < len(runs) and runs[k].state.terminal and runs[k].pending is None:
            k += 1
        if k:
            self.start_offset = max(self.start_offset, runs[k - 1].last + 1)
            del runs[:k]
        if not runs:
            self.start_offset = max(self.start_offset, self.end_offset)
            self.end_offset = self.start_offset

    def _set(self, run: Run, state: RecordState) -> None:
        run.state = validate_transition(VALID_PREVIOUS, run.state, state)

    # -- log start ----------------------------------------------------------------------------

    def move_log_start(self, log_start: int) -> None:
        """The log start moved to ``log_start``: AVAILABLE records below it are archived at
        once; ACQUIRED ones when their lock expires or they are released
        (docs/semantics.md#share-window)."""
        if log_start <= self.start_offset:
            return
        i = self._index(log_start)
        if i < 0 or self.runs[i].pending is None:
            self._cut(log_start)
        for run in self.runs:
            if run.first >= log_start:
                break
            if run.state is AVAILABLE and run.pending is None:
                self._set(run, ARCHIVED)
        self.start_offset = log_start
        self.end_offset = max(self.end_offset, log_start)
        self.dirty = True
        self._advance()

    # -- acquisition --------------------------------------------------------------------------

    def acquire(
        self,
        member: str,
        max_records: int,
        *,
        record_limit: bool,
        now: int,
        limits: Limits,
        read: Reader,
        bound: int,
        log_start: int,
        max_bytes: int = 1 << 62,
        allow_oversize: bool = True,
    ) -> Acquired:
        """Acquire up to ``max_records`` (a soft limit in batch_optimized mode,
        docs/semantics.md#share-acquisition) for
        ``member``: AVAILABLE records of the window first, then new records below ``bound``
        (the high watermark or the LSO) within the in-flight limit. Records are read before
        they are acquired, within ``max_bytes`` (at least one record is always taken), so
        nothing is acquired that the answer does not carry; with ``allow_oversize`` the first
        record is taken whatever its size (a fetch always makes progress)."""
        self.move_log_start(log_start)
        lock = Lock(self, member, -1, -1, now + limits.lock_ms)
        records: list[tuple[StoredRecord, int]] = []
        budget = max_bytes
        count = 0
        i = 0
        throttle_at = max(2, -(-limits.delivery_limit // 2))
        reads = _RunReads(read)
        while i < len(self.runs) and count < max_records and budget > 0:
            run = self.runs[i]
            i += 1
            if run.first >= bound:
                # past the partition end, which under read_committed is the LSO: records
                # delivered while the group read uncommitted (an open transaction's, and
                # any after them) can lie past it; they wait until it moves
                break
            if not self._acquirable(run, now):
                continue
            # Throttled redelivery (docs/semantics.md#share-throttled-redelivery):
            # suspect records come back in ever smaller chunks,
            # and a record on its last attempt alone, so one poison record cannot take a whole
            # batch to the delivery limit with it.
            chunk = run.size
            last_attempt = (
                limits.delivery_limit > 2 and run.delivery_count == limits.delivery_limit - 1
            )
            if last_attempt:
                if count:
                    break
                chunk = 1
            elif run.delivery_count >= throttle_at:
                chunk = max(1, run.size >> (run.delivery_count - throttle_at + 1))
            if record_limit:
                chunk = min(chunk, max_records - count)
            span = partial(self._span_end, i - 1, max_records - count, now)
            got = reads.run(run.first, chunk, budget, span)
            if not got.records:  # only gaps here (markers, aborted data)
                if got.next_offset <= run.first:
                    continue  # the read passed nothing: nothing is known to be a gap
                # a read passes a left-out batch whole, so its next offset can lie past the
                # chunk, inside offsets acknowledged since (a released record of an aborted
                # transaction whose other records were accepted): only the chunk is this
                # run's to archive
                end = min(got.next_offset, run.first + chunk)
                self._archive_gaps(run.first, end - 1, [], got.batches)
                continue
            fit, size = _fit(got, budget, allow_oversize and not records)
            if not fit:
                break
            end = got.next_offset if len(fit) == len(got.records) else fit[-1].offset + 1
            if end <= run.last:  # fewer than the whole run: the rest stays available
                self._cut(end)
            self._acquire_run(run, member, lock)
            count += run.size
            budget -= size
            records.extend((r, run.delivery_count) for r in fit)
            self._archive_gaps(run.first, run.last, fit, got.batches)
            if last_attempt or run.delivery_count > throttle_at:
                break
        # records archived above (gaps at the window's start) free room in the window for
        # new records: count it from the start they move to
        self._advance()
        if count < max_records and budget > 0 and self.end_offset < bound:
            records.extend(
                self._acquire_new(
                    member,
                    max_records - count,
                    record_limit,
                    limits,
                    read,
                    bound,
                    lock,
                    budget,
                    allow_oversize and not records,
                )
            )
        self._advance()
        ranges: list[tuple[int, int, int]] = []
        for rec, dc in records:
            if ranges and ranges[-1][1] == rec.offset - 1 and ranges[-1][2] == dc:
                ranges[-1] = (ranges[-1][0], rec.offset, dc)
            else:
                ranges.append((rec.offset, rec.offset, dc))
        if not records:
            return Acquired(records, ranges, max_bytes - budget)
        lock.first, lock.last = records[0][0].offset, records[-1][0].offset
        self.timers.schedule_lock(lock)
        return Acquired(records, ranges, max_bytes - budget, lock)

    def _acquirable(self, run: Run, now: int) -> bool:
        """Whether an AVAILABLE run of the window may be acquired ``now``."""
        if run.state is not AVAILABLE or run.first < self.start_offset:
            return False
        rare = run.rare
        return rare is None or (rare.pending is None and rare.available_at <= now)

    def _span_end(self, i: int, wanted: int, now: int) -> int:
        """Where a read for the runs from the ``i``-th on ends: after the run that brings the
        acquirable records to ``wanted`` (or after the last acquirable one), or before one
        more than ``_SPAN_GAP`` offsets past the last (the records between would be read and
        decoded for nothing)."""
        runs = self.runs
        end = runs[i].last + 1
        while i < len(runs) and wanted > 0:
            run = runs[i]
            if self._acquirable(run, now):
                if run.first - end > _SPAN_GAP:
                    break
                wanted -= run.size
                end = run.last + 1
            i += 1
        return end

    def _acquire_run(self, run: Run, member: str, lock: Lock) -> None:
        self._set(run, ACQUIRED)
        run.delivery_count += 1
        run.lock = lock  # the member is the lock's
        rare = run.rare
        if rare is not None:
            rare.available_at = 0
            if rare.empty:
                run.rare = None

    def _acquire_new(
        self,
        member: str,
        wanted: int,
        record_limit: bool,
        limits: Limits,
        read: Reader,
        bound: int,
        lock: Lock,
        budget: int,
        allow_oversize: bool,
    ) -> list[tuple[StoredRecord, int]]:
        capacity = limits.max_locks - (self.end_offset - self.start_offset)
        want = min(wanted, capacity)
        if want <= 0:
            return []
        got = read(self.end_offset, want, bound, budget)
        headers = list(got.batches)
        records, size = _fit(got, budget, allow_oversize)
        nxt = (
            got.next_offset
            if len(records) == len(got.records)
            else (records[-1].offset + 1 if records else self.end_offset)
        )
        budget -= size
        if not record_limit and records and budget > 0 and nxt == got.next_offset:
            # batch_optimized: extend to the end of the produce batch holding the last record,
            # even past the in-flight limit (as Kafka acquires whole batches); the window is
            # then at or over the limit, so the next fetch takes no new records
            # (docs/semantics.md#share-window)
            last = records[-1].offset
            ext = last
            for h in got.batches:
                if h.base_offset <= last <= h.last_offset:
                    ext = h.last_offset
            ext = min(ext, bound - 1)
            if ext >= nxt:
                more = read(nxt, ext - nxt + 1, ext + 1, budget)
                headers.extend(more.batches)
                extra, _ = _fit(more, budget, False)
                records.extend(extra)
                if len(extra) == len(more.records):
                    nxt = max(nxt, more.next_offset)
                elif extra:
                    nxt = extra[-1].offset + 1
        if nxt <= self.end_offset:
            return []
        at = self.end_offset
        k = 0
        while at < nxt:
            if k < len(records) and records[k].offset == at:
                j = k
                while j + 1 < len(records) and records[j + 1].offset == records[j].offset + 1:
                    j += 1
                run = _new_run(at, records[j].offset, AVAILABLE)
                self._acquire_run(run, member, lock)
                self.runs.append(run)
                at = records[j].offset + 1
                k = j + 1
            else:  # a gap: control markers and aborted data are archived, never delivered
                gap_end = records[k].offset - 1 if k < len(records) else nxt - 1
                for a, b, aborted in _left_out(at, gap_end, headers):
                    # aborted data counts one delivery, as in Kafka (acquired, then archived)
                    self.runs.append(_new_run(a, b, ARCHIVED, 1 if aborted else 0))
                self.dirty = True
                at = gap_end + 1
        self.end_offset = nxt
        return [(r, 1) for r in records]

    def _archive_gaps(
        self, first: int, last: int, records: list[StoredRecord], headers: list[BatchHeader]
    ) -> None:
        """Offsets of a re-acquired range that the log no longer holds, or that the read left
        out (aborted data, with a delivery count of at least 1), are archived. ``[first,
        last]`` lies inside the one run being acquired (AVAILABLE, or ACQUIRED by this fetch):
        records around it may be terminal already."""
        if len(records) == last - first + 1:
            return
        present = {r.offset for r in records}
        off = first
        while off <= last:
            if off in present:
                off += 1
                continue
            end = off
            while end + 1 <= last and end + 1 not in present:
                end += 1
            for a, b, aborted in _left_out(off, end, headers):
                for run in self._span(a, b):
                    self._set(run, ARCHIVED)
                    run.lock = None
                    if aborted:
                        run.delivery_count = max(run.delivery_count, 1)
            self.dirty = True
            off = end + 1

    # -- acknowledgement ----------------------------------------------------------------------

    def acknowledge(
        self, member: str, batches: list[AckBatch], *, now: int, limits: Limits
    ) -> Staged | None:
        """Stage the acknowledgements of one request for this partition, all or nothing
        (docs/semantics.md#share-acknowledgements).

        Raises ``InvalidRequest`` (INVALID_REQUEST) or ``Conflict`` (INVALID_RECORD_STATE)
        and changes nothing when any record fails a check. Returns None when nothing needs a
        durable write (renew only, or every range below the start).
        """
        if not limits.renew_enabled and any(AckType.RENEW in b.types for b in batches):
            raise InvalidRequest(
                ErrorCode.INVALID_REQUEST, "renew is disabled for this group (renew_enabled=false)"
            )
        self._check_acks(member, batches, now)
        staged = Staged(self, StagedKind.ACK)
        renewed: list[Run] = []
        for b, kind, run in self._acked_runs(batches):
            if kind is AckType.RENEW:
                renewed.append(run)
                continue
            self._stage(staged, run, self._ack_target(run, kind, b.delay_ms, now, limits, staged))
        if not staged.runs:
            self._renew(renewed, member, now, limits)
            return None
        for run in renewed:
            self._stage(staged, run, Target(ACQUIRED, run.delivery_count))
        self.staged.append(staged)
        return staged

    def _acked_runs(self, batches: list[AckBatch]) -> Iterator[tuple[AckBatch, AckType, Run]]:
        """Each record run an acknowledgement covers (cut at its edges and where its type
        changes), with that type; offsets below the start and gaps are skipped."""
        at = -1
        for b in batches:
            lo, hi = max(b.first, self.start_offset), b.last
            if hi < self.start_offset:
                continue
            for slo, shi, kind in b.segments(lo, hi):
                span, at = self._span_from(at, slo, shi)
                for run in span:
                    if not _is_gap(run):
                        yield b, kind, run

    def _check_acks(self, member: str, batches: list[AckBatch], now: int) -> None:
        """Every range within the window, every record in it acquired by ``member`` under a
        live lock (docs/semantics.md#share-acknowledgements); raises on the first problem, before
        anything changes."""
        for b in batches:
            lo, hi = max(b.first, self.start_offset), b.last
            if hi < self.start_offset:
                continue  # already complete: silently skipped
            if hi >= self.end_offset:
                raise InvalidRequest(
                    ErrorCode.INVALID_REQUEST,
                    f"offsets {b.first}-{b.last} reach beyond the in-flight window "
                    f"[{self.start_offset}, {self.end_offset})",
                )
            for run in self._overlapping(lo, hi):
                if _is_gap(run):
                    continue
                problem = self._ack_problem(run, member, now, b.delivery_count)
                if problem:
                    raise Conflict(
                        ErrorCode.INVALID_RECORD_STATE,
                        f"offsets {max(run.first, lo)}-{min(run.last, hi)}: {problem}",
                    )

    @staticmethod
    def _ack_problem(run: Run, member: str, now: int, delivery_count: int | None) -> str:
        rare = run.rare
        if rare is not None and rare.pending is not None:
            return "an acknowledgement of these records is in progress"
        if rare is not None and rare.txn is not None:
            return "the records are held by a pending transactional acknowledgement"
        if run.state is not ACQUIRED:
            return f"the records are {run.state.label}, not acquired"
        if run.member != member:
            return "the records are acquired by another member"
        if run.lock is not None and run.lock.deadline <= now:
            return "the acquisition lock expired"
        if delivery_count is not None and delivery_count != run.delivery_count:
            return (
                f"the records were redelivered (delivery count {run.delivery_count}, "
                f"the acknowledgement carries {delivery_count})"
            )
        return ""

    def _ack_target(
        self, run: Run, kind: AckType, delay_ms: int, now: int, limits: Limits, staged: Staged
    ) -> Target:
        dc = run.delivery_count
        if kind is AckType.ACCEPT:
            return Target(ACKNOWLEDGED, dc)
        if kind is AckType.REJECT:
            staged.dlq.append(DlqItem(run.first, run.last, dc, REASON_REJECTED))
            return Target(ARCHIVED, dc)
        if dc >= limits.delivery_limit:
            staged.dlq.append(DlqItem(run.first, run.last, dc, REASON_DELIVERY_LIMIT))
            return Target(ARCHIVED, dc)
        return Target(AVAILABLE, dc, now + delay_ms if delay_ms > 0 else 0)

    def _stage(self, staged: Staged, run: Run, target: Target) -> None:
        validate_transition(VALID_PREVIOUS, run.state, target.state)
        rare = run.rare
        if rare is None:
            run.rare = Rare(0, staged, target)
        else:
            rare.pending = staged
            rare.target = target
        staged.runs.append(run)

    def _renew(self, runs: list[Run], member: str, now: int, limits: Limits) -> None:
        if not runs:
            return
        lock = Lock(self, member, runs[0].first, runs[-1].last, now + limits.lock_ms)
        for run in runs:
            validate_transition(VALID_PREVIOUS, run.state, ACQUIRED)
            run.lock = lock
        self.timers.schedule_lock(lock)

    # -- transactional acknowledgements (docs/semantics.md#transactional-acknowledgements) --

    def hold_txn(
        self, member: str, batches: list[AckBatch], producer_id: int, *, now: int, limits: Limits
    ) -> tuple[Staged, list[HeldAck]] | None:
        """Validate like ``acknowledge`` (all or nothing for this partition; the same errors)
        and mark the runs pending; the caller writes the returned rows durably, then calls
        ``complete_hold`` (or ``rollback``). None when every range is below the start."""
        for b in batches:
            if AckType.RENEW in b.types:
                raise InvalidRequest(
                    ErrorCode.INVALID_REQUEST,
                    "renew cannot join a transaction: the lock of records "
                    "under a transactional acknowledgement is suspended",
                )
        self._check_acks(member, batches, now)
        staged = Staged(self, StagedKind.TXN)
        rows: list[HeldAck] = []
        for b, kind, run in self._acked_runs(batches):
            self._stage(staged, run, Target(ACQUIRED, run.delivery_count))
            assert run.rare is not None
            run.rare.txn = TxnAck(producer_id, kind, b.delay_ms, member)
            rows.append(
                HeldAck(
                    run.first, run.last, producer_id, kind, b.delay_ms, run.delivery_count, member
                )
            )
        if not staged.runs:
            return None
        return staged, rows

    def complete_hold(self, staged: Staged) -> None:
        """The held rows are durable: the runs stay ACQUIRED with their lock suspended."""
        for run in staged.runs:
            assert run.pending is staged and run.txn is not None
            _unstage(run)
            run.lock = None  # the member is the held acknowledgement's

    def end_txn(self, producer_id: int, commit: bool, *, now: int, limits: Limits) -> Staged | None:
        """Stage the outcome of the producer's held acknowledgements: commit applies them as
        plain acknowledgements would (delivery limit, dead-letter copy); abort releases the
        records with their delivery count unchanged (archived at the delivery limit, as any
        release). None when nothing is held here for the producer. Like ``hold_txn``, the
        change is not left for the writer: the caller writes the durable view with it, then
        calls ``complete`` (or ``rollback``)."""
        runs = [
            r
            for r in self.runs
            if r.txn is not None and r.txn.producer_id == producer_id and r.pending is None
        ]
        if not runs:
            return None
        staged = Staged(self, StagedKind.TXN_END)
        for run in runs:
            assert run.txn is not None
            if run.last < self.start_offset:
                self._stage(staged, run, Target(ARCHIVED, run.delivery_count))
            elif commit:
                self._stage(
                    staged,
                    run,
                    self._ack_target(run, run.txn.kind, run.txn.delay_ms, now, limits, staged),
                )
            else:
                self._stage(
                    staged, run, self._ack_target(run, AckType.RELEASE, 0, now, limits, staged)
                )
        return staged

    def holds(self, producer_id: int) -> bool:
        """Whether any record is held by a transactional acknowledgement of the producer."""
        return any(r.txn is not None and r.txn.producer_id == producer_id for r in self.runs)

    def held_by(self, producer_id: int | None = None) -> int:
        """Records held by transactional acknowledgements (of one producer, or of any)."""
        return sum(
            r.size
            for r in self.runs
            if r.txn is not None and (producer_id is None or r.txn.producer_id == producer_id)
        )

    # -- expiry and leaving -------------------------------------------------------------------

    def expire_lock(self, lock: Lock, now: int, limits: Limits) -> Staged | None:
        """The lock's deadline passed: its still-acquired records become AVAILABLE (ARCHIVED at
        the delivery limit or below the start), keeping their delivery count
        (docs/semantics.md#share-lock-expiry). A run that
        was acknowledged or renewed meanwhile no longer holds this lock and is left alone; a
        pending one is handled when its write completes or rolls back."""
        runs = [
            r
            for r in self._overlapping(lock.first, lock.last)
            if r.lock is lock and r.state is ACQUIRED and r.pending is None
        ]
        return self._stage_expiry(runs, limits)

    def _stage_expiry(self, runs: list[Run], limits: Limits) -> Staged | None:
        if not runs:
            return None
        staged = Staged(self, StagedKind.EXPIRY)
        for run in runs:
            dc = run.delivery_count
            if run.last < self.start_offset:
                self._stage(staged, run, Target(ARCHIVED, dc))
            elif dc >= limits.delivery_limit:
                staged.dlq.append(DlqItem(run.first, run.last, dc, REASON_DELIVERY_LIMIT))
                self._stage(staged, run, Target(ARCHIVED, dc))
            else:
                self._stage(staged, run, Target(AVAILABLE, dc))
        self.staged.append(staged)
        return staged

    def release_member(self, member: str) -> Staged | None:
        """The member left (docs/semantics.md#share-members-and-leaving). Its acquired records
        become AVAILABLE with their delivery count lowered by one (they were not really
        processed)."""
        runs = [
            r
            for r in self.runs
            if r.state is ACQUIRED and r.member == member and r.pending is None and r.txn is None
        ]  # held runs wait for their txn
        if not runs:
            return None
        staged = Staged(self, StagedKind.LEAVE)
        for run in runs:
            if run.last < self.start_offset:
                self._stage(staged, run, Target(ARCHIVED, run.delivery_count))
            else:
                self._stage(staged, run, Target(AVAILABLE, max(run.delivery_count - 1, 0)))
        self.staged.append(staged)
        return staged

    # -- acquisitions by id (docs/semantics.md#share-acquisitions-by-id) ---------------------

    def held_under(self, lock: Lock, now: int) -> list[tuple[int, int, int]]:
        """(first, last, delivery count) of the records still acquired under ``lock`` while it
        is live, leaving out those with a change in progress or held by a transaction."""
        if lock.deadline <= now or self.retired:
            return []
        return [
            (r.first, r.last, r.delivery_count)
            for r in self._overlapping(lock.first, lock.last)
            if r.lock is lock and r.state is ACQUIRED and r.pending is None and r.txn is None
        ]

    def under_lock(self, lock: Lock) -> bool:
        """Whether any record is still acquired under ``lock`` (a change in progress too)."""
        return any(
            r.lock is lock and r.state is ACQUIRED for r in self._overlapping(lock.first, lock.last)
        )

    def acquired_by(self, owner: Callable[[str], bool], now: int) -> int:
        """Records acquired under a live lock by an owner ``owner`` accepts."""
        return sum(
            r.size
            for r in self.runs
            if r.state is ACQUIRED
            and r.lock is not None
            and r.lock.deadline > now
            and owner(r.lock.member)
        )

    # -- completing staged changes ------------------------------------------------------------

    def complete(self, staged: Staged, now: int, limits: Limits) -> None:
        """The staged change is durable: apply it."""
        if staged in self.staged:
            self.staged.remove(staged)
        self.delivery_limit_archived += sum(
            d.last - d.first + 1 for d in staged.dlq if d.reason == REASON_DELIVERY_LIMIT
        )
        renewed: list[Run] = []
        wake_at = 0
        for run in staged.runs:
            rare = run.rare
            assert rare is not None and rare.pending is staged and rare.target is not None
            target = rare.target
            if target.state is ACQUIRED:
                _unstage(run)
                renewed.append(run)
                continue
            self._set(run, target.state)
            run.delivery_count = target.delivery_count
            run.lock = None  # and no member
            if target.available_at:  # released with a delay: the run keeps its Rare for it
                rare.available_at = target.available_at
                rare.pending = rare.target = rare.txn = None
                wake_at = max(wake_at, target.available_at)
            else:
                run.rare = None
        self._archive_below_start(staged.runs)
        if renewed:
            self._renew(renewed, renewed[0].member or "", now, limits)
        if wake_at > now:
            self.timers.schedule_wake(self, wake_at)
        self._advance()

    def _archive_below_start(self, runs: list[Run]) -> None:
        """The log start can pass records while a change of theirs is in progress
        (``move_log_start`` neither cuts nor archives a pending run): those the change made
        AVAILABLE are archived now, as the log start archives available records, else they
        would stay below the start, never acquired, and hold the start back for good."""
        start = self.start_offset
        for run in runs:
            if run.state is not AVAILABLE or run.first >= start:
                continue
            if run.last >= start:
                self._cut(start)  # the run keeps the part below the start
            self._set(run, ARCHIVED)
            run.rare = None  # a release's delay is moot for an archived record

    def rollback(self, staged: Staged, now: int, limits: Limits) -> Staged | None:
        """The write failed: nothing changes, except that records whose lock expired meanwhile
        are expired now (staged again; the caller persists that)."""
        if staged in self.staged:
            self.staged.remove(staged)
        expired = []
        for run in staged.runs:
            rare = run.rare
            if rare is not None:
                rare.pending = None
                rare.target = None
                if staged.kind is StagedKind.TXN:
                    rare.txn = None  # the hold never became durable
                if rare.empty:
                    run.rare = None
            if run.state is ACQUIRED and run.lock is not None and run.lock.deadline <= now:
                expired.append(run)
        return self._stage_expiry(expired, limits)

    # -- the durable view ---------------------------------------------------------------------

    def snapshot(
        self, taken: set[Staged] | frozenset[Staged] = frozenset()
    ) -> tuple[int, list[tuple[int, int, int, int]]]:
        """(start offset, batches (first, last, state, delivery count)) as they are once the
        ``taken`` staged changes are durable. ACQUIRED is never persisted: an acquired record
        is written as AVAILABLE with the delivery count it had before its acquisition;
        AVAILABLE with count 0 is not written (a gap means exactly that)."""
        start = self.start_offset
        out: list[list[int]] = []
        leading = True
        for run in self.runs:
            rare = run.rare
            if rare is not None and rare.pending is not None and rare.pending in taken:
                assert rare.target is not None
                state, dc = rare.target.state, rare.target.delivery_count
            else:
                state, dc = run.state, run.delivery_count
            if state is ACQUIRED:
                state, dc = AVAILABLE, dc - 1
            if run.last < start:
                continue
            if leading and state.terminal:
                start = run.last + 1
                continue
            leading = False
            if state is AVAILABLE and dc <= 0:
                continue
            first = max(run.first, start)
            if out and out[-1][1] == first - 1 and out[-1][2] == state and out[-1][3] == dc:
                out[-1][1] = run.last
            else:
                out.append([first, run.last, int(state), dc])
        return start, [(a, b, c, d) for a, b, c, d in out]

    # -- views --------------------------------------------------------------------------------

    def counts(self) -> dict[str, int]:
        out = {s.label: 0 for s in RecordState}
        for run in self.runs:
            lo = max(run.first, self.start_offset)
            if run.last >= lo:
                out[run.state.label] += run.last - lo + 1
        return out

    def lag(self, partition_end: int) -> int:
        """Records in ``[start, partition_end)`` neither acknowledged nor archived."""
        span = max(partition_end - self.start_offset, 0)
        done = 0
        for run in self.runs:
            lo, hi = max(run.first, self.start_offset), min(run.last, partition_end - 1)
            if hi >= lo and run.state.terminal:
                done += hi - lo + 1
        return max(span - done, 0)

    def record_views(self, lo: int, hi: int) -> list[RecordView]:
        """Per-record state for offsets in ``[lo, hi)`` clipped to the window."""
        lo, hi = max(lo, self.start_offset), min(hi, self.end_offset)
        out: list[RecordView] = []
        if lo >= hi:
            return out
        for run in self._overlapping(lo, hi - 1):
            acquired = run.state is ACQUIRED
            for off in range(max(run.first, lo), min(run.last, hi - 1) + 1):
                out.append(
                    RecordView(
                        off,
                        run.state,
                        run.delivery_count,
                        run.member if acquired else None,
                        run.lock.deadline if acquired and run.lock is not None else None,
                        run.available_at if run.state is AVAILABLE and run.available_at else None,
                    )
                )
        return out

    def run_views(self, limit: int) -> tuple[list[RunView], bool]:
        """The window ``[start, end)`` as runs: neighbouring runs that agree on state, delivery
        count, member and lock expiry are one (records under a staged change or held by a
        transaction are acquired, as ``record_views`` shows them). At most ``limit`` runs, and
        whether more were left out."""
        out: list[RunView] = []
        start = self.start_offset
        runs = self.runs
        i = max(bisect.bisect_right(runs, start, key=_first) - 1, 0)
        for k in range(i, len(runs)):
            run = runs[k]
            if run.last < start:
                continue
            acquired = run.state is ACQUIRED
            member = run.member if acquired else None
            expires = run.lock.deadline if acquired and run.lock is not None else None
            first = max(run.first, start)
            prev = out[-1] if out else None
            if (
                prev is not None
                and prev.last == first - 1
                and prev.state is run.state
                and prev.delivery_count == run.delivery_count
                and prev.member_id == member
                and prev.lock_expires_at == expires
            ):
                prev.last = run.last
                continue
            if len(out) == limit:
                return out, True
            out.append(RunView(first, run.last, run.state, run.delivery_count, member, expires))
        return out, False

    def is_done(self, offset: int) -> bool:
        """Whether the record at ``offset`` is done (acknowledged or archived, and durable):
        below the start, or terminal with no change in progress."""
        if offset < self.start_offset:
            return True
        i = self._index(offset)
        return i >= 0 and self.runs[i].state.terminal and self.runs[i].pending is None

    def has_work(self, now: int, bound: int, max_locks: int) -> bool:
        """Whether a fetch could acquire something now."""
        for run in self.runs:
            if run.first >= bound:
                break  # past the partition end (the LSO under read_committed): not yet
            if (
                run.state is AVAILABLE
                and run.first >= self.start_offset
                and (
                    (rare := run.rare) is None
                    or (rare.pending is None and rare.available_at <= now)
                )
            ):
                return True
        return self.end_offset < bound and self.end_offset - self.start_offset < max_locks
