"""Reading a topic by offsets: the batch reader and the offset stream reader.

A read is planned on the driver (the partitions' bounds, once) and runs in tasks, one per
partition range, each paging the server and yielding one Arrow batch per answer. A batch
DataFrame is a snapshot: its ranges are fixed when it is planned.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from pyspark.sql.datasource import DataSourceReader, DataSourceStreamReader, InputPartition
from pyspark.sql.streaming.datasource import (
    ReadAllAvailable,
    ReadLimit,
    ReadMaxRows,
    SupportsTriggerAvailableNow,
)
from sluice.errors import OffsetOutOfRangeError, UnknownTopicOrPartitionError

from sluice_spark import offsets
from sluice_spark._http import Connection
from sluice_spark.offsets import Bounds, Range
from sluice_spark.options import OptionError, Options
from sluice_spark.rows import columns_batch

if TYPE_CHECKING:
    import pyarrow as pa


class DataLossError(RuntimeError):
    """Records a read was planned to return are gone (retention, a deleted topic) and
    ``failOnDataLoss`` is true."""


class RangePartition(InputPartition):
    def __init__(self, r: Range) -> None:
        super().__init__(r)
        self.range = r


def topic_path(topic: str) -> str:
    return f"/v1/topics/{quote(topic, safe='')}"


def bounds_of(conn: Connection, opts: Options) -> dict[int, Bounds]:
    """Every partition of the topic the options select, with its offsets."""
    desc = conn.get(topic_path(opts.topic))
    out = {
        p["partition"]: Bounds(p["log_start_offset"], p["high_watermark"], p["last_stable_offset"])
        for p in desc["partitions"]
    }
    if opts.partitions is not None:
        missing = [p for p in opts.partitions if p not in out]
        if missing:
            raise OptionError(
                f"option partitions: topic {opts.topic!r} has no partition {missing} "
                f"(it has {len(out)})"
            )
        out = {p: out[p] for p in opts.partitions}
    return out


def by_timestamp(
    conn: Connection, opts: Options, bounds: Mapping[int, Bounds], ms: int
) -> dict[int, int]:
    """Each partition's first offset whose timestamp is at least ``ms``; its end if none."""
    out = {}
    for p, b in bounds.items():
        got = conn.get(
            f"{topic_path(opts.topic)}/partitions/{p}/offsets",
            at=str(ms),
            isolation_level=opts.isolation_level,
        )
        out[p] = got["offset"] if got["offset"] >= 0 else b.end(opts.isolation_level)
    return out


def starting_offsets(
    conn: Connection, opts: Options, bounds: Mapping[int, Bounds]
) -> dict[int, int]:
    """Where a read starts in each partition: ``startingTimestamp``, else ``startingOffsets``."""
    if opts.starting_timestamp is not None:
        return by_timestamp(conn, opts, bounds, opts.starting_timestamp)
    spec = offsets.parse_spec(opts.starting_offsets, opts.topic, "startingOffsets")
    return offsets.resolve(spec, bounds, opts.isolation_level, default="earliest")


def read_range(opts: Options, r: Range) -> Iterator[pa.RecordBatch]:
    """The records of ``r``, one Arrow batch per answer of the server."""
    with Connection(opts) as conn:
        base = f"{topic_path(r.topic)}/partitions/{r.partition}"
        path = f"{base}/records"
        offset = r.start
        while offset < r.end:
            try:
                body = conn.get_bytes(
                    path,
                    offset=offset,
                    max_records=min(opts.fetch_max_records, r.end - offset),
                    max_bytes=opts.fetch_max_bytes,
                    isolation_level=opts.isolation_level,
                    format="columns",
                )
            except (OffsetOutOfRangeError, UnknownTopicOrPartitionError) as exc:
                if opts.fail_on_data_loss and not r.from_log_start:
                    raise DataLossError(
                        f"{r.topic}/{r.partition}: offsets from {offset} to {r.end} are no "
                        f"longer there ({exc}); set failOnDataLoss=false to skip them"
                    ) from exc
                if isinstance(exc, UnknownTopicOrPartitionError):
                    return
                start = conn.get(f"{base}/offsets", at="earliest")["offset"]
                if start <= offset:
                    return  # beyond the end: nothing left of this range
                offset = start
                continue
            got, batch = columns_batch(body, r.topic, r.partition, r.end)
            if batch is not None:
                yield batch
            nxt = got["next_offset"]
            if nxt <= offset:
                if opts.fail_on_data_loss and offset < r.end:
                    raise DataLossError(
                        f"{r.topic}/{r.partition}: the read stopped at {offset}, before the "
                        f"planned end {r.end} (high watermark {got['high_watermark']}); set "
                        "failOnDataLoss=false to accept it"
                    )
                return
            offset = nxt


