"""Records as columns (docs/api.md#read-columns): a read's answer in one binary body whose
buffers a reader maps straight onto columnar arrays, for bulk readers that would otherwise spend
most of their time on JSON and base64.

The body, little-endian throughout:

    "SLCB"  version (1 byte, 1)  3 bytes reserved (0)
    u64 length of the meta JSON, the meta JSON ({"records": n, "next_offset", ...}), zeros up
    to a multiple of 8 bytes
    then 14 buffers, each a u64 byte length and its bytes, zeros up to a multiple of 8 (so that
    every buffer starts 8-aligned):
      0 offsets                 int64 × n
      1 timestamps              int64 × n (epoch ms)
      2 key validity            bitmap of n bits, least significant bit first (1: not null)
      3 key offsets             int32 × (n + 1) into 4
      4 key bytes
      5 value validity          as 2
      6 value offsets           int32 × (n + 1) into 7
      7 value bytes
      8 header offsets          int32 × (n + 1): record i has headers [h[i], h[i+1])
      9 header key offsets      int32 × (m + 1) into 10 (m headers in all)
     10 header key bytes        UTF-8
     11 header value validity   bitmap of m bits
     12 header value offsets    int32 × (m + 1) into 13
     13 header value bytes
"""

from __future__ import annotations

import struct
import sys
from array import array
from collections.abc import Iterable, Sequence
from itertools import accumulate
from typing import Any

import orjson

from app.storage.record import StoredRecord

MAGIC = b"SLCB\x01\x00\x00\x00"
MEDIA_TYPE = "application/vnd.sluice.columns"
_LITTLE = sys.byteorder == "little"
_PAD = b"\x00" * 8


def _ints(code: str, values: Iterable[int]) -> bytes:
    a = array(code, values)
    if not _LITTLE:
        a.byteswap()
    return a.tobytes()


def _bitmap(present: Sequence[bool]) -> bytes:
    bits = 0
    for i, p in enumerate(present):
        if p:
            bits |= 1 << i
    return bits.to_bytes((len(present) + 7) // 8, "little")


def _strings(values: Sequence[bytes | None]) -> tuple[bytes, bytes, bytes]:
    """validity, int32 offsets and data of a column of optional byte strings."""
    if None not in values:  # the common case: no nulls, one pass each
        full = b"\xff" * ((len(values) + 7) // 8)
        return full, _ints("i", accumulate(map(len, values), initial=0)), b"".join(values)  # type: ignore[arg-type]
    lengths = [0 if v is None else len(v) for v in values]
    return (
        _bitmap([v is not None for v in values]),
        _ints("i", accumulate(lengths, initial=0)),
        b"".join(v for v in values if v is not None),
    )


def encode(records: Sequence[StoredRecord], meta: dict[str, Any]) -> bytes:
    """The body for ``records``; ``meta`` gains ``records`` (their count)."""
    keys = [r.key for r in records]
    values = [r.value for r in records]
    key_valid, key_offsets, key_data = _strings(keys)
    value_valid, value_offsets, value_data = _strings(values)
    per_record = [len(r.headers) for r in records]
    headers = [h for r in records for h in r.headers]
    h_keys = [h.key.encode() for h in headers]
    h_values = [h.value for h in headers]
    _, h_key_offsets, h_key_data = _strings(h_keys)
    h_value_valid, h_value_offsets, h_value_data = _strings(h_values)
    buffers = (
        _ints("q", [r.offset for r in records]),
        _ints("q", [r.timestamp for r in records]),
        key_valid,
        key_offsets,
        key_data,
        value_valid,
        value_offsets,
        value_data,
        _ints("i", accumulate(per_record, initial=0)),
        h_key_offsets,
        h_key_data,
        h_value_valid,
        h_value_offsets,
        h_value_data,
    )
    head = orjson.dumps({**meta, "records": len(records)})
    parts = [MAGIC, struct.pack("<Q", len(head)), head, _PAD[: -len(head) % 8]]
    for b in buffers:
        parts += (struct.pack("<Q", len(b)), b, _PAD[: -len(b) % 8])
    return b"".join(parts)
