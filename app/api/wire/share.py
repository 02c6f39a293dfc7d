"""Share-group bodies: heartbeat, fetch, acknowledge, config, offsets reset, the
acknowledgement of acquisitions; and their answers.

A malformed body as a whole is a request-level 400 ``INVALID_REQUEST``; malformed ranges of one
partition (first > last, not ascending, wrong number of types, unknown type, bad delay) are a
per-partition ``INVALID_REQUEST`` inside the 200, and nothing of that partition is applied.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from app.api.wire import _fields as f
from app.api.wire.records import encoding_of, show_record
from app.errors import ErrorCode, InvalidRequest, SluiceError, TooLarge
from app.share.acquisitions import AcquisitionView
from app.share.admin import PartitionSummary, ResetKind, ResetTarget, TopicReset
from app.share.coordinator import AckRequest, FetchAnswer
from app.share.membership import Member, ShareGroup
from app.share.partition import AckBatch, AckType, RecordView

_TYPES = {t.value: t for t in AckType}
_MAX_OFFSET = 2**62
_MAX_TOPICS = 10_000
_DEFAULT_MAX_BYTES = 8 * 1024 * 1024
_MAX_BYTES = 64 * 1024 * 1024
_ACQUIRE_MODES = ("batch_optimized", "record_limit")
ACQUISITION_ID_MAX_CHARS = 255
_MAX_ACQUISITION_IDS = 10_000
_ACQUISITION_ACK_TYPES = {t.value: t for t in (AckType.ACCEPT, AckType.RELEASE, AckType.REJECT)}


@dataclass(frozen=True, slots=True)
class ShareHeartbeat:
    member_id: str | None
    member_epoch: int
    subscribed_topics: list[str] | None


@dataclass(frozen=True, slots=True)
class ShareFetch:
    member_id: str | None
    subscribed_topics: list[str] | None
    max_records: int
    max_wait_ms: int
    max_bytes: int
    record_limit: bool
    encoding: str
    acks: AckRequest
    acquisition_id: str | None = None
    held_only: bool = False  # with acquisition_id: answer what it holds, never acquire
    batches: bool = False  # answer record batches (docs/api.md#share-fetch-batches)


@dataclass(frozen=True, slots=True)
class ShareAcknowledge:
    member_id: str
    acks: AckRequest


@dataclass(frozen=True, slots=True)
class AcquisitionsAcknowledge:
    """Exactly one of ``ids`` and ``prefix`` is set."""

    ids: list[str] | None
    prefix: str | None
    kind: AckType


def topics(value: Any, where: str = "subscribed_topics") -> list[str] | None:
    """A list of topic names without repeats, or None when absent."""
    if value is None:
        return None
    items = f.array(value, where)
    if not all(isinstance(t, str) for t in items):
        raise InvalidRequest(ErrorCode.INVALID_REQUEST, f"{where}: expected a list of topic names")
    if len(items) > _MAX_TOPICS:
        raise TooLarge(ErrorCode.REQUEST_TOO_LARGE, f"{where}: more than {_MAX_TOPICS} topics")
    return list(
        dict.fromkeys(
            f.name(t, f"{where}[{i}]", code=ErrorCode.INVALID_TOPIC) for i, t in enumerate(items)
        )
    )


def parse_heartbeat(body: dict[str, Any]) -> ShareHeartbeat:
    return ShareHeartbeat(
        f.optional(f.member_id, body.get("member_id")),
        f.integer(f.default(body.get("member_epoch"), 0), "member_epoch", -1, f.MAX_INT32),
        topics(body.get("subscribed_topics")),
    )


def parse_fetch(
    body: dict[str, Any], max_read_records: int, max_wait_ms: int, max_delay_ms: int
) -> ShareFetch:
    """``max_records`` and ``max_wait_ms`` above the server's limits are lowered to them."""
    mode = f.default(body.get("acquire_mode"), "batch_optimized")
    if mode not in _ACQUIRE_MODES:
        raise InvalidRequest(
            ErrorCode.INVALID_REQUEST, "acquire_mode: expected batch_optimized or record_limit"
        )

    def bounded(name: str, default: int, lo: int, hi: int, clamp: bool) -> int:
        value = body.get(name)
        return default if value is None else f.integer(value, name, lo, hi, clamp=clamp)

    acquisition = f.optional(acquisition_id, body.get("acquisition_id"))
    if acquisition is not None:
        _check_by_acquisition(body)
    held_only = body.get("held_only") or False  # null reads as absent
    if type(held_only) is not bool:
        raise InvalidRequest(ErrorCode.INVALID_REQUEST, "held_only: expected true or false")
    if held_only and acquisition is None:
        raise InvalidRequest(ErrorCode.INVALID_REQUEST, "held_only: only with acquisition_id")
    return ShareFetch(
        f.optional(f.member_id, body.get("member_id")),
        topics(body.get("subscribed_topics")),
        max_records=bounded("max_records", 500, 1, max_read_records, True),
        max_wait_ms=bounded("max_wait_ms", 0, 0, max_wait_ms, True),
        max_bytes=bounded("max_bytes", _DEFAULT_MAX_BYTES, 1, _MAX_BYTES, False),
        record_limit=mode == "record_limit",
        encoding=encoding_of(body.get("encoding")),
        acks=parse_acks(body.get("acknowledgements"), max_delay_ms),
        acquisition_id=acquisition,
        held_only=held_only,
        batches=answer_format(body.get("format")),
    )


