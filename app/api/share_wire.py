"""Share-group request bodies, validated by hand (like ``app.api.wire``).

A malformed body as a whole is a request-level 400 ``INVALID_REQUEST``; malformed ranges of one
partition (first > last, not ascending, wrong number of types, unknown type, bad delay) are a
per-partition ``INVALID_REQUEST`` inside the 200, and nothing of that partition is applied.
"""

from __future__ import annotations

from typing import Any, TypeGuard

from app.api.wire import show_record
from app.errors import ErrorCode, InvalidRequest, SluiceError, TooLarge
from app.share.admin import PartitionSummary, ResetKind, ResetTarget, TopicReset
from app.share.coordinator import AckRequest, FetchAnswer
from app.share.partition import AckBatch, AckType
from app.topics import validate_name

_TYPES = {t.value: t for t in AckType}
_MAX_OFFSET = 2**62


def _is_int(v: Any) -> TypeGuard[int]:
    return isinstance(v, int) and not isinstance(v, bool)


def member_id_of(body: dict[str, Any], *, required: bool) -> str | None:
    mid = body.get("member_id")
    if mid is None and not required:
        return None
    if not isinstance(mid, str) or not 1 <= len(mid) <= 255:
        raise InvalidRequest("member_id: expected a string of 1 to 255 characters")
    return mid


def int_field(body: dict[str, Any], name: str, default: int, lo: int, hi: int,
              *, clamp: bool = False) -> int:
    v = body.get(name)
    if v is None:
        return default
    if not _is_int(v):
        raise InvalidRequest(f"{name}: expected an integer")
    if clamp and v > hi:
        return hi
    if not lo <= v <= hi:
        raise InvalidRequest(f"{name}: expected an integer from {lo} to {hi}")
    return int(v)


def check_topics(value: Any, where: str = "subscribed_topics") -> list[str] | None:
    """A list of topic names (or None when absent)."""
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(t, str) for t in value):
        raise InvalidRequest(f"{where}: expected a list of topic names")
    if len(value) > 10_000:
        raise TooLarge(ErrorCode.REQUEST_TOO_LARGE, f"{where}: too many topics")
    for t in value:
        validate_name(t)
    return list(dict.fromkeys(value))


def config_changes(body: Any) -> dict[str, object]:
    """Body of PATCH …/config: config keys and their new values (checked by the group config)."""
    if not isinstance(body, dict):
        raise InvalidRequest("the body must be a JSON object of config keys",
                             ErrorCode.INVALID_CONFIG)
    return body


def parse_reset(body: dict[str, Any]) -> tuple[list[TopicReset], bool]:
    """Body of POST …/offsets: the topics to reset, and whether it is a dry run. A malformed
    ``to`` is that topic's error, raised when the reset reaches one of its partitions."""
    topics = body.get("topics")
    if not isinstance(topics, list) or not topics:
        raise InvalidRequest("topics: expected a non-empty list")
    targets: list[TopicReset] = []
    for i, item in enumerate(topics):
        if not isinstance(item, dict) or not isinstance(item.get("topic"), str):
            raise InvalidRequest(f"topics[{i}]: expected {{\"topic\", \"partitions\", \"to\"}}")
        ps = item.get("partitions")
        if ps is not None and (not isinstance(ps, list) or not all(
                _is_int(p) and p >= 0 for p in ps)):
            raise InvalidRequest(f"topics[{i}].partitions: expected null or integers ≥ 0")
        targets.append(TopicReset(item["topic"], None if ps is None else list(dict.fromkeys(ps)),
                                  reset_target(item.get("to"))))
    dry_run = body.get("dry_run", False)
    if not isinstance(dry_run, bool):
        raise InvalidRequest("dry_run: expected true or false")
    return targets, dry_run


def reset_target(to: Any) -> ResetTarget | InvalidRequest:
    """``"earliest"``, ``"latest"``, ``{"timestamp": ms}`` or ``{"offset": n}``."""
    if to == "earliest":
        return ResetTarget(ResetKind.EARLIEST)
    if to == "latest":
        return ResetTarget(ResetKind.LATEST)
    if isinstance(to, dict) and len(to) == 1:
        (kind, value), = to.items()
        if kind in ("timestamp", "offset") and _is_int(value) and value >= 0:
            return ResetTarget(ResetKind(kind), value)
    return InvalidRequest('to must be "earliest", "latest", {"timestamp": ms} or '
                          '{"offset": n}')


