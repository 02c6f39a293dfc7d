"""A stream by offsets into a sink of Spark's own (``foreachBatch``): every record once, in
micro-batches of at most ``maxRecordsPerTrigger``, and from the checkpoint after a restart. It
commits nothing to the server, so it runs on a gateway as on the embedded engine."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from tests.spark.conftest import Sluice


def _read(spark: Any, sluice: Sluice, topic: str, checkpoint: Path) -> list[tuple[int, int, str]]:
    """What one run of the stream reads until the input as it is now is done: (partition,
    offset, value) of each record, in the order of its micro-batches."""
    got: list[tuple[int, int, str]] = []

    def collect(df: Any, batch_id: int) -> None:
        got.extend((r.partition, r.offset, r.value.decode()) for r in df.collect())

    q = (
        spark.readStream.format("sluice")
        .option("url", sluice.url)
        .option("topic", topic)
        .option("maxRecordsPerTrigger", 100)
        .load()
        .writeStream.foreachBatch(collect)
        .option("checkpointLocation", str(checkpoint))
        .trigger(availableNow=True)
        .start()
    )
    try:
        q.awaitTermination(120)
    finally:
        q.stop()
    assert q.exception() is None
    return got


def test_a_stream_reads_each_record_once_in_limited_batches_and_resumes_from_its_checkpoint(
    spark: Any, sluice: Sluice, tmp_path: Path
) -> None:
    src = sluice.topic(2)
    sluice.produce(src, [{"key": f"k{i}", "value": f"a{i}"} for i in range(250)])
    first = _read(spark, sluice, src, tmp_path / "ck")
    assert sorted(v for _, _, v in first) == sorted(f"a{i}" for i in range(250))
    commits = [n for n in os.listdir(tmp_path / "ck" / "commits") if n.isdigit()]
    assert len(commits) == 3  # 100, 100 and 50 records
    # each partition read from its start, without a gap
    for p in (0, 1):
        read = sorted(o for q, o, _ in first if q == p)
        assert read == list(range(len(read)))

    sluice.produce(src, [{"key": f"k{i}", "value": f"b{i}"} for i in range(50)])
    second = _read(spark, sluice, src, tmp_path / "ck")
    assert sorted(v for _, _, v in second) == sorted(f"b{i}" for i in range(50))
    assert _read(spark, sluice, src, tmp_path / "ck") == []  # nothing new: nothing read
