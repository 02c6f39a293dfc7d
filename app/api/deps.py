"""Request helpers: the broker off app.state, bounded body reading, JSON answers."""

from __future__ import annotations

from typing import Any

import orjson
from fastapi import Request
from starlette.responses import Response

from app import metrics
from app.errors import ErrorCode, InvalidRequest, TooLarge
from app.runtime import Broker


async def broker(request: Request) -> Broker:
    # async: a plain def dependency would be run in a worker thread on every request
    return broker_of(request)


def broker_of(request: Request) -> Broker:
    """The broker, read directly. Hot paths (produce, share fetch and acknowledge, heartbeats,
    transaction calls) use this instead of ``Depends(broker)``: FastAPI's dependency solving
    costs tens of microseconds a request, more than the work of a small request."""
    b: Broker = request.app.state.broker
    return b


async def read_body(request: Request, limit: int) -> bytes:
    """The body, refusing more than ``limit`` bytes before reading it all."""
    declared = request.headers.get("content-length")
    if declared is not None:
        try:
            if int(declared) > limit:
                raise TooLarge(ErrorCode.REQUEST_TOO_LARGE,
                               f"the body is {declared} bytes; the limit is {limit}")
        except ValueError:
            raise InvalidRequest("invalid Content-Length") from None
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise TooLarge(ErrorCode.REQUEST_TOO_LARGE, f"the body exceeds {limit} bytes")
        chunks.append(chunk)
    metrics.BYTES_IN.inc(size)
    return b"".join(chunks)


async def read_json(request: Request, limit: int, *, optional: bool = False) -> tuple[Any, bytes]:
    """Parse the body once as JSON, whatever the Content-Type says."""
    raw = await read_body(request, limit)
    if not raw.strip():
        if optional:
            return {}, raw
        raise InvalidRequest("the body is empty; expected a JSON object")
    try:
        return orjson.loads(raw), raw
    except orjson.JSONDecodeError as exc:
        raise InvalidRequest(f"the body is not valid JSON: {exc}") from None


def json_object(body: Any) -> dict[str, Any]:
    """A parsed body that must be a JSON object."""
    if not isinstance(body, dict):
        raise InvalidRequest("the body must be a JSON object")
    return body


async def read_object(request: Request, limit: int) -> dict[str, Any]:
    """The body, parsed once, as a JSON object (400 INVALID_REQUEST otherwise)."""
    body, _ = await read_json(request, limit)
    return json_object(body)


def json_response(content: Any, status_code: int = 200) -> Response:
    return Response(orjson.dumps(content), status_code=status_code,
                    media_type="application/json")

