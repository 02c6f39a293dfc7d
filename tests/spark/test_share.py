"""The share-group source: queue semantics across Spark tasks, at least once."""

from __future__ import annotations

import collections
import time
import uuid
from pathlib import Path
from typing import Any

import pytest
from pyspark.errors import PySparkException
from pyspark.sql import functions as F

from tests.spark.conftest import Sluice

# the source acquires by id, and the sink commits with commit-all: Kafka can do neither
pytestmark = pytest.mark.embedded_only("share_acquisitions", "commit_all")


def _run(
    spark: Any,
    sluice: Sluice,
    group: str,
    src: str,
    dst: str,
    checkpoint: Path,
    *,
    read: dict[str, Any] | None = None,
    write: dict[str, Any] | None = None,
) -> Any:
    """Share group ``group`` of ``src`` → ``dst`` until everything there is processed."""
    df = (
        spark.readStream.format("sluice")
        .option("url", sluice.url)
        .option("topic", src)
        .option("shareGroup", group)
        .option("shareConsumers", 2)
        .option("shareMaxRecords", 120)
        .option("shareWaitMs", 0)
        .options(**{k: str(v) for k, v in (read or {}).items()})
        .load()
        .select("key", F.col("value"), F.col("delivery_count").cast("string").alias("headers_dc"))
        .select(
            "key",
            "value",
            F.array(F.struct(F.lit("dc").alias("key"), F.col("headers_dc").alias("value"))).alias(
                "headers"
            ),
        )
    )
    w = (
        df.writeStream.format("sluice")
        .option("url", sluice.url)
        .option("topic", dst)
        .option("checkpointLocation", str(checkpoint))
        .trigger(processingTime="200 milliseconds")
    )
    for k, v in (write or {}).items():
        w = w.option(k, str(v))
    q = w.start()
    try:
        q.processAllAvailable()
    finally:
        q.stop()
    return q


def _group(sluice: Sluice, group: str, topic: str, **config: Any) -> None:
    r = sluice.http.patch(
        f"/v1/share-groups/{group}/config", json={"auto_offset_reset": "earliest", **config}
    )
    assert r.status_code == 200, r.text


def _state(sluice: Sluice, group: str) -> dict[str, int]:
    desc = sluice.http.get(f"/v1/share-groups/{group}").json()
    out: collections.Counter[str] = collections.Counter()
    for p in desc["partitions"]:
        for k in ("available", "acquired", "acknowledged", "archived", "lag"):
            out[k] += p[k]
    return dict(out)


def test_every_record_is_processed_and_none_is_left_locked(
    spark: Any, sluice: Sluice, tmp_path: Path
) -> None:
    src, dst = sluice.topic(2), sluice.topic(2)
    group = f"g-{uuid.uuid4().hex[:8]}"
    _group(sluice, group, src)
    sluice.produce(src, [{"key": f"k{i}", "value": f"s{i}"} for i in range(300)])
    _run(spark, sluice, group, src, dst, tmp_path / "ck")
    out = sluice.read_all(dst)
    assert collections.Counter(r["value"] for r in out) == collections.Counter(
        f"s{i}" for i in range(300)
    )
    assert {r["headers"][0]["value"] for r in out} == {"1"}  # each delivered once
    state = _state(sluice, group)
    assert state["acquired"] == 0 and state["lag"] == 0
    held = sluice.http.get(f"/v1/share-groups/{group}/acquisitions").json()
    assert held["records"] == 0
    assert sluice.open_transactions("spark-") == []


def test_a_failed_batch_is_run_again_with_the_same_records(
    spark: Any, sluice: Sluice, tmp_path: Path
) -> None:
    src, dst = sluice.topic(2), sluice.topic(2)
    group = f"g-{uuid.uuid4().hex[:8]}"
    _group(sluice, group, src, record_lock_duration_ms=120_000)
    sluice.produce(src, [{"key": f"k{i}", "value": f"r{i}"} for i in range(200)])
    with pytest.raises(PySparkException):
        _run(
            spark,
            sluice,
            group,
            src,
            dst,
            tmp_path / "ck",
            write={"_failPartition": 0, "_failAttempts": 9},
        )
    assert sluice.read_all(dst) == []
    # the restart replays the failed batch: its acquisition ids get back the records they hold
    _run(spark, sluice, group, src, dst, tmp_path / "ck")
    out = sluice.read_all(dst)
    assert collections.Counter(r["value"] for r in out) == collections.Counter(
        f"r{i}" for i in range(200)
    )
    state = _state(sluice, group)
    assert state["acquired"] == 0 and state["lag"] == 0


