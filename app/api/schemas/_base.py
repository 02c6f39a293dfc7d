"""What every schema module builds on: the base model, examples, the error body, records."""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Annotated, Any, Literal

from fastapi import Path
from pydantic import BaseModel, ConfigDict, Field

Encoding = Literal["utf8", "base64", "json"]
# a partition in a path: a number out of range is bad input (400), as it is in a body; a
# partition the topic lacks is 404
Partition = Annotated[int, Path(ge=0, le=2**31 - 1)]


class Model(BaseModel):
    model_config = ConfigDict(extra="allow")


def with_examples(*bodies: dict[str, Any], rules: Sequence[dict[str, Any]] = ()) -> ConfigDict:
    """Config of a request model with these example bodies (OpenAPI ``examples``) and the
    ``rules`` between its fields that the parser applies (JSON Schema ``if``/``then``, made by
    ``when``), so that the document describes exactly what the server accepts."""
    extra: dict[str, Any] = {"examples": list(bodies)}
    if rules:
        extra["allOf"] = list(rules)
    return ConfigDict(json_schema_extra=extra)


def when(condition: dict[str, Any], then: dict[str, Any]) -> dict[str, Any]:
    return {"if": condition, "then": then}


def is_(field: str, *values: Any) -> dict[str, Any]:
    """The field is present with one of ``values``."""
    return {"required": [field], "properties": {field: {"enum": list(values)}}}


def unset(field: str) -> dict[str, Any]:
    """The field is absent or null (the parsers read a null as absent)."""
    return {"properties": {field: {"type": "null"}}}


def given(*fields: str, **schemas: dict[str, Any]) -> dict[str, Any]:
    """The fields are present and not null (``schemas``: also of these shapes)."""
    props: dict[str, Any] = {f: {"not": {"type": "null"}} for f in fields}
    props.update(schemas)
    return {"required": sorted({*fields, *schemas}), "properties": props}


def examples(model: type[BaseModel]) -> list[dict[str, Any]]:
    """A request model's example bodies (copies: callers may change them)."""
    extra = model.model_config.get("json_schema_extra")
    found = extra.get("examples") if isinstance(extra, dict) else None
    bodies = found if isinstance(found, list) else []
    return copy.deepcopy([b for b in bodies if isinstance(b, dict)])


class ErrorDetail(Model):
    code: str = Field(description="stable error code clients switch on")
    message: str
    retriable: bool
    kafka_code: int | None = None
    throttle_time_ms: int | None = Field(
        None, description="THROTTLING_QUOTA_EXCEEDED only: the exact wait in milliseconds"
    )


class ErrorBody(Model):
    error: ErrorDetail


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


class WireHeader(Model):
    key: str
    value: Any = Field(None, description="in the record's encoding")


class WireRecord(Model):
    model_config = ConfigDict(
        json_schema_extra={
            # a record's own encoding wins over the request's
            "allOf": [
                when(is_("encoding", "utf8"), _bytes_as(TEXT)),
                when(is_("encoding", "base64"), _bytes_as(BASE64)),
            ]
        }
    )

    key: Any = Field(None, description="in the record's encoding")
    value: Any = Field(None, description="in the record's encoding")
    headers: list[WireHeader] | None = None
    partition: int | None = Field(None, ge=0)
    timestamp: int | None = Field(None, ge=0, le=2**62)
    encoding: Encoding | None = Field(None, description="null: the request's")
