"""Bodies of the producer and transaction endpoints declared, the rules of each beyond its
shape (sizes, one batch per partition, one entry per group or transactional id), and the
answers."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Annotated, Any, ClassVar, TypeVar

from msgspec import Meta

from app.api.wire.body import (
    MAX_INT32,
    MAX_INT64,
    Body,
    BodyError,
    Int64,
    MemberId,
    Name,
    Nullable,
    Part,
    Partition,
    decode,
    given,
    when,
)
from app.api.wire.records import (
    Encoding,
    WireRecord,
    at_most,
    parse_records,
    records_encoded,
    untyped,
)
from app.api.wire.share import SetAside, ShareAck, decode_acked, parse_acks
from app.config import Settings
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

ProducerId = Annotated[int, Meta(ge=0, le=MAX_INT64)]
ProducerEpoch = Annotated[int, Meta(ge=0, le=MAX_EPOCH)]


class InitProducerRequest(Body):
    """POST /v1/producers: a new producer, or a new epoch for a known one."""

    examples: ClassVar[list[dict[str, Any]]] = [
        {"transactional_id": "orders-tx", "transaction_timeout_ms": 60_000},
        {},
    ]
    # an epoch bump (KIP-360) names both, a new producer neither
    rules: ClassVar[list[dict[str, Any]]] = [
        when(given("producer_id"), given("producer_epoch")),
        when(given("producer_epoch"), given("producer_id")),
    ]
    codes = {"transaction_timeout_ms": ErrorCode.INVALID_TRANSACTION_TIMEOUT}

    transactional_id: Name | None = None
    # only the type is the body's: the bounds are the coordinator's settings (app.api.openapi)
    transaction_timeout_ms: Nullable[Int64] = DEFAULT_TXN_TIMEOUT_MS
    producer_id: ProducerId | None = None
    producer_epoch: ProducerEpoch | None = None


class ProducerIdentity(Body):
    """A producer id and epoch: the body of an abort, the answer of several endpoints."""

    examples: ClassVar[list[dict[str, Any]]] = [{"producer_id": 4000, "producer_epoch": 0}]

    producer_id: ProducerId
    producer_epoch: ProducerEpoch


class ProduceBatchRequest(Part):
    # any non-empty string: a topic that cannot exist is a per-batch error in the answer
    topic: Annotated[str, Meta(min_length=1)]
    partition: Partition
    base_sequence: Annotated[int, Meta(ge=0, le=MAX_SEQUENCE)]
    records: Annotated[list[WireRecord], Meta(min_length=1)]


class StatefulProduceRequest(Body, kw_only=True):
    """POST /v1/produce."""

    examples: ClassVar[list[dict[str, Any]]] = [
        {
            "producer_id": 4000,
            "producer_epoch": 0,
            "transactional_id": "orders-tx",
            "encoding": "utf8",
            "batches": [
                {
                    "topic": "orders",
                    "partition": 0,
                    "base_sequence": 0,
                    "records": [{"key": "customer-7", "value": "order created"}],
                }
            ],
        }
    ]
    rules: ClassVar[list[dict[str, Any]]] = records_encoded("batches")

    producer_id: ProducerId
    producer_epoch: ProducerEpoch
    transactional_id: Name | None = None
    encoding: Nullable[Encoding] = "utf8"
    batches: Annotated[list[ProduceBatchRequest], Meta(min_length=1)]


class OffsetCommitItem(Part):
    # any string: a topic that does not exist refuses the request when it is staged
    topic: str
    partition: Partition
    offset: Annotated[int, Meta(ge=0, le=MAX_INT64)]
    metadata: Annotated[str, Meta(max_length=OFFSET_METADATA_MAX_CHARS)] | None = None


class TxnGroupOffsets(Body, kw_only=True):
    """One group's KIP-447 offsets with the consumer's group metadata."""

    group_id: Name
    member_id: MemberId | None = None
    member_epoch: Nullable[Annotated[int, Meta(ge=-2, le=MAX_INT32)]] = -1
    # any characters: the group's own heartbeat is stricter, this only has to match it
    group_instance_id: Annotated[str, Meta(min_length=1, max_length=_INSTANCE_ID_MAX_CHARS)] | (
        None
    ) = None
    offsets: Annotated[list[OffsetCommitItem], Meta(min_length=1)]


class TxnOffsetsRequest(TxnGroupOffsets, kw_only=True):
    """POST /v1/transactions/{tid}/offsets."""

    examples: ClassVar[list[dict[str, Any]]] = [
        {
            "producer_id": 4000,
            "producer_epoch": 0,
            "group_id": "billing",
            "member_id": "m-1",
            "member_epoch": 3,
            "group_instance_id": None,
            "offsets": [{"topic": "orders", "partition": 0, "offset": 42, "metadata": "batch 7"}],
        }
    ]

    producer_id: ProducerId
    producer_epoch: ProducerEpoch


class TxnGroupAcknowledgements(Body, kw_only=True):
    """One share group's acknowledgements by one member."""

    group_id: Name
    member_id: MemberId
    acknowledgements: Annotated[list[ShareAck], Meta(min_length=1)]


