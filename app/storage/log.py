"""PartitionLog: the segments of one partition, appends, durable flushes, reads and retention.

Offsets below ``log_start_offset`` are gone. ``log_end_offset`` is the next offset to assign.
``high_watermark`` is the end of what readers may see: with ``durable_reads`` (fsync=always) it
moves only when a flush has made the data durable, so nobody reads a record that a crash could
take back.

Durability is staged: ``prepare_flush`` (event loop) takes a ticket of dirty segments,
``flush(ticket)`` fsyncs them (any thread, concurrent appends are fine) and writes the recovery
checkpoint, ``complete_flush(ticket)`` (event loop) moves the high watermark.

A failed write is cut off again (the segment keeps its size); a failed fsync makes the flusher
call ``revert_to_durable``, which cuts the log back to the end of its last successful flush and
opens it again from disk, because the kernel may have dropped the pages it could not write.

The recovery checkpoint names a (segment, position) below which everything was fsynced; at open,
segments before it are trusted without reading and only the tail is validated, so recovery time
depends on the unflushed tail, not on the log's size.

Transactions: the log keeps a ``TxnIndex`` (``txn_index.py``) of its open transactions;
``last_stable_offset`` comes from it, and ``read(committed=True)`` stops there. Each segment
indexes the transactions aborted by the markers it holds (``abort_index.py``, memory for the
active segment only), and the read leaves out their batches, asking only the segments whose
aborted transactions can overlap what it reads. With each recovery checkpoint the log writes a
producer-state snapshot (the open transactions plus the producer-state hook's entries); at open
it restores the snapshot, cuts the segments' abort indexes back to it, and replays only the
batches written after it.
"""

from __future__ import annotations

import bisect
import logging
import os
import struct
import zlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Concatenate, ParamSpec, Protocol, TypeVar

import orjson

from app.errors import CorruptRecordError, ErrorCode, StorageError
from app.storage import abort_index, modes, record, upgrade
from app.storage.abort_index import aborted_in
from app.storage.files import (
    fsync_directory,
    pack_checked,
    read_file,
    unpack_checked,
    write_small_file,
)
from app.storage.handles import SealedFiles
from app.storage.health import StorageHealth
from app.storage.record import Record, StoredRecord, marker_is_commit, marker_record
from app.storage.segment import Segment, segment_name
from app.storage.txn_index import TxnIndex

log = logging.getLogger("sluice.storage")

CHECKPOINT_FILE = "recovery-checkpoint"
SNAPSHOT_FILE = "producer-snapshot"
LOG_START_FILE = "log-start-offset"
_CHECKPOINT = struct.Struct("<qqq")  # segment base, position, next offset
_LOG_START = struct.Struct("<q")
_READ_SLACK = 64 * 1024
_READ_CHUNK = 256 * 1024  # reads go chunk by chunk: a small answer costs a small read


@dataclass(frozen=True, slots=True)
class LogConfig:
    segment_bytes: int = 128 * 1024 * 1024
    segment_ms: int = 7 * 24 * 3600 * 1000
    retention_ms: int = 7 * 24 * 3600 * 1000  # -1: keep forever
    retention_bytes: int = -1  # -1: no size limit
    index_interval_bytes: int = 4096


@dataclass(frozen=True, slots=True)
class AppendInfo:
    base_offset: int
    last_offset: int
    max_timestamp: int
    first_timestamp: int


@dataclass(slots=True)
class FlushTicket:
    segments: list[Segment]
    next_offset: int
    checkpoint: tuple[int, int, int]
    sync_directory: bool = False
    snapshot: bytes | None = None  # producer-state snapshot as of next_offset


class ProducerStateHook(Protocol):
    """What the log needs from the producer-state layer above it (see app/producers)."""

    def replay(self, h: record.BatchHeader, commit: bool | None, opened_ms: int) -> None:
        """Apply a producer batch read back at open; ``commit`` is set for markers.

        ``opened_ms`` is when the log was opened: a batch's own timestamps are the records'
        create times (any value a client sent), not when it was appended."""

    def snapshot(self) -> Any:
        """The entries as JSON-able data."""

    def restore(self, data: Any) -> None:
        """Replace the entries with a snapshot's."""


