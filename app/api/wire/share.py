"""Share-group bodies declared (heartbeat, fetch, acknowledge, config, offsets reset, the
acknowledgement of acquisitions), the rules of each beyond its shape, and their answers.

A malformed body as a whole is a request-level 400 ``INVALID_REQUEST``; a malformed range of
one partition (its offsets, types, delay or delivery count, first > last, not ascending, the
wrong number of types, a delay on anything but a release) is a per-partition
``INVALID_REQUEST`` inside the 200, and nothing of that partition is applied.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any, ClassVar, Literal, TypeAlias, TypeVar

import msgspec
from msgspec import Meta

from app.api.wire.body import (
    MAX_INT32,
    Body,
    BodyError,
    Count,
    Int64,
    MemberId,
    Name,
    NonNegative,
    Nullable,
    Part,
    Partition,
    convert,
    decode,
    given,
    is_,
    refusal,
    unset,
    when,
    whole,
)
from app.api.wire.records import Encoding, show_record
from app.config import Settings
from app.errors import ErrorCode, InvalidRequest, SluiceError, TooLarge
from app.share import group_config
from app.share.acquisitions import AcquisitionView
from app.share.admin import PartitionSummary, ResetKind, ResetTarget, TopicReset
from app.share.coordinator import AckRequest, FetchAnswer
from app.share.membership import Member, ShareGroup
from app.share.partition import AckBatch, AckType, RecordView

B = TypeVar("B", bound=msgspec.Struct)

_TYPES = {t.value: t for t in AckType}
_MAX_OFFSET = 2**62
_MAX_TOPICS = 10_000
_MAX_BYTES = 64 * 1024 * 1024
ACQUISITION_ID_MAX_CHARS = 255
_ACQUISITION_ACK_TYPES = {t.value: t for t in (AckType.ACCEPT, AckType.RELEASE, AckType.REJECT)}

AckTypeName = Literal["accept", "release", "reject", "renew"]
RangeOffset = Annotated[int, Meta(ge=0, le=_MAX_OFFSET)]
AcquisitionId = Annotated[str, Meta(min_length=1, max_length=ACQUISITION_ID_MAX_CHARS)]
# subscribed topics: a name that breaks the rule is INVALID_TOPIC, anything else INVALID_REQUEST
TOPIC_NAMES = {"subscribed_topics[]": ErrorCode.INVALID_TOPIC}


class ShareAck(Part):
    topic: Annotated[str, Meta(min_length=1)]
    partition: Partition
    first_offset: RangeOffset
    last_offset: RangeOffset
    type: AckTypeName | None = None
    types: (
        Annotated[
            list[AckTypeName],
            Meta(min_length=1, description="one type per offset (or one for all) instead of type"),
        ]
        | None
    ) = None
    # the upper bound is a setting (SLUICE_SHARE_MAX_RELEASE_DELAY_MS): app.api.openapi
    delay_ms: (
        Annotated[NonNegative, Meta(description="release only: not redelivered before")] | None
    ) = None
    delivery_count: (
        Annotated[
            Count,
            Meta(description="the delivery count received; a redelivered record refuses it"),
        ]
        | None
    ) = None


class _AckKey(msgspec.Struct):
    """The partition of an acknowledgement range, which a malformed range is the error of."""

    topic: Annotated[str, Meta(min_length=1)]
    partition: Partition


class ShareHeartbeatRequest(Body):
    examples: ClassVar[list[dict[str, Any]]] = [
        {"member_id": None, "member_epoch": 0, "subscribed_topics": ["orders"]}
    ]
    rules: ClassVar[list[dict[str, Any]]] = [
        # member_epoch absent is 0: a join
        when({"not": given("member_epoch")}, given("subscribed_topics")),
        when(is_("member_epoch", 0), given("subscribed_topics")),
        when(
            {"not": {"anyOf": [is_("member_epoch", 0), {"not": given("member_epoch")}]}},
            given("member_id"),
        ),
    ]
    rule_codes = TOPIC_NAMES

    member_id: MemberId | None = None
    member_epoch: Nullable[
        Annotated[int, Meta(ge=-1, le=MAX_INT32, description="0 joins, -1 leaves")]
    ] = 0
    subscribed_topics: list[Name] | None = None


class ShareFetchRequest(Body):
    examples: ClassVar[list[dict[str, Any]]] = [
        {
            "member_id": "m-1",
            "subscribed_topics": ["orders"],
            "max_records": 100,
            "max_bytes": 1_048_576,
            "max_wait_ms": 0,
            "acquire_mode": "batch_optimized",
            "encoding": "utf8",
            "acknowledgements": [
                {
                    "topic": "orders",
                    "partition": 0,
                    "first_offset": 0,
                    "last_offset": 9,
                    "type": "accept",
                }
            ],
        },
        {
            "acquisition_id": "run-7:batch-12:task-3",
            "subscribed_topics": ["orders"],
            "max_records": 100,
            "max_wait_ms": 1000,
        },
    ]
    rules: ClassVar[list[dict[str, Any]]] = [
        when(unset("member_id"), given("subscribed_topics")),
        when(is_("held_only", True), given("acquisition_id")),
        when(
            given("acquisition_id"),
            {
                "allOf": [
                    unset("member_id"),
                    {"properties": {"acknowledgements": {"maxItems": 0}}},
                ]
            },
        ),
    ]
    rule_codes = TOPIC_NAMES

    member_id: Annotated[MemberId, Meta(description="null joins with subscribed_topics")] | (
        None
    ) = None
    acquisition_id: (
        Annotated[
            AcquisitionId,
            Meta(
                description="fetch for this acquisition instead of a member: the records it "
                "still holds, again, or else new ones it then holds (member_id null, "
                "subscribed_topics required, no acknowledgements)"
            ),
        ]
        | None
    ) = None
    held_only: Nullable[
        Annotated[
            bool,
            Meta(
                description="with acquisition_id: answer only what the acquisition still "
                "holds, and nothing rather than new records (a replay)"
            ),
        ]
    ] = False
    subscribed_topics: list[Name] | None = None
    # above SLUICE_MAX_READ_RECORDS and SLUICE_MAX_WAIT_MS: lowered to them
    max_records: Nullable[Count] = 500
    max_bytes: Nullable[
        Annotated[
            int,
            Meta(
                ge=1,
                le=_MAX_BYTES,
                description="soft limit: at least one record is always returned",
            ),
        ]
    ] = 8 * 1024 * 1024
    max_wait_ms: Nullable[NonNegative] = 0
    acquire_mode: Nullable[Literal["batch_optimized", "record_limit"]] = "batch_optimized"
    format: Nullable[
        Annotated[
            Literal["json", "batches"],
            Meta(
                description="batches: the answer is the record batches that hold the records "
                "acquired, with the acquired ranges (docs/api.md#share-fetch-batches)"
            ),
        ]
    ] = "json"
    encoding: Nullable[Encoding] = "utf8"
    acknowledgements: Nullable[list[ShareAck]] = []


class ShareAcknowledgeRequest(Body):
    examples: ClassVar[list[dict[str, Any]]] = [
        {
            "member_id": "m-1",
            "acknowledgements": [
                {
                    "topic": "orders",
                    "partition": 0,
                    "first_offset": 10,
                    "last_offset": 19,
                    "type": "accept",
                },
                {
                    "topic": "orders",
                    "partition": 0,
                    "first_offset": 20,
                    "last_offset": 22,
                    "types": ["accept", "release", "reject"],
                },
                {
                    "topic": "orders",
                    "partition": 0,
                    "first_offset": 23,
                    "last_offset": 23,
                    "type": "release",
                    "delay_ms": 1000,
                    "delivery_count": 1,
                },
            ],
        }
    ]

    member_id: MemberId
    acknowledgements: Nullable[
        Annotated[list[ShareAck], Meta(description="absent or empty: nothing to acknowledge")]
    ] = []


class ShareAcquisitionsAcknowledgeRequest(Body):
    examples: ClassVar[list[dict[str, Any]]] = [
        {"acquisition_ids": ["run-7:batch-12:task-0", "run-7:batch-12:task-1"], "type": "accept"},
        {"prefix": "run-7:batch-12:"},
    ]
    rules: ClassVar[list[dict[str, Any]]] = [{"oneOf": [given("acquisition_ids"), given("prefix")]}]

    acquisition_ids: (
        Annotated[
            list[AcquisitionId],
            Meta(max_length=10_000, description="ids of 1 to 255 characters; or prefix"),
        ]
        | None
    ) = None
    prefix: (
        Annotated[AcquisitionId, Meta(description="every acquisition whose id starts so")] | None
    ) = None
    type: Nullable[Literal["accept", "release", "reject"]] = "accept"


# every fault of a config change is INVALID_CONFIG
_CONFIG_CODES = {"": ErrorCode.INVALID_CONFIG} | {
    k: ErrorCode.INVALID_CONFIG for k in group_config.KEYS
}


_T = TypeVar("_T")
# a config key: absent (left as it is), null (back to its default) or a value
Change: TypeAlias = _T | msgspec.UnsetType | None
_OffsetReset = Annotated[
    str,
    Meta(
        pattern=whole(group_config.OFFSET_RESET_PATTERN),
        description="latest | earliest | by_duration:<ms>",
    ),
]
_DeadLetterTopic = Annotated[
    str, Meta(pattern=whole(r"^([A-Za-z0-9._-]{1,249})?$"), description='"" or null: none')
]


class ShareGroupConfig(Part, forbid_unknown_fields=True):
    """PATCH …/config: the keys to change; null sets a key back to its default, an absent key
    is left as it is. The bounds of ``record_lock_duration_ms`` are settings
    (``app.api.openapi``), checked by ``app.share.group_config``."""

    examples: ClassVar[list[dict[str, Any]]] = [
        {
            "record_lock_duration_ms": 30_000,
            "delivery_count_limit": 5,
            "partition_max_record_locks": 2000,
            "auto_offset_reset": "earliest",
            "isolation_level": "read_committed",
            "renew_enabled": True,
            "dead_letter_topic": "orders-dlq",
        },
        {"auto_offset_reset": "by_duration:3600000", "dead_letter_topic": None},
    ]
    codes = _CONFIG_CODES

    record_lock_duration_ms: Change[Int64] = msgspec.UNSET
    delivery_count_limit: Change[Annotated[int, Meta(ge=2, le=10)]] = msgspec.UNSET
    partition_max_record_locks: Change[Annotated[int, Meta(ge=100, le=10_000)]] = msgspec.UNSET
    auto_offset_reset: Change[_OffsetReset] = msgspec.UNSET
    isolation_level: Change[Literal["read_uncommitted", "read_committed"]] = msgspec.UNSET
    renew_enabled: Change[bool] = msgspec.UNSET
    dead_letter_topic: Change[_DeadLetterTopic] = msgspec.UNSET


class ShareOffsetsTarget(Part, kw_only=True):
    topic: str
    partitions: list[Partition] | None = None
    # a malformed one is that topic's error, raised when the reset reaches one of its partitions
    to: Annotated[
        Any, Meta(description='"earliest" | "latest" | {"timestamp": ms} | {"offset": n}')
    ]


class ShareOffsetsReset(Body):
    examples: ClassVar[list[dict[str, Any]]] = [
        {
            "topics": [
                {"topic": "orders", "partitions": None, "to": "earliest"},
                {"topic": "orders", "partitions": [0], "to": {"offset": 0}},
            ],
            "dry_run": True,
        }
    ]

    topics: Annotated[list[ShareOffsetsTarget], Meta(min_length=1)]
    dry_run: Nullable[bool] = False


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


def topics(names: list[str] | None, where: str = "subscribed_topics") -> list[str] | None:
    """Subscribed topic names without repeats (at most 10,000: 413 beyond), or None."""
    if names is None:
        return None
    if len(names) > _MAX_TOPICS:
        raise TooLarge(ErrorCode.REQUEST_TOO_LARGE, f"{where}: more than {_MAX_TOPICS} topics")
    return list(dict.fromkeys(names))


def parse_heartbeat(raw: bytes, s: Settings) -> ShareHeartbeat:
    b = decode(raw, ShareHeartbeatRequest, s)
    return ShareHeartbeat(b.member_id, b.member_epoch, topics(b.subscribed_topics))


def parse_fetch(raw: bytes, s: Settings) -> ShareFetch:
    """``max_records`` and ``max_wait_ms`` above the server's limits are lowered to them."""
    b, bad = decode_acked(raw, ShareFetchRequest, s)
    if b.acquisition_id is not None:
        _check_by_acquisition(b)
    if b.held_only and b.acquisition_id is None:
        raise InvalidRequest(ErrorCode.INVALID_REQUEST, "held_only: only with acquisition_id")
    return ShareFetch(
        b.member_id,
        topics(b.subscribed_topics),
        max_records=min(b.max_records, s.max_read_records),
        max_wait_ms=min(b.max_wait_ms, s.max_wait_ms),
        max_bytes=b.max_bytes,
        record_limit=b.acquire_mode == "record_limit",
        encoding=b.encoding,
        acks=parse_acks(b.acknowledgements, s.share_max_release_delay_ms, bad),
        acquisition_id=b.acquisition_id,
        held_only=b.held_only,
        batches=b.format == "batches",
    )


