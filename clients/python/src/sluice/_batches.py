"""The idempotent producer's bookkeeping, without I/O: records waiting per partition, the next
sequence of each partition, and the request that sends them (``POST /v1/produce``).

A batch keeps its base sequence until it is answered, so a retry after a lost answer sends the
very same batch and the server answers its original offsets instead of appending it again.
"""

from __future__ import annotations

from binascii import b2a_base64
from dataclasses import dataclass
from typing import Any, NamedTuple, Protocol

from sluice.errors import error_from

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
    records: list[dict[str, Any]]
    binary: list[bool]
    done: list[Settle | None]


class Batches:
    """Records by partition until sent; one request carries at most one batch per partition."""

    def __init__(self, max_batch: int) -> None:
        self.max_batch = max_batch
        self.waiting: dict[tuple[str, int], list[tuple[dict[str, Any], bool, Settle | None]]] = {}
        self.count = 0
        self.sequences: dict[tuple[str, int], int] = {}
        self.in_flight: list[_Batch] | None = None  # the request being sent, kept for retries

    def add(
        self,
        topic: str,
        partition: int,
        record: tuple[dict[str, Any], bool],
        done: Settle | None,
    ) -> bool:
        """Queue a record (as ``wire_record`` answers it); True when a request should go now
        (``max_batch`` reached)."""
        self.waiting.setdefault((topic, partition), []).append((record[0], record[1], done))
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
                    [r for r, _, _ in now],
                    [b for _, b, _ in now],
                    [d for _, _, d in now],
                )
            )
        return batches

    @staticmethod
    def body(pid: int, epoch: int, batches: list[_Batch], tid: str | None = None) -> dict[str, Any]:
        """The request; when every record is in base64 the request says so once, else each
        record in base64 says so itself."""
        every = all(all(b.binary) for b in batches)

        def records(b: _Batch) -> list[dict[str, Any]]:
            if every or not any(b.binary):
                return b.records
            return [
                {**r, "encoding": "base64"} if x else r
                for r, x in zip(b.records, b.binary, strict=True)
            ]

        body: dict[str, Any] = {"producer_id": pid, "producer_epoch": epoch}
        if every and batches:
            body["encoding"] = "base64"  # before the records: a reader knows it when it meets them
        body["batches"] = [
            {
                "topic": b.topic,
                "partition": b.partition,
                "base_sequence": b.base_sequence,
                "records": records(b),
            }
            for b in batches
        ]
        if tid is not None:
            body["transactional_id"] = tid
        return body

    def answered(self, batches: list[_Batch], answer: Any) -> None:
        """Settle each record of a request's batches from the answer (one entry per batch)."""
        results = answer["batches"]
        for b, result in zip(batches, results, strict=True):
            error = result.get("error")
            if error is None:
                tp = (b.topic, b.partition)
                self.sequences[tp] = (b.base_sequence + len(b.records)) % 2**31
                base = int(result["base_offset"])
                for i, done in enumerate(b.done):
                    if done is not None and not done.done():
                        done.set_result(RecordMetadata(b.topic, b.partition, base + i))
            else:
                Batches.failed([b], error_from(200, {"error": error}))

    @staticmethod
    def failed(batches: list[_Batch], error: BaseException) -> None:
        for b in batches:
            for done in b.done:
                if done is not None and not done.done():
                    done.set_exception(error)
