"""One place that turns errors into the wire's error body."""

from __future__ import annotations

import logging
import re
from collections import defaultdict

import orjson
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.responses import Response
from starlette.routing import compile_path

from app.errors import ErrorCode, SluiceError, Throttled
from app.kafka.errors_map import from_protocol
from app.kafka.protocol.errors import ProtocolError
from app.security.permissions import routes_of

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


def allowed_methods(app: FastAPI, path: str) -> str:
    """The methods the routes matching ``path`` answer, for an ``Allow`` header."""
    table: list[tuple[re.Pattern[str], frozenset[str]]] | None = getattr(
        app.state, "allowed_methods", None
    )
    if table is None:
        by_path: dict[str, set[str]] = defaultdict(set)
        for method, template in routes_of(app):
            if method != "WS":
                by_path[template].update(("GET", "HEAD") if method == "GET" else (method,))
        table = [(compile_path(t)[0], frozenset(m)) for t, m in by_path.items()]
        app.state.allowed_methods = table
    methods: set[str] = set()
    for regex, allowed in table:
        if regex.match(path):
            methods |= allowed
    return ", ".join(sorted(methods))


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

    async def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, StarletteHTTPException)
        code = {404: ErrorCode.NOT_FOUND, 405: ErrorCode.METHOD_NOT_ALLOWED}.get(
            exc.status_code, ErrorCode.INVALID_REQUEST
        )
        response = error_response(SluiceError(code, str(exc.detail)))
        if code is ErrorCode.METHOD_NOT_ALLOWED:
            # RFC 9110: a 405 names the methods the path has (all its routes, not only the
            # first one the router tried)
            response.headers["Allow"] = allowed_methods(request.app, request.url.path)
        return response

    async def kafka_exchange(_: Request, exc: Exception) -> Response:
        # the gateway's exchange with a broker failed (SLUICE_BACKEND=kafka)
        assert isinstance(exc, ProtocolError)
        log.warning("a request to the Kafka cluster failed: %r", exc)
        return error_response(from_protocol(exc))

    async def unexpected(_: Request, exc: Exception) -> Response:
        log.exception("unhandled error", exc_info=exc)
        return error_response(SluiceError(ErrorCode.INTERNAL, "internal error"))

    app.add_exception_handler(SluiceError, sluice_error)
    app.add_exception_handler(RequestValidationError, validation_error)
    app.add_exception_handler(StarletteHTTPException, http_error)
    app.add_exception_handler(ProtocolError, kafka_exchange)
    app.add_exception_handler(Exception, unexpected)