class TxnAcknowledgementsRequest(TxnGroupAcknowledgements, kw_only=True):
    """POST /v1/transactions/{tid}/acknowledgements: acknowledgements as the share acknowledge
    endpoint takes them."""

    examples: ClassVar[list[dict[str, Any]]] = [
        {
            "producer_id": 4000,
            "producer_epoch": 0,
            "group_id": "analytics",
            "member_id": "m-1",
            "acknowledgements": [
                {
                    "topic": "orders",
                    "partition": 0,
                    "first_offset": 0,
                    "last_offset": 9,
                    "type": "accept",
                }
            ],
        }
    ]

    producer_id: ProducerId
    producer_epoch: ProducerEpoch


class TxnCommitRequest(Body, forbid_unknown_fields=True):
    """POST /v1/transactions/{tid}/commit: a commit, with optionally everything the
    transaction adds before it commits. Unknown fields are refused: a misspelt part must not
    commit an empty transaction."""

    examples: ClassVar[list[dict[str, Any]]] = [
        {"producer_id": 4000, "producer_epoch": 0},
        {
            "producer_id": 4000,
            "producer_epoch": 0,
            "encoding": "utf8",
            "batches": [
                {
                    "topic": "thumbnails",
                    "partition": 0,
                    "base_sequence": 0,
                    "records": [{"key": "img-1", "value": "resized img-1"}],
                }
            ],
            "share_acknowledgements": [
                {
                    "group_id": "resizers",
                    "member_id": "worker-1",
                    "acknowledgements": [
                        {
                            "topic": "jobs",
                            "partition": 0,
                            "first_offset": 0,
                            "last_offset": 0,
                            "type": "accept",
                        }
                    ],
                }
            ],
        },
        {
            "producer_id": 4000,
            "producer_epoch": 0,
            "batches": [
                {
                    "topic": "totals",
                    "partition": 0,
                    "base_sequence": 0,
                    "records": [{"value": "42"}],
                }
            ],
            "group_offsets": [
                {
                    "group_id": "billing",
                    "member_id": "m-1",
                    "member_epoch": 3,
                    "offsets": [{"topic": "orders", "partition": 0, "offset": 42}],
                }
            ],
        },
    ]
    rules: ClassVar[list[dict[str, Any]]] = records_encoded("batches")

    producer_id: ProducerId
    producer_epoch: ProducerEpoch
    encoding: Nullable[Encoding] = "utf8"
    batches: Nullable[
        Annotated[
            list[ProduceBatchRequest],
            Meta(description="records added to the transaction, as in /v1/produce"),
        ]
    ] = []
    group_offsets: Nullable[
        Annotated[
            list[TxnGroupOffsets],
            Meta(description="KIP-447 offsets, as in …/offsets, per group"),
        ]
    ] = []
    share_acknowledgements: Nullable[
        Annotated[
            list[TxnGroupAcknowledgements],
            Meta(description="acknowledgements, as in …/acknowledgements, per group"),
        ]
    ] = []


