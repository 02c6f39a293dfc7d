"""One segment: an append-only file of record batches named by its base offset, and its index.

Appends go through ``os.write`` on the event loop (page cache, microseconds); ``flush`` fsyncs
and may run in a thread while appends continue. Reads use ``os.pread`` and never move a file
position, so they are safe alongside appends.

A segment that rolled over is sealed: once durable it closes its files, and a read opens the
log again for as long as that read lasts (the log's ``SealedFiles``). Its index then leaves
memory for its file (``OffsetIndex.detach``): lookups search the file.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os

from app.errors import CorruptRecordError
from app.storage import abort_index, fileio, modes, record
from app.storage.abort_index import AbortIndex
from app.storage.handles import SealedFiles
from app.storage.index import OffsetIndex

log = logging.getLogger("sluice.storage")

_SCAN_CHUNK = 1 << 20


def segment_name(base_offset: int) -> str:
    return f"{base_offset:020d}"


class Segment:
    def __init__(
        self,
        directory: str,
        base_offset: int,
        index_interval_bytes: int,
        files: SealedFiles | None = None,
    ) -> None:
        self.base_offset = base_offset
        self.log_path = os.path.join(directory, segment_name(base_offset) + ".log")
        self.index = OffsetIndex(os.path.join(directory, segment_name(base_offset) + ".index"))
        self.aborts = AbortIndex(
            os.path.join(directory, segment_name(base_offset) + abort_index.SUFFIX)
        )
        self.index_interval_bytes = index_interval_bytes
        self._fd = os.open(self.log_path, os.O_RDWR | os.O_CREAT | os.O_APPEND, modes.FILE_MODE)
        self.size = os.fstat(self._fd).st_size
        self.next_offset = base_offset
        self._max_timestamp: int | None = -1
        self.first_timestamp = -1
        self._index_loaded = False
        self.dirty = False
        self.torn = False  # a failed write may have left bytes past ``size``: cut them first
        self.sealed = False  # no more appends: closes its files once durable
        self.flushing = False  # in a flush round: a thread may be fsyncing its files
        self._files = files if files is not None else SealedFiles()

    def _file(self) -> int:
        """The log's descriptor, opened again if a sealed segment had closed it."""
        fd = self._fd
        if fd >= 0:
            if self.sealed:
                self._files.used(self)
            return fd
        self._fd = fd = os.open(self.log_path, os.O_RDWR | os.O_APPEND)
        if self.sealed and not self.dirty:
            self._files.opened(self)
        return fd

    def seal(self) -> None:
        """The log rolled past this segment: close its files as soon as they are durable."""
        self.sealed = True
        self.index.keep_open = False
        if not self.dirty and not self.flushing:
            self.close()

    # -- opening and recovery -----------------------------------------------------------------

    def load_trusted(self, next_offset: int | None) -> None:
        """Open a segment known to be clean (a sealed segment, or below the recovery point).

        ``next_offset`` is the next segment's base offset when there is one (nothing is read);
        otherwise the tail after the last index entry is walked (a bounded scan) to find it.
        """
        if next_offset is not None:
            self.next_offset = next_offset
            self._max_timestamp = None  # computed on first need
            return
        self._ensure_index()
        if self._walk_from_last_entry(self.size, validate=False) != self.size:
            self._rebuild_index()
            self._walk_from_last_entry(self.size, validate=False)
        self._read_first_timestamp()

    def _read_first_timestamp(self) -> None:
        if self.size >= record.HEADER_SIZE:
            header = record.read_header(self.read(0, record.HEADER_SIZE))
            self.first_timestamp = header.first_timestamp

    def recover(self, from_position: int = 0) -> int:
        """Validate batches from ``from_position`` and truncate at the first invalid byte.

        Everything before ``from_position`` is trusted (it was fsynced and checkpointed). The
        index is rebuilt for the validated part. Returns the number of bytes truncated.
        """
        if from_position > self.size or (
            from_position and not self.index.load(self.size, self.base_offset)
        ):
            from_position = 0
        if from_position:
            self.index.truncate_from(from_position)
            if self._walk_from_last_entry(from_position, validate=False) != from_position:
                log.warning(
                    "recovery: %s: the index or the bytes before the checkpoint "
                    "(byte %d) do not walk to it; validating the whole segment",
                    self.log_path,
                    from_position,
                )
                from_position = 0
        if from_position:
            valid_end = self._walk(
                from_position, self.size, self.next_offset, self.max_timestamp, validate=True
            )
        else:
            self.index.clear()
            valid_end = self._walk(0, self.size, self.base_offset, -1, validate=True)
        truncated = self.size - valid_end
        if truncated:
            log.warning(
                "recovery: truncating %s at byte %d (%d invalid bytes after the last valid batch)",
                self.log_path,
                valid_end,
                truncated,
            )
            fd = self._file()
            os.ftruncate(fd, valid_end)
            os.fsync(fd)
            self.size = valid_end
            self.index.truncate_from(valid_end)
        self.index.open_for_append()
        self._index_loaded = True
        if from_position:
            self._read_first_timestamp()
        return truncated

    def _ensure_index(self) -> None:
        if self._index_loaded:
            return
        self._index_loaded = True
        if self.sealed:
            if self.index.attach(self.size, self.base_offset):
                return  # searched in its file, never read into memory
        elif self.index.load(self.size, self.base_offset):
            self.index.open_for_append(rewrite=False)
            return
        self._rebuild_index()

    def _rebuild_index(self) -> None:
        log.info("rebuilding the index of %s", self.log_path)
        self.index.clear()
        saved = self.next_offset
        self._walk(0, self.size, self.base_offset, -1, validate=False)
        self.next_offset = saved
        self.index.open_for_append()

    def _entry_ok(self, position: int, at_most: int | None = None) -> bool:
        """The index entry at ``position`` names the batch that really starts there (and, with
        ``at_most``, an offset no greater than it: an index in its file is searched as it is,
        and a damaged entry must not send a read past what it asked for)."""
        if position == 0:
            return True
        indexed = self.index.offset_at(position)
        if indexed is None or (at_most is not None and indexed > at_most):
            return False
        try:
            h = record.read_header(self.read(position, record.HEADER_SIZE))
        except CorruptRecordError:
            return False
        return h.base_offset == indexed

    def _walk_from_last_entry(self, end: int, *, validate: bool) -> int:
        if n := len(self.index):
            expected, start, max_ts = self.index.entry(n - 1)
        else:
            start, expected, max_ts = 0, self.base_offset, -1
        return self._walk(start, end, expected, max_ts, validate=validate)

    def _walk(self, start: int, end: int, expected: int, max_ts: int, *, validate: bool) -> int:
        """Scan batches in [start, end) from a batch boundary; extend the index past its end.

        Sets the next offset and max timestamp of what was walked and returns the position
        after the last good batch. With ``validate`` each batch's CRC is checked and offsets
        must be contiguous; the first invalid batch ends the walk (it is logged). Without it a
        bad header still ends the walk, so nothing is ever misread.
        """
        pos = start
        while pos < end:
            chunk = os.pread(self._file(), min(_SCAN_CHUNK, end - pos), pos)
            cpos = 0
            while len(chunk) - cpos >= record.HEADER_SIZE:
                try:
                    h = record.read_header(chunk, cpos)
                    if cpos + h.size > len(chunk):
                        if cpos:
                            break  # read the next chunk from this batch on
                        chunk = os.pread(self._file(), h.size, pos) if pos + h.size <= end else b""
                        if len(chunk) < h.size:
                            raise CorruptRecordError("truncated batch", 0)
                    if validate:
                        record.check_batch(chunk, cpos)
                    if h.base_offset != expected:
                        raise CorruptRecordError(
                            f"offset {h.base_offset} where {expected} was expected", cpos
                        )
                except CorruptRecordError as exc:
                    if validate:
                        log.warning(
                            "recovery: %s: %s (batch at byte %d)", self.log_path, exc, pos + cpos
                        )
                    pos += cpos
                    self.next_offset, self._max_timestamp = expected, max_ts
                    return pos
                at = pos + cpos
                if at - self.index.last_position >= self.index_interval_bytes:
                    self.index.append(h.base_offset, at, max_ts)
                if at == 0:
                    self.first_timestamp = h.first_timestamp
                if h.max_timestamp > max_ts:
                    max_ts = h.max_timestamp
                expected = h.next_offset
                cpos += h.size
            if cpos == 0:
                break
            pos += cpos
        self.next_offset, self._max_timestamp = expected, max_ts
        return pos

    # -- appends ------------------------------------------------------------------------------

    def append(
        self,
        data: bytes | bytearray | memoryview,
        base_offset: int,
        next_offset: int,
        max_timestamp: int,
        first_timestamp: int,
    ) -> int:
        """Write one encoded batch at the end; returns its position. Not durable until flush.

        A failed write (``OSError``) changes nothing: what it stored is cut off again (if that
        fails too, before the next append), the index and the offsets stay as they were."""
        if self.torn:
            self.cut()
        position = self.size
        max_ts_before = self.max_timestamp
        try:
            written = fileio.write(self._fd if self._fd >= 0 else self._file(), data)
            if written != len(data):
                raise OSError(errno.ENOSPC, f"short write ({written} of {len(data)} bytes)")
        except OSError:
            self.torn = True
            with contextlib.suppress(OSError):
                self.cut()
            raise
        if position - self.index.last_position >= self.index_interval_bytes:
            self.index.append(base_offset, position, max_ts_before)
        if position == 0:
            self.first_timestamp = first_timestamp
        self.size = position + len(data)
        self.next_offset = next_offset
        if max_timestamp > max_ts_before:
            self._max_timestamp = max_timestamp
        self.dirty = True
        return position

    def cut(self) -> None:
        """Truncate the file to ``size``: drop what a failed write left behind."""
        fileio.ftruncate(self._file(), self.size)
        self.torn = False

    def truncate(self, size: int) -> None:
        """Shorten the segment to ``size`` bytes (a batch boundary), durably; the caller opens
        the log again to rebuild the in-memory state."""
        fd = self._file()
        fileio.ftruncate(fd, size)
        fileio.fsync(fd)
        self.size = size

    @property
    def max_timestamp(self) -> int:
        """Largest record timestamp in the segment (-1 when empty)."""
        if self._max_timestamp is None:
            self._ensure_index()
            saved = self.next_offset
            if self._walk_from_last_entry(self.size, validate=False) != self.size:
                self._rebuild_index()
                self._walk_from_last_entry(self.size, validate=False)
            self.next_offset = saved
        assert self._max_timestamp is not None
        return self._max_timestamp

    # -- reads --------------------------------------------------------------------------------

    def position_for(self, offset: int) -> int:
        self._ensure_index()
        pos = self.index.lookup(offset)
        if not self._entry_ok(pos, offset):
            self._rebuild_index()
            pos = self.index.lookup(offset)
        return pos

    def position_for_timestamp(self, timestamp: int) -> int:
        self._ensure_index()
        pos = self.index.lookup_timestamp(timestamp)
        if not self._entry_ok(pos):
            self._rebuild_index()
            pos = self.index.lookup_timestamp(timestamp)
        return pos

    def read(self, position: int, nbytes: int) -> bytes:
        return os.pread(self._file(), nbytes, position)

    def batches(
        self, position: int, end: int | None = None
    ) -> list[tuple[record.BatchHeader, int]]:
        """Headers and positions of the batches from ``position`` to ``end`` (not validated)."""
        out: list[tuple[record.BatchHeader, int]] = []
        end = self.size if end is None else end
        while position + record.HEADER_SIZE <= end:
            h = record.read_header(os.pread(self._file(), record.HEADER_SIZE, position))
            out.append((h, position))
            position += h.size
        return out

    # -- durability and lifetime --------------------------------------------------------------

    def flush(self, *, index: bool = True) -> None:
        """fsync the segment, and its index with ``index``. Safe to call from a thread.

        The index need not be durable with every round: recovery walks the segment from the
        last index entry it can trust, and rebuilds an index that fails its checks."""
        fileio.fsync(self._fd)  # a dirty segment keeps its log open until it is flushed
        if index:
            self.index.flush()
            self.aborts.flush()

    def close(self) -> None:
        if self.sealed and self._index_loaded:
            try:
                self.index.detach()
            except OSError as exc:  # the index is a cache: it stays in memory this time
                log.warning("index %s: kept in memory (%s)", self.index.path, exc)
        if self.sealed:
            try:
                self.aborts.detach()
            except OSError as exc:  # kept in memory until a later close writes it
                log.warning("transaction index %s: kept in memory (%s)", self.aborts.path, exc)
        self.index.close()
        self.aborts.close()
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1
        self._files.closed(self)

    def delete(self) -> None:
        self._index_loaded = False  # nothing of it is kept
        self.close()
        self.aborts.delete()
        for path in (self.log_path, self.index.path):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(path)
