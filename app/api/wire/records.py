"""Records on the wire: the produce body declared (``ProduceRequest``, ``WireRecord``), records
turned into bytes in the three encodings, and records shown in answers.

The declaration takes a key, a value and a header value of any JSON shape (``encoding: json``
takes any; integers of any size are decoded exactly); which shape a record's encoding takes is
stated to the document by ``rules`` and checked here, with the bytes: base64 decoded,
the record's stored size against the limit. Every problem raises ``InvalidRequest`` (or
``TooLarge``) naming the field, e.g. ``records[3].value``.
"""

from __future__ import annotations

import binascii
import json
from typing import Annotated, Any, ClassVar, Literal

import msgspec
import orjson
from msgspec import Meta
from pybase64 import b64decode, b64encode_as_string

from app.api.wire.body import Body, BodyError, Nullable, Part, Partition, decode, is_, unset, when
from app.config import Settings
from app.errors import ErrorCode, InvalidRequest, TooLarge
from app.storage.record import REC_FIXED, Header, Record, StoredRecord, record_size

ENCODINGS = ("utf8", "base64", "json")
Encoding = Literal["utf8", "base64", "json"]
_MAX_TS = 2**62
_IN_ENCODING = "in the record's encoding"

# What a key, a value or a header value is in each encoding: utf8 text, base64 (padded), or
# any JSON value (integers of any size); null is a null in every one.
TEXT: dict[str, Any] = {"anyOf": [{"type": "string"}, {"type": "null"}]}
BASE64: dict[str, Any] = {
    "anyOf": [
        {
            "type": "string",
            "pattern": r"^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$",
        },
        {"type": "null"},
    ]
}


def _bytes_as(shape: dict[str, Any]) -> dict[str, Any]:
    """A record whose key, value and header values have this shape."""
    return {
        "properties": {
            "key": shape,
            "value": shape,
            "headers": {"items": {"properties": {"value": shape}}},
        }
    }


def records_encoded(where: str = "records") -> list[dict[str, Any]]:
    """The rules of a request carrying records in ``where`` (``records``, or ``batches`` whose
    items have ``records``) with a request-wide ``encoding`` (utf8 when absent): each record
    without its own encoding is of the request's."""

    def inherit(shape: dict[str, Any]) -> dict[str, Any]:
        items = {"items": when(unset("encoding"), _bytes_as(shape))}
        if where == "batches":
            return {"properties": {"batches": {"items": {"properties": {"records": items}}}}}
        return {"properties": {"records": items}}

    return [
        when(is_("encoding", "base64"), inherit(BASE64)),
        when({"not": is_("encoding", "base64", "json")}, inherit(TEXT)),
    ]


class WireHeader(Part):
    key: str
    value: Annotated[Any, Meta(description=_IN_ENCODING)] = None


class WireRecord(Part):
    # a record's own encoding wins over the request's
    rules: ClassVar[list[dict[str, Any]]] = [
        when(is_("encoding", "utf8"), _bytes_as(TEXT)),
        when(is_("encoding", "base64"), _bytes_as(BASE64)),
    ]

    key: Annotated[Any, Meta(description=_IN_ENCODING)] = None
    value: Annotated[Any, Meta(description=_IN_ENCODING)] = None
    headers: list[WireHeader] | None = None
    partition: Partition | None = None
    timestamp: Annotated[int, Meta(ge=0, le=_MAX_TS)] | None = None
    encoding: Annotated[Encoding | None, Meta(description="null: the request's")] = None