class BatchReader(DataSourceReader):
    def __init__(self, opts: Options) -> None:
        self.opts = opts

    def partitions(self) -> list[RangePartition]:
        opts = self.opts
        with Connection(opts) as conn:
            bounds = bounds_of(conn, opts)
            start = starting_offsets(conn, opts, bounds)
            if opts.ending_timestamp is not None:
                end = by_timestamp(conn, opts, bounds, opts.ending_timestamp)
            else:
                spec = offsets.parse_spec(opts.ending_offsets, opts.topic, "endingOffsets")
                if spec == "earliest":
                    raise OptionError("option endingOffsets: earliest is not allowed")
                end = offsets.resolve(spec, bounds, opts.isolation_level, default="latest")
        for p, b in bounds.items():
            top = b.end(opts.isolation_level)
            if not b.log_start <= start[p] <= end[p] <= top:
                raise OptionError(
                    f"partition {p} of {opts.topic!r}: the offsets to read, {start[p]} to "
                    f"{end[p]}, are not within what it holds, {b.log_start} to {top} "
                    f"({opts.isolation_level}); check startingOffsets and endingOffsets"
                )
        ranges = offsets.split(opts.topic, start, end, opts.max_records_per_partition)
        return [RangePartition(r) for r in ranges]

    def read(self, partition: InputPartition) -> Iterator[pa.RecordBatch]:
        assert isinstance(partition, RangePartition)
        return read_range(self.opts, partition.range)


class OffsetStreamReader(DataSourceStreamReader, SupportsTriggerAvailableNow):
    """A stream by offsets: replayable, so exactly-once with the transactional sink. Offsets
    are checkpointed as ``{"<topic>": {"<partition>": <next offset>}}``."""

    def __init__(self, opts: Options) -> None:
        self.opts = opts
        self._target: dict[int, int] | None = None  # availableNow: the end fixed at start
        self.conn = Connection(opts)  # connects on first use

    def _latest(self) -> tuple[dict[int, int], dict[int, Bounds]]:
        bounds = bounds_of(self.conn, self.opts)
        return {p: b.end(self.opts.isolation_level) for p, b in bounds.items()}, bounds

    def initialOffset(self) -> dict[str, Any]:
        bounds = bounds_of(self.conn, self.opts)
        return offsets.to_json(self.opts.topic, starting_offsets(self.conn, self.opts, bounds))

    def getDefaultReadLimit(self) -> ReadLimit:
        if self.opts.max_records_per_trigger is not None:
            return ReadMaxRows(self.opts.max_records_per_trigger)
        return ReadAllAvailable()

    def prepareForTriggerAvailableNow(self) -> None:
        self._target, _ = self._latest()

    def latestOffset(self, start: dict[str, Any], limit: ReadLimit) -> dict[str, Any]:
        begin = offsets.from_json(start, self.opts.topic)
        latest, bounds = self._latest()
        if self._target is not None:
            latest = {p: min(o, self._target.get(p, 0)) for p, o in latest.items()}
        for p, o in list(begin.items()):
            b = bounds.get(p)
            if b is None or o > b.high_watermark or o < b.log_start:
                self._data_loss(p, o, b)  # raises unless failOnDataLoss is false
                if b is not None:
                    begin[p] = b.log_start  # go on from what is there
        # a partition added since the stream started is read from its beginning
        begin = {p: begin.get(p, bounds[p].log_start) for p in latest}
        latest = {p: max(o, begin[p]) for p, o in latest.items()}
        if isinstance(limit, ReadMaxRows):
            latest = offsets.limit(begin, latest, limit.max_rows)
        return offsets.to_json(self.opts.topic, latest)

    def _data_loss(self, p: int, o: int, b: Bounds | None) -> None:
        what = (
            f"partition {p} is gone"
            if b is None
            else f"offset {o} is outside [{b.log_start}, {b.high_watermark}]"
        )
        if self.opts.fail_on_data_loss:
            raise DataLossError(
                f"{self.opts.topic}: {what} (retention, or the topic was deleted and created "
                "again); set failOnDataLoss=false to go on from what is there"
            )

    def partitions(self, start: dict[str, Any], end: dict[str, Any]) -> list[RangePartition]:
        topic = self.opts.topic
        lo, hi = offsets.from_json(start, topic), offsets.from_json(end, topic)
        ranges = offsets.split(topic, lo, hi, self.opts.max_records_per_partition)
        return [RangePartition(r) for r in ranges]

    def read(self, partition: InputPartition) -> Iterator[pa.RecordBatch]:
        assert isinstance(partition, RangePartition)
        return read_range(self.opts, partition.range)

    def commit(self, end: dict[str, Any]) -> None:
        """Progress lives in Spark's checkpoint; nothing to tell the server."""

    def stop(self) -> None:
        self.conn.close()
