"""Where a write task's flushes fall (no Spark, no server: the flush is recorded instead of
sent): after ``produceBatchRecords`` records or ``MAX_REQUEST_BYTES`` bytes, on both wires."""

from __future__ import annotations

from typing import Any

import pyarrow as pa
import pytest
from sluice_spark import writer
from sluice_spark.options import parse


def _flushes(
    wire: str, batches: list[pa.RecordBatch], encoding: str = "utf8", **options: str
) -> list[Any]:
    """Each flush's records per partition, as (partition, [values]) pairs in order."""
    opts = parse({"url": "http://127.0.0.1:1", "topic": "t", "wire": wire, **options})
    task = writer._Task(opts, "tid", 0, encoding)
    task.partition_counts["t"] = 3
    out: list[Any] = []

    def flush() -> None:
        if task.pending:
            value = 2 if wire == "batches" else "value"
            out.append(
                [
                    (p, [r[value] for r in records])
                    for (_, p), records in sorted(task.pending.items())
                ]
            )
        task.pending, task.pending_count, task.pending_bytes = {}, 0, 0

    task.flush = flush  # type: ignore[method-assign]
    for b in batches:
        task.add(b)
    task.flush()
    return out


def _as_text(flushes: list[Any]) -> list[Any]:
    return [
        [(p, [v.decode() if isinstance(v, bytes) else v for v in values]) for p, values in f]
        for f in flushes
    ]


@pytest.mark.parametrize("keyed", [False, True])
def test_both_wires_flush_the_same_records_at_the_same_points(keyed: bool) -> None:
    def batch(lo: int, hi: int) -> pa.RecordBatch:
        values = pa.array([f"v{i}" for i in range(lo, hi)])
        if not keyed:
            return pa.RecordBatch.from_arrays([values], names=["value"])
        keys = pa.array([f"k{i}" if i % 3 else None for i in range(lo, hi)])
        return pa.RecordBatch.from_arrays([keys, values], names=["key", "value"])

    batches = [batch(0, 10), batch(10, 11), batch(11, 30)]
    json = _flushes("json", batches, produceBatchRecords="7")
    raw = _flushes("batches", batches, produceBatchRecords="7")
    assert _as_text(raw) == json
    assert [sum(len(v) for _, v in f) for f in json] == [7, 7, 7, 7, 2]
    if not keyed:  # one partition per Arrow batch, rotating
        assert [[p for p, _ in f] for f in json] == [[0], [0, 1, 2], [2], [2], [2]]


@pytest.mark.parametrize("wire", ["batches", "json"])
def test_a_flush_goes_at_the_record_that_reaches_max_request_bytes(wire: str) -> None:
    size = writer.MAX_REQUEST_BYTES // 3  # three records and their overhead pass the limit
    if wire == "json":  # the json wire counts the base64 text: values a quarter shorter
        size = size * 3 // 4
    values = pa.array([bytes([i]) * size for i in range(8)], pa.binary())
    batch = pa.RecordBatch.from_arrays([values], names=["value"])
    flushes = _flushes(wire, [batch], encoding="base64")
    assert [len(f[0][1]) for f in flushes] == [3, 3, 2]
