"""What every schema module builds on: the base model, examples, the error body, records."""

from __future__ import annotations

import copy
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

Encoding = Literal["utf8", "base64", "json"]


class Model(BaseModel):
    model_config = ConfigDict(extra="allow")


def with_examples(*bodies: dict[str, Any]) -> ConfigDict:
    """Config of a request model with these example bodies (OpenAPI ``examples``)."""
    return ConfigDict(json_schema_extra={"examples": list(bodies)})


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


class WireHeader(Model):
    key: str
    value: Any = None


class WireRecord(Model):
    key: Any = None
    value: Any = None
    headers: list[WireHeader] = []
    partition: int | None = Field(None, ge=0)
    timestamp: int | None = Field(None, ge=0)
    encoding: Encoding | None = None
