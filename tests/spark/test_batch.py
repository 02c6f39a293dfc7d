"""Batch reads and the transactional batch sink on a real local Spark against a real server."""

from __future__ import annotations

import collections
from typing import Any

import pytest
from pyspark.errors import PySparkException
from pyspark.sql import functions as F
from pyspark.sql import types as T
from sluice._partitioner import partition_for_key

from tests.conftest import GATEWAY
from tests.spark.conftest import Sluice


def _records(n: int, prefix: str = "v") -> list[dict[str, Any]]:
    return [
        {"key": f"k{i}", "value": f"{prefix}{i}", "headers": [{"key": "n", "value": str(i)}]}
        for i in range(n)
    ]


def _txn(
    sluice: Sluice, tid: str, topic: str, partition: int, values: list[str]
) -> tuple[int, int]:
    """Open a transaction of ``tid`` holding ``values``; answers its producer id and epoch."""
    got = sluice.http.post("/v1/producers", json={"transactional_id": tid}).json()
    pid, epoch = got["producer_id"], got["producer_epoch"]
    r = sluice.http.post(
        "/v1/produce",
        json={
            "producer_id": pid,
            "producer_epoch": epoch,
            "transactional_id": tid,
            "batches": [
                {
                    "topic": topic,
                    "partition": partition,
                    "base_sequence": 0,
                    "records": [{"value": v} for v in values],
                }
            ],
        },
    )
    assert r.status_code == 200 and r.json()["batches"][0]["error"] is None, r.text
    return pid, epoch


def _end(sluice: Sluice, tid: str, pid: int, epoch: int, commit: bool) -> None:
    r = sluice.http.post(
        f"/v1/transactions/{tid}/{'commit' if commit else 'abort'}",
        json={"producer_id": pid, "producer_epoch": epoch},
    )
    assert r.status_code == 200, r.text


def test_rows_schema_and_one_spark_partition_per_topic_partition(
    sluice: Sluice, reader: Any
) -> None:
    src = sluice.topic(3)
    sluice.produce(src, _records(900))
    df = reader(src)
    assert df.rdd.getNumPartitions() == 3
    assert [f.name for f in df.schema.fields] == [
        "topic",
        "partition",
        "offset",
        "key",
        "value",
        "timestamp",
        "headers",
    ]
    rows = [r.asDict(recursive=True) for r in df.collect()]
    assert len(rows) == 900
    for r in rows:
        i = int(r["value"].decode().removeprefix("v"))
        assert r["key"] == f"k{i}".encode()
        assert r["topic"] == src
        assert r["partition"] == partition_for_key(r["key"], 3)  # the server's placement
        assert r["headers"] == [{"key": "n", "value": str(i).encode()}]
    assert sorted(int(r["value"][1:]) for r in rows) == list(range(900))


# the sink's driver commits every task's transaction at once (commit-all), which Kafka cannot
@pytest.mark.embedded_only("commit_all")
def test_a_dataframe_read_is_written_to_another_topic_with_its_keys_partitions_and_headers(
    sluice: Sluice, reader: Any
) -> None:
    src = sluice.topic(3)
    sluice.produce(src, _records(900))
    df = reader(src)
    # same keys, so the same partitions, every record once
    dst = sluice.topic(3)
    (
        df.select("key", "value", "headers")
        .write.format("sluice")
        .option("url", sluice.url)
        .option("topic", dst)
        .mode("append")
        .save()
    )
    out = sluice.read_all(dst)
    assert sorted(r["value"] for r in out) == sorted(f"v{i}" for i in range(900))
    for r in out:
        assert r["partition"] == partition_for_key(r["key"].encode(), 3)
        assert r["headers"] == [{"key": "n", "value": r["value"][1:]}]
    assert sluice.open_transactions("spark-") == []