def _check_by_acquisition(b: ShareFetchRequest) -> None:
    """A fetch by acquisition id has no member, names its topics, and acknowledges nothing
    (an acquisition is acknowledged as a whole, through …/acquisitions/acknowledge)."""
    if b.member_id is not None:
        raise InvalidRequest(
            ErrorCode.INVALID_REQUEST, "member_id: must be null with acquisition_id"
        )
    if b.subscribed_topics is None:
        raise InvalidRequest(
            ErrorCode.INVALID_REQUEST, "subscribed_topics: required with acquisition_id"
        )
    if b.acknowledgements:
        raise InvalidRequest(
            ErrorCode.INVALID_REQUEST,
            "acknowledgements: not taken with acquisition_id "
            "(acknowledge through …/acquisitions/acknowledge)",
        )


def parse_acquisitions_ack(raw: bytes, s: Settings) -> AcquisitionsAcknowledge:
    """Body of POST …/acquisitions/acknowledge: ``acquisition_ids`` or ``prefix`` (exactly
    one), and ``type`` (accept, release or reject; accept by default)."""
    b = decode(raw, ShareAcquisitionsAcknowledgeRequest, s)
    if (b.acquisition_ids is None) == (b.prefix is None):
        raise InvalidRequest(
            ErrorCode.INVALID_REQUEST, "exactly one of acquisition_ids and prefix is required"
        )
    return AcquisitionsAcknowledge(b.acquisition_ids, b.prefix, _ACQUISITION_ACK_TYPES[b.type])


