"""The transactional sink: every write task in its own transaction, the driver commits them all
at once.

- A task (``write``) opens a transaction under ``<prefix>-<task partition>``: a retried attempt
  takes the same transactional id and so fences the attempt before it, whose open transaction
  the server aborts. It produces in flushes of ``produceBatchRecords`` records with the
  idempotent producer's sequences (a request sent again after a lost answer is stored once):
  on the ``batches`` wire one transactional record batch per partition, each in its own
  request and the partitions' requests at once; on the ``json`` wire one ``POST /v1/produce``
  for them all. It aborts its own transaction if it fails, and returns what the driver needs
  to commit it.
- The driver (``commit``) commits every task's transaction in one request, atomically and
  durably. A stream's micro-batch is committed under the key ``<queryId>:<batchId>``: a batch
  Spark runs again after the server committed it (the driver died before Spark's commit log)
  is recognised, and its new transactions are aborted instead. A batch job may pass its own
  key as ``writeId``.
- ``abort`` aborts what the tasks reported, then every transaction still open under the
  write's prefix (an attempt that was killed, or lost to another, reports nothing). The prefix
  is chosen on the driver, one per batch job or per run of a stream, so the abort knows it even
  when no task reported at all.

The server aborts a transaction left open longer than ``transactionTimeoutMs`` (a task killed
with its executor), and fences the attempt that opened it.
"""

from __future__ import annotations

import contextlib
import logging
import uuid
from binascii import b2a_base64
from bisect import bisect_left
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from itertools import accumulate, repeat
from typing import TYPE_CHECKING, Any

from pyspark import TaskContext
from pyspark.sql.datasource import (
    DataSourceArrowWriter,
    DataSourceStreamArrowWriter,
    WriterCommitMessage,
)
from sluice._codec import MEDIA_TYPE, encode_batch
from sluice._partitioner import partition_for_key
from sluice.errors import (
    InvalidProducerEpochError,
    InvalidProducerIdMappingError,
    InvalidTxnStateError,
    ProducerFencedError,
    TooLargeError,
    TransactionTimedOutError,
    raise_first,
)

from sluice_spark._http import Connection
from sluice_spark.options import OptionError, Options
from sluice_spark.reader import topic_path

if TYPE_CHECKING:
    import pyarrow as pa

log = logging.getLogger("sluice_spark")

# the answers of an abort that leave nothing to abort: committed, or ended by someone else
_ALREADY_ENDED = (
    InvalidTxnStateError,
    ProducerFencedError,
    InvalidProducerEpochError,
    TransactionTimedOutError,
    InvalidProducerIdMappingError,
)
_COLUMNS = {"key", "value", "headers", "partition", "topic"}
# a produce request is sent at this size at the latest (the server takes 16 MiB by default)
MAX_REQUEST_BYTES = 8 * 1024 * 1024
# the requests of one flush that are in flight at once (one per partition written)
MAX_CONCURRENT_REQUESTS = 4
_NO_HEADERS: list[tuple[str, bytes | None]] = []  # shared by every record without headers
_RECORD_OVERHEAD = 64  # what a record counts towards a request's size besides its bytes


class InjectedFailure(RuntimeError):
    """Raised by the test options ``_failPartition``/``_failAttempts``/``_failAfterCommit``."""


@dataclass(frozen=True, slots=True)
class TxnMessage(WriterCommitMessage):
    """What one task wrote: its transaction (None if it wrote nothing)."""

    transactional_id: str | None
    producer_id: int
    producer_epoch: int
    query_id: str | None = None


