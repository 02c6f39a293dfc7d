"""The idempotent producer's bookkeeping, without I/O: records waiting per partition, the next
sequence of each partition, and the requests that send them: a record batch per partition
(``POST /v1/topics/{t}/partitions/{p}/batches``, the ``batches`` wire) or one
``POST /v1/produce`` for them all (the ``json`` wire).

A batch keeps its base sequence (and, encoded, its bytes) until it is answered, so a retry after
a lost answer sends the very same batch and the server answers its original offsets instead of
appending it again.
"""

from __future__ import annotations

import asyncio
from binascii import b2a_base64
from concurrent.futures import InvalidStateError
from dataclasses import dataclass
from typing import Any, NamedTuple, Protocol
from urllib.parse import quote

from sluice import _codec
from sluice._core import Call, Wire, as_object
from sluice.errors import SluiceError, error_from

Value = str | bytes | None
Headers = list[tuple[str, Value]] | dict[str, Value] | None


class RecordMetadata(NamedTuple):
    """Where a produced record was stored."""

    topic: str
    partition: int
    offset: int


def wire_record(
    value: Value, key: Value, headers: Headers, timestamp: int | None
) -> tuple[dict[str, Any], bool]:
    """A record as the wire takes it, and whether it is in base64: text goes as utf8, and a
    record with bytes anywhere goes in base64 (``Batches.body`` says so for the request when
    every record of it is, else for each such record)."""
    if key is None and headers is None and timestamp is None:  # the common case, quickly
        if isinstance(value, bytes):
            return {"value": b2a_base64(value, newline=False).decode("ascii")}, True
        return {"value": value}, False
    pairs = list(headers.items()) if isinstance(headers, dict) else list(headers or ())
    binary = (
        isinstance(value, bytes)
        or isinstance(key, bytes)
        or any(isinstance(v, bytes) for _, v in pairs)
    )

    def show(v: Value) -> str | None:
        if v is None:
            return None
        if not binary:
            return v  # type: ignore[return-value]
        raw = v if isinstance(v, bytes) else v.encode()
        return b2a_base64(raw, newline=False).decode("ascii")

    out: dict[str, Any] = {"value": show(value)}
    if key is not None:
        out["key"] = show(key)
    if pairs:
        out["headers"] = [{"key": k, "value": show(v)} for k, v in pairs]
    if timestamp is not None:
        out["timestamp"] = timestamp
    return out, binary


def _raw(v: Value) -> bytes | None:
    return v if isinstance(v, bytes) or v is None else v.encode()


def batch_record(
    value: Value, key: Value, headers: Headers, timestamp: int | None
) -> _codec.Record:
    """A record as a record batch takes it: bytes (text in UTF-8); without a timestamp, the
    batch's encoding stamps it (a few milliseconds after the send at most, the linger)."""
    if key is None and not headers:  # the common case, quickly
        return (timestamp, None, value if isinstance(value, bytes) else _raw(value), [])
    pairs = headers.items() if isinstance(headers, dict) else headers or ()
    return (timestamp, _raw(key), _raw(value), [(k, _raw(v)) for k, v in pairs])


def _json_of(record: _codec.Record) -> tuple[dict[str, Any], bool]:
    """A record prepared for a batch, as a JSON request takes it (in base64)."""
    timestamp, key, value, headers = record
    out: dict[str, Any] = {"value": None if value is None else _b64(value)}
    if key is not None:
        out["key"] = _b64(key)
    if headers:
        out["headers"] = [{"key": k, "value": None if v is None else _b64(v)} for k, v in headers]
    if timestamp is not None:
        out["timestamp"] = timestamp
    return out, True


def _b64(v: bytes) -> str:
    return b2a_base64(v, newline=False).decode("ascii")


# What POST /v1/produce answers for one batch of a request and not for the request: on the
# batches wire they come as the error of that batch's own request, and mean the same
PER_BATCH = frozenset(
    {
        "UNKNOWN_TOPIC_OR_PARTITION",
        "RECORD_TOO_LARGE",
        "OUT_OF_ORDER_SEQUENCE_NUMBER",
        "INVALID_PRODUCER_EPOCH",
        "INVALID_TXN_STATE",
    }
)


class Settle(Protocol):
    """Where a record's answer goes: an ``asyncio.Future`` or a ``concurrent.futures.Future``."""

    def done(self) -> bool: ...
    def set_result(self, result: RecordMetadata) -> None: ...
    def set_exception(self, exception: BaseException) -> None: ...


@dataclass(slots=True)
class _Batch:
    topic: str
    partition: int
    base_sequence: int
    records: list[Any]  # as ``Batches.prepare`` made them
    done: list[Settle | None]
    data: bytes | None = None  # encoded once: a retry sends these bytes


# one batch's outcome: its entry of the answer, or the error its request ended with
Outcome = dict[str, Any] | BaseException