class TxnCommitAllItem(Part):
    """A transaction named by its transactional id and its producer's id and epoch."""

    transactional_id: Name
    producer_id: ProducerId
    producer_epoch: ProducerEpoch


class TxnCommitAllRequest(Body, forbid_unknown_fields=True):
    """POST /v1/transactions:commit-all. Unknown fields are refused: a misspelt key must not
    commit without one."""

    examples: ClassVar[list[dict[str, Any]]] = [
        {
            "transactions": [
                {"transactional_id": "etl-q1-0", "producer_id": 7, "producer_epoch": 3},
                {"transactional_id": "etl-q1-1", "producer_id": 8, "producer_epoch": 3},
            ],
            "idempotency_key": "q1:42",
        },
        {
            "transactions": [
                {"transactional_id": "orders-tx", "producer_id": 4000, "producer_epoch": 0}
            ]
        },
    ]

    transactions: Annotated[
        list[TxnCommitAllItem],
        Meta(
            min_length=1,
            description="the transactions to commit, each transactional id once; at most "
            "SLUICE_TXN_COMMIT_ALL_MAX (413 REQUEST_TOO_LARGE beyond)",
        ),
    ]
    idempotency_key: (
        Annotated[
            str,
            Meta(
                min_length=1,
                max_length=COMMIT_KEY_MAX_CHARS,
                description="a key committed before makes the request a duplicate: it commits "
                "nothing and aborts those of its transactions that are open",
            ),
        ]
        | None
    ) = None


class TxnAbortPrefixRequest(Body, forbid_unknown_fields=True):
    """POST /v1/transactions:abort-prefix."""

    examples: ClassVar[list[dict[str, Any]]] = [{"prefix": "etl-q1-"}]

    prefix: Annotated[str, Meta(min_length=1, max_length=PREFIX_MAX_CHARS)]


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


def parse_init(raw: bytes, s: Settings) -> InitProducerRequest:
    return decode(raw, InitProducerRequest, s, optional=True)


def parse_producer(raw: bytes, s: Settings) -> ProducerIdentity:
    return decode(raw, ProducerIdentity, s)


def parse_produce(raw: bytes, s: Settings, now_ms: int) -> StatefulProduce:
    try:
        b = decode(raw, StatefulProduceRequest, s)
    except BodyError:  # JSON within the bounds, not as declared: safe to read untyped
        _records_first(raw, s)
        raise
    batches = _batches(b.batches, b.encoding, now_ms, s)
    return StatefulProduce(b.producer_id, b.producer_epoch, b.transactional_id, batches)


def _records_first(raw: bytes, s: Settings) -> None:
    """The size limit first: a request of too many records is refused (413) whatever else is
    wrong in it."""
    batches = untyped(raw).get("batches")
    if isinstance(batches, list):
        at_most(
            sum(
                len(rb["records"])
                for rb in batches
                if isinstance(rb, dict) and isinstance(rb.get("records"), list)
            ),
            s.max_records_per_request,
        )


def _batches(
    raw_batches: list[ProduceBatchRequest], encoding: str, now_ms: int, s: Settings
) -> list[ProduceBatch]:
    """``batches``: one per partition, each with its base sequence and records."""
    at_most(sum(len(rb.records) for rb in raw_batches), s.max_records_per_request)
    batches: list[ProduceBatch] = []
    seen: set[tuple[str, int]] = set()
    for i, rb in enumerate(raw_batches):
        where = f"batches[{i}]"
        if (rb.topic, rb.partition) in seen:
            raise InvalidRequest(
                ErrorCode.INVALID_REQUEST,
                f"{where}: partition {rb.topic}/{rb.partition} appears twice; one batch per "
                "partition",
            )
        seen.add((rb.topic, rb.partition))
        parsed = parse_records(rb.records, encoding, now_ms, s.max_record_bytes, f"{where}.records")
        batches.append(
            ProduceBatch(rb.topic, rb.partition, rb.base_sequence, [rec for _, rec in parsed])
        )
    return batches