class ProduceRequest(Body):
    """POST /v1/topics/{topic}/records."""

    examples: ClassVar[list[dict[str, Any]]] = [
        {
            "records": [
                {"key": "customer-7", "value": "order created"},
                {
                    "key": "customer-9",
                    "value": "order paid",
                    "partition": 0,
                    "timestamp": 1700000000000,
                    "headers": [{"key": "trace-id", "value": "4bf92f35"}],
                },
            ],
            "encoding": "utf8",
        },
        {"records": [{"value": {"id": 7, "total": 12.5}}], "encoding": "json"},
    ]
    rules: ClassVar[list[dict[str, Any]]] = records_encoded()

    records: Annotated[list[WireRecord], Meta(min_length=1)]
    encoding: Nullable[Encoding] = "utf8"


def _json_bytes(value: Any, where: str) -> bytes:
    """A JSON value's compact serialisation, integers of any size kept exactly."""
    try:
        return orjson.dumps(value)
    except orjson.JSONEncodeError:  # an integer beyond 64 bits
        _within_double(value, where)
        return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()


def _within_double(value: Any, where: str) -> None:
    """Refuse a number beyond a double's range (about 1.8e308), as the server refuses one
    anywhere else in a body (``app.api.wire.body.check_json``)."""
    if type(value) is int:
        try:
            float(value)
        except OverflowError:
            raise InvalidRequest(
                ErrorCode.INVALID_REQUEST,
                f"{where}: a number beyond the range of a double; send it as a string",
            ) from None
    elif type(value) is dict:
        for v in value.values():
            _within_double(v, where)
    elif type(value) is list:
        for v in value:
            _within_double(v, where)


def _bytes(value: Any, encoding: str, where: str) -> bytes | None:
    if encoding == "json":
        return None if value is None else _json_bytes(value, where)
    if value is None:
        return None
    if not isinstance(value, str):
        raise InvalidRequest(
            ErrorCode.INVALID_REQUEST, f"{where}: expected a string or null for encoding {encoding}"
        )
    if encoding == "utf8":
        return value.encode()
    try:
        return b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        raise InvalidRequest(ErrorCode.INVALID_REQUEST, f"{where}: invalid base64") from None


def parse_record(
    r: WireRecord, where: str, encoding: str, now_ms: int, max_record_bytes: int
) -> tuple[int | None, Record]:
    """One declared record → (requested partition or None, Record)."""
    enc = r.encoding or encoding
    key = _bytes(r.key, enc, f"{where}.key")
    value = _bytes(r.value, enc, f"{where}.value")
    headers = tuple(
        Header(h.key, _bytes(h.value, enc, f"{where}.headers[{j}].value"))
        for j, h in enumerate(r.headers or ())
    )
    record = Record(now_ms if r.timestamp is None else r.timestamp, key, value, headers)
    size = record_size(record)
    if size > max_record_bytes:
        raise TooLarge(
            ErrorCode.RECORD_TOO_LARGE, f"{where} is {size} bytes; the limit is {max_record_bytes}"
        )
    return r.partition, record


def parse_produce(raw: bytes, s: Settings, now_ms: int) -> list[tuple[int | None, Record]]:
    """The body of POST /v1/topics/{topic}/records → (requested partition or None, Record) for
    each record."""
    try:
        body = decode(raw, ProduceRequest, s)
    except BodyError:  # JSON within the bounds, not as declared: safe to read untyped
        # the size limit first: a request too large is refused whatever else is wrong in it
        records = untyped(raw).get("records")
        if isinstance(records, list):
            at_most(len(records), s.max_records_per_request)
        raise
    at_most(len(body.records), s.max_records_per_request)
    return parse_records(body.records, body.encoding, now_ms, s.max_record_bytes)


def untyped(raw: bytes) -> dict[str, Any]:
    """A body that broke its declaration, parsed as plain JSON (an empty dict if it is not a
    JSON object), for the limits checked before any other fault."""
    try:
        value = msgspec.json.decode(raw)
    except (msgspec.DecodeError, UnicodeDecodeError):
        return {}
    return value if isinstance(value, dict) else {}


def at_most(records: int, max_records: int) -> None:
    if records > max_records:
        raise TooLarge(
            ErrorCode.REQUEST_TOO_LARGE,
            f"{records} records in one request; the limit is {max_records}",
        )