def parse_acknowledge(raw: bytes, s: Settings) -> ShareAcknowledge:
    b, bad = decode_acked(raw, ShareAcknowledgeRequest, s)
    return ShareAcknowledge(
        b.member_id, parse_acks(b.acknowledgements, s.share_max_release_delay_ms, bad)
    )


def config_changes(raw: bytes, s: Settings) -> dict[str, object]:
    """Body of PATCH …/config: the keys it sets (null: back to the default), for the group
    config to check against its bounds."""
    b = decode(raw, ShareGroupConfig, s)
    return {k: v for k, v in msgspec.structs.asdict(b).items() if v is not msgspec.UNSET}


def parse_reset(raw: bytes, s: Settings) -> tuple[list[TopicReset], bool]:
    """Body of POST …/offsets: the topics to reset, and whether it is a dry run. A malformed
    ``to`` is that topic's error, raised when the reset reaches one of its partitions."""
    b = decode(raw, ShareOffsetsReset, s)
    targets = [
        TopicReset(
            t.topic,
            None if t.partitions is None else list(dict.fromkeys(t.partitions)),
            reset_target(t.to),
        )
        for t in b.topics
    ]
    return targets, b.dry_run


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


# -- acknowledgement ranges --------------------------------------------------------------------

# malformed ranges set aside, by the path of their list (``acknowledgements``,
# ``share_acknowledgements[0].acknowledgements``), then by their index in it
SetAside = dict[str, dict[int, InvalidRequest]]


