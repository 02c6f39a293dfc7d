"""Streams by offsets into the transactional sink: exactly once across retries, restarts, a
driver that dies between the server's commit and Spark's commit log, and new checkpoints."""

from __future__ import annotations

import collections
import json
import os
from pathlib import Path
from typing import Any

import pytest
from pyspark.errors import PySparkException
from pyspark.sql import functions as F

from tests.spark.conftest import Sluice

# the sink's driver commits every task's transaction at once (commit-all), which Kafka cannot
pytestmark = pytest.mark.embedded_only("commit_all")


def _stream(
    spark: Any, sluice: Sluice, src: str, dst: str, checkpoint: Path, **options: Any
) -> None:
    """Copy ``src`` to ``dst`` (values upper-cased) until the input as it is now is done."""
    read_opts = {
        k: v
        for k, v in options.items()
        if k in ("maxRecordsPerTrigger", "startingOffsets", "failOnDataLoss")
    }
    # the stream's transactions under a prefix of its own, so that each test sees only its own
    write_opts = {"transactionalIdPrefix": f"{dst}-q"}
    write_opts.update({k: v for k, v in options.items() if k not in read_opts})
    r = spark.readStream.format("sluice").option("url", sluice.url).option("topic", src)
    for k, v in read_opts.items():
        r = r.option(k, str(v))
    df = r.load().select("key", F.upper(F.col("value").cast("string")).alias("value"))
    w = (
        df.writeStream.format("sluice")
        .option("url", sluice.url)
        .option("topic", dst)
        .option("checkpointLocation", str(checkpoint))
        .trigger(availableNow=True)
    )
    for k, v in write_opts.items():
        w = w.option(k, str(v))
    q = w.start()
    try:
        q.awaitTermination(120)
    finally:
        q.stop()
    if q.exception() is not None:
        raise q.exception()


def _counts(sluice: Sluice, topic: str) -> collections.Counter[str]:
    return collections.Counter(r["value"] for r in sluice.read_all(topic))


def _batches(checkpoint: Path) -> int:
    return len([n for n in os.listdir(checkpoint / "commits") if n.isdigit()])


def test_restart_from_the_checkpoint_with_new_input_is_exactly_once(
    spark: Any, sluice: Sluice, tmp_path: Path
) -> None:
    src, dst = sluice.topic(2), sluice.topic(2)
    sluice.produce(src, [{"key": f"k{i}", "value": f"a{i}"} for i in range(500)])
    _stream(spark, sluice, src, dst, tmp_path / "ck")
    sluice.produce(src, [{"key": f"k{i}", "value": f"b{i}"} for i in range(300)])
    _stream(spark, sluice, src, dst, tmp_path / "ck")
    expected = collections.Counter([f"A{i}" for i in range(500)] + [f"B{i}" for i in range(300)])
    assert _counts(sluice, dst) == expected
    assert sluice.open_transactions(f"{dst}-q") == []


def test_max_records_per_trigger_makes_several_batches(
    spark: Any, sluice: Sluice, tmp_path: Path
) -> None:
    src, dst = sluice.topic(2), sluice.topic(1)
    sluice.produce(src, [{"value": f"m{i}"} for i in range(250)])
    _stream(spark, sluice, src, dst, tmp_path / "ck", maxRecordsPerTrigger=100)
    assert _batches(tmp_path / "ck") == 3
    assert _counts(sluice, dst) == collections.Counter(f"M{i}" for i in range(250))


def test_a_failed_micro_batch_task_is_retried_and_written_once(
    spark: Any, sluice: Sluice, tmp_path: Path
) -> None:
    src, dst = sluice.topic(2), sluice.topic(2)
    sluice.produce(src, [{"key": f"k{i}", "value": f"f{i}"} for i in range(400)])
    _stream(spark, sluice, src, dst, tmp_path / "ck", _failPartition=0, _failAttempts=1)
    assert _counts(sluice, dst) == collections.Counter(f"F{i}" for i in range(400))
    assert sluice.open_transactions(f"{dst}-q") == []