def test_records_of_a_crashed_query_are_delivered_again_after_their_locks_expire(
    spark: Any, sluice: Sluice, tmp_path: Path
) -> None:
    src, dst = sluice.topic(1), sluice.topic(1)
    group = f"g-{uuid.uuid4().hex[:8]}"
    _group(sluice, group, src, record_lock_duration_ms=2000)
    sluice.produce(src, [{"value": f"c{i}"} for i in range(100)])
    with pytest.raises(PySparkException):
        _run(
            spark,
            sluice,
            group,
            src,
            dst,
            tmp_path / "crashed",
            read={"shareReleaseOnStop": "false"},
            write={"_failPartition": 0, "_failAttempts": 9},
        )
    # the crashed query's records stay locked until their locks run out, then are available.
    # Its tasks that Spark is still cancelling may fetch again meanwhile (a retry of the failed
    # task takes new records under its ids): wait until none runs, then until every record is
    # available, so that the next query finds the work waiting
    tracker = spark.sparkContext.statusTracker()
    deadline = time.monotonic() + 60
    while tracker.getActiveStageIds() or _state(sluice, group)["available"] < 100:
        assert time.monotonic() < deadline, (tracker.getActiveStageIds(), _state(sluice, group))
        time.sleep(0.2)
    # another query (a new checkpoint) gets them, delivered a second time
    _run(spark, sluice, group, src, dst, tmp_path / "other")
    out = sluice.read_all(dst)
    assert collections.Counter(r["value"] for r in out) == collections.Counter(
        f"c{i}" for i in range(100)
    ), (
        _state(sluice, group),
        sluice.http.get(f"/v1/share-groups/{group}/acquisitions").json(),
    )
    assert {r["headers"][0]["value"] for r in out} == {"2"}


def test_a_replayed_batch_takes_back_only_what_it_holds_and_loses_nothing(
    spark: Any, sluice: Sluice, tmp_path: Path
) -> None:
    """The sink committed batch 0, then the driver failed before Spark's commit log; while the
    query was down the batch's locks ran out and another consumer took and accepted those
    records. The restart replays batch 0: it must not take the records still waiting (the
    sink drops a replayed batch, and the source would accept them unwritten)."""
    src, dst = sluice.topic(1), sluice.topic(1)
    group = f"g-{uuid.uuid4().hex[:8]}"
    _group(sluice, group, src, record_lock_duration_ms=2000)
    sluice.produce(src, [{"value": f"z{i}"} for i in range(300)])
    with pytest.raises(PySparkException, match="_failAfterCommit"):
        _run(spark, sluice, group, src, dst, tmp_path / "ck", write={"_failAfterCommit": "true"})
    first = [r["value"] for r in sluice.read_all(dst)]
    assert len(first) == 240  # batch 0: two tasks of 120
    deadline = time.monotonic() + 30
    while _state(sluice, group)["acquired"] > 0:  # the batch's locks run out
        assert time.monotonic() < deadline, _state(sluice, group)
        time.sleep(0.2)
    # another consumer takes the first 240 records again and accepts them
    other = sluice.http.post(
        f"/v1/share-groups/{group}/fetch",
        json={
            "acquisition_id": "other",
            "subscribed_topics": [src],
            "max_records": 240,
            "acquire_mode": "record_limit",
        },
    ).json()
    taken = {r["value"] for r in other["records"]}
    assert len(taken) == 240
    r = sluice.http.post(
        f"/v1/share-groups/{group}/acquisitions/acknowledge", json={"acquisition_ids": ["other"]}
    )
    assert r.json()["acknowledged"] == 240
    _run(spark, sluice, group, src, dst, tmp_path / "ck")
    later = [r["value"] for r in sluice.read_all(dst)][240:]
    # the 60 records nobody had: written now, once; nothing lost
    assert sorted(later) == sorted({f"z{i}" for i in range(300)} - taken)
    state = _state(sluice, group)
    assert state["acquired"] == 0 and state["lag"] == 0