def parse_commit(raw: bytes, s: Settings, now_ms: int) -> tuple[ProducerIdentity, TxnWork]:
    """A commit, with optionally everything the transaction adds before it commits: records
    (``batches``, as in POST /v1/produce), consumer-group offsets (``group_offsets``, each as
    POST …/offsets) and share acknowledgements (``share_acknowledgements``, each as
    POST …/acknowledgements)."""
    try:
        b, bad = decode_acked(raw, TxnCommitRequest, s)
    except BodyError:  # JSON within the bounds, not as declared: safe to read untyped
        _records_first(raw, s)
        raise
    batches = _batches(b.batches, b.encoding, now_ms, s)
    offsets = _per_group([_group_offsets(g) for g in b.group_offsets], "group_offsets")
    acks = _per_group(
        [
            _group_acks(g, s, bad, f"share_acknowledgements[{i}].acknowledgements")
            for i, g in enumerate(b.share_acknowledgements)
        ],
        "share_acknowledgements",
    )
    return ProducerIdentity(producer_id=b.producer_id, producer_epoch=b.producer_epoch), TxnWork(
        batches, offsets, acks
    )


def parse_commit_all(raw: bytes, s: Settings) -> CommitAllRequest:
    """A commit of several transactions: each named by its transactional id, producer id and
    epoch, each id once; an optional idempotency key."""
    try:
        b = decode(raw, TxnCommitAllRequest, s)
    except BodyError:  # JSON within the bounds, not as declared: safe to read untyped
        # the size limit first: a request too large is refused whatever else is wrong in it
        txns = untyped(raw).get("transactions")
        if isinstance(txns, list):
            _commit_all_max(len(txns), s)
        raise
    _commit_all_max(len(b.transactions), s)
    seen: set[str] = set()
    for i, t in enumerate(b.transactions):
        if t.transactional_id in seen:
            raise InvalidRequest(
                ErrorCode.INVALID_REQUEST,
                f"transactions[{i}]: transactional id {t.transactional_id!r} appears twice; "
                "one entry per transactional id",
            )
        seen.add(t.transactional_id)
    txns = [
        TxnIdentity(t.transactional_id, t.producer_id, t.producer_epoch) for t in b.transactions
    ]
    return CommitAllRequest(txns, b.idempotency_key)


def _commit_all_max(n: int, s: Settings) -> None:
    if n > s.txn_commit_all_max:
        raise TooLarge(
            ErrorCode.REQUEST_TOO_LARGE,
            f"{n} transactions in one commit-all; the limit is {s.txn_commit_all_max}",
        )


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


def parse_abort_prefix(raw: bytes, s: Settings) -> str:
    """The prefix of the transactional ids whose open transactions are aborted."""
    return decode(raw, TxnAbortPrefixRequest, s).prefix


def parse_offsets(raw: bytes, s: Settings) -> TxnOffsets:
    b = decode(raw, TxnOffsetsRequest, s)
    g = _group_offsets(b)
    return TxnOffsets(
        b.producer_id,
        b.producer_epoch,
        g.group_id,
        g.member_id,
        g.member_epoch,
        g.group_instance_id,
        list(g.offsets),
    )


def _group_offsets(g: TxnGroupOffsets) -> GroupOffsets:
    offsets = [OffsetCommit(o.topic, o.partition, o.offset, o.metadata) for o in g.offsets]
    return GroupOffsets(g.group_id, g.member_id, g.member_epoch, g.group_instance_id, offsets)


def parse_acknowledgements(raw: bytes, s: Settings) -> TxnAcknowledgements:
    b, bad = decode_acked(raw, TxnAcknowledgementsRequest, s)
    g = _group_acks(b, s, bad, "acknowledgements")
    return TxnAcknowledgements(b.producer_id, b.producer_epoch, g.group_id, g.member_id, g.acks)


def _group_acks(g: TxnGroupAcknowledgements, s: Settings, bad: SetAside, where: str) -> GroupAcks:
    acks = parse_acks(g.acknowledgements, s.share_max_release_delay_ms, bad, where)
    return GroupAcks(g.group_id, g.member_id, acks)


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