def check_schema(schema: Any) -> str:
    """The DataFrame written must have a ``value`` column; the others are optional; each of a
    type the sink can write. Answers the encoding its json requests take: base64 when a key,
    value or header value is binary, else utf8."""
    from pyspark.sql import types as T

    fields = {f.name.lower(): f.dataType for f in schema.fields}
    if "value" not in fields:
        raise OptionError(
            "the DataFrame written to sluice needs a value column (string or binary); key, "
            f"headers, partition and topic are optional (it has {sorted(fields)})"
        )
    unknown = set(fields) - _COLUMNS
    if unknown:
        raise OptionError(
            f"the DataFrame written to sluice has columns it cannot write: {sorted(unknown)} "
            f"(known: {sorted(_COLUMNS)}); select or rename them first"
        )
    text = (T.StringType, T.BinaryType)

    def headers_ok(t: Any) -> bool:
        entry = t.elementType if isinstance(t, T.ArrayType) else None
        return (
            isinstance(entry, T.StructType)
            and [f.name for f in entry.fields] == ["key", "value"]
            and isinstance(entry.fields[0].dataType, T.StringType)
            and isinstance(entry.fields[1].dataType, text)
        )

    checks: dict[str, tuple[str, bool]] = {
        "value": ("string or binary", isinstance(fields["value"], text)),
        "key": ("string or binary", isinstance(fields.get("key"), text)),
        "partition": ("int", isinstance(fields.get("partition"), T.IntegerType)),
        "topic": ("string", isinstance(fields.get("topic"), T.StringType)),
        "headers": (
            "array<struct<key: string, value: string or binary>>",
            headers_ok(fields.get("headers")),
        ),
    }
    for name, kind in fields.items():
        what, ok = checks[name]
        if not ok:
            raise OptionError(
                f"column {name} is {kind.simpleString()}: the sink writes {what} "
                f"(cast or select it first)"
            )
    binary = [fields.get("key"), fields["value"]]
    headers = fields.get("headers")
    if isinstance(headers, T.ArrayType) and isinstance(headers.elementType, T.StructType):
        binary.append(headers.elementType.fields[1].dataType)
    return "base64" if any(isinstance(t, T.BinaryType) for t in binary) else "utf8"