def test_split_subset_offsets_and_timestamps(sluice: Sluice, reader: Any) -> None:
    t = sluice.topic(2)
    recs = [
        {"value": f"p{p}-{i}", "partition": p, "timestamp": 1_700_000_000_000 + i * 1000}
        for p in (0, 1)
        for i in range(50)
    ]
    sluice.produce(t, recs)
    split = reader(t, maxRecordsPerPartition=10)
    assert split.rdd.getNumPartitions() == 10
    assert split.count() == 100

    only1 = reader(t, partitions="1").collect()
    assert {r.partition for r in only1} == {1} and len(only1) == 50

    ranged = reader(
        t,
        startingOffsets=f'{{"{t}": {{"0": 10, "1": -2}}}}',
        endingOffsets=f'{{"{t}": {{"0": 20}}}}',
    ).collect()
    by_p = collections.Counter(r.partition for r in ranged)
    assert by_p == {0: 10, 1: 50}
    assert min(r.offset for r in ranged if r.partition == 0) == 10

    since = reader(t, startingTimestamp=1_700_000_000_000 + 40_000).collect()
    assert sorted(r.value.decode() for r in since) == sorted(
        f"p{p}-{i}" for p in (0, 1) for i in range(40, 50)
    )
    ts = reader(t, partitions="0").orderBy("offset").first().timestamp
    assert int(ts.timestamp() * 1000) == 1_700_000_000_000


def test_a_dataframe_is_a_snapshot(sluice: Sluice, reader: Any) -> None:
    t = sluice.topic(1)
    sluice.produce(t, _records(5))
    df = reader(t)
    assert df.count() == 5
    sluice.produce(t, _records(5))
    assert df.count() == 5
    assert reader(t).count() == 10


def test_read_committed_stops_at_the_lso_and_skips_aborted_records(
    sluice: Sluice, reader: Any
) -> None:
    t = sluice.topic(1)
    sluice.produce(t, [{"value": "plain-0", "partition": 0}])
    pid, ep = _txn(sluice, f"{t}-a", t, 0, ["aborted-1", "aborted-2"])
    _end(sluice, f"{t}-a", pid, ep, commit=False)
    pid, ep = _txn(sluice, f"{t}-b", t, 0, ["committed-1", "committed-2"])
    _end(sluice, f"{t}-b", pid, ep, commit=True)
    open_pid, open_ep = _txn(sluice, f"{t}-c", t, 0, ["open-1"])
    sluice.produce(t, [{"value": "plain-after", "partition": 0}])

    committed = sorted(r.value.decode() for r in reader(t).collect())
    assert committed == ["committed-1", "committed-2", "plain-0"]
    everything = sorted(
        r.value.decode() for r in reader(t, isolationLevel="read_uncommitted").collect()
    )
    assert everything == sorted(
        ["plain-0", "aborted-1", "aborted-2", "committed-1", "committed-2", "open-1", "plain-after"]
    )
    _end(sluice, f"{t}-c", open_pid, open_ep, commit=True)
    assert sorted(r.value.decode() for r in reader(t).collect()) == sorted(
        ["plain-0", "committed-1", "committed-2", "open-1", "plain-after"]
    )


def _write(df: Any, sluice: Sluice, topic: str, **options: Any) -> None:
    w = df.write.format("sluice").option("url", sluice.url).option("topic", topic).mode("append")
    for k, v in options.items():
        w = w.option(k, str(v))
    w.save()


def _values(spark: Any, n: int, parts: int = 2) -> Any:
    return spark.range(n).repartition(parts).select(F.format_string("r%d", "id").alias("value"))


@pytest.mark.embedded_only("commit_all")
def test_a_task_that_fails_once_is_retried_and_written_once(spark: Any, sluice: Sluice) -> None:
    out = sluice.topic(2)
    _write(
        _values(spark, 1000),
        sluice,
        out,
        _failPartition=0,
        _failAttempts=1,
        transactionalIdPrefix=f"{out}-job",
    )
    values = [r["value"] for r in sluice.read_all(out)]
    assert sorted(values) == sorted(f"r{i}" for i in range(1000))
    # the failed attempt's records are in the log, aborted: a read_uncommitted reader sees them
    assert len(sluice.read_all(out, committed=False)) > 1000
    assert sluice.open_transactions(f"{out}-job") == []


