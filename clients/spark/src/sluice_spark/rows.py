"""Rows as Spark sees them: the read schema (Spark's Kafka source's columns) and the Arrow
batches built from one answer of the server, typed exactly as the schema says (a TIMESTAMP is
microseconds in UTC, an INT is 32 bits: anything else fails the read)."""

from __future__ import annotations

import bisect
import struct
from binascii import a2b_base64
from typing import TYPE_CHECKING, Any

import orjson

if TYPE_CHECKING:
    import pyarrow as pa

SCHEMA = (
    "topic STRING, partition INT, offset BIGINT, key BINARY, value BINARY, "
    "timestamp TIMESTAMP, headers ARRAY<STRUCT<key: STRING, value: BINARY>>"
)
# the share-group source adds how many times each record was delivered
SHARE_SCHEMA = SCHEMA + ", delivery_count INT"

_arrow_schema: dict[bool, pa.Schema] = {}


def arrow_schema(share: bool = False) -> pa.Schema:
    import pyarrow as pa

    if share not in _arrow_schema:
        fields = [
            pa.field("topic", pa.string()),
            pa.field("partition", pa.int32()),
            pa.field("offset", pa.int64()),
            pa.field("key", pa.binary()),
            pa.field("value", pa.binary()),
            pa.field("timestamp", pa.timestamp("us", tz="UTC")),
            pa.field(
                "headers",
                pa.list_(pa.struct([pa.field("key", pa.string()), pa.field("value", pa.binary())])),
            ),
        ]
        if share:
            fields.append(pa.field("delivery_count", pa.int32()))
        _arrow_schema[share] = pa.schema(fields)
    return _arrow_schema[share]


def _bytes(v: str | None) -> bytes | None:
    return None if v is None else a2b_base64(v)


def share_batch(records: list[dict[str, Any]]) -> pa.RecordBatch:
    """The records of one share fetch read with ``encoding=base64``, as one Arrow batch (share
    fetches answer JSON; reads by offset take ``columns_batch``)."""
    import pyarrow as pa

    n = len(records)
    keys: list[bytes | None] = [None] * n
    values: list[bytes | None] = [None] * n
    timestamps = [0] * n
    offsets = [0] * n
    parts = [0] * n
    topics: list[str] = [""] * n
    headers: list[list[dict[str, Any]]] = [[]] * n
    for i, r in enumerate(records):
        keys[i] = _bytes(r["key"])
        values[i] = _bytes(r["value"])
        timestamps[i] = r["timestamp"] * 1000
        offsets[i] = r["offset"]
        parts[i] = r["partition"]
        topics[i] = r["topic"]
        if h := r.get("headers"):
            headers[i] = [{"key": x["key"], "value": _bytes(x["value"])} for x in h]
    schema = arrow_schema(share=True)
    columns = [
        pa.array(topics, pa.string()),
        pa.array(parts, pa.int32()),
        pa.array(offsets, pa.int64()),
        pa.array(keys, pa.binary()),
        pa.array(values, pa.binary()),
        pa.array(timestamps, pa.int64()).cast(pa.timestamp("us", tz="UTC")),
        pa.array(headers, schema.field("headers").type),
        pa.array([r["delivery_count"] for r in records], pa.int32()),
    ]
    return pa.RecordBatch.from_arrays(columns, schema=schema)


COLUMNS_MAGIC = b"SLCB\x01"


def _buffers(body: bytes) -> tuple[dict[str, Any], list[memoryview]]:
    """The meta and the 14 buffers of a ``format=columns`` answer (see the server's docs)."""
    view = memoryview(body)
    if bytes(view[:5]) != COLUMNS_MAGIC:
        raise ValueError("not a columns answer of a known version")
    (n,) = struct.unpack_from("<Q", view, 8)
    meta = orjson.loads(view[16 : 16 + n])
    pos = 16 + n + (-n % 8)
    out = []
    for _ in range(14):
        (size,) = struct.unpack_from("<Q", view, pos)
        pos += 8
        out.append(view[pos : pos + size])
        pos += size + (-size % 8)
    return meta, out


def columns_batch(
    body: bytes, topic: str, partition: int, end: int
) -> tuple[dict[str, Any], pa.RecordBatch | None]:
    """An answer read with ``format=columns`` as one Arrow batch of the records below ``end``
    (None if there are none), and the answer's meta; no per-record work in Python."""
    import pyarrow as pa
    import pyarrow.compute as pc

    meta, b = _buffers(body)
    n = meta["records"]
    if n == 0:
        return meta, None
    m = len(b[9]) // 4 - 1  # headers in all
    buf = pa.py_buffer
    offsets = pa.Array.from_buffers(pa.int64(), n, [None, buf(b[0])])
    stamps = pa.Array.from_buffers(pa.int64(), n, [None, buf(b[1])])
    keys = pa.Array.from_buffers(pa.binary(), n, [buf(b[2]), buf(b[3]), buf(b[4])])
    values = pa.Array.from_buffers(pa.binary(), n, [buf(b[5]), buf(b[6]), buf(b[7])])
    schema = arrow_schema()
    header_type = schema.field("headers").type
    h_keys = pa.Array.from_buffers(pa.string(), m, [None, buf(b[9]), buf(b[10])])
    h_values = pa.Array.from_buffers(pa.binary(), m, [buf(b[11]), buf(b[12]), buf(b[13])])
    entries = pa.StructArray.from_arrays([h_keys, h_values], fields=list(header_type.value_type))
    headers = pa.ListArray.from_arrays(
        pa.Array.from_buffers(pa.int32(), n + 1, [None, buf(b[8])]), entries, type=header_type
    )
    columns = [
        pa.repeat(pa.scalar(topic, pa.string()), n),
        pa.repeat(pa.scalar(partition, pa.int32()), n),
        offsets,
        keys,
        values,
        pc.multiply(stamps, 1000).cast(pa.timestamp("us", tz="UTC")),
        headers,
    ]
    batch = pa.RecordBatch.from_arrays(columns, schema=schema)
    last = struct.unpack_from("<q", b[0], (n - 1) * 8)[0]
    if last >= end:  # offsets ascend: keep those below ``end``
        keep = bisect.bisect_left(b[0].cast("q"), end)
        batch = batch.slice(0, keep) if keep else None
    return meta, batch
