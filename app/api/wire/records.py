"""Records on the wire: JSON ↔ bytes in the three encodings, validated by hand.

The produce and read paths parse each body once (orjson) and check it here instead of through a
pydantic model: a model costs a third or more of the throughput on these paths. Every problem
raises ``InvalidRequest`` naming the field, e.g. ``records[3].value``.
"""

from __future__ import annotations

import binascii
import json
import re
from typing import Any

import orjson
from pybase64 import b64decode, b64encode_as_string

from app.api.wire._fields import MAX_INT32, array, integer, obj, optional, string
from app.errors import ErrorCode, InvalidRequest, TooLarge
from app.storage.record import REC_FIXED, Header, Record, StoredRecord, record_size

ENCODINGS = ("utf8", "base64", "json")
_MAX_TS = 2**62
_LONG_NUMBER = re.compile(rb"\d{19}")


def exact(body: Any, raw: bytes) -> Any:
    """``body`` again, read from ``raw`` with every integer exact, when it may carry JSON-encoded
    records with integers beyond 64 bits: the fast parser reads those as floats, and a record
    must be stored as it was sent. Any other body is returned as it is."""
    if b"json" in raw and _LONG_NUMBER.search(raw):
        return json.loads(raw)  # the fast parser took it already: it is valid JSON
    return body


def _json_bytes(value: Any) -> bytes:
    """A JSON value's compact serialisation, integers of any size kept exactly."""
    try:
        return orjson.dumps(value)
    except orjson.JSONEncodeError:  # an integer beyond 64 bits
        return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()


def encoding_of(value: Any, where: str = "encoding") -> str:
    if value is None:
        return "utf8"
    if value not in ENCODINGS:
        raise InvalidRequest(
            ErrorCode.INVALID_REQUEST, f"{where} must be one of {', '.join(ENCODINGS)}"
        )
    return str(value)


def _bytes(value: Any, encoding: str, where: str) -> bytes | None:
    if encoding == "json":
        return None if value is None else _json_bytes(value)
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
    raw: Any, i: int, encoding: str, now_ms: int, max_record_bytes: int
) -> tuple[int | None, Record]:
    """One wire record → (requested partition or None, Record)."""
    where = f"records[{i}]"
    raw = obj(raw, where)
    enc = raw.get("encoding")
    enc = encoding_of(enc, f"{where}.encoding") if enc is not None else encoding
    key = _bytes(raw.get("key"), enc, f"{where}.key")
    value = _bytes(raw.get("value"), enc, f"{where}.value")
    headers: list[Header] = []
    for j, h in enumerate(optional(array, raw.get("headers"), f"{where}.headers") or ()):
        hw = f"{where}.headers[{j}]"
        h = obj(h, hw, '{"key": string, "value": …}')
        hk = string(h.get("key"), f"{hw}.key", 0)
        hv = _bytes(h.get("value"), enc, f"{hw}.value")
        headers.append(Header(hk, hv))
    partition = optional(integer, raw.get("partition"), f"{where}.partition", 0, MAX_INT32)
    ts = raw.get("timestamp")
    timestamp = now_ms if ts is None else integer(ts, f"{where}.timestamp", 0, _MAX_TS)
    record = Record(timestamp, key, value, tuple(headers))
    size = record_size(record)
    if size > max_record_bytes:
        raise TooLarge(
            ErrorCode.RECORD_TOO_LARGE, f"{where} is {size} bytes; the limit is {max_record_bytes}"
        )
    return partition, record


def parse_produce(
    body: Any, now_ms: int, max_records: int, max_record_bytes: int, raw: bytes = b""
) -> list[tuple[int | None, Record]]:
    body = obj(exact(body, raw), "body", "a JSON object")
    records = array(body.get("records"), "records", min_items=1)
    if len(records) > max_records:
        raise TooLarge(
            ErrorCode.REQUEST_TOO_LARGE,
            f"{len(records)} records in one request; the limit is {max_records}",
        )
    return parse_records(records, encoding_of(body.get("encoding")), now_ms, max_record_bytes)


def parse_records(
    records: list[Any], encoding: str, now_ms: int, max_record_bytes: int, where: str = ""
) -> list[tuple[int | None, Record]]:
    """Every wire record of a list → (requested partition or None, Record); errors name
    ``{where}records[i]``. Plain utf8 and base64 records take a fast path."""
    if encoding != "json":
        fast = _parse_plain(records, encoding == "base64", now_ms, max_record_bytes)
        if fast is not None:
            return fast
    try:
        return [
            parse_record(r, i, encoding, now_ms, max_record_bytes) for i, r in enumerate(records)
        ]
    except InvalidRequest as exc:
        if not where:
            raise
        raise InvalidRequest(ErrorCode.INVALID_REQUEST, f"{where}{exc.message}") from None


_PLAIN_KEYS = frozenset(("key", "value", "partition"))


def _parse_plain(
    records: list[Any], b64: bool, now_ms: int, max_record_bytes: int
) -> list[tuple[int | None, Record]] | None:
    """The common shape: string-or-null key and value, maybe a partition, utf8 or base64 (when
    ``b64``). None otherwise.

    Same result as ``parse_record`` for those records, at a fraction of the cost; anything
    else (headers, partition, timestamp, wrong types, bad base64, oversize) takes the general
    path, which also produces the precise error.
    """
    out: list[tuple[int | None, Record]] = []
    append = out.append
    limit = max_record_bytes - REC_FIXED  # record_size of a record without headers
    plain = _PLAIN_KEYS.issuperset
    no_headers = ()
    new = tuple.__new__  # a NamedTuple's own constructor costs twice as much per record
    a2b = b64decode  # validate=True, as the general path (SIMD base64, twice binascii's speed)
    try:
        for r in records:
            if type(r) is not dict or not plain(r):
                return None
            k = r.get("key")
            v = r.get("value")
            if type(v) is str:
                vb: bytes | None = a2b(v, validate=True) if b64 else v.encode()
            elif v is None:
                vb = None
            else:
                return None
            p = r.get("partition")
            if p is not None and (type(p) is not int or not 0 <= p <= MAX_INT32):
                return None
            if k is None:
                if vb is not None and len(vb) > limit:
                    return None
                append((p, new(Record, (now_ms, None, vb, no_headers))))
                continue
            if type(k) is not str:
                return None
            kb = a2b(k, validate=True) if b64 else k.encode()
            if len(kb) + (len(vb) if vb else 0) > limit:
                return None
            append((p, new(Record, (now_ms, kb, vb, no_headers))))
    except ValueError:  # binascii.Error is one: bad base64, or a character beyond ASCII
        return None
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