def parse_acks(raw: Any, max_delay_ms: int) -> AckRequest:
    """``acknowledgements`` → per (topic, partition) its batches or its error."""
    if raw is None:
        return {}
    if not isinstance(raw, list):
        raise InvalidRequest("acknowledgements: expected a list")
    out: AckRequest = {}
    last: dict[tuple[str, int], int] = {}
    for i, item in enumerate(raw):
        where = f"acknowledgements[{i}]"
        if not isinstance(item, dict):
            raise InvalidRequest(f"{where}: expected an object")
        topic, partition = item.get("topic"), item.get("partition")
        if not isinstance(topic, str) or not topic:
            raise InvalidRequest(f"{where}.topic: expected a topic name")
        if not _is_int(partition) or not 0 <= partition < 2**31:
            raise InvalidRequest(f"{where}.partition: expected an integer ≥ 0")
        key = (topic, int(partition))
        if isinstance(out.get(key), SluiceError):
            continue
        try:
            batch = _batch(item, where, max_delay_ms)
            if key in last and batch.first <= last[key]:
                raise InvalidRequest(f"{where}: ranges of a partition must be ascending and "
                                     "must not overlap")
        except InvalidRequest as exc:
            out[key] = exc
            continue
        last[key] = batch.last
        batches = out.setdefault(key, [])
        assert isinstance(batches, list)
        batches.append(batch)
    return out


def _batch(item: dict[str, Any], where: str, max_delay_ms: int) -> AckBatch:
    first, last = item.get("first_offset"), item.get("last_offset")
    if not _is_int(first) or not _is_int(last) or not 0 <= first <= _MAX_OFFSET or not (
            0 <= last <= _MAX_OFFSET):
        raise InvalidRequest(f"{where}: first_offset and last_offset must be integers ≥ 0")
    if first > last:
        raise InvalidRequest(f"{where}: first_offset {first} > last_offset {last}")
    if "types" in item and item["types"] is not None:
        raw_types = item["types"]
        if not isinstance(raw_types, list) or not raw_types:
            raise InvalidRequest(f"{where}.types: expected a non-empty list")
        if len(raw_types) != 1 and len(raw_types) != last - first + 1:
            raise InvalidRequest(f"{where}.types: expected 1 or {last - first + 1} types, "
                                 f"got {len(raw_types)}")
    elif "type" in item:
        raw_types = [item["type"]]
    else:
        raise InvalidRequest(f"{where}: type or types is required")
    types = []
    for t in raw_types:
        if not isinstance(t, str) or t not in _TYPES:
            raise InvalidRequest(f"{where}: unknown acknowledgement type {t!r}; expected "
                                 f"one of {', '.join(_TYPES)}")
        types.append(_TYPES[t])
    dc = item.get("delivery_count")
    if dc is not None and (not _is_int(dc) or dc < 1):
        raise InvalidRequest(f"{where}.delivery_count: expected an integer ≥ 1")
    delay = item.get("delay_ms", 0)
    if delay is None:
        delay = 0
    if not _is_int(delay) or not 0 <= delay <= max_delay_ms:
        raise InvalidRequest(f"{where}.delay_ms: expected an integer from 0 to {max_delay_ms}")
    if delay and AckType.RELEASE not in types:
        raise InvalidRequest(f"{where}.delay_ms: only a release may carry a delay")
    return AckBatch(int(first), int(last), types, dc, int(delay))


def show_results(results: list[tuple[tuple[str, int], SluiceError | None]]
                 ) -> list[dict[str, Any]]:
    return [{"topic": t, "partition": p, "error": None if e is None else e.to_dict()}
            for (t, p), e in results]


def show_fetch(answer: FetchAnswer, encoding: str) -> dict[str, Any]:
    records = []
    for f in answer.records:
        shown = show_record(f.record, f.topic, f.partition, encoding)
        shown["delivery_count"] = f.delivery_count
        records.append(shown)
    return {
        "member_id": answer.member_id,
        "records": records,
        "acquired": [{"topic": a.topic, "partition": a.partition, "first_offset": a.first,
                      "last_offset": a.last, "delivery_count": a.delivery_count}
                     for a in answer.acquired],
        "acquisition_lock_timeout_ms": answer.lock_timeout_ms,
        "acknowledgement_errors": [{"topic": t, "partition": p, "error": e.to_dict()}
                                   for t, p, e in answer.ack_errors],
    }


def show_partition(v: PartitionSummary) -> dict[str, Any]:
    return {"topic": v.topic, "partition": v.partition, "start_offset": v.start_offset,
            "end_offset": v.end_offset, **v.counts, "lag": v.lag}