def decode_acked(raw: bytes, body: type[B], s: Settings) -> tuple[B, SetAside]:
    """``raw`` as ``body``, a body with acknowledgement ranges (in lists named
    ``acknowledgements``): a range whose own fields are malformed is set aside as its
    partition's error, in place of the request's, and stands in the list as an empty range
    of its partition."""
    try:
        return decode(raw, body, s), {}
    except BodyError as exc:
        if "acknowledgements" not in exc.path:
            raise
        fault = exc
    return _acked(msgspec.json.decode(raw), body, fault)  # valid JSON: the decode got past it


def convert_acked(value: Any, body: type[B]) -> tuple[B, SetAside]:
    """``decode_acked`` of an already parsed JSON value (a WebSocket frame's)."""
    try:
        return convert(value, body), {}
    except BodyError as exc:
        if "acknowledgements" not in exc.path:
            raise
        return _acked(value, body, exc)


def _acked(value: Any, body: type[B], fault: BodyError) -> tuple[B, SetAside]:
    bad: SetAside = {}
    _set_aside(value, "", bad)
    if not bad:
        raise fault
    return convert(value, body), bad


def _set_aside(value: Any, where: str, bad: SetAside) -> None:
    if isinstance(value, list):
        for i, item in enumerate(value):
            _set_aside(item, f"{where}[{i}]", bad)
        return
    if not isinstance(value, dict):
        return
    for key, item in value.items():
        at = f"{where}.{key}" if where else key
        if key == "acknowledgements" and isinstance(item, list):
            for i, ack in enumerate(item):
                try:
                    msgspec.convert(ack, ShareAck)
                except msgspec.ValidationError as exc:
                    try:
                        k = msgspec.convert(ack, _AckKey)
                    except msgspec.ValidationError:
                        continue  # no partition to blame: the request's error
                    bad.setdefault(at, {})[i] = refusal(ShareAck, exc, f"{at}[{i}]")
                    item[i] = {
                        "topic": k.topic,
                        "partition": k.partition,
                        "first_offset": 0,
                        "last_offset": 0,
                        "type": "accept",
                    }
        else:
            _set_aside(item, at, bad)


