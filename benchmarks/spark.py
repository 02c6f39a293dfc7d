"""The Spark data source against a real server: a batch read and a streaming pipeline through
the transactional sink, on a local Spark in this process (``local[2]``).

Each run starts one server (fsync=always), fills a 2-partition topic with ``--records``
(1,000,000) records of 256 random bytes (base64 on the wire), and measures, after one warm-up
query on a small topic:

- **batch read**: ``spark.read.format("sluice")`` of the whole topic (two Spark partitions, one
  per topic partition, ``read_committed``), summing the values' lengths and counting the rows
  in Spark; the sum and the count must be exact. Records/s = records ÷ the query's time,
  planning included.
- **streaming write**: rows Spark makes itself (``rate-micro-batch``, a 256-byte binary value
  each, two partitions) → ``writeStream.format("sluice")``, micro-batches of 250,000, each
  committed by the transactional sink; records/s from the micro-batches' execution times (the
  first ``--records`` rows). The output must hold exactly the committed micro-batches' rows.
- **topic to topic** (recorded, no target): ``readStream`` of the input topic by offsets →
  the sink into a third topic, ``trigger(availableNow)``, ``maxRecordsPerTrigger`` 250,000;
  records/s = records ÷ the query's time from start to end; the output must hold exactly the
  records, nothing left open.

The sink sends its records on the wire ``--wire`` names (its option ``wire``: ``batches``,
a transactional record batch per partition, or ``json``, one ``POST /v1/produce`` a flush; by
default the sink's own default), recorded with the parameters; reads take the columnar format
either way. To compare the wires, run one after the other, alternating.

The JVM runs with its default compilers and the serial collector (``JAVA_OPTIONS``).
While they run, the proportional set size (PSS, shared pages counted once) of this process
and every process under it except the server (Spark's JVM and its Python workers) is sampled
every 0.2 s; the peak is reported with the server's own peak RSS. Targets: batch read
≥ 200,000 records/s, streaming write ≥ 100,000 records/s, peak PSS ≤ 2 GiB.

    python -m benchmarks.spark [--runs 3] [--records 1000000] [--wire batches|json] [--quick]

Results go to ``benchmarks/results/spark-<commit>.json``.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import sys
import threading
import time
from pathlib import Path
from typing import Any

import httpx

from benchmarks import _harness as h
from benchmarks import users as u

NAME = "spark"
PARTITIONS = 2
VALUE_BYTES = 256
PER_TRIGGER = 250_000
GiB = 1024**3
# the JVM's own compilers (faster for minutes of work than the quick-start ones the tests use)
# and its serial collector (the smallest footprint on two cores)
JAVA_OPTIONS = "-XX:+UseSerialGC"

Json = dict[str, Any]


def _children(pid: int) -> list[int]:
    with contextlib.suppress(OSError):
        tasks = Path(f"/proc/{pid}/task")
        out: list[int] = []
        for t in tasks.iterdir():
            with contextlib.suppress(OSError):
                out += [int(c) for c in (t / "children").read_text().split()]
        return out
    return []


def _pss(pid: int) -> int:
    """Bytes of ``pid``'s proportional set size (0 once it is gone)."""
    with contextlib.suppress(OSError, ValueError):
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                return int(line.split()[1]) * 1024
    return 0


class TreePss:
    """Samples the PSS summed over this process and its descendants, leaving out ``skip``
    (the server) and its descendants."""

    def __init__(self, skip: int, interval: float = 0.2) -> None:
        self.skip = skip
        self.interval = interval
        self.peak = 0
        self.peak_processes = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)

    def sample(self) -> int:
        total, n, todo = 0, 0, [os.getpid()]
        while todo:
            pid = todo.pop()
            if pid == self.skip:
                continue
            total += _pss(pid)
            n += 1
            todo += _children(pid)
        if total > self.peak:
            self.peak, self.peak_processes = total, n
        return total

    def _loop(self) -> None:
        while not self._stop.wait(self.interval):
            self.sample()

    def __enter__(self) -> TreePss:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(5)


def _session() -> Any:
    from sluice_spark.local import local_session

    os.environ["PYSPARK_PYTHON"] = sys.executable
    conf = h.REPO_ROOT / "tests" / "spark"  # log4j2.properties: errors only
    os.environ.setdefault("SPARK_CONF_DIR", str(conf))
    return local_session(
        cores=2, max_failures=1, app_name="sluice-benchmark", java_options=JAVA_OPTIONS
    )