@dataclass(slots=True)
class ReadResult:
    records: list[StoredRecord]
    next_offset: int
    bytes: int = 0
    batches: list[record.BatchHeader] = field(default_factory=list)


@dataclass(slots=True)
class BatchesRead:
    """Whole batches as stored, for a read of batches (``read_batches``)."""

    batches: list[bytes]
    next_offset: int
    records: int = 0  # from the offset asked for on
    bytes: int = 0


P = ParamSpec("P")
R = TypeVar("R")


def _reading(
    method: Callable[Concatenate[PartitionLog, P], R],
) -> Callable[Concatenate[PartitionLog, P], R]:
    """A read of the log's files: the sealed segments it opened close when it ends."""

    def wrapper(partition_log: PartitionLog, /, *args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return method(partition_log, *args, **kwargs)
        finally:
            partition_log._files.done()

    wrapper.__name__, wrapper.__doc__ = method.__name__, method.__doc__
    return wrapper


class PartitionLog:
    def __init__(
        self,
        directory: str,
        config: LogConfig,
        *,
        durable_reads: bool = True,
        now_ms: int = 0,
        producer_state: ProducerStateHook | None = None,
        health: StorageHealth | None = None,
        files: SealedFiles | None = None,
    ) -> None:
        self.directory = directory
        self.health = health if health is not None else StorageHealth()
        self._files = files if files is not None else SealedFiles()
        self.producer_state = producer_state
        self.txns = TxnIndex(durable_reads=durable_reads)
        self.config = config
        self.durable_reads = durable_reads
        self.segments: list[Segment] = []
        self._bases: list[int] = []
        self.log_start_offset = 0
        self._durable_offset = 0
        self._durable_at = (0, 0, 0)  # (segment base, position, offset) of the durable end
        self.offline = False  # a revert to the durable end failed; appends retry it first
        self._active_since_ms = now_ms
        self._directory_dirty = True  # new segment files need their directory entry fsynced
        self.recovered_bytes_truncated = 0
        if not os.path.isdir(directory):
            modes.make_dirs(directory)
            parent = os.path.dirname(os.path.abspath(directory))
            fsync_directory(parent)  # the partition's entry in the topic directory
            fsync_directory(os.path.dirname(parent))  # the topic's entry in the logs root
        self._open(now_ms)

    # -- opening and recovery -----------------------------------------------------------------

    @_reading
    def _open(self, now_ms: int) -> None:
        for name in os.listdir(self.directory):
            if name.endswith(".tmp"):
                os.unlink(os.path.join(self.directory, name))
        upgrade.upgrade_partition(self.directory, CHECKPOINT_FILE)  # an earlier format, once
        bases = sorted(
            int(n[:-4])
            for n in os.listdir(self.directory)
            if n.endswith(".log") and n[:-4].isdigit()
        )
        for name in os.listdir(self.directory):
            stem, suffix = os.path.splitext(name)
            if suffix in (".index", abort_index.SUFFIX) and int(stem) not in bases:
                os.unlink(os.path.join(self.directory, name))
        start = unpack_checked(_LOG_START, read_file(self._path(LOG_START_FILE)) or b"")
        self.log_start_offset = start[0] if start else 0
        if not bases:
            self._add_segment(self.log_start_offset)
            self._durable_offset = self.log_start_offset
            self._durable_at = self._end_position()
            self._load_producer_state(now_ms)
            return
        checkpoint = unpack_checked(_CHECKPOINT, read_file(self._path(CHECKPOINT_FILE)) or b"")
        cp_base, cp_pos = (checkpoint[0], checkpoint[1]) if checkpoint else (bases[0], 0)
        if cp_base not in bases:
            cp_base, cp_pos = next((b for b in bases if b > cp_base), bases[0]), 0
            if cp_base == bases[0]:
                log.info(
                    "recovery: no usable checkpoint in %s, validating every segment", self.directory
                )
        idx = self.config.index_interval_bytes
        for i, base in enumerate(bases):
            seg = Segment(self.directory, base, idx, self._files)
            prev = self.segments[-1] if self.segments else None
            if prev is not None and prev.next_offset != base:
                log.warning(
                    "recovery: %s: segment %s does not follow offset %d; removing it "
                    "and every later segment",
                    self.directory,
                    segment_name(base),
                    prev.next_offset,
                )
                seg.delete()
                for later in bases[i + 1 :]:
                    Segment(self.directory, later, idx).delete()
                break
            if base < cp_base:
                seg.load_trusted(bases[i + 1] if i + 1 < len(bases) else None)
            else:
                self.recovered_bytes_truncated += seg.recover(cp_pos if base == cp_base else 0)
            seg.aborts.load(keep=i == len(bases) - 1)
            if prev is not None:
                prev.seal()  # opening many segments keeps only the last one's files open
            self.segments.append(seg)
            self._bases.append(base)
        self.log_start_offset = max(self.log_start_offset, self.segments[0].base_offset)
        if self.log_start_offset > self.log_end_offset:
            log.warning(
                "recovery: %s: log start %d is past the recovered end %d; starting "
                "empty at the log start",
                self.directory,
                self.log_start_offset,
                self.log_end_offset,
            )
            for seg in self.segments:
                seg.delete()
            self.segments, self._bases = [], []
            self._add_segment(self.log_start_offset)
        self._durable_offset = self.log_end_offset
        self._durable_at = self._end_position()
        self._load_producer_state(now_ms)

    def _end_position(self) -> tuple[int, int, int]:
        active = self.active
        return (active.base_offset, active.size, active.next_offset)

    def _load_producer_state(self, now_ms: int) -> None:
        """Restore the producer-state snapshot, then replay the batches written after it
        (``now_ms``, the time of opening, stands in for their unrecorded append time)."""
        data = read_file(self._path(SNAPSHOT_FILE))
        snap: dict[str, Any] | None = None
        if data is not None and len(data) > 4:
            body, (crc,) = data[:-4], struct.unpack("<I", data[-4:])
            if zlib.crc32(body) == crc:
                snap = orjson.loads(body)
        start = self.segments[0].base_offset
        earlier: list[list[int]] = []  # aborted transactions an earlier release's snapshot kept
        if snap is not None and start <= snap["offset"] <= self.log_end_offset:
            start = snap["offset"]
            self.txns.restore(snap["open"])
            earlier = snap.get("aborted") or []
            if self.producer_state is not None:
                self.producer_state.restore(snap["producers"])
        elif snap is not None or self.log_end_offset > start:
            log.info(
                "recovery: %s: no usable producer-state snapshot; replaying the log", self.directory
            )
        # the abort indexes hold what the snapshot covers, nothing of what is replayed
        for seg in self.segments:
            seg.aborts.truncate_from(start)
        for pid, first_offset, marker_offset in earlier:
            if self.segments[0].base_offset <= marker_offset < start:
                seg = self.segments[self.segment_for(marker_offset)]
                seg.aborts.append(pid, first_offset, marker_offset)
        if start < self.log_end_offset:
            i = self.segment_for(start)
            pos = self.segments[i].position_for(start)
            for seg in self.segments[i:]:
                for h, p in seg.batches(pos):
                    if h.next_offset <= start or h.producer_id < 0:
                        continue
                    commit: bool | None = None
                    if h.is_control:
                        (marker,) = record.decode_records(seg.read(p, h.size), 0, h)
                        commit = marker_is_commit(marker.key)
                        aborted = self.txns.on_marker(h.producer_id, h.base_offset, commit)
                        if aborted is not None:
                            seg.aborts.append(h.producer_id, aborted, h.base_offset)
                    elif h.is_transactional:
                        self.txns.on_data(h.producer_id, h.base_offset)
                    if self.producer_state is not None:
                        self.producer_state.replay(h, commit, now_ms)
                pos = 0
            self.txns.opened_again()
        for seg in self.segments[:-1]:
            seg.aborts.detach()  # sealed: in their files only

    def _path(self, name: str) -> str:
        return os.path.join(self.directory, name)

    def _add_segment(self, base: int) -> Segment:
        seg = Segment(self.directory, base, self.config.index_interval_bytes, self._files)
        try:
            seg.recover(0)
        except OSError:
            seg.close()
            raise
        self._directory_dirty = True
        self.segments.append(seg)
        self._bases.append(base)
        return seg

    # -- state --------------------------------------------------------------------------------

    @property
    def active(self) -> Segment:
        return self.segments[-1]

    @property
    def log_end_offset(self) -> int:
        return self.segments[-1].next_offset

    @property
    def high_watermark(self) -> int:
        return self._durable_offset if self.durable_reads else self.log_end_offset

    @property
    def size_bytes(self) -> int:
        return sum(s.size for s in self.segments)

    # -- appends ------------------------------------------------------------------------------

    def append(
        self,
        records: Sequence[Record],
        *,
        now_ms: int,
        producer_id: int = -1,
        producer_epoch: int = -1,
        base_sequence: int = -1,
        attributes: int = 0,
        leader_epoch: int = record.NO_LEADER_EPOCH,
    ) -> AppendInfo:
        """Append one batch; it is on disk (page cache) but not durable until flushed.

        A failed write (``StorageError``) leaves the log as it was: the segment cuts off what
        it wrote.
        """
        self._online_for_append(now_ms)
        base = self.log_end_offset
        data = record.encode_batch(
            base,
            records,
            producer_id=producer_id,
            producer_epoch=producer_epoch,
            base_sequence=base_sequence,
            attributes=attributes,
            leader_epoch=leader_epoch,
        )
        commit = None  # a transaction marker's decision
        transactional = attributes & record.TRANSACTIONAL_FLAG and producer_id >= 0
        if transactional and attributes & record.CONTROL_FLAG:
            commit = marker_is_commit(records[0].key)
        return self._append_encoded(
            data,
            base,
            len(records),
            records[0].timestamp,
            record.batch_max_timestamp(data),
            now_ms,
            producer_id,
            attributes,
            commit,
        )

    def append_batch(
        self, batch: bytearray | memoryview, h: record.BatchHeader, *, now_ms: int
    ) -> AppendInfo:
        """Append a data batch a client built and the server checked
        (``record.check_client_batches``), as it is but for its base offset and partition
        leader epoch, which are set here (outside its CRC)."""
        self._online_for_append(now_ms)
        base = self.log_end_offset
        record.set_base_offset(batch, base)
        record.set_leader_epoch(batch, record.NO_LEADER_EPOCH)
        return self._append_encoded(
            batch,
            base,
            h.record_count,
            h.first_timestamp,
            h.max_timestamp,
            now_ms,
            h.producer_id,
            h.attributes,
            None,
        )

    def _online_for_append(self, now_ms: int) -> None:
        if self.offline:
            try:
                self._reopen_at_durable_end(now_ms)
            except OSError as exc:
                self.health.failed("reopening the log", exc, self.directory)
                raise StorageError.of("reopening the log", exc) from exc

    def _append_encoded(
        self,
        data: bytes | bytearray | memoryview,
        base: int,
        count: int,
        first_ts: int,
        max_ts: int,
        now_ms: int,
        producer_id: int,
        attributes: int,
        commit: bool | None,
    ) -> AppendInfo:
        try:
            seg = self.active
            if seg.size and (
                seg.size + len(data) > self.config.segment_bytes
                or now_ms - self._active_since_ms >= self.config.segment_ms
            ):
                seg = self.roll(now_ms)
            seg.append(data, base, base + count, max_ts, first_ts)
        except OSError as exc:
            self.health.failed("append", exc, self.directory)
            raise StorageError.of("append", exc) from exc
        if self.health.failing:
            self.health.recovered()
        if attributes & record.TRANSACTIONAL_FLAG and producer_id >= 0:
            if commit is not None:
                first = self.txns.on_marker(producer_id, base, commit)
                if first is not None:
                    seg.aborts.append(producer_id, first, base)
            else:
                self.txns.on_data(producer_id, base)
        return AppendInfo(base, base + count - 1, max_ts, first_ts)

    def append_marker(
        self, producer_id: int, producer_epoch: int, commit: bool, *, now_ms: int
    ) -> AppendInfo:
        """Append a COMMIT or ABORT marker (a control batch of one record)."""
        return self.append(
            [marker_record(commit, now_ms)],
            now_ms=now_ms,
            producer_id=producer_id,
            producer_epoch=producer_epoch,
            attributes=record.TRANSACTIONAL_FLAG | record.CONTROL_FLAG,
        )

    # -- transactions -------------------------------------------------------------------------

    @property
    def last_stable_offset(self) -> int:
        """First offset of the oldest undecided transaction, else the high watermark (never
        below the log start)."""
        return self.txns.last_stable_offset(self.high_watermark, self.log_start_offset)

    def open_transactions(self) -> dict[int, int]:
        """Producer id → first offset of each transaction open on this partition."""
        return dict(self.txns.open)

    def is_aborted(self, producer_id: int, offset: int) -> bool:
        """Whether the transactional batch of ``producer_id`` at ``offset`` was aborted."""
        return any(aborted_in(r, producer_id, offset) for r in self._aborted(offset, offset + 1))

    def _aborted(self, start: int, end: int) -> list[abort_index.Ranges]:
        """The aborted transactions that can hold offsets in ``[start, end)``: those whose
        marker is at or after ``start``, in that segment or a later one, asked only where one
        can overlap (a segment's summary says so without reading its file)."""
        return [
            s.aborts.ranges_for(start, end)
            for s in self.segments[self.segment_for(start) :]
            if s.aborts.overlaps(start, end)
        ]

    def _snapshot(self) -> bytes:
        data = orjson.dumps(
            {
                "offset": self.log_end_offset,
                **self.txns.to_json(),
                "producers": (
                    self.producer_state.snapshot() if self.producer_state is not None else []
                ),
            }
        )
        return data + struct.pack("<I", zlib.crc32(data))

    def roll(self, now_ms: int) -> Segment:
        """Start a new active segment at the log end (the old one stays dirty until flushed)."""
        sealed = self.active
        seg = self._add_segment(self.log_end_offset)
        sealed.seal()
        self._active_since_ms = now_ms
        return seg

    # -- durability ---------------------------------------------------------------------------

    def prepare_flush(self, *, snapshot: bool = False) -> FlushTicket | None:
        """Take the dirty segments; with ``snapshot`` also the producer state as of now."""
        dirty = [s for s in self.segments if s.dirty]
        if (
            not dirty
            and not self._directory_dirty
            and (self._durable_offset == self.log_end_offset)
        ):
            return None
        for s in dirty:
            s.dirty = False
            s.flushing = True
            if not s.aborts.complete:
                try:  # an entry whose write failed: no checkpoint covers it until it is in
                    s.aborts.repair()
                except OSError as exc:
                    log.warning("transaction index %s: %s", s.aborts.path, exc)
        active = self.active
        sync_directory, self._directory_dirty = self._directory_dirty, False
        return FlushTicket(
            dirty,
            self.log_end_offset,
            (active.base_offset, active.size, active.next_offset),
            sync_directory,
            self._snapshot() if snapshot else None,
        )

    def flush(self, ticket: FlushTicket, *, checkpoint: bool = True) -> None:
        """fsync the ticket's segments, then (optionally) their indexes and the recovery
        checkpoint.

        Safe to call from a thread while the event loop appends. The checkpoint is written
        only after the data it names is durable; it is not fsynced itself: losing it only
        makes the next recovery validate more. Indexes are fsynced with checkpoints only: an
        index behind its segment costs recovery a walk from its last entry, never data.

        Raises ``StorageError`` when a segment or the directory could not be fsynced: the data
        after the last durable point is then in an unknown state (the kernel may have dropped
        the pages it failed to write and marked them clean), and the caller reverts the log to
        that point (``revert_to_durable``). A failure of the index, checkpoint or snapshot only
        leaves the checkpoint where it was: the data is durable all the same.
        """
        try:
            for s in ticket.segments:
                s.flush(index=False)
            if ticket.sync_directory:
                fsync_directory(self.directory)
        except OSError as exc:
            self.health.failed("fsync", exc, self.directory)
            raise StorageError.of("fsync", exc) from exc
        if not checkpoint:
            return
        try:
            for s in ticket.segments:
                s.index.flush()
                s.aborts.flush()
            write_small_file(
                self._path(CHECKPOINT_FILE),
                pack_checked(_CHECKPOINT, *ticket.checkpoint),
                sync=False,
            )
            if ticket.snapshot is not None:
                write_small_file(self._path(SNAPSHOT_FILE), ticket.snapshot, sync=False)
        except OSError as exc:
            self.health.failed("checkpoint", exc, self.directory)

    def complete_flush(self, ticket: FlushTicket) -> bool:
        """Move the high watermark to what the ticket made durable; True if it moved."""
        if self.health.failing:
            self.health.recovered()
        for s in ticket.segments:
            s.flushing = False
            if s.sealed and not s.dirty:
                s.close()  # durable: reads open it again through the sealed-files cache
        if ticket.next_offset > self._durable_offset:
            self._durable_offset = ticket.next_offset
            self._durable_at = ticket.checkpoint
            self.txns.on_durable(self._durable_offset)
            return True
        return False

    def revert_to_durable(self, now_ms: int) -> int:
        """After a failed fsync: cut the log back to the end of its last successful flush and
        open it again from disk (segments, index, transactions and producer state), so that
        nothing whose durability is unknown stays in the log. Answers how many offsets were
        dropped (never acknowledged under fsync=always). When the files cannot be cut or
        opened, the log stays ``offline`` and every append tries again first."""
        dropped = self.log_end_offset - self._durable_offset if not self.offline else 0
        self.offline = True
        try:
            self._reopen_at_durable_end(now_ms)
        except OSError as exc:
            self.health.failed("reopening the log", exc, self.directory)
            raise StorageError.of("reopening the log", exc) from exc
        if dropped:
            log.warning(
                "%s: fsync failed; dropped offsets %d to %d (not durable) and opened the log "
                "again at its durable end",
                self.directory,
                self._durable_offset,
                self._durable_offset + dropped - 1,
            )
        return dropped

    def _reopen_at_durable_end(self, now_ms: int) -> None:
        base, position, _ = self._durable_at
        for seg in self.segments:
            seg.close()
        for seg in self.segments:
            if seg.base_offset > base:
                seg.delete()
        kept = [seg for seg in self.segments if seg.base_offset <= base]
        if kept and kept[-1].base_offset == base:
            seg = Segment(self.directory, base, self.config.index_interval_bytes)
            try:
                if seg.size > position:
                    seg.truncate(position)
            finally:
                seg.close()
        fsync_directory(self.directory)
        self.segments, self._bases = [], []
        self.txns = TxnIndex(durable_reads=self.durable_reads)
        if self.producer_state is not None:
            self.producer_state.restore([])
        self._open(now_ms)
        self._directory_dirty = False
        self.offline = False

    def abort_flush(self, ticket: FlushTicket) -> None:
        for s in ticket.segments:
            s.dirty = True
            s.flushing = False
        self._directory_dirty |= ticket.sync_directory

    # -- reads --------------------------------------------------------------------------------

    def _online(self) -> None:
        """Every read of the files starts here: an offline log's segments are closed."""
        if self.offline:
            raise StorageError(ErrorCode.KAFKA_STORAGE_ERROR, "the partition's log is offline")

    def segment_for(self, offset: int) -> int:
        return max(bisect.bisect_right(self._bases, offset) - 1, 0)

    @_reading
    def read(
        self,
        offset: int,
        max_records: int,
        max_bytes: int,
        upto: int | None = None,
        committed: bool = False,
    ) -> ReadResult:
        """Records from ``offset`` below ``upto`` (default: the high watermark).

        Control batches are skipped. With ``committed`` the read also stops at the last stable
        offset and leaves out batches of aborted transactions (their offsets are simply absent;
        ``next_offset`` moves past them). At least one record is returned when one is there,
        even if it is larger than ``max_bytes``.
        """
        self._online()
        end = self._end(upto, committed)
        out: list[StoredRecord] = []
        result = ReadResult(out, offset)
        if offset >= end or offset < self.log_start_offset:
            return result
        skipped = self._skipped(offset, end, committed)
        total = 0
        for h, chunk, cpos in self._scan(offset, end, lambda: max_bytes - result.bytes):
            if h.next_offset <= result.next_offset:
                continue
            result.batches.append(h)
            if skipped(h):
                result.next_offset = h.next_offset
                continue
            for r in record.decode_records(chunk, cpos, h, result.next_offset):
                if r.offset >= end or len(out) >= max_records:
                    return result
                size = record.record_size(r)
                if out and total + size > max_bytes:
                    return result
                total += size
                out.append(r)
                result.next_offset = r.offset + 1
                result.bytes = total
            if len(out) >= max_records or (out and total >= max_bytes):
                return result
        return result

    def _end(self, upto: int | None, committed: bool) -> int:
        """Where a read stops: ``upto`` (default: the high watermark), and with ``committed``
        the last stable offset."""
        end = self.high_watermark if upto is None else min(upto, self.log_end_offset)
        return min(end, self.last_stable_offset) if committed else end

    def _skipped(
        self, offset: int, end: int, committed: bool
    ) -> Callable[[record.BatchHeader], bool]:
        """Whether a read leaves a batch out: control batches always; under ``committed`` the
        batches of transactions aborted (asked of the segments whose aborted transactions can
        overlap ``[offset, end)``)."""
        aborted = self._aborted(offset, end) if committed else None

        def skipped(h: record.BatchHeader) -> bool:
            return h.is_control or bool(
                aborted
                and h.is_transactional
                and any(aborted_in(r, h.producer_id, h.base_offset) for r in aborted)
            )

        return skipped

    def _scan(
        self, offset: int, end: int, wanted: Callable[[], int]
    ) -> Iterator[tuple[record.BatchHeader, bytes, int]]:
        """Every stored batch from the one holding ``offset`` up to ``end``: its header, the
        chunk it was read in and its position there. Reads go chunk by chunk, of about what
        the caller still wants (``wanted()`` bytes) and at most ``_READ_CHUNK``: a small answer
        costs a small read, and a batch larger than a chunk is read whole."""
        i = self.segment_for(offset)
        seg = self.segments[i]
        pos = seg.position_for(offset)
        while True:
            if pos >= seg.size:
                i += 1
                if i >= len(self.segments):
                    return
                seg, pos = self.segments[i], 0
                continue
            chunk = seg.read(pos, min(seg.size - pos, max(wanted(), 0) + _READ_SLACK, _READ_CHUNK))
            cpos = 0
            while len(chunk) - cpos >= record.HEADER_SIZE:
                h = record.read_header(chunk, cpos)
                if h.base_offset >= end:
                    return
                if cpos + h.size > len(chunk):
                    if cpos:
                        break  # the next read starts at this batch
                    chunk = seg.read(pos, h.size)
                    if len(chunk) < h.size:
                        raise CorruptRecordError("batch runs past the segment end", pos)
                yield h, chunk, cpos
                cpos += h.size
            if cpos == 0:
                raise CorruptRecordError("short read inside a segment", pos)
            pos += cpos

    @_reading
    def read_batches(
        self,
        offset: int,
        max_records: int,
        max_bytes: int,
        upto: int | None = None,
        committed: bool = False,
        *,
        past_end: bool = False,
    ) -> BatchesRead:
        """Whole batches as stored, from the one holding ``offset`` (its records below
        ``offset`` included: the reader skips them) below ``upto`` (default: the high
        watermark; with ``committed`` also the last stable offset, and without control batches
        and the batches of aborted transactions), until ``max_records`` records from ``offset``
        on or ``max_bytes`` bytes (at least one batch). With ``past_end`` a batch that holds
        ``upto - 1`` is served whole and ends the read (a share fetch serves the batches of the
        records it acquired); otherwise a batch not wholly below the end is not served."""
        self._online()
        end = self._end(upto, committed)
        out: list[bytes] = []
        result = BatchesRead(out, offset)
        if offset >= end or offset < self.log_start_offset:
            return result
        skipped = self._skipped(offset, end, committed)
        for h, chunk, cpos in self._scan(offset, end, lambda: max_bytes - result.bytes):
            if h.next_offset > end and not past_end:
                return result
            if h.next_offset <= result.next_offset:
                continue
            if not skipped(h):
                if out and result.bytes + h.size > max_bytes:
                    return result
                out.append(chunk[cpos : cpos + h.size])
                result.bytes += h.size
                result.records += h.next_offset - max(h.base_offset, result.next_offset)
            result.next_offset = h.next_offset
            if result.records >= max_records or result.next_offset >= end:
                return result
        return result

    @_reading
    def offset_for_timestamp(
        self, timestamp: int, upto: int | None = None
    ) -> tuple[int, int] | None:
        """(offset, timestamp) of the first record with a timestamp ≥ ``timestamp``."""
        self._online()
        end = self.high_watermark if upto is None else upto
        for seg in self.segments:
            if seg.next_offset <= self.log_start_offset or seg.max_timestamp < timestamp:
                continue
            pos = seg.position_for_timestamp(timestamp)
            for h, p in seg.batches(pos):
                if h.base_offset >= end:
                    return None
                if h.max_timestamp < timestamp or h.is_control:
                    continue
                chunk = seg.read(p, h.size)
                for r in record.decode_records(chunk, 0, h):
                    if r.offset >= end:
                        return None
                    if r.timestamp >= timestamp and r.offset >= self.log_start_offset:
                        return r.offset, r.timestamp
        return None

    @_reading
    def find_keyed_batch(self, start_offset: int, tag: int) -> record.BatchHeader | None:
        """The first batch at or after ``start_offset`` that an ``Idempotency-Key`` tagged
        ``tag`` (``record.keyed_tag``: in its partition leader epoch, without producer)."""
        self._online()
        start_offset = max(start_offset, self.log_start_offset)
        if start_offset >= self.log_end_offset:
            return None
        i = self.segment_for(start_offset)
        pos = self.segments[i].position_for(start_offset)
        for seg in self.segments[i:]:
            for h, _ in seg.batches(pos):
                if (
                    h.next_offset > start_offset
                    and h.partition_leader_epoch == tag
                    and h.producer_id < 0
                ):
                    return h
            pos = 0
        return None

    # -- deletion -----------------------------------------------------------------------------

    def advance_log_start(self, offset: int) -> bool:
        """Move the log start forward (delete-records); True if it moved. Make the offset durable
        first (``persist_log_start(offset)``)."""
        if offset <= self.log_start_offset:
            return False
        self.log_start_offset = offset
        return True

    def persist_log_start(self, offset: int | None = None) -> None:
        """Make the log start (or ``offset``, about to become it) durable. Safe to call from a
        thread; raises ``StorageError``."""
        start = self.log_start_offset if offset is None else offset
        try:
            write_small_file(self._path(LOG_START_FILE), pack_checked(_LOG_START, start), sync=True)
        except OSError as exc:
            raise StorageError.of("writing the log start", exc) from exc

    @_reading
    def deletable_segments(self, now_ms: int) -> list[Segment]:
        """Sealed segments below the log start, past retention time, or over retention bytes."""
        cfg = self.config
        out: list[Segment] = []
        total = self.size_bytes
        for seg in self.segments[:-1]:
            if seg.next_offset > self.high_watermark:
                break
            below_start = seg.next_offset <= self.log_start_offset
            expired = cfg.retention_ms >= 0 and seg.max_timestamp < now_ms - cfg.retention_ms
            oversized = cfg.retention_bytes >= 0 and total - seg.size >= cfg.retention_bytes
            if not (below_start or expired or oversized):
                break
            out.append(seg)
            total -= seg.size
        return out

    def active_expired(self, now_ms: int) -> bool:
        """The active segment holds only records past retention time (roll it, then delete)."""
        seg = self.active
        return (
            self.config.retention_ms >= 0
            and seg.size > 0
            and self.high_watermark == self.log_end_offset
            and seg.max_timestamp < now_ms - self.config.retention_ms
        )

    def remove_segments(self, segments: list[Segment]) -> None:
        """Drop sealed segments from the front; the log start moves to the first kept one."""
        for seg in segments:
            assert seg is self.segments[0] and len(self.segments) > 1
            self.segments.pop(0)
            self._bases.pop(0)
            seg.delete()
        self.log_start_offset = max(self.log_start_offset, self.segments[0].base_offset)

    def close(self, *, clean: bool) -> None:
        """Close files; a clean close flushes and checkpoints the whole log first (not for an
        offline log: its next open recovers it)."""
        if clean and not self.offline:
            ticket = self.prepare_flush()
            if ticket is not None:
                self.flush(ticket)
                self.complete_flush(ticket)
            active = self.active
            write_small_file(self._path(SNAPSHOT_FILE), self._snapshot(), sync=True)
            write_small_file(
                self._path(CHECKPOINT_FILE),
                pack_checked(_CHECKPOINT, active.base_offset, active.size, active.next_offset),
                sync=True,
            )
        for seg in self.segments:
            seg.close()