def answer_format(value: Any, where: str = "format") -> bool:
    """``json`` (the default) or ``batches``: whether records are answered as batches."""
    if value is None or value == "json":
        return False
    if value == "batches":
        return True
    raise InvalidRequest(ErrorCode.INVALID_REQUEST, f"{where}: expected json or batches")


def acquisition_id(value: Any, where: str = "acquisition_id") -> str:
    """An acquisition id: 1 to 255 characters, any (the client chooses them)."""
    return f.string(value, where, 1, ACQUISITION_ID_MAX_CHARS)


def _check_by_acquisition(body: dict[str, Any]) -> None:
    """A fetch by acquisition id has no member, names its topics, and acknowledges nothing
    (an acquisition is acknowledged as a whole, through …/acquisitions/acknowledge)."""
    if body.get("member_id") is not None:
        raise InvalidRequest(
            ErrorCode.INVALID_REQUEST, "member_id: must be null with acquisition_id"
        )
    if body.get("subscribed_topics") is None:
        raise InvalidRequest(
            ErrorCode.INVALID_REQUEST, "subscribed_topics: required with acquisition_id"
        )
    if body.get("acknowledgements"):
        raise InvalidRequest(
            ErrorCode.INVALID_REQUEST,
            "acknowledgements: not taken with acquisition_id "
            "(acknowledge through …/acquisitions/acknowledge)",
        )


def parse_acquisitions_ack(body: dict[str, Any]) -> AcquisitionsAcknowledge:
    """Body of POST …/acquisitions/acknowledge: ``acquisition_ids`` or ``prefix`` (exactly
    one), and ``type`` (accept, release or reject; accept by default)."""
    raw_ids, prefix = body.get("acquisition_ids"), body.get("prefix")
    if (raw_ids is None) == (prefix is None):
        raise InvalidRequest(
            ErrorCode.INVALID_REQUEST, "exactly one of acquisition_ids and prefix is required"
        )
    ids = None
    if raw_ids is not None:
        items = f.array(raw_ids, "acquisition_ids", max_items=_MAX_ACQUISITION_IDS)
        ids = [acquisition_id(v, f"acquisition_ids[{i}]") for i, v in enumerate(items)]
    else:
        prefix = f.string(prefix, "prefix", 1, ACQUISITION_ID_MAX_CHARS)
    kind = f.default(body.get("type"), "accept")
    if not isinstance(kind, str) or kind not in _ACQUISITION_ACK_TYPES:
        raise InvalidRequest(ErrorCode.INVALID_REQUEST, "type: expected accept, release or reject")
    return AcquisitionsAcknowledge(ids, prefix, _ACQUISITION_ACK_TYPES[kind])


def parse_acknowledge(body: dict[str, Any], max_delay_ms: int) -> ShareAcknowledge:
    return ShareAcknowledge(
        f.member_id(body.get("member_id")), parse_acks(body.get("acknowledgements"), max_delay_ms)
    )


def config_changes(body: Any) -> dict[str, object]:
    """Body of PATCH …/config: config keys and their new values (checked by the group config);
    a number with a zero fraction is an integer, as everywhere."""
    changes = f.obj(body, "the body", "a JSON object of config keys", code=ErrorCode.INVALID_CONFIG)
    return {k: f.integral(v) for k, v in changes.items()}


def parse_reset(body: dict[str, Any]) -> tuple[list[TopicReset], bool]:
    """Body of POST …/offsets: the topics to reset, and whether it is a dry run. A malformed
    ``to`` is that topic's error, raised when the reset reaches one of its partitions."""
    targets: list[TopicReset] = []
    for i, item in enumerate(f.array(body.get("topics"), "topics", min_items=1)):
        where = f"topics[{i}]"
        item = f.obj(item, where, '{"topic", "partitions", "to"}')
        name = f.string(item.get("topic"), f"{where}.topic", 0)
        raw = item.get("partitions")
        partitions = (
            None
            if raw is None
            else list(
                dict.fromkeys(
                    f.integer(p, f"{where}.partitions[{j}]", 0)
                    for j, p in enumerate(f.array(raw, f"{where}.partitions"))
                )
            )
        )
        targets.append(TopicReset(name, partitions, reset_target(item.get("to"))))
    dry_run = f.default(body.get("dry_run"), False)
    if not isinstance(dry_run, bool):
        raise InvalidRequest(ErrorCode.INVALID_REQUEST, "dry_run: expected true or false")
    return targets, dry_run