class Batches:
    """Records by partition until sent; one request carries at most one batch per partition
    (``json``), or each batch goes in a request of its own (``batches``)."""

    def __init__(self, max_batch: int, wire: Wire = "batches") -> None:
        self.max_batch = max_batch
        self.wire = wire
        self.waiting: dict[tuple[str, int], list[tuple[Any, Settle | None]]] = {}
        self.count = 0
        self.sequences: dict[tuple[str, int], int] = {}

    def prepare(self, value: Value, key: Value, headers: Headers, timestamp: int | None) -> Any:
        """A record as this wire carries it, made by the caller of ``send``."""
        if self.wire == "batches":
            return batch_record(value, key, headers, timestamp)
        return wire_record(value, key, headers, timestamp)

    def add(self, topic: str, partition: int, record: Any, done: Settle | None) -> bool:
        """Queue a record (as ``prepare`` answers it); True when a request should go now
        (``max_batch`` reached)."""
        self.waiting.setdefault((topic, partition), []).append((record, done))
        self.count += 1
        return self.count >= self.max_batch

    def take(self) -> list[_Batch]:
        """The next request's batches: up to ``max_batch`` records, each partition once."""
        batches, room = [], self.max_batch
        for tp in list(self.waiting):
            if room <= 0:
                break
            queued = self.waiting[tp]
            now, rest = queued[:room], queued[room:]
            if rest:
                self.waiting[tp] = rest
            else:
                del self.waiting[tp]
            room -= len(now)
            self.count -= len(now)
            batches.append(
                _Batch(
                    tp[0],
                    tp[1],
                    self.sequences.get(tp, 0),
                    [r for r, _ in now],
                    [d for _, d in now],
                )
            )
        return batches

    def calls(
        self,
        pid: int,
        epoch: int,
        batches: list[_Batch],
        tid: str | None = None,
        final: frozenset[str] = frozenset(),
    ) -> list[Call[dict[str, Any]]]:
        """The requests that send ``batches``: one ``POST /v1/produce`` (``json``), or one
        record batch per partition (``batches``, ``?transactional_id=`` for a transaction's)."""
        if self.wire == "json":
            body = self.body(pid, epoch, batches, tid)
            return [Call("POST", "/v1/produce", as_object, json=body, safe=True, final=final)]
        params = None if tid is None else {"transactional_id": tid}
        out = []
        for b in batches:
            if b.data is None:
                b.data = _codec.encode_batch(
                    b.records,
                    producer_id=pid,
                    producer_epoch=epoch,
                    base_sequence=b.base_sequence,
                    transactional=tid is not None,
                )
            path = f"/v1/topics/{quote(b.topic, safe='')}/partitions/{b.partition}/batches"
            out.append(
                Call(
                    "POST",
                    path,
                    as_object,
                    params=params,
                    safe=True,
                    headers={"content-type": _codec.MEDIA_TYPE},
                    final=final,
                    content=b.data,
                )
            )
        return out

    def body(
        self, pid: int, epoch: int, batches: list[_Batch], tid: str | None = None
    ) -> dict[str, Any]:
        """The JSON request of ``batches``; when every record is in base64 the request says so
        once, else each record in base64 says so itself."""
        prepared = [
            [_json_of(r) for r in b.records] if self.wire == "batches" else b.records
            for b in batches
        ]
        every = all(x for records in prepared for _, x in records)

        def shown(records: list[tuple[dict[str, Any], bool]]) -> list[dict[str, Any]]:
            if every or not any(x for _, x in records):
                return [r for r, _ in records]
            return [{**r, "encoding": "base64"} if x else r for r, x in records]

        body: dict[str, Any] = {"producer_id": pid, "producer_epoch": epoch}
        if every and batches:
            body["encoding"] = "base64"  # before the records: a reader knows it when it meets them
        body["batches"] = [
            {
                "topic": b.topic,
                "partition": b.partition,
                "base_sequence": b.base_sequence,
                "records": shown(records),
            }
            for b, records in zip(batches, prepared, strict=True)
        ]
        if tid is not None:
            body["transactional_id"] = tid
        return body

    def outcomes(self, batches: list[_Batch], answers: list[Outcome]) -> list[Outcome]:
        """Each batch's outcome from the answers of ``calls``' requests, in order."""
        if self.wire == "batches":
            return [a if isinstance(a, BaseException) else a["batches"][0] for a in answers]
        (answer,) = answers
        if isinstance(answer, BaseException):
            return [answer] * len(batches)
        return list(answer["batches"])

    def sent(self, b: _Batch) -> None:
        """``b`` was stored: the partition's next batch counts on from it."""
        self.sequences[(b.topic, b.partition)] = (b.base_sequence + len(b.records)) % 2**31

    def answered(self, batches: list[_Batch], answers: list[Outcome]) -> bool:
        """Settle each record of ``batches`` from the answers of their requests; True when the
        outcome of some is unknown or the producer itself was refused (a new producer id must
        start the sequences again), as opposed to a batch refused on its own."""
        unknown = False
        for b, outcome in zip(batches, self.outcomes(batches, answers), strict=True):
            if isinstance(outcome, BaseException):
                refused = isinstance(outcome, SluiceError) and outcome.code in PER_BATCH
                if self.wire == "json" or not refused:
                    unknown = True
                Batches.failed([b], outcome)
            elif outcome.get("error") is None:
                self.sent(b)
                base = int(outcome["base_offset"])
                topic, partition = b.topic, b.partition
                for i, done in enumerate(b.done, base):
                    if done is None:
                        continue
                    # set, unless the caller cancelled it: asking done() first would take the
                    # future's lock a second time for every record (and contextlib.suppress
                    # costs a context manager a record)
                    try:  # noqa: SIM105
                        done.set_result(RecordMetadata(topic, partition, i))
                    except (InvalidStateError, asyncio.InvalidStateError):
                        pass
            else:
                Batches.failed([b], error_from(200, {"error": outcome["error"]}))
        return unknown

    @staticmethod
    def failed(batches: list[_Batch], error: BaseException) -> None:
        for b in batches:
            for done in b.done:
                if done is not None and not done.done():
                    done.set_exception(error)