class _Task:
    """One write task's transaction and its buffered requests."""

    def __init__(
        self, opts: Options, transactional_id: str, partition_id: int, encoding: str
    ) -> None:
        self.opts = opts
        self.tid = transactional_id
        self.encoding = encoding  # chosen on the driver from the DataFrame's types
        self.conn = Connection(opts)
        self.producer: tuple[int, int] | None = None
        self.sequences: dict[tuple[str, int], int] = {}
        self.partition_counts: dict[str, int] = {}
        # records waiting per (topic, partition): dicts (json) or tuples (batches)
        self.pending: dict[tuple[str, int], list[Any]] = {}
        self.pending_count = 0
        self.pending_bytes = 0
        self.rotation = partition_id
        self._pool: ThreadPoolExecutor | None = None

    def begin(self) -> tuple[int, int]:
        if self.producer is None:
            got = self.conn.post(
                "/v1/producers",
                {
                    "transactional_id": self.tid,
                    "transaction_timeout_ms": self.opts.transaction_timeout_ms,
                },
            )
            self.producer = (got["producer_id"], got["producer_epoch"])
        return self.producer

    def partitions_of(self, topic: str) -> int:
        n = self.partition_counts.get(topic)
        if n is None:
            n = len(self.conn.get(topic_path(topic))["partitions"])
            self.partition_counts[topic] = n
        return n

    def add(self, batch: pa.RecordBatch) -> None:
        if batch.num_rows == 0:
            return
        cols = {name.lower(): batch.column(i) for i, name in enumerate(batch.schema.names)}
        if self.opts.wire == "batches":
            self._add_raw(cols)
            return
        b64 = self.encoding == "base64"
        values = cols["value"].to_pylist()
        keys = cols["key"].to_pylist() if "key" in cols else None
        headers = cols["headers"].to_pylist() if "headers" in cols else None
        parts = cols["partition"].to_pylist() if "partition" in cols else None
        topics = cols["topic"].to_pylist() if "topic" in cols else None
        default_topic = self.opts.topic
        n_default = self.partitions_of(default_topic) if default_topic else 0
        sticky = self.rotation % n_default if n_default else 0
        self.rotation += 1
        for i, v in enumerate(values):
            rec: dict[str, Any] = {"value": _text(v, b64)}
            k = keys[i] if keys is not None else None
            if k is not None:
                rec["key"] = _text(k, b64)
            if headers is not None and headers[i]:
                rec["headers"] = [
                    {"key": h["key"], "value": _text(h["value"], b64)} for h in headers[i]
                ]
            topic = (topics[i] if topics is not None else None) or default_topic
            if not topic:
                raise OptionError("a row has no topic: set the topic option or a topic column")
            n = n_default if topic == default_topic else self.partitions_of(topic)
            p = parts[i] if parts is not None else None
            if p is None:
                if k is not None:
                    p = partition_for_key(k.encode() if isinstance(k, str) else k, n)
                else:
                    p = sticky if topic == default_topic else self.rotation % n
            key = (topic, p)
            got = self.pending.get(key)
            if got is None:
                self.pending[key] = [rec]
            else:
                got.append(rec)
            self.pending_count += 1
            self.pending_bytes += (
                len(rec["value"] or "") + len(rec.get("key") or "") + _RECORD_OVERHEAD
            )
            if (
                self.pending_count >= self.opts.produce_batch_records
                or self.pending_bytes >= MAX_REQUEST_BYTES
            ):
                self.flush()

    def _add_raw(self, cols: dict[str, pa.Array]) -> None:
        """``add`` for the batches wire: records as record batches take them, (timestamp,
        key, value, headers) with bytes straight from Arrow (text as its UTF-8)."""
        import pyarrow as pa
        import pyarrow.compute as pc

        values = _binary(cols["value"]).to_pylist()
        keys = _binary(cols["key"]).to_pylist() if "key" in cols else None
        # what each record counts towards MAX_REQUEST_BYTES, as on the json wire
        lengths = pc.add(_arrow_lengths(cols["value"]), _RECORD_OVERHEAD)
        if "key" in cols:
            lengths = pc.add(lengths, _arrow_lengths(cols["key"]))
        headers = None
        if "headers" in cols:
            headers, header_sizes = _header_pairs(cols["headers"])
            lengths = pc.add(lengths, pa.array(header_sizes, pa.int64()))
        sizes: list[int] = lengths.to_pylist()
        records = list(
            zip(
                repeat(None),
                repeat(None) if keys is None else keys,
                values,
                repeat(_NO_HEADERS) if headers is None else headers,
            )
        )
        parts = cols["partition"].to_pylist() if "partition" in cols else None
        topics = cols["topic"].to_pylist() if "topic" in cols else None
        default_topic = self.opts.topic
        n_default = self.partitions_of(default_topic) if default_topic else 0
        sticky = self.rotation % n_default if n_default else 0
        self.rotation += 1
        if keys is None and parts is None and topics is None:
            # every row to this batch's partition of the topic: queued in runs
            if not default_topic:
                raise OptionError("a row has no topic: set the topic option or a topic column")
            self._queue_run((default_topic, sticky), records, sizes)
            return
        limit = self.opts.produce_batch_records
        for i, rec in enumerate(records):
            topic = (topics[i] if topics is not None else None) or default_topic
            if not topic:
                raise OptionError("a row has no topic: set the topic option or a topic column")
            p = parts[i] if parts is not None else None
            if p is None:
                n = n_default if topic == default_topic else self.partitions_of(topic)
                k = keys[i] if keys is not None else None
                if k is not None:
                    p = partition_for_key(k, n)
                else:
                    p = sticky if topic == default_topic else self.rotation % n
            key = (topic, p)
            got = self.pending.get(key)
            if got is None:
                self.pending[key] = [rec]
            else:
                got.append(rec)
            self.pending_count += 1
            self.pending_bytes += sizes[i]
            if self.pending_count >= limit or self.pending_bytes >= MAX_REQUEST_BYTES:
                self.flush()

    def _queue_run(self, key: tuple[str, int], records: list[Any], sizes: list[int]) -> None:
        """Queue ``records`` for one partition, flushing where adding them one by one would."""
        limit = self.opts.produce_batch_records
        ends = list(accumulate(sizes))  # bytes up to and including each record
        i, n = 0, len(records)
        while i < n:
            before = ends[i - 1] if i else 0
            # the record that reaches the byte limit, or the count limit, is the run's last
            over = bisect_left(ends, MAX_REQUEST_BYTES - self.pending_bytes + before, i)
            last = min(n - 1, i + limit - self.pending_count - 1, over)
            self.pending.setdefault(key, []).extend(records[i : last + 1])
            self.pending_count += last + 1 - i
            self.pending_bytes += ends[last] - before
            if self.pending_count >= limit or self.pending_bytes >= MAX_REQUEST_BYTES:
                self.flush()
            i = last + 1

    def flush(self) -> None:
        if not self.pending:
            return
        producer_id, epoch = self.begin()
        if self.opts.wire == "batches":
            self._flush_batches(producer_id, epoch)
        else:
            self._flush_json(producer_id, epoch)
        self.pending = {}
        self.pending_count = 0
        self.pending_bytes = 0

    def _flush_batches(self, producer_id: int, epoch: int) -> None:
        """One transactional record batch per partition, each in its own request (the
        partition joins the transaction), the partitions' requests at once: each is sent as
        soon as it is encoded. Every request sent is answered before the first error is
        raised, so that none is still in flight when the task aborts."""
        params = {"transactional_id": self.tid}
        pool = None
        if len(self.pending) > 1:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(
                    MAX_CONCURRENT_REQUESTS, thread_name_prefix="sluice-sink"
                )
            pool = self._pool
            _ = self.conn.client  # made here, before the threads share it
        sent: list[Future[Any]] = []
        errors: list[BaseException] = []
        try:
            for (topic, p), records in self.pending.items():
                seq = self.sequences.get((topic, p), 0)
                data = encode_batch(
                    records,
                    producer_id=producer_id,
                    producer_epoch=epoch,
                    base_sequence=seq,
                    transactional=True,
                )
                self.sequences[(topic, p)] = seq + len(records)
                path = f"{topic_path(topic)}/partitions/{p}/batches"
                if pool is None:
                    raise_first(
                        self.conn.post_bytes(path, data, MEDIA_TYPE, params=params)["batches"]
                    )
                else:
                    sent.append(
                        pool.submit(self.conn.post_bytes, path, data, MEDIA_TYPE, params=params)
                    )
        except BaseException as exc:
            errors.append(exc)
        for future in sent:
            try:
                raise_first(future.result()["batches"])
            except Exception as exc:
                errors.append(exc)
        if errors:
            raise errors[0]

    def _flush_json(self, producer_id: int, epoch: int) -> None:
        batches = []
        for (topic, p), records in self.pending.items():
            seq = self.sequences.get((topic, p), 0)
            batches.append(
                {"topic": topic, "partition": p, "base_sequence": seq, "records": records}
            )
            self.sequences[(topic, p)] = seq + len(records)
        got = self.conn.post(
            "/v1/produce",
            {
                "producer_id": producer_id,
                "producer_epoch": epoch,
                "transactional_id": self.tid,
                "encoding": self.encoding,
                "batches": batches,
            },
        )
        raise_first(got["batches"])

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown()
            self._pool = None
        self.conn.close()

    def abort(self) -> None:
        if self.producer is None:
            return
        try:
            abort_one(self.conn, self.tid, *self.producer)
        except Exception as exc:  # the server's timeout ends it otherwise
            log.warning("could not abort %s after a failed write: %s", self.tid, exc)

    def message(self, query_id: str | None) -> TxnMessage:
        if self.producer is None:
            return TxnMessage(None, -1, -1, query_id)
        return TxnMessage(self.tid, *self.producer, query_id)