def reset_target(to: Any) -> ResetTarget | InvalidRequest:
    """``"earliest"``, ``"latest"``, ``{"timestamp": ms}`` or ``{"offset": n}``."""
    if to == "earliest":
        return ResetTarget(ResetKind.EARLIEST)
    if to == "latest":
        return ResetTarget(ResetKind.LATEST)
    if isinstance(to, dict) and len(to) == 1:
        ((kind, value),) = to.items()
        if kind in ("timestamp", "offset") and type(value) is int and value >= 0:
            return ResetTarget(ResetKind(kind), value)
    return InvalidRequest(
        ErrorCode.INVALID_REQUEST,
        'to must be "earliest", "latest", {"timestamp": ms} or {"offset": n}',
    )


def parse_acks(raw: Any, max_delay_ms: int) -> AckRequest:
    """``acknowledgements`` → per (topic, partition) its batches or its error."""
    out: AckRequest = {}
    if raw is None:
        return out
    last: dict[tuple[str, int], int] = {}
    for i, item in enumerate(f.array(raw, "acknowledgements")):
        where = f"acknowledgements[{i}]"
        item = f.obj(item, where)
        key = (
            f.string(item.get("topic"), f"{where}.topic"),
            f.integer(item.get("partition"), f"{where}.partition", 0, f.MAX_INT32),
        )
        if isinstance(out.get(key), SluiceError):
            continue
        try:
            batch = _batch(item, where, max_delay_ms)
            if key in last and batch.first <= last[key]:
                raise InvalidRequest(
                    ErrorCode.INVALID_REQUEST,
                    f"{where}: ranges of a partition must be ascending and must not overlap",
                )
        except InvalidRequest as exc:
            out[key] = exc
            continue
        last[key] = batch.last
        batches = out.setdefault(key, [])
        assert isinstance(batches, list)
        batches.append(batch)
    return out


def _batch(item: dict[str, Any], where: str, max_delay_ms: int) -> AckBatch:
    first = f.integer(item.get("first_offset"), f"{where}.first_offset", 0, _MAX_OFFSET)
    last = f.integer(item.get("last_offset"), f"{where}.last_offset", 0, _MAX_OFFSET)
    if first > last:
        raise InvalidRequest(
            ErrorCode.INVALID_REQUEST, f"{where}: first_offset {first} > last_offset {last}"
        )
    if item.get("types") is not None:
        raw_types = f.array(item["types"], f"{where}.types", min_items=1)
        if len(raw_types) != 1 and len(raw_types) != last - first + 1:
            raise InvalidRequest(
                ErrorCode.INVALID_REQUEST,
                f"{where}.types: expected 1 or {last - first + 1} types, got {len(raw_types)}",
            )
    elif "type" in item:
        raw_types = [item["type"]]
    else:
        raise InvalidRequest(ErrorCode.INVALID_REQUEST, f"{where}: type or types is required")
    types = []
    for t in raw_types:
        if not isinstance(t, str) or t not in _TYPES:
            raise InvalidRequest(
                ErrorCode.INVALID_REQUEST,
                f"{where}: unknown acknowledgement type {t!r}; expected one of {', '.join(_TYPES)}",
            )
        types.append(_TYPES[t])
    dc = f.optional(f.integer, item.get("delivery_count"), f"{where}.delivery_count", 1)
    delay = item.get("delay_ms")
    delay = 0 if delay is None else f.integer(delay, f"{where}.delay_ms", 0, max_delay_ms)
    if delay and AckType.RELEASE not in types:
        raise InvalidRequest(
            ErrorCode.INVALID_REQUEST, f"{where}.delay_ms: only a release may carry a delay"
        )
    return AckBatch(first, last, types, dc, delay)


# -- answers --------------------------------------------------------------------------------


def show_assignment(member: Member) -> list[dict[str, Any]]:
    return [{"topic": t, "partitions": ps} for t, ps in member.assignment]


def show_results(results: list[tuple[tuple[str, int], SluiceError | None]]) -> list[dict[str, Any]]:
    return [
        {"topic": t, "partition": p, "error": None if e is None else e.to_dict()}
        for (t, p), e in results
    ]