def parse_records(
    records: list[WireRecord],
    encoding: str,
    now_ms: int,
    max_record_bytes: int,
    where: str = "records",
) -> list[tuple[int | None, Record]]:
    """Every record of a list → (requested partition or None, Record); errors name
    ``{where}[i]``.

    The common shape (no headers, timestamp or encoding of its own, maybe a partition, within
    the size limit; in utf8 or base64 a key and a value that are strings or null, in json any
    whose serialisation needs no integer beyond 64 bits) is turned into a Record here at a
    fraction of the cost of ``parse_record``; any other record goes through ``parse_record``,
    which also gives the precise error.
    """
    out: list[tuple[int | None, Record]] = []
    append = out.append
    limit = max_record_bytes - REC_FIXED  # record_size of a record without headers
    no_headers = ()
    new = tuple.__new__  # a NamedTuple's own constructor costs twice as much per record
    if encoding == "json":
        dumps = orjson.dumps
        for i, r in enumerate(records):
            if r.headers is None and r.timestamp is None and r.encoding is None:
                k, v = r.key, r.value
                try:
                    kb = None if k is None else dumps(k)
                    vb = None if v is None else dumps(v)
                except orjson.JSONEncodeError:  # an integer beyond 64 bits: parse_record's
                    pass
                else:
                    if (len(kb) if kb else 0) + (len(vb) if vb else 0) <= limit:
                        append((r.partition, new(Record, (now_ms, kb, vb, no_headers))))
                        continue
            append(parse_record(r, f"{where}[{i}]", encoding, now_ms, max_record_bytes))
        return out
    b64 = encoding == "base64"
    a2b = b64decode  # validate=True, as parse_record (SIMD base64, twice binascii's speed)
    for i, r in enumerate(records):
        k, v = r.key, r.value
        if (
            r.headers is None
            and r.timestamp is None
            and r.encoding is None
            and (v is None or type(v) is str)
            and (k is None or type(k) is str)
        ):
            try:
                vb = None if v is None else a2b(v, validate=True) if b64 else v.encode()
                kb = None if k is None else a2b(k, validate=True) if b64 else k.encode()
            except ValueError:  # binascii.Error is one: bad base64, or a character beyond ASCII
                pass
            else:
                if (len(kb) if kb else 0) + (len(vb) if vb else 0) <= limit:
                    append((r.partition, new(Record, (now_ms, kb, vb, no_headers))))
                    continue
        append(parse_record(r, f"{where}[{i}]", encoding, now_ms, max_record_bytes))
    return out


def _show(data: bytes | None, encoding: str) -> Any:
    """Bytes as the encoding shows them; raises ValueError when they cannot be shown."""
    if data is None:
        return None
    if encoding == "utf8":
        return data.decode()
    if encoding == "json":
        # valid JSON (the parse raises otherwise) goes into the answer as it is stored: no
        # second encoding, integers beyond 64 bits kept whole, and nesting deeper than the
        # encoder's 255 levels answered rather than failing the whole answer
        orjson.loads(data)
        return orjson.Fragment(data)
    return b64encode_as_string(data)


def show_record(r: StoredRecord, topic: str, partition: int, encoding: str) -> dict[str, Any]:
    """A stored record as a wire dict; bytes that the encoding cannot show → whole record base64."""
    try:
        out: dict[str, Any] = {
            "topic": topic,
            "partition": partition,
            "offset": r.offset,
            "timestamp": r.timestamp,
            "key": _show(r.key, encoding),
            "value": _show(r.value, encoding),
            "headers": [{"key": h.key, "value": _show(h.value, encoding)} for h in r.headers],
        }
    except ValueError:  # UnicodeDecodeError and orjson.JSONDecodeError are ValueErrors
        out = show_record(r, topic, partition, "base64")
        out["encoding"] = "base64"
    return out
