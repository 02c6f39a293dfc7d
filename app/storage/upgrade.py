"""The one-time upgrade of segments an earlier release wrote in its own batch format.

Releases before Kafka's RecordBatch v2 wrote batches of their own (magic 1): the same header
fields without the partition leader epoch, fixed-width record fields, a CRC-32 over everything
but the CRC, and attribute bit 6 for a batch of an ``Idempotency-Key``, whose producer id field
held a 64-bit hash of the key. At open, a partition whose segments hold such batches has them
rewritten, one segment at a time, as v2 batches with the same offsets, timestamps, records,
producer fields and transaction bits (a keyed batch's hash becomes its v2 tag,
``record.keyed_tag``): each segment is written whole beside the old one, fsynced and renamed
over it, so a crash in between leaves the old segment or the new one, and the next open goes
on. Its offset index is rebuilt from the new file. The recovery checkpoint names byte
positions of the old files: it is removed, and the open validates the partition once.

The earlier format is read here and only here. A torn or corrupt tail ends the segment where
recovery would cut it, with the same kind of warning.
"""

from __future__ import annotations

import contextlib
import logging
import os
import struct
import zlib
from collections.abc import Iterator

from app.errors import CorruptRecordError
from app.storage import fileio, modes, record
from app.storage.files import fsync_directory
from app.storage.record import Header, Record

log = logging.getLogger("sluice.storage")

MAGIC = 1
KEYED_FLAG = 0x40
MAGIC_AT = 12  # after base offset and batch length
_HEADER = struct.Struct(">qiBIhiqqqhii")
HEADER_SIZE = _HEADER.size  # 57
_CRC_START = 13
_BODY_START = 17
_REC_HEAD = struct.Struct(">iiqi")  # length, offset delta, timestamp delta, key length
_I32 = struct.Struct(">i")
_CHUNK = 1 << 20


def is_legacy(path: str) -> bool:
    """Whether the segment file starts with a batch of the earlier format."""
    with open(path, "rb") as f:
        head = f.read(MAGIC_AT + 1)
    # v2 has the partition leader epoch there, whose first byte is never 1 in Sluice's log
    # (-1, or a keyed tag from 0x40000000)
    return len(head) > MAGIC_AT and head[MAGIC_AT] == MAGIC


def _batches(path: str) -> Iterator[tuple[tuple[int, ...], bytes]]:
    """(header fields, whole batch) of every valid batch of an old segment, in order."""
    with open(path, "rb") as f:
        data = f.read(_CHUNK)
        pos = 0
        expected: int | None = None
        while True:
            if len(data) - pos < HEADER_SIZE:
                more = f.read(_CHUNK)
                if not more:
                    if len(data) > pos:
                        log.warning("upgrade: %s: a torn batch at the end is left out", path)
                    return
                data, pos = data[pos:] + more, 0
                continue
            h = _HEADER.unpack_from(data, pos)
            size = 12 + h[1]
            while len(data) - pos < size:
                more = f.read(max(_CHUNK, size))
                if not more:
                    log.warning("upgrade: %s: a torn batch at the end is left out", path)
                    return
                data, pos = data[pos:] + more, 0
            batch = data[pos : pos + size]
            crc = zlib.crc32(batch[_BODY_START:], zlib.crc32(batch[:_CRC_START]))
            if h[2] != MAGIC or crc != h[3] or (expected is not None and h[0] != expected):
                log.warning(
                    "upgrade: %s: an invalid batch at offset %d ends the segment", path, h[0]
                )
                return
            expected = h[0] + h[5] + 1
            yield h, batch
            pos += size


def _records(batch: bytes, h: tuple[int, ...]) -> list[Record]:
    first_ts, count = h[6], h[11]
    out = []
    p = HEADER_SIZE
    for _ in range(count):
        length, _delta, tdelta, klen = _REC_HEAD.unpack_from(batch, p)
        q = p + _REC_HEAD.size
        key = None if klen < 0 else batch[q : q + klen]
        q += max(klen, 0)
        (vlen,) = _I32.unpack_from(batch, q)
        q += 4
        value = None if vlen < 0 else batch[q : q + vlen]
        q += max(vlen, 0)
        (hcount,) = _I32.unpack_from(batch, q)
        q += 4
        headers = []
        for _ in range(hcount):
            (hklen,) = _I32.unpack_from(batch, q)
            hkey = batch[q + 4 : q + 4 + hklen].decode()
            q += 4 + hklen
            (hvlen,) = _I32.unpack_from(batch, q)
            q += 4
            headers.append(Header(hkey, None if hvlen < 0 else batch[q : q + hvlen]))
            q += max(hvlen, 0)
        if q != p + 4 + length:
            raise CorruptRecordError("record framing mismatch", p)
        out.append(Record(first_ts + tdelta, key, value, tuple(headers)))
        p = q
    return out


def _convert(h: tuple[int, ...], batch: bytes) -> bytes:
    base, attributes, pid, epoch, seq = h[0], h[4], h[8], h[9], h[10]
    leader_epoch = record.NO_LEADER_EPOCH
    if attributes & KEYED_FLAG:
        leader_epoch, pid, epoch, seq = record.keyed_tag(pid), -1, -1, -1
    return record.encode_batch(
        base,
        _records(batch, h),
        producer_id=pid,
        producer_epoch=epoch,
        base_sequence=seq,
        attributes=attributes & (record.TRANSACTIONAL_FLAG | record.CONTROL_FLAG),
        leader_epoch=leader_epoch,
    )


def upgrade_segment(path: str) -> int:
    """Rewrite one old segment as v2 batches; answers how many batches it held."""
    tmp = path + ".upgrade.tmp"
    n = 0
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, modes.FILE_MODE)
    try:
        for h, batch in _batches(path):
            try:
                data = _convert(h, batch)
            except (CorruptRecordError, struct.error, UnicodeDecodeError) as exc:
                log.warning(
                    "upgrade: %s: batch at offset %d: %s; it ends the segment", path, h[0], exc
                )
                break
            if fileio.write(fd, data) != len(data):
                raise OSError("short write")
            n += 1
        fileio.fsync(fd)
    except BaseException:
        os.close(fd)
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    os.close(fd)
    os.replace(tmp, path)
    base = path[: -len(".log")]
    for stale in (base + ".index", base + ".txnindex"):
        with contextlib.suppress(FileNotFoundError):
            os.unlink(stale)
    return n


def upgrade_partition(directory: str, checkpoint_file: str) -> int:
    """Rewrite every old segment of a partition directory; answers how many were rewritten
    (the recovery checkpoint is removed when any was)."""
    done = 0
    for name in sorted(os.listdir(directory)):
        if not name.endswith(".log") or not name[:-4].isdigit():
            continue
        path = os.path.join(directory, name)
        if os.path.getsize(path) and is_legacy(path):
            batches = upgrade_segment(path)
            log.info("upgrade: %s: %d batches rewritten as Kafka's record batches", path, batches)
            done += 1
    if done:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(os.path.join(directory, checkpoint_file))
        fsync_directory(directory)
    return done
