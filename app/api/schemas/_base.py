"""What every schema module builds on: the base model, the error body, record headers."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import Path
from pydantic import BaseModel, ConfigDict, Field

Encoding = Literal["utf8", "base64", "json"]
# a partition in a path: a number out of range is bad input (400), as it is in a body; a
# partition the topic lacks is 404
Partition = Annotated[int, Path(ge=0, le=2**31 - 1)]


class Model(BaseModel):
    model_config = ConfigDict(extra="allow")


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


class RecordHeader(Model):
    key: str
    value: Any = Field(None, description="in the record's encoding")
