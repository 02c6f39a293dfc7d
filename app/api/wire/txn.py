"""Bodies of the producer and transaction endpoints, validated by hand (never a 422)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from app.api.deps import json_object
from app.api.wire._fields import (
    MAX_INT32,
    MAX_INT64,
    array,
    integer,
    member_id,
    name,
    obj,
    optional,
    string,
)
from app.api.wire.records import encoding_of, exact, parse_records
from app.api.wire.share import parse_acks
from app.errors import ErrorCode, InvalidRequest, SluiceError, TooLarge
from app.groups.coordinator import OFFSET_METADATA_MAX_CHARS
from app.groups.group import OffsetCommit
from app.producers.appender import ProduceBatch
from app.producers.state import MAX_EPOCH, MAX_SEQUENCE
from app.share.partition import AckBatch
from app.transactions.state import TxnMetadata, TxnState
from app.transactions.work import CommitAll, GroupAcks, GroupOffsets, TxnIdentity, TxnWork

DEFAULT_TXN_TIMEOUT_MS = 60_000
_INSTANCE_ID_MAX_CHARS = 249
COMMIT_KEY_MAX_CHARS = 255  # the idempotency key of a commit-all
PREFIX_MAX_CHARS = 255  # the prefix of an abort-prefix


@dataclass(frozen=True, slots=True)
class InitProducer:
    """POST /v1/producers: a new producer, or a new epoch for a known one."""

    transactional_id: str | None
    timeout_ms: int
    producer_id: int | None
    producer_epoch: int | None


@dataclass(frozen=True, slots=True)
class Producer:
    producer_id: int
    producer_epoch: int


@dataclass(frozen=True, slots=True)
class StatefulProduce:
    """POST /v1/produce."""

    producer_id: int
    producer_epoch: int
    transactional_id: str | None
    batches: list[ProduceBatch]


@dataclass(frozen=True, slots=True)
class TxnOffsets:
    """POST /v1/transactions/{tid}/offsets."""

    producer_id: int
    producer_epoch: int
    group_id: str
    member_id: str | None
    member_epoch: int
    group_instance_id: str | None
    offsets: list[OffsetCommit]


@dataclass(frozen=True, slots=True)
class TxnAcknowledgements:
    """POST /v1/transactions/{tid}/acknowledgements: acknowledgements per partition as the
    share acknowledge endpoint parses them."""

    producer_id: int
    producer_epoch: int
    group_id: str
    member_id: str
    acks: Mapping[tuple[str, int], list[AckBatch] | SluiceError]


@dataclass(frozen=True, slots=True)
class CommitAllRequest:
    """POST /v1/transactions:commit-all."""

    transactions: list[TxnIdentity]
    idempotency_key: str | None


def transactional_id(value: Any, where: str = "transactional_id") -> str | None:
    return optional(name, value, where)


def parse_init(body: Any) -> InitProducer:
    b = json_object(body)
    tid = transactional_id(b.get("transactional_id"))
    timeout = b.get("transaction_timeout_ms")
    # only the type is checked here: the bounds are the coordinator's settings
    timeout = (
        DEFAULT_TXN_TIMEOUT_MS
        if timeout is None
        else integer(timeout, "transaction_timeout_ms", code=ErrorCode.INVALID_TRANSACTION_TIMEOUT)
    )
    return InitProducer(
        tid,
        timeout,
        optional(integer, b.get("producer_id"), "producer_id", 0, MAX_INT64),
        optional(integer, b.get("producer_epoch"), "producer_epoch", 0, MAX_EPOCH),
    )


def parse_producer(body: Any) -> Producer:
    b = json_object(body)
    return Producer(
        integer(b.get("producer_id"), "producer_id", 0, MAX_INT64),
        integer(b.get("producer_epoch"), "producer_epoch", 0, MAX_EPOCH),
    )


def parse_produce(
    body: Any, now_ms: int, max_records: int, max_record_bytes: int, raw: bytes = b""
) -> StatefulProduce:
    b = json_object(exact(body, raw))
    producer = parse_producer(b)
    tid = transactional_id(b.get("transactional_id"))
    batches = _batches(
        b, array(b.get("batches"), "batches", min_items=1), now_ms, max_records, max_record_bytes
    )
    return StatefulProduce(producer.producer_id, producer.producer_epoch, tid, batches)


def _batches(
    b: dict[str, Any], raw_batches: list[Any], now_ms: int, max_records: int, max_record_bytes: int
) -> list[ProduceBatch]:
    """``batches``: one per partition, each with its base sequence and records."""
    encoding = encoding_of(b.get("encoding"))
    # the size limit first: a request too large is refused whatever else is wrong in it
    total = sum(
        len(rb["records"])
        for rb in raw_batches
        if isinstance(rb, dict) and isinstance(rb.get("records"), list)
    )
    if total > max_records:
        raise TooLarge(
            ErrorCode.REQUEST_TOO_LARGE,
            f"{total} records in one request; the limit is {max_records}",
        )
    batches: list[ProduceBatch] = []
    seen: set[tuple[str, int]] = set()
    for i, rb in enumerate(raw_batches):
        where = f"batches[{i}]"
        rb = obj(rb, where)
        # any non-empty string: a topic that cannot exist is a per-batch error in the answer
        topic = string(rb.get("topic"), f"{where}.topic")
        partition = integer(rb.get("partition"), f"{where}.partition", 0, MAX_INT32)
        seq = integer(rb.get("base_sequence"), f"{where}.base_sequence", 0, MAX_SEQUENCE)
        if (topic, partition) in seen:
            raise InvalidRequest(
                ErrorCode.INVALID_REQUEST,
                f"{where}: partition {topic}/{partition} appears twice; one batch per partition",
            )
        seen.add((topic, partition))
        records = array(rb.get("records"), f"{where}.records", min_items=1)
        parsed = parse_records(records, encoding, now_ms, max_record_bytes, f"{where}.")
        batches.append(ProduceBatch(topic, partition, seq, [rec for _, rec in parsed]))
    return batches


_COMMIT_FIELDS = frozenset(
    {
        "producer_id",
        "producer_epoch",
        "encoding",
        "batches",
        "group_offsets",
        "share_acknowledgements",
    }
)


def parse_commit(
    body: Any,
    now_ms: int,
    max_records: int,
    max_record_bytes: int,
    max_delay_ms: int,
    raw: bytes = b"",
) -> tuple[Producer, TxnWork]:
    """A commit, with optionally everything the transaction adds before it commits: records
    (``batches``, as in POST /v1/produce), consumer-group offsets (``group_offsets``, each as
    POST …/offsets) and share acknowledgements (``share_acknowledgements``, each as
    POST …/acknowledgements). Unknown fields are refused: a misspelt part must not commit an
    empty transaction."""
    b = json_object(exact(body, raw))
    _only(b, _COMMIT_FIELDS, "a commit")
    producer = parse_producer(b)
    raw_batches = b.get("batches")
    batches = (
        []
        if raw_batches is None
        else _batches(b, array(raw_batches, "batches"), now_ms, max_records, max_record_bytes)
    )
    offsets = _per_group(
        [
            _group_offsets(obj(item, f"group_offsets[{i}]"), f"group_offsets[{i}].")
            for i, item in enumerate(array(b.get("group_offsets") or [], "group_offsets"))
        ],
        "group_offsets",
    )
    acks = _per_group(
        [
            _group_acks(
                obj(item, f"share_acknowledgements[{i}]"),
                f"share_acknowledgements[{i}].",
                max_delay_ms,
            )
            for i, item in enumerate(
                array(b.get("share_acknowledgements") or [], "share_acknowledgements")
            )
        ],
        "share_acknowledgements",
    )
    return producer, TxnWork(batches, offsets, acks)


_COMMIT_ALL_FIELDS = frozenset({"transactions", "idempotency_key"})
_TXN_SHAPE = '{"transactional_id", "producer_id", "producer_epoch"}'


def parse_commit_all(body: Any, max_transactions: int) -> CommitAllRequest:
    """A commit of several transactions: each named by its transactional id, producer id and
    epoch, each id once; an optional idempotency key. Unknown fields are refused: a misspelt
    key must not commit without one."""
    b = json_object(body)
    _only(b, _COMMIT_ALL_FIELDS, "a commit-all")
    raw = b.get("transactions")
    # the size limit first: a request too large is refused whatever else is wrong in it
    if isinstance(raw, list) and len(raw) > max_transactions:
        raise TooLarge(
            ErrorCode.REQUEST_TOO_LARGE,
            f"{len(raw)} transactions in one commit-all; the limit is {max_transactions}",
        )
    txns: list[TxnIdentity] = []
    seen: set[str] = set()
    for i, item in enumerate(array(raw, "transactions", min_items=1)):
        where = f"transactions[{i}]"
        t = obj(item, where, _TXN_SHAPE)
        tid = name(t.get("transactional_id"), f"{where}.transactional_id")
        if tid in seen:
            raise InvalidRequest(
                ErrorCode.INVALID_REQUEST,
                f"{where}: transactional id {tid!r} appears twice; one entry per transactional id",
            )
        seen.add(tid)
        txns.append(
            TxnIdentity(
                tid,
                integer(t.get("producer_id"), f"{where}.producer_id", 0, MAX_INT64),
                integer(t.get("producer_epoch"), f"{where}.producer_epoch", 0, MAX_EPOCH),
            )
        )
    key = optional(string, b.get("idempotency_key"), "idempotency_key", 1, COMMIT_KEY_MAX_CHARS)
    return CommitAllRequest(txns, key)


def show_commit_all(done: CommitAll) -> dict[str, Any]:
    out: dict[str, Any] = {"duplicate": done.duplicate}
    if done.committed_ms is not None:
        out["committed_ms"] = done.committed_ms
    out["transactions"] = [
        {
            "transactional_id": t.transactional_id,
            "producer_id": t.producer_id,
            "producer_epoch": t.producer_epoch,
        }
        for t in done.transactions
    ]
    return out


def parse_abort_prefix(body: Any) -> str:
    """The prefix of the transactional ids whose open transactions are aborted."""
    b = json_object(body)
    _only(b, frozenset({"prefix"}), "an abort-prefix")
    return string(b.get("prefix"), "prefix", 1, PREFIX_MAX_CHARS)


def parse_offsets(body: Any) -> TxnOffsets:
    b = json_object(body)
    producer = parse_producer(b)
    g = _group_offsets(b, "")
    return TxnOffsets(
        producer.producer_id,
        producer.producer_epoch,
        g.group_id,
        g.member_id,
        g.member_epoch,
        g.group_instance_id,
        list(g.offsets),
    )


def _group_offsets(b: dict[str, Any], prefix: str) -> GroupOffsets:
    """One group's KIP-447 offsets with the consumer's group metadata."""
    group_id = name(b.get("group_id"), f"{prefix}group_id")
    member = optional(member_id, b.get("member_id"), f"{prefix}member_id")
    member_epoch = b.get("member_epoch")
    member_epoch = (
        -1
        if member_epoch is None
        else integer(member_epoch, f"{prefix}member_epoch", -2, MAX_INT32)
    )
    # any characters: the group's own heartbeat is stricter, this only has to match it
    instance = optional(
        string,
        b.get("group_instance_id"),
        f"{prefix}group_instance_id",
        1,
        _INSTANCE_ID_MAX_CHARS,
    )
    offsets = []
    for i, o in enumerate(array(b.get("offsets"), f"{prefix}offsets", min_items=1)):
        where = f"{prefix}offsets[{i}]"
        o = obj(o, where, '{"topic", "partition", "offset"}')
        # any string: a topic that does not exist refuses the request when it is staged
        topic = string(o.get("topic"), f"{where}.topic", 0)
        offsets.append(
            OffsetCommit(
                topic,
                integer(o.get("partition"), f"{where}.partition", 0, MAX_INT32),
                integer(o.get("offset"), f"{where}.offset", 0, MAX_INT64),
                optional(
                    string, o.get("metadata"), f"{where}.metadata", 0, OFFSET_METADATA_MAX_CHARS
                ),
            )
        )
    return GroupOffsets(group_id, member, member_epoch, instance, offsets)


def parse_acknowledgements(body: Any, max_delay_ms: int) -> TxnAcknowledgements:
    b = json_object(body)
    producer = parse_producer(b)
    g = _group_acks(b, "", max_delay_ms)
    return TxnAcknowledgements(
        producer.producer_id, producer.producer_epoch, g.group_id, g.member_id, g.acks
    )


def _group_acks(b: dict[str, Any], prefix: str, max_delay_ms: int) -> GroupAcks:
    """One share group's acknowledgements by one member."""
    return GroupAcks(
        name(b.get("group_id"), f"{prefix}group_id"),
        member_id(b.get("member_id"), f"{prefix}member_id"),
        parse_acks(
            array(b.get("acknowledgements"), f"{prefix}acknowledgements", min_items=1),
            max_delay_ms,
        ),
    )