def parse_acks(
    items: list[ShareAck],
    max_delay_ms: int,
    bad: SetAside | None = None,
    where: str = "acknowledgements",
) -> AckRequest:
    """Declared ranges → per (topic, partition) its batches or its error (``bad``: the ranges
    set aside by ``decode_acked``)."""
    out: AckRequest = {}
    set_aside = (bad or {}).get(where, {})
    last: dict[tuple[str, int], int] = {}
    for i, item in enumerate(items):
        at = f"{where}[{i}]"
        key = (item.topic, item.partition)
        if isinstance(out.get(key), SluiceError):
            continue
        try:
            if i in set_aside:
                raise set_aside[i]
            batch = _batch(item, at, max_delay_ms)
            if key in last and batch.first <= last[key]:
                raise InvalidRequest(
                    ErrorCode.INVALID_REQUEST,
                    f"{at}: ranges of a partition must be ascending and must not overlap",
                )
        except InvalidRequest as exc:
            out[key] = exc
            continue
        last[key] = batch.last
        batches = out.setdefault(key, [])
        assert isinstance(batches, list)
        batches.append(batch)
    return out


def _batch(item: ShareAck, where: str, max_delay_ms: int) -> AckBatch:
    first, last = item.first_offset, item.last_offset
    if first > last:
        raise InvalidRequest(
            ErrorCode.INVALID_REQUEST, f"{where}: first_offset {first} > last_offset {last}"
        )
    if item.types is not None:
        names = item.types
        if len(names) != 1 and len(names) != last - first + 1:
            raise InvalidRequest(
                ErrorCode.INVALID_REQUEST,
                f"{where}.types: expected 1 or {last - first + 1} types, got {len(names)}",
            )
    elif item.type is not None:
        names = [item.type]
    else:
        raise InvalidRequest(ErrorCode.INVALID_REQUEST, f"{where}: type or types is required")
    types = [_TYPES[t] for t in names]
    delay = item.delay_ms or 0
    if delay > max_delay_ms:
        raise InvalidRequest(
            ErrorCode.INVALID_REQUEST,
            f"{where}.delay_ms: expected an integer from 0 to {max_delay_ms}",
        )
    if delay and AckType.RELEASE not in types:
        raise InvalidRequest(
            ErrorCode.INVALID_REQUEST, f"{where}.delay_ms: only a release may carry a delay"
        )
    return AckBatch(first, last, types, item.delivery_count, delay)


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
