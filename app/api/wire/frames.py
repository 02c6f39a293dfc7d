"""Push-session frames (``/v1/share-groups/{g}/consume``): client frames declared and
decoded as the HTTP bodies are; server frames shaped.

Client frames: ``subscribe``, ``ack``, ``credit``. A frame that is not a JSON object with a
known ``type``, or whose fields are malformed, raises ``InvalidRequest`` (one with more values
or deeper nesting than a request body may have, ``TooLarge``, before it is parsed): the socket
answers it with an ``error`` frame and stays open. Acknowledgement ranges are those of the HTTP
acknowledge (``app.api.wire.share.ShareAck``), with the same per-partition errors.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, Literal

import orjson
from msgspec import Meta

from app.api.wire import batches, bounded_json
from app.api.wire.body import Body, Count, MemberId, Name, Nullable, convert
from app.api.wire.records import Encoding
from app.api.wire.share import (
    TOPIC_NAMES,
    ShareAck,
    convert_acked,
    parse_acks,
    show_acquired,
    show_fetch_head,
    show_fetched,
    show_results,
    topics,
)
from app.errors import ErrorCode, InvalidRequest, SluiceError
from app.share.coordinator import AckRequest, FetchAnswer

FRAME_TYPES = ("subscribe", "ack", "credit")
DEFAULT_CREDITS = 100


class SubscribeFrame(Body):
    rule_codes = {"topics[]": TOPIC_NAMES["subscribed_topics[]"]}

    topics: Annotated[list[Name], Meta(min_length=1)]
    member_id: MemberId | None = None
    credits: Count | None = None  # above SLUICE_WS_MAX_CREDITS: lowered
    auto_renew: Nullable[bool] = False
    encoding: Nullable[Encoding] = "utf8"
    format: Nullable[Literal["json", "batches"]] = "json"


class AckFrame(Body):
    acknowledgements: list[ShareAck]
    id: str | int | None = None  # echoed in the ack_result


class CreditFrame(Body):
    n: Count  # above SLUICE_WS_MAX_CREDITS: lowered


@dataclass(frozen=True, slots=True)
class Subscribe:
    topics: list[str]
    member_id: str | None
    credits: int
    auto_renew: bool
    encoding: str
    batches: bool = False  # records pushed as binary frames of record batches


@dataclass(frozen=True, slots=True)
class Ack:
    acks: AckRequest
    id: Any  # echoed in the ack_result, when the client gave one


@dataclass(frozen=True, slots=True)
class Credit:
    n: int


Frame = Subscribe | Ack | Credit


def frame_type(data: str | bytes, max_values: int, max_depth: int) -> tuple[str, dict[str, Any]]:
    """The frame's type and body; raises ``InvalidRequest`` for anything but a JSON object with
    a known ``type``, and ``TooLarge`` (``REQUEST_TOO_COMPLEX``) for one with more JSON values
    or deeper nesting than a request body may have."""
    raw = data.encode() if isinstance(data, str) else data
    bounded_json.check(raw, max_values, max_depth, "the frame")
    try:
        # read whole, as a body is (app.api.wire.body.check_json): UTF-8, every number within
        # a double's range; an integer beyond 64 bits is read as a float, which a declared
        # integer (an ack's id) refuses, so an answer never has to echo one
        body = orjson.loads(raw)
    except orjson.JSONDecodeError:
        raise InvalidRequest(ErrorCode.INVALID_REQUEST, "a frame must be a JSON object") from None
    if not isinstance(body, dict):
        raise InvalidRequest(ErrorCode.INVALID_REQUEST, 'the frame: expected {"type": …}')
    kind = body.get("type")
    if kind not in FRAME_TYPES:
        raise InvalidRequest(
            ErrorCode.INVALID_REQUEST,
            f"type: expected one of {', '.join(FRAME_TYPES)}, got {kind!r}",
        )
    return kind, body


def parse_frame(kind: str, body: dict[str, Any], max_credits: int, max_delay_ms: int) -> Frame:
    if kind == "subscribe":
        sub = convert(body, SubscribeFrame)
        return Subscribe(
            topics(sub.topics, "topics") or [],
            sub.member_id,
            DEFAULT_CREDITS if sub.credits is None else min(sub.credits, max_credits),
            sub.auto_renew,
            sub.encoding,
            sub.format == "batches",
        )
    if kind == "ack":
        ack, bad = convert_acked(body, AckFrame)
        return Ack(parse_acks(ack.acknowledgements, max_delay_ms, bad), ack.id)
    return Credit(min(convert(body, CreditFrame).n, max_credits))


def dumps(frame: dict[str, Any]) -> str:
    return orjson.dumps(frame).decode()


def subscribed(member_id: str, member_epoch: int, credits: int, auto_renew: bool) -> str:
    return dumps(
        {
            "type": "subscribed",
            "member_id": member_id,
            "member_epoch": member_epoch,
            "credits": credits,
            "auto_renew": auto_renew,
        }
    )


def records_batches(answer: FetchAnswer, parts: list[tuple[str, int, list[bytes]]]) -> bytes:
    """A ``records`` frame as record batches: the envelope of docs/api.md#batch-envelope, its
    head that of a share fetch (without the member id) with ``"type": "records"``."""
    head = show_fetch_head(answer, parts)
    del head["member_id"]
    return batches.envelope(
        {"type": "records", **head}, [x for _, _, stored in parts for x in stored]
    )


def records(answer: FetchAnswer, encoding: str) -> str:
    return dumps(
        {
            "type": "records",
            "records": show_fetched(answer, encoding),
            "acquired": show_acquired(answer),
            "acquisition_lock_timeout_ms": answer.lock_timeout_ms,
        }
    )


def ack_result(results: list[tuple[tuple[str, int], SluiceError | None]], ident: Any) -> str:
    frame: dict[str, Any] = {"type": "ack_result", "results": show_results(results)}
    if ident is not None:
        frame["id"] = ident
    return dumps(frame)


def error(exc: SluiceError, ident: Any = None) -> str:
    """An error frame; ``ident``, the id of the ack frame it answers, when it has one."""
    frame: dict[str, Any] = {"type": "error", "error": exc.to_dict()}
    if ident is not None:
        frame["id"] = ident
    return dumps(frame)