@pytest.mark.parametrize("wire", ["batches", "json"])
def test_a_job_whose_tasks_exhaust_their_retries_leaves_nothing_visible(
    spark: Any, sluice: Sluice, wire: str
) -> None:
    out = sluice.topic(2)
    with pytest.raises(Exception, match="_failPartition"):
        _write(
            _values(spark, 1000),
            sluice,
            out,
            _failPartition=1,
            _failAttempts=5,
            transactionalIdPrefix=f"{out}-job",
            transactionTimeoutMs=2000,
            wire=wire,
        )
    assert sluice.read_all(out) == []
    assert len(sluice.read_all(out, committed=False)) >= 500  # written, then aborted
    assert sluice.settled_transactions(f"{out}-job") == []
    assert sluice.read_all(out) == []


_PRODUCE_ROUTES = {
    "batches": "/v1/topics/{topic}/partitions/{partition}/batches",
    "json": "/v1/produce",
}


def _produce_requests(sluice: Sluice) -> dict[str, float]:
    """How many produce requests of each wire the server has answered 200 so far."""
    lines = sluice.http.get("/metrics").text.splitlines()
    out = {}
    for wire, route in _PRODUCE_ROUTES.items():
        labels = (f'route="{route}"', 'method="POST"', 'status="200"')
        out[wire] = sum(
            float(line.rsplit(" ", 1)[1])
            for line in lines
            if line.startswith("sluice_http_requests_total{") and all(x in line for x in labels)
        )
    return out


_HEADERS = T.ArrayType(
    T.StructType([T.StructField("key", T.StringType()), T.StructField("value", T.BinaryType())])
)


@pytest.mark.embedded_only("commit_all")
@pytest.mark.parametrize("wire", ["batches", "json"])
def test_each_wire_writes_a_jobs_rows_once_with_their_keys_values_headers_and_partitions(
    spark: Any, sluice: Sluice, wire: str
) -> None:
    out, other = sluice.topic(3), sluice.topic(2)
    rows = []
    for i in range(2000):
        rows.append(
            (
                f"k{i % 61}".encode() if i % 4 else None,
                f"v{i}".encode(),
                [("n", str(i).encode()), ("empty", None)] if i % 3 == 0 else [],
                i % 20 // 10 if i % 10 == 0 else None,  # 0 or 1: each topic has them
                other if i % 7 == 0 else None,
            )
        )
    schema = T.StructType(
        [
            T.StructField("key", T.BinaryType()),
            T.StructField("value", T.BinaryType()),
            T.StructField("headers", _HEADERS),
            T.StructField("partition", T.IntegerType()),
            T.StructField("topic", T.StringType()),
        ]
    )
    df = spark.createDataFrame(rows, schema).repartition(3)
    before = _produce_requests(sluice)
    # flushes of 50 records: most of them to several partitions, sent side by side
    _write(df, sluice, out, wire=wire, produceBatchRecords=50)
    after = _produce_requests(sluice)
    unused = "json" if wire == "batches" else "batches"
    assert after[wire] - before[wire] >= 2000 / 50
    assert after[unused] == before[unused]

    got = {(out, r["value"]): r for r in sluice.read_all(out)}
    got |= {(other, r["value"]): r for r in sluice.read_all(other)}
    assert len(got) == 2000  # every row once: no value twice, none missing
    for i, (key, value, headers, partition, topic) in enumerate(rows):
        r = got[(topic or out, value.decode())]
        assert r["key"] == (None if key is None else key.decode())
        assert r["headers"] == [
            {"key": k, "value": None if v is None else v.decode()} for k, v in headers
        ]
        n = 2 if topic else 3
        if partition is not None:
            assert r["partition"] == partition, i
        elif key is not None:
            assert r["partition"] == partition_for_key(key, n), i
        else:
            assert 0 <= r["partition"] < n
    assert sluice.open_transactions("spark-") == []