def _batch_read(
    spark: Any, url: str, topic: str, records: int, value_bytes: int = VALUE_BYTES
) -> Json:
    from pyspark.sql import functions as F

    t0 = time.perf_counter()
    df = spark.read.format("sluice").option("url", url).option("topic", topic).load()
    row = df.select(F.count("*").alias("n"), F.sum(F.length("value")).alias("bytes")).first()
    seconds = time.perf_counter() - t0
    if row["n"] != records or row["bytes"] != records * value_bytes:
        raise h.BenchError(f"batch read: {row['n']} rows, {row['bytes']} bytes of {records}")
    return {"seconds": round(seconds, 3), "records_per_s": round(records / seconds)}


def _topic_to_topic(
    spark: Any,
    server: h.ServerProcess,
    src: str,
    dst: str,
    records: int,
    checkpoint: Path,
    wire: str,
) -> Json:
    url = server.base_url
    t0 = time.perf_counter()
    q = (
        spark.readStream.format("sluice")
        .option("url", url)
        .option("topic", src)
        .option("maxRecordsPerTrigger", PER_TRIGGER)
        .load()
        .select("key", "value")
        .writeStream.format("sluice")
        .option("url", url)
        .option("topic", dst)
        .option("wire", wire)
        .option("checkpointLocation", str(checkpoint))
        .trigger(availableNow=True)
        .start()
    )
    q.awaitTermination()
    seconds = time.perf_counter() - t0
    if q.exception() is not None:
        raise h.BenchError(f"streaming write failed: {q.exception()}")
    desc = h.describe_topic(server, dst)["partitions"]
    if any(p["last_stable_offset"] != p["high_watermark"] for p in desc):
        raise h.BenchError("streaming write: transactions left open on the output topic")
    batches = len([n for n in os.listdir(checkpoint / "commits") if n.isdigit()])
    written = spark.read.format("sluice").option("url", url).option("topic", dst).load().count()
    if written != records:
        raise h.BenchError(f"streaming write: {written} records written of {records}")
    return {
        "seconds": round(seconds, 3),
        "records_per_s": round(records / seconds),
        "micro_batches": batches,
    }


