"""Bodies of the producer and transaction endpoints, validated by hand (never a 422)."""

from __future__ import annotations

from typing import Any

from app.api import share_wire
from app.api.deps import json_object
from app.api.wire.records import encoding_of, parse_record
from app.errors import ErrorCode, InvalidRequest, TooLarge
from app.producers.state import MAX_EPOCH, MAX_SEQUENCE
from app.share.coordinator import AckRequest
from app.topics import validate_name
from app.transactions.produce import ProduceBatch

MAX_ID = 2**63 - 1
DEFAULT_TXN_TIMEOUT_MS = 60_000


def _int(body: dict[str, Any], name: str, lo: int, hi: int, *, default: int | None = None,
         nullable: bool = False) -> int | None:
    value = body.get(name)
    if value is None:
        if default is not None or nullable:
            return default
        raise InvalidRequest(f"{name}: required, an integer from {lo} to {hi}")
    if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
        raise InvalidRequest(f"{name}: expected an integer from {lo} to {hi}")
    return value


def _required_int(body: dict[str, Any], name: str, lo: int, hi: int) -> int:
    value = _int(body, name, lo, hi)
    assert value is not None
    return value


def transactional_id(value: Any, where: str = "transactional_id") -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise InvalidRequest(f"{where}: expected a string or null")
    return validate_name(value, "transactional id")


def parse_init(body: Any) -> tuple[str | None, int, int | None, int | None]:
    """(transactional id, timeout, producer id, epoch) of POST /v1/producers."""
    b = json_object(body)
    tid = transactional_id(b.get("transactional_id"))
    timeout = b.get("transaction_timeout_ms", DEFAULT_TXN_TIMEOUT_MS)
    if timeout is None:
        timeout = DEFAULT_TXN_TIMEOUT_MS
    if not isinstance(timeout, int) or isinstance(timeout, bool):
        raise InvalidRequest("transaction_timeout_ms: expected an integer",
                             ErrorCode.INVALID_TRANSACTION_TIMEOUT)
    pid = _int(b, "producer_id", 0, MAX_ID, nullable=True)
    epoch = _int(b, "producer_epoch", 0, MAX_EPOCH, nullable=True)
    return tid, timeout, pid, epoch


def parse_producer(body: Any) -> tuple[int, int]:
    b = json_object(body)
    return (_required_int(b, "producer_id", 0, MAX_ID),
            _required_int(b, "producer_epoch", 0, MAX_EPOCH))


def parse_produce(body: Any, now_ms: int, max_records: int, max_record_bytes: int
                  ) -> tuple[int, int, str | None, list[ProduceBatch]]:
    """(producer id, epoch, transactional id, batches) of POST /v1/produce."""
    b = json_object(body)
    pid, epoch = parse_producer(b)
    tid = transactional_id(b.get("transactional_id"))
    encoding = encoding_of(b.get("encoding"))
    raw_batches = b.get("batches")
    if not isinstance(raw_batches, list) or not raw_batches:
        raise InvalidRequest("batches: expected a non-empty list")
    total = sum(len(rb["records"]) for rb in raw_batches
                if isinstance(rb, dict) and isinstance(rb.get("records"), list))
    if total > max_records:
        raise TooLarge(ErrorCode.REQUEST_TOO_LARGE,
                       f"{total} records in one request; the limit is {max_records}")
    batches: list[ProduceBatch] = []
    seen: set[tuple[str, int]] = set()
    for i, rb in enumerate(raw_batches):
        where = f"batches[{i}]"
        if not isinstance(rb, dict):
            raise InvalidRequest(f"{where}: expected an object")
        topic = rb.get("topic")
        if not isinstance(topic, str) or not topic:
            raise InvalidRequest(f"{where}.topic: expected a topic name")
        partition = _int(rb, "partition", 0, 2**31 - 1)
        seq = _int(rb, "base_sequence", 0, MAX_SEQUENCE)
        assert partition is not None and seq is not None
        if (topic, partition) in seen:
            raise InvalidRequest(f"{where}: partition {topic}/{partition} appears twice; one "
                                 "batch per partition")
        seen.add((topic, partition))
        records = rb.get("records")
        if not isinstance(records, list) or not records:
            raise InvalidRequest(f"{where}.records: expected a non-empty list")
        parsed = []
        for j, r in enumerate(records):
            try:
                parsed.append(parse_record(r, j, encoding, now_ms, max_record_bytes)[1])
            except InvalidRequest as exc:
                raise InvalidRequest(f"{where}.{exc.message}") from None
        batches.append(ProduceBatch(topic, partition, seq, parsed))
    return pid, epoch, tid, batches


def parse_offsets(body: Any) -> tuple[int, int, str, str | None, int, str | None,
                                      list[tuple[str, int, int, str | None]]]:
    """Body of POST /v1/transactions/{tid}/offsets."""
    b = json_object(body)
    pid, epoch = parse_producer(b)
    group_id = b.get("group_id")
    if not isinstance(group_id, str):
        raise InvalidRequest("group_id: expected a group name")
    validate_name(group_id, "group")
    member_id = b.get("member_id")
    if member_id is not None and (not isinstance(member_id, str) or not member_id
                                  or len(member_id) > 255):
        raise InvalidRequest("member_id: expected a string of 1 to 255 characters or null")
    member_epoch = _int(b, "member_epoch", -2, 2**31 - 1, default=-1)
    assert member_epoch is not None
    instance = b.get("group_instance_id")
    if instance is not None and (not isinstance(instance, str) or not instance
                                 or len(instance) > 249):
        raise InvalidRequest("group_instance_id: expected a string or null")
    raw = b.get("offsets")
    if not isinstance(raw, list) or not raw:
        raise InvalidRequest("offsets: expected a non-empty list")
    offsets: list[tuple[str, int, int, str | None]] = []
    for i, o in enumerate(raw):
        where = f"offsets[{i}]"
        if not isinstance(o, dict) or not isinstance(o.get("topic"), str):
            raise InvalidRequest(f"{where}: expected {{\"topic\", \"partition\", \"offset\"}}")
        p = _int(o, "partition", 0, 2**31 - 1)
        off = _int(o, "offset", 0, MAX_ID)
        meta = o.get("metadata")
        if meta is not None and (not isinstance(meta, str) or len(meta) > 4096):
            raise InvalidRequest(f"{where}.metadata: expected a string of at most 4096 "
                                 "characters or null")
        assert p is not None and off is not None
        offsets.append((o["topic"], p, off, meta))
    return pid, epoch, group_id, member_id, member_epoch, instance, offsets


def parse_acknowledgements(body: Any, max_delay_ms: int
                           ) -> tuple[int, int, str, str, AckRequest]:
    """Body of POST /v1/transactions/{tid}/acknowledgements: (producer id, epoch, group id,
    member id, acknowledgements per partition as the share acknowledge endpoint parses them)."""
    b = json_object(body)
    pid, epoch = parse_producer(b)
    group_id = b.get("group_id")
    if not isinstance(group_id, str):
        raise InvalidRequest("group_id: expected a group name")
    validate_name(group_id, "group")
    member_id = share_wire.member_id_of(b, required=True)
    assert member_id is not None
    raw = b.get("acknowledgements")
    if not isinstance(raw, list) or not raw:
        raise InvalidRequest("acknowledgements: expected a non-empty list")
    return pid, epoch, group_id, member_id, share_wire.parse_acks(raw, max_delay_ms)