@pytest.mark.parametrize("wire", ["batches", "json"])
def test_a_record_the_server_refuses_fails_the_job_and_leaves_nothing_visible(
    spark: Any, sluice: Sluice, wire: str
) -> None:
    out = sluice.topic(2)
    # one row names a partition the topic does not have; the others go to both partitions of
    # the same flush, sent with it (side by side on the batches wire)
    df = spark.range(300).select(
        F.format_string("r%d", "id").alias("value"),
        F.when(F.col("id") == 150, F.lit(5))
        .otherwise(F.col("id") % 2)
        .cast("int")
        .alias("partition"),
    )
    with pytest.raises(PySparkException, match="UNKNOWN_TOPIC_OR_PARTITION"):
        _write(df.coalesce(1), sluice, out, wire=wire, transactionalIdPrefix=f"{out}-job")
    assert sluice.read_all(out) == []
    assert len(sluice.read_all(out, committed=False)) >= 299  # written, then aborted
    assert sluice.open_transactions(f"{out}-job") == []


def test_a_job_is_committed_whole_or_refused_by_a_gateway_with_nothing_visible(
    spark: Any, sluice: Sluice
) -> None:
    """The driver commits the tasks' transactions with commit-all: the embedded engine commits
    them at once; a gateway on Kafka answers UNSUPPORTED_ON_KAFKA_BACKEND (``commit_all``,
    docs/kafka.md), and the job fails with every task's transaction aborted."""
    out = sluice.topic(2)
    if GATEWAY:
        with pytest.raises(PySparkException, match=r"UNSUPPORTED_ON_KAFKA_BACKEND.*commit_all"):
            _write(_values(spark, 200), sluice, out, transactionalIdPrefix=f"{out}-job")
        assert sluice.read_all(out) == []
        assert len(sluice.read_all(out, committed=False)) == 200  # written, then aborted
    else:
        _write(_values(spark, 200), sluice, out, transactionalIdPrefix=f"{out}-job")
        assert sorted(r["value"] for r in sluice.read_all(out)) == sorted(
            f"r{i}" for i in range(200)
        )
    assert sluice.open_transactions(f"{out}-job") == []


@pytest.mark.embedded_only("commit_all")
def test_write_id_makes_a_rerun_of_a_committed_job_a_no_op(spark: Any, sluice: Sluice) -> None:
    out = sluice.topic(2)
    _write(_values(spark, 200), sluice, out, writeId=f"{out}-nightly")
    _write(_values(spark, 200), sluice, out, writeId=f"{out}-nightly")
    assert len(sluice.read_all(out)) == 200
    assert sluice.open_transactions("spark-") == []
    _write(_values(spark, 200), sluice, out, writeId=f"{out}-next-night")
    assert len(sluice.read_all(out)) == 400


def test_overwrite_and_bad_dataframes_are_refused_clearly(spark: Any, sluice: Sluice) -> None:
    out = sluice.topic(1)
    df = _values(spark, 10)
    with pytest.raises(PySparkException, match="append-only"):
        df.write.format("sluice").option("url", sluice.url).option("topic", out).mode(
            "overwrite"
        ).save()
    with pytest.raises(PySparkException, match="needs a value column"):
        _write(spark.range(3), sluice, out)
    with pytest.raises(PySparkException, match="startingOffsets"):
        spark.read.format("sluice").option("url", sluice.url).option("topic", out).option(
            "startingOffsets", "nonsense"
        ).load().count()
    with pytest.raises(PySparkException, match="no partition"):
        spark.read.format("sluice").option("url", sluice.url).option("topic", out).option(
            "partitions", "7"
        ).load().count()
    assert sluice.read_all(out) == []