_G = TypeVar("_G", GroupOffsets, GroupAcks)


def _per_group(parts: list[_G], where: str) -> list[_G]:
    """One entry per group: a group twice is refused."""
    seen: set[str] = set()
    for part in parts:
        if part.group_id in seen:
            raise InvalidRequest(
                ErrorCode.INVALID_REQUEST, f"{where}: group {part.group_id!r} appears twice"
            )
        seen.add(part.group_id)
    return parts


def parse_state(value: str | None) -> TxnState | None:
    """The ``state`` filter of the transaction list: a state's name, or None for all."""
    if value is None:
        return None
    try:
        return TxnState(value)
    except ValueError:
        raise InvalidRequest(
            ErrorCode.INVALID_REQUEST,
            f"state must be one of {', '.join(s.value for s in TxnState)}",
        ) from None


def _all(_: str) -> bool:
    return True


def show_transaction(tm: TxnMetadata, visible: Callable[[str], bool] = _all) -> dict[str, Any]:
    """A transaction; its partitions of the topics ``visible`` lets the caller describe."""
    return {
        "transactional_id": tm.transactional_id,
        "state": tm.state.value,
        "producer_id": tm.producer_id,
        "producer_epoch": tm.producer_epoch,
        "timeout_ms": tm.timeout_ms,
        "start_ms": tm.start_ms,
        "updated_ms": tm.updated_ms,
        "partitions": [
            {"topic": t, "partition": p} for t, p in sorted(tm.partitions) if visible(t)
        ],
        "groups": sorted(tm.groups),
        "share_groups": sorted(tm.share_groups),
        "pending_state": tm.pending.state.value if tm.pending is not None else None,
    }


def _only(b: dict[str, Any], fields: frozenset[str], what: str) -> None:
    """Refuse a field ``what`` does not take (a misspelt one must not be skipped)."""
    unknown = sorted(set(b) - fields)
    if unknown:
        raise InvalidRequest(
            ErrorCode.INVALID_REQUEST,
            f"unknown field {unknown[0]!r}; {what} takes {', '.join(sorted(fields))}",
        )
