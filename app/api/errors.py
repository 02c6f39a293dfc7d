"""One place that turns errors into the wire's error body."""

from __future__ import annotations

import logging

import orjson
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.responses import Response

from app.errors import ErrorCode, SluiceError, Throttled

log = logging.getLogger("sluice.api")


# answers after which the connection is closed: the rest of the request may never come
CLOSING = frozenset({ErrorCode.REQUEST_TIMEOUT})


def error_response(err: SluiceError) -> Response:
    headers = None
    if err.code.retriable and err.code.status >= 429:
        seconds = err.retry_after_s if isinstance(err, Throttled) else 1
        headers = {"Retry-After": str(seconds)}
    if err.code is ErrorCode.UNAUTHENTICATED:
        headers = {"WWW-Authenticate": "Bearer"}
    if err.code in CLOSING:
        headers = {"Connection": "close"}
    return Response(
        orjson.dumps({"error": err.to_dict()}),
        status_code=err.code.status,
        media_type="application/json",
        headers=headers,
    )


def register_exception_handlers(app: FastAPI) -> None:
    async def sluice_error(_: Request, exc: Exception) -> Response:
        assert isinstance(exc, SluiceError)
        return error_response(exc)

    async def validation_error(_: Request, exc: Exception) -> Response:
        assert isinstance(exc, RequestValidationError)
        parts = []
        for e in exc.errors()[:5]:
            where = ".".join(str(x) for x in e.get("loc", ()) if x != "body")
            parts.append(f"{where}: {e.get('msg')}")
        return error_response(SluiceError(ErrorCode.INVALID_REQUEST, "; ".join(parts)))

    async def http_error(_: Request, exc: Exception) -> Response:
        assert isinstance(exc, StarletteHTTPException)
        code = {404: ErrorCode.NOT_FOUND, 405: ErrorCode.METHOD_NOT_ALLOWED}.get(
            exc.status_code, ErrorCode.INVALID_REQUEST
        )
        return error_response(SluiceError(code, str(exc.detail)))

    async def unexpected(_: Request, exc: Exception) -> Response:
        log.exception("unhandled error", exc_info=exc)
        return error_response(SluiceError(ErrorCode.INTERNAL, "internal error"))

    app.add_exception_handler(SluiceError, sluice_error)
    app.add_exception_handler(RequestValidationError, validation_error)
    app.add_exception_handler(StarletteHTTPException, http_error)
    app.add_exception_handler(Exception, unexpected)