def test_a_batch_whose_retries_run_out_fails_the_query_and_the_restart_writes_it_once(
    spark: Any, sluice: Sluice, tmp_path: Path
) -> None:
    src, dst = sluice.topic(2), sluice.topic(2)
    sluice.produce(src, [{"key": f"k{i}", "value": f"x{i}"} for i in range(300)])
    with pytest.raises(PySparkException):
        _stream(
            spark,
            sluice,
            src,
            dst,
            tmp_path / "ck",
            _failPartition=1,
            _failAttempts=9,
            transactionTimeoutMs=2000,
        )
    assert sluice.read_all(dst) == []
    assert sluice.settled_transactions(f"{dst}-q") == []
    assert sluice.read_all(dst) == []
    _stream(spark, sluice, src, dst, tmp_path / "ck")
    assert _counts(sluice, dst) == collections.Counter(f"X{i}" for i in range(300))


def test_a_driver_dying_after_the_servers_commit_replays_a_batch_that_is_dropped(
    spark: Any, sluice: Sluice, tmp_path: Path
) -> None:
    src, dst = sluice.topic(2), sluice.topic(2)
    sluice.produce(src, [{"key": f"k{i}", "value": f"d{i}"} for i in range(300)])
    # the server commits, then the driver fails before Spark writes its commit log
    with pytest.raises(PySparkException, match="_failAfterCommit"):
        _stream(spark, sluice, src, dst, tmp_path / "ck", _failAfterCommit="true")
    assert _counts(sluice, dst) == collections.Counter(f"D{i}" for i in range(300))
    assert not (tmp_path / "ck" / "commits" / "0").exists()
    # the restart runs batch 0 again (same id, same offsets): recognised, its records dropped
    _stream(spark, sluice, src, dst, tmp_path / "ck")
    assert (tmp_path / "ck" / "commits" / "0").exists()
    assert _counts(sluice, dst) == collections.Counter(f"D{i}" for i in range(300))
    assert sluice.open_transactions(f"{dst}-q") == []
    # and the stream goes on exactly once
    sluice.produce(src, [{"key": f"k{i}", "value": f"e{i}"} for i in range(100)])
    _stream(spark, sluice, src, dst, tmp_path / "ck")
    assert _counts(sluice, dst) == collections.Counter(
        [f"D{i}" for i in range(300)] + [f"E{i}" for i in range(100)]
    )


def test_a_new_checkpoint_is_a_new_query_not_a_replay(
    spark: Any, sluice: Sluice, tmp_path: Path
) -> None:
    src, dst = sluice.topic(1), sluice.topic(1)
    sluice.produce(src, [{"value": f"n{i}"} for i in range(100)])
    _stream(spark, sluice, src, dst, tmp_path / "first")
    # batch 0 again, under another query id: written, not mistaken for the first one's batch 0
    _stream(spark, sluice, src, dst, tmp_path / "second")
    assert _counts(sluice, dst) == collections.Counter({f"N{i}": 2 for i in range(100)})


def test_offsets_are_checkpointed_in_the_documented_json(
    spark: Any, sluice: Sluice, tmp_path: Path
) -> None:
    src, dst = sluice.topic(2), sluice.topic(1)
    sluice.produce(src, [{"value": "a", "partition": 0}] * 3 + [{"value": "b", "partition": 1}])
    _stream(spark, sluice, src, dst, tmp_path / "ck")
    last = (tmp_path / "ck" / "offsets" / "0").read_text().splitlines()[-1]
    assert json.loads(last) == {src: {"0": 3, "1": 1}}


def test_records_deleted_under_a_stream_fail_it_or_are_skipped_with_fail_on_data_loss_false(
    spark: Any, sluice: Sluice, tmp_path: Path
) -> None:
    src, dst = sluice.topic(1), sluice.topic(1)
    sluice.produce(src, [{"value": f"a{i}"} for i in range(100)])
    _stream(spark, sluice, src, dst, tmp_path / "ck")
    sluice.produce(src, [{"value": f"b{i}"} for i in range(100)])
    # records 100-149, not read yet, are deleted under the stream
    r = sluice.http.post(
        f"/v1/topics/{src}/delete-records",
        json={"partitions": [{"partition": 0, "before_offset": 150}]},
    )
    assert r.status_code == 200, r.text
    with pytest.raises(PySparkException, match="failOnDataLoss"):
        _stream(spark, sluice, src, dst, tmp_path / "ck")
    assert len(sluice.read_all(dst)) == 100
    _stream(spark, sluice, src, dst, tmp_path / "ck", failOnDataLoss="false")
    assert _counts(sluice, dst) == collections.Counter(
        [f"A{i}" for i in range(100)] + [f"B{i}" for i in range(50, 100)]
    )