def _binary(column: pa.Array) -> pa.Array:
    """A string or binary column as binary (text as its UTF-8 bytes, without a copy)."""
    import pyarrow as pa

    return column.cast(pa.binary()) if pa.types.is_string(column.type) else column


def _arrow_lengths(column: pa.Array) -> pa.Array:
    """Bytes of each row of a string or binary column (0 for null)."""
    import pyarrow.compute as pc

    return pc.binary_length(column).fill_null(0)


def _header_pairs(column: pa.Array) -> tuple[list[list[tuple[str, bytes | None]]], list[int]]:
    """Each row's headers as (key, value bytes) pairs, and their bytes per row (16 more a
    header for its framing)."""
    import pyarrow.compute as pc

    counts = pc.list_value_length(column).fill_null(0).to_pylist()  # a null row: none
    h_keys, h_values = column.flatten().flatten()  # every row's headers, one after the other
    if h_keys.null_count:
        raise OptionError(
            "a header is null or has a null key: every header of the headers column needs a key"
        )
    h_values = _binary(h_values)
    pairs = list(zip(h_keys.to_pylist(), h_values.to_pylist(), strict=True))
    ends = [0, *accumulate(pc.add(_arrow_lengths(h_keys), _arrow_lengths(h_values)).to_pylist())]
    rows: list[list[tuple[str, bytes | None]]] = []
    row_sizes: list[int] = []
    lo = 0
    for n in counts:
        if n:
            hi = lo + n
            rows.append(pairs[lo:hi])
            row_sizes.append(ends[hi] - ends[lo] + 16 * n)
            lo = hi
        else:
            rows.append(_NO_HEADERS)
            row_sizes.append(0)
    return rows, row_sizes