def show_fetched(answer: FetchAnswer, encoding: str) -> list[dict[str, Any]]:
    """The records of a fetch, each with its delivery count."""
    records = []
    for part in answer.records:
        topic, partition = part.topic, part.partition
        for r, dc in part.records:
            shown = show_record(r, topic, partition, encoding)
            shown["delivery_count"] = dc
            records.append(shown)
    return records


def show_acquired(answer: FetchAnswer) -> list[dict[str, Any]]:
    return [
        {
            "topic": a.topic,
            "partition": a.partition,
            "first_offset": a.first,
            "last_offset": a.last,
            "delivery_count": a.delivery_count,
        }
        for a in answer.acquired
    ]


def show_fetch_head(
    answer: FetchAnswer, parts: list[tuple[str, int, list[bytes]]]
) -> dict[str, Any]:
    """The head of a fetch answered as batches: per partition its acquired ranges and how many
    of the batches that follow are its (docs/api.md#share-fetch-batches)."""
    ranges: dict[tuple[str, int], list[dict[str, int]]] = {}
    for a in answer.acquired:
        ranges.setdefault((a.topic, a.partition), []).append(
            {"first_offset": a.first, "last_offset": a.last, "delivery_count": a.delivery_count}
        )
    shown: dict[str, Any] = {"member_id": answer.member_id}
    if answer.acquisition_id is not None:
        shown["acquisition_id"] = answer.acquisition_id
    shown["acquisition_lock_timeout_ms"] = answer.lock_timeout_ms
    shown["acknowledgement_errors"] = [
        {"topic": t, "partition": p, "error": e.to_dict()} for t, p, e in answer.ack_errors
    ]
    shown["partitions"] = [
        {"topic": t, "partition": p, "batches": len(stored), "acquired": ranges.get((t, p), [])}
        for t, p, stored in parts
    ]
    return shown


def show_fetch(answer: FetchAnswer, encoding: str) -> dict[str, Any]:
    shown: dict[str, Any] = {"member_id": answer.member_id}
    if answer.acquisition_id is not None:
        shown["acquisition_id"] = answer.acquisition_id
    shown["records"] = show_fetched(answer, encoding)
    shown["acquired"] = show_acquired(answer)
    shown["acquisition_lock_timeout_ms"] = answer.lock_timeout_ms
    shown["acknowledgement_errors"] = [
        {"topic": t, "partition": p, "error": e.to_dict()} for t, p, e in answer.ack_errors
    ]
    return shown


def show_acquisitions(views: list[AcquisitionView]) -> dict[str, Any]:
    return {
        "acquisitions": [
            {
                "acquisition_id": v.acquisition_id,
                "records": v.records,
                "partitions": [
                    {"topic": t, "partition": p, "records": n} for t, p, n in v.partitions
                ],
            }
            for v in views
        ],
        "records": sum(v.records for v in views),
    }


def show_acquisitions_acknowledged(done: list[tuple[str, int]]) -> dict[str, Any]:
    return {
        "acknowledged": sum(n for _, n in done),
        "acquisitions": [{"acquisition_id": i, "records": n} for i, n in done],
    }


def show_partition(v: PartitionSummary) -> dict[str, Any]:
    return {
        "topic": v.topic,
        "partition": v.partition,
        "start_offset": v.start_offset,
        "end_offset": v.end_offset,
        **v.counts,
        "lag": v.lag,
    }


def show_group(
    group: ShareGroup,
    partitions: list[PartitionSummary],
    visible: Callable[[str], bool] = lambda _: True,
) -> dict[str, Any]:
    """A share group; its subscriptions, assignments and partitions of the topics ``visible``
    lets the caller describe."""
    return {
        "group_id": group.group_id,
        "state": group.state.value,
        "group_epoch": group.group_epoch,
        "config": group.config.to_dict(),
        "members": [
            {
                "member_id": m.member_id,
                "member_epoch": m.member_epoch,
                "subscribed_topics": [t for t in m.subscribed_topics if visible(t)],
                "assignment": [a for a in show_assignment(m) if visible(a["topic"])],
                "last_seen_ms": m.last_seen_ms,
            }
            for m in group.members.values()
        ],
        "partitions": [show_partition(v) for v in partitions if visible(v.topic)],
    }


def show_record_views(start: int, end: int, views: list[RecordView]) -> dict[str, Any]:
    return {
        "start_offset": start,
        "end_offset": end,
        "records": [
            {
                "offset": v.offset,
                "state": v.state.label,
                "delivery_count": v.delivery_count,
                "member_id": v.member_id,
                "lock_expires_at": v.lock_expires_at,
                "available_at": v.available_at,
            }
            for v in views
        ],
    }