def _sink_only(
    spark: Any, server: h.ServerProcess, dst: str, records: int, checkpoint: Path, wire: str
) -> Json:
    """Rows made by Spark itself (``rate-micro-batch``, 256-byte values) into the sink, in
    micro-batches of ``PER_TRIGGER``: the sink's own rate, from the batches' execution times."""
    from pyspark.sql import functions as F

    batches = max(1, records // PER_TRIGGER)
    value = F.concat(F.lpad(F.col("value").cast("string"), 12, "0"), F.lit("x" * 244))
    q = (
        spark.readStream.format("rate-micro-batch")
        .option("rowsPerBatch", PER_TRIGGER)
        .option("numPartitions", PARTITIONS)
        .load()
        .select(value.cast("binary").alias("value"))
        .writeStream.format("sluice")
        .option("url", server.base_url)
        .option("topic", dst)
        .option("wire", wire)
        .option("checkpointLocation", str(checkpoint))
        .trigger(processingTime="0 seconds")
        .start()
    )
    try:
        deadline = time.monotonic() + 600
        while len([p for p in q.recentProgress if p["numInputRows"]]) < batches:
            if q.exception() is not None:
                raise h.BenchError(f"sink: {q.exception()}")
            if time.monotonic() > deadline:
                raise h.BenchError("sink: no progress")
            time.sleep(0.2)
    finally:
        q.stop()
    done = [p for p in q.recentProgress if p["numInputRows"]][:batches]
    seconds = sum(p["durationMs"]["triggerExecution"] for p in done) / 1000
    committed = len([n for n in os.listdir(checkpoint / "commits") if n.isdigit()])
    written = (
        spark.read.format("sluice")
        .option("url", server.base_url)
        .option("topic", dst)
        .load()
        .count()
    )
    if written != committed * PER_TRIGGER:
        raise h.BenchError(f"sink: {written} records for {committed} micro-batches")
    n = batches * PER_TRIGGER
    return {
        "seconds": round(seconds, 3),
        "records_per_s": round(n / seconds),
        "micro_batches": batches,
    }


def one_run(args: argparse.Namespace, spark: Any, run: int) -> Json:
    with h.Workdir("spark", args.tmp, args.keep) as wd, u._server(args, wd) as server:
        server.wait_ready()
        for name in ("warmup", "input", "sink", "output"):
            h.create_topic(server, name, PARTITIONS)
        u._fill(server, args, "input", args.records)
        httpx.post(
            f"{server.base_url}/v1/topics/warmup/records",
            json={"records": [{"value": "w"}] * 100},
            timeout=30,
        ).raise_for_status()
        _batch_read(spark, server.base_url, "warmup", 100, value_bytes=1)
        assert server.proc is not None
        with h.RssSampler(server) as rss, TreePss(server.proc.pid) as pss:
            read = _batch_read(spark, server.base_url, "input", args.records)
            h.log(f"  run {run}: batch read {read['records_per_s']:,} records/s")
            sink = _sink_only(spark, server, "sink", args.records, wd.path / "ck-sink", args.wire)
            h.log(f"  run {run}: streaming write {sink['records_per_s']:,} records/s")
            write = _topic_to_topic(
                spark, server, "input", "output", args.records, wd.path / "ck", args.wire
            )
            h.log(f"  run {run}: topic to topic {write['records_per_s']:,} records/s")
        server.stop()
    return {
        "batch_read": read,
        "stream_write": sink,
        "topic_to_topic": write,
        "spark_pss_peak_bytes": pss.peak,
        "spark_processes_at_peak": pss.peak_processes,
        "server_rss_peak_bytes": rss.peak * 1024,
    }


def summarise(runs: list[Json]) -> Json:
    s: Json = {
        "batch_read_records_per_s": h.spread([r["batch_read"]["records_per_s"] for r in runs]),
        "stream_write_records_per_s": h.spread([r["stream_write"]["records_per_s"] for r in runs]),
        "topic_to_topic_records_per_s": h.spread(
            [r["topic_to_topic"]["records_per_s"] for r in runs]
        ),
        "spark_pss_peak_gib": h.spread([round(r["spark_pss_peak_bytes"] / GiB, 2) for r in runs]),
        "server_rss_peak_mib": h.spread([round(r["server_rss_peak_bytes"] / 2**20) for r in runs]),
    }
    s["targets"] = [
        h.target("batch read, local[2]", s["batch_read_records_per_s"], 200_000, "records/s"),
        h.target(
            "streaming write, transactional sink",
            s["stream_write_records_per_s"],
            100_000,
            "records/s",
        ),
        h.target(
            "peak PSS of Spark's processes",
            s["spark_pss_peak_gib"],
            2.0,
            "GiB",
            higher_is_better=False,
        ),
    ]
    return s


def run(args: argparse.Namespace) -> Json:
    if shutil.which("java") is None:
        raise h.BenchError("Spark needs Java 17 on the PATH")
    if args.quick:
        args.runs = 1
        args.records = min(args.records, 20_000)
    spark = _session()
    busy: list[float] = []
    runs: list[Json] = []
    try:
        for i in h.iter_runs(args, busy):
            h.log(f"[spark] run {i}/{args.runs}")
            runs.append(one_run(args, spark, i))
    finally:
        spark.stop()
    summary = summarise(runs)
    summary["other_busy_cores_before_runs"] = busy
    params = {k: v for k, v in vars(args).items() if k not in ("out", "tmp", "keep")}
    params |= {"fsync": "always", "partitions": PARTITIONS, "value_bytes": VALUE_BYTES}
    path = h.write_result(NAME, params, {"summary": summary, "raw": runs}, args.out)
    h.print_targets(f"spark ({path})", summary["targets"])
    return summary


def add_args(parser: argparse.ArgumentParser) -> None:
    from sluice_spark.options import DEFAULT_WIRE, WIRES

    h.add_common_args(parser)
    parser.add_argument("--records", type=int, default=1_000_000)
    parser.add_argument("--max-seconds", type=float, default=600.0)
    parser.add_argument(
        "--wire",
        choices=WIRES,
        default=DEFAULT_WIRE,
        help=f"how the sink sends records (default {DEFAULT_WIRE}, the sink's own)",
    )


def main(argv: list[str] | None = None) -> int:
    return h.run_main(NAME, __doc__, add_args, run, argv)


if __name__ == "__main__":
    sys.exit(main())