def _text(v: Any, b64: bool) -> Any:
    if v is None:
        return None
    if b64:
        return b2a_base64(v.encode() if isinstance(v, str) else v, newline=False).decode("ascii")
    return v


def write_task(
    opts: Options,
    prefix: str,
    encoding: str,
    batches: Iterator[pa.RecordBatch],
    query_id: str | None = None,
) -> TxnMessage:
    ctx = TaskContext.get()
    partition_id = ctx.partitionId() if ctx is not None else 0
    attempt = ctx.attemptNumber() if ctx is not None else 0
    task = _Task(opts, f"{prefix}-{partition_id}", partition_id, encoding)
    try:
        for batch in batches:
            task.add(batch)
        task.flush()
        if opts.fail_partition == partition_id and attempt < opts.fail_attempts:
            raise InjectedFailure(
                f"_failPartition: task {partition_id} attempt {attempt} fails after writing"
            )
    except BaseException:
        task.abort()
        raise
    finally:
        task.close()
    return task.message(query_id)


def abort_one(conn: Connection, tid: str, producer_id: int, epoch: int) -> None:
    with contextlib.suppress(*_ALREADY_ENDED):  # committed, or ended by someone else
        conn.post(
            f"/v1/transactions/{tid}/abort", {"producer_id": producer_id, "producer_epoch": epoch}
        )


def commit_all(opts: Options, messages: list[WriterCommitMessage | None], key: str | None) -> bool:
    """Commit every task's transaction atomically; True if ``key`` was already committed (the
    transactions of this call were then aborted)."""
    txns = [m for m in messages if isinstance(m, TxnMessage) and m.transactional_id is not None]
    if not txns:
        return False
    body: dict[str, Any] = {
        "transactions": [
            {
                "transactional_id": m.transactional_id,
                "producer_id": m.producer_id,
                "producer_epoch": m.producer_epoch,
            }
            for m in txns
        ]
    }
    if key is not None:
        body["idempotency_key"] = key
    with Connection(opts) as conn:
        try:
            got = conn.post("/v1/transactions:commit-all", body)
        except TooLargeError as exc:
            raise TooLargeError(
                f"{exc.message}: {len(txns)} write tasks are more transactions than the server "
                "commits at once (SLUICE_TXN_COMMIT_ALL_MAX); write fewer partitions, e.g. "
                "df.coalesce(n)",
                status=exc.http_status,
            ) from exc
    return bool(got.get("duplicate"))


def abort_all(
    opts: Options, messages: list[WriterCommitMessage | None], prefix: str | None
) -> None:
    """Abort what the tasks reported (a committed one is skipped), then whatever is still open
    under ``prefix``."""
    with Connection(opts) as conn:
        for m in messages:
            if isinstance(m, TxnMessage) and m.transactional_id is not None:
                try:
                    abort_one(conn, m.transactional_id, m.producer_id, m.producer_epoch)
                except Exception as exc:
                    log.warning("could not abort %s: %s", m.transactional_id, exc)
        if prefix is not None:
            conn.post("/v1/transactions:abort-prefix", {"prefix": f"{prefix}-"})


def _committed(opts: Options, duplicate: bool, what: str) -> None:
    """After the driver's commit: say when ``what`` had been committed before, and fail on
    purpose when a test asks for it (``_failAfterCommit``)."""
    if duplicate:
        log.warning(
            "%s was committed before (by an earlier run, or by this one if the answer to its "
            "commit was lost): nothing was written twice",
            what,
        )
    if opts.fail_after_commit:
        raise InjectedFailure("_failAfterCommit: the driver fails after the commit")


def _query_id(messages: list[WriterCommitMessage | None]) -> str | None:
    """The streaming query the tasks' messages name (None if none does)."""
    ids = {m.query_id for m in messages if isinstance(m, TxnMessage) and m.query_id}
    if len(ids) > 1:
        raise RuntimeError(f"one micro-batch from several queries: {sorted(ids)}")
    return next(iter(ids), None)


class BatchWriter(DataSourceArrowWriter):
    """``df.write.format("sluice").mode("append")``: all of the job's records, or none."""

    def __init__(self, opts: Options, encoding: str) -> None:
        self.opts = opts
        self.encoding = encoding
        # one prefix per job, chosen on the driver and pickled to every task
        self.prefix = f"{opts.transactional_id_prefix}-{uuid.uuid4().hex[:16]}"

    def write(self, iterator: Iterator[pa.RecordBatch]) -> TxnMessage:
        return write_task(self.opts, self.prefix, self.encoding, iterator)

    def commit(self, messages: list[WriterCommitMessage | None]) -> None:
        duplicate = commit_all(self.opts, messages, self.opts.write_id)
        _committed(self.opts, duplicate, f"writeId {self.opts.write_id!r}")

    def abort(self, messages: list[WriterCommitMessage | None]) -> None:
        abort_all(self.opts, messages, self.prefix)


class StreamWriter(DataSourceStreamArrowWriter):
    """``writeStream.format("sluice")``: each micro-batch exactly once, keyed on
    ``<queryId>:<batchId>``."""

    def __init__(self, opts: Options, encoding: str) -> None:
        self.opts = opts
        self.encoding = encoding
        # one prefix per run of the query, chosen on the driver and pickled to every task: the
        # driver's abort knows it even when no task reported (all failed, or were still running)
        self.prefix = f"{opts.transactional_id_prefix}-{uuid.uuid4().hex[:16]}"

    def write(self, iterator: Iterator[pa.RecordBatch]) -> TxnMessage:
        ctx = TaskContext.get()
        query_id = ctx.getLocalProperty("sql.streaming.queryId") if ctx is not None else None
        if not query_id:
            raise RuntimeError("a stream write task without a streaming query id")
        return write_task(self.opts, self.prefix, self.encoding, iterator, query_id)

    def commit(self, messages: list[WriterCommitMessage | None], batchId: int) -> None:
        query_id = _query_id(messages)
        if query_id is None:
            return
        duplicate = commit_all(self.opts, messages, f"{query_id}:{batchId}")
        _committed(self.opts, duplicate, f"micro-batch {batchId} of query {query_id}")

    def abort(self, messages: list[WriterCommitMessage | None], batchId: int) -> None:
        abort_all(self.opts, messages, self.prefix)
