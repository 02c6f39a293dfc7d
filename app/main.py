"""create_app(settings): the FastAPI application with its lifespan, routers and error handlers."""

from __future__ import annotations

import gc
import inspect
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI
from fastapi.routing import APIRoute
from starlette.convertors import StringConvertor
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from starlette.websockets import WebSocket

from app import __version__
from app.api.errors import error_response, register_exception_handlers
from app.api.openapi import openapi_document
from app.api.routes import (
    admin_acls,
    admin_keys,
    admin_quotas,
    auth,
    consume,
    dashboard,
    events,
    groups,
    health,
    producers,
    records,
    share_groups,
    topics,
    transactions,
)
from app.clock import Clock
from app.config import Settings
from app.errors import ErrorCode, SluiceError, Unavailable
from app.runtime import Broker
from app.security import permissions
from app.security.authentication import Authenticator, selecting_subprotocol
from app.security.cross_site import CrossSite

# The hot endpoints: produce, share fetch and acknowledge, commit. RequestGate calls them
# itself (see there).
DIRECT_ENDPOINTS: tuple[Callable[..., Any], ...] = (
    records.produce,
    records.produce_batches,
    producers.produce,
    share_groups.fetch,
    share_groups.acknowledge,
    transactions.commit,
)


def direct_routes() -> list[APIRoute]:
    """The routes of ``DIRECT_ENDPOINTS``."""
    return [
        r
        for router in (records.router, producers.router, share_groups.router, transactions.router)
        for r in router.routes
        if isinstance(r, APIRoute) and r.endpoint in DIRECT_ENDPOINTS
    ]


# an exception handler of the application: the answer to a request that raised
Handler = Callable[[Request, Any], Response | Awaitable[Response]]

TRY_AGAIN_LATER = 1013  # the WebSocket close code of a socket opened while not ready
POLICY_VIOLATION = 1008  # a WebSocket refused (closed before it is accepted: HTTP 403)
UNAUTHENTICATED = SluiceError(ErrorCode.UNAUTHENTICATED, "a valid API key is required")


class RequestGate:
    """Every request passes here, in one pure-ASGI layer (a few µs each): while the server has
    no API keys, a request addressed to a name it does not answer to, or sent for a page of
    another site, is refused (``app.security.cross_site``; 403 HOST_NOT_ALLOWED or
    ORIGIN_NOT_ALLOWED), and a WebSocket handshake from a page of another site always is; an
    API endpoint (``/v1/…``) answers 503 NOT_READY until recovery has finished and again once
    shutdown has begun (the one readiness check, before any router runs; an API WebSocket is
    accepted and closed at once with 1013); then, once API keys exist, every request but the
    public ones must bring a valid key (``app.security.authentication``; 401 UNAUTHENTICATED);
    a refused WebSocket handshake is answered with the same HTTP error, before it is accepted.
    Every HTTP request is counted, with its latency, per route template.

    The routes of ``direct`` (the hot endpoints) are matched here and their endpoint called
    straight away: routing, dependency solving and the exception layers below cost more than
    the work of a produce request. The endpoints take only their path parameters and the
    request, so the call is the one the router would make; an error it raises is answered by
    the application's handler for it (``handlers``), as on the other routes. Every other
    request, and these routes' documentation, stay with the router. Once the server has
    started, ``Sluice`` brings these routes' requests to a gate of its own (``http``) before
    FastAPI's layers; this one, a middleware, then sees them only before start-up or with
    FastAPI's telemetry configured.
    """

    def __init__(
        self,
        app: ASGIApp,
        broker: Broker,
        direct: Iterable[APIRoute] = (),
        *,
        handlers: Mapping[Any, Handler],
    ) -> None:
        self.app = app
        self.engine = broker.engine  # readiness and the keys; the rest is the face's
        self.metrics = broker.metrics
        self.direct = [(r.path_regex.match, r.methods or set(), r, _as_text(r)) for r in direct]
        self.keys = self.engine.keys
        self.auth = Authenticator(self.engine.keys, broker.ws_tokens)
        self.cross_site = CrossSite(broker.settings)
        # the application's exception handlers (``register_exception_handlers``), by class
        self.handlers = handlers

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            if scope["type"] == "websocket":
                refused = self.cross_site.websocket(scope, anonymous=not self.keys.required)
                if refused is not None:
                    # refused before the handshake completes, so it reads and acquires nothing
                    await refuse(WebSocket(scope, receive, send), refused)
                    return
                send = selecting_subprotocol(scope, send)
                if not self.engine.ready and scope["path"].startswith("/v1/"):
                    websocket = WebSocket(scope, receive, send)
                    await websocket.accept()
                    await websocket.close(TRY_AGAIN_LATER, ErrorCode.NOT_READY.value.message)
                    return
                if not self.auth.websocket(scope):
                    await refuse(WebSocket(scope, receive, send))
                    return
            await self.app(scope, receive, send)
            return
        await self.http(scope, receive, send, self.route(scope))

    def route(self, scope: Scope) -> tuple[APIRoute, dict[str, Any]] | None:
        """The route of ``direct`` an HTTP request is for, with its path parameters; None for
        any other request."""
        if scope.get("root_path"):
            return None
        path = scope["path"]
        method = scope["method"]
        for match, methods, route, as_text in self.direct:
            if method in methods and (m := match(path)) is not None:
                if as_text:
                    return route, m.groupdict()
                conv = route.param_convertors
                return route, {k: conv[k].convert(v) for k, v in m.groupdict().items()}
        return None

    def refusal(self, scope: Scope) -> SluiceError | None:
        """Why an HTTP request is refused before any route sees it; None if it is not."""
        if not self.keys.required and (refused := self.cross_site.http(scope)) is not None:
            return refused
        if not self.engine.ready and scope["path"].startswith("/v1/"):
            return Unavailable(ErrorCode.NOT_READY)
        if not self.auth.http(scope):
            return UNAUTHENTICATED
        return None

    async def http(
        self,
        scope: Scope,
        receive: Receive,
        send: Send,
        direct: tuple[APIRoute, dict[str, Any]] | None,
    ) -> None:
        """An HTTP request, through the checks; ``direct`` is its ``route``."""
        started = time.perf_counter()
        status = 500
        refused = self.refusal(scope)
        try:
            if refused is None and direct is None:

                async def send_status(message: Message) -> None:
                    nonlocal status
                    if message["type"] == "http.response.start":
                        status = message["status"]
                    await send(message)

                await self.app(scope, receive, send_status)
                return
            if refused is not None:
                response = error_response(refused)
            else:
                assert direct is not None
                response = await self._direct(scope, receive, send, *direct)
            status = response.status_code
            await response(scope, receive, send)
        finally:
            route = scope.get("route")
            path = getattr(route, "path", "unmatched")
            self.metrics.request(path, scope["method"], status, time.perf_counter() - started)

    async def _direct(
        self, scope: Scope, receive: Receive, send: Send, route: APIRoute, params: dict[str, Any]
    ) -> Response:
        """The answer to a request for one of the ``direct`` routes: its endpoint's, or for an
        error it raised, the answer of the application's handler for it, as on every other
        route (``SluiceError``; on a gateway, an error of its exchange with the brokers; any
        other error is logged and answered 500 ``INTERNAL``)."""
        scope["endpoint"] = route.endpoint
        scope["route"] = route
        scope["path_params"] = params
        request = Request(scope, receive, send)
        try:
            response: Response = await route.endpoint(request=request, **params)
        except Exception as exc:
            handler = self._handler(exc)
            if handler is None:
                raise
            answer = handler(request, exc)
            response = await answer if inspect.isawaitable(answer) else answer
        return response

    def _handler(self, exc: Exception) -> Handler | None:
        for cls in type(exc).__mro__:
            handler = self.handlers.get(cls)
            if handler is not None:
                return handler
        return None


def _as_text(route: APIRoute) -> bool:
    """Whether every path parameter of ``route`` is text, taken as it matched."""
    return all(isinstance(c, StringConvertor) for c in route.param_convertors.values())


class Sluice(FastAPI):
    """The application. Once started, a request for a hot route (``DIRECT_ENDPOINTS``) is
    answered from here, the outermost ASGI callable, by a ``RequestGate`` of its own: the
    layers FastAPI puts around every request (its telemetry, its body limit, its error layers;
    a few µs each) do nothing for these routes, whose bodies are bounded by the endpoints and
    whose errors the gate answers with the application's handlers. With FastAPI's telemetry
    configured at start-up every request takes the whole stack, so that each is observed as
    before. Every other request, and every request before start-up, goes through the stack,
    where ``RequestGate`` sits as a middleware."""

    gate: RequestGate | None = None  # set at start-up (``serve_direct``)

    def serve_direct(self, gate: RequestGate) -> None:
        telemetry = getattr(self, "_native_telemetry", None)
        if telemetry is not None and telemetry.enabled():
            return
        self.gate = gate

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        gate = self.gate
        if gate is not None and scope["type"] == "http":
            direct = gate.route(scope)
            if direct is not None:
                scope["app"] = self  # as Starlette's own call does: ``request.app``
                await gate.http(scope, receive, send, direct)
                return
        await super().__call__(scope, receive, send)


async def refuse(websocket: WebSocket, error: SluiceError = UNAUTHENTICATED) -> None:
    """A WebSocket handshake refused: answered with the HTTP error (the ASGI denial response,
    which uvicorn supports), or closed before it is accepted (HTTP 403) by a server that
    cannot."""
    if "websocket.http.response" in websocket.scope.get("extensions", {}):
        await websocket.send_denial_response(error_response(error))
    else:
        await websocket.close(POLICY_VIOLATION, error.code.name.lower())


def create_app(
    settings: Settings | None = None,
    *,
    clock: Clock | None = None,
    broker: Broker | None = None,
    freeze_gc: bool = False,
) -> Sluice:
    """The application. ``freeze_gc`` (the server process sets it) moves everything alive after
    start-up out of the collector's reach: full collections then scan only request garbage
    instead of pausing the event loop for tens of milliseconds."""
    settings = settings or Settings.from_env()
    the_broker = broker or Broker(settings, clock)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        await the_broker.start()
        if isinstance(app, Sluice):
            # its ``app`` is never called: this gate answers only requests for its routes
            app.serve_direct(
                RequestGate(app, the_broker, direct_routes(), handlers=app.exception_handlers)
            )
        if freeze_gc:
            gc.collect()
            gc.freeze()
        try:
            yield
        finally:
            await the_broker.stop()

    app_class = Sluice
    if the_broker.kafka is not None:
        # a gateway forwards a share member's requests to the gateway holding the member
        from app.kafka.forward import GatewayApp

        app_class = GatewayApp
    app = app_class(
        title="Sluice",
        version=__version__,
        lifespan=lifespan,
        description="Kafka's queue and exactly-once semantics over plain HTTP.",
        # a path with a trailing slash is 404, not a redirect to a Location built from the
        # request's Host header (``/v1/topics/..%2f`` would send a client to ``/v1/topics/..``)
        redirect_slashes=False,
    )
    app.state.broker = the_broker
    # the face's decision on ACLs (permissions.authorizer_of), which the engine's ACL store
    # loads: not reached through the engine
    app.state.authorizer = the_broker.authorizer
    register_exception_handlers(app)
    # records first: routes are matched in order, and produce and read are the hot paths
    app.include_router(records.router)
    app.include_router(health.router)
    app.include_router(topics.router)
    app.include_router(producers.router)
    app.include_router(transactions.router)
    app.include_router(transactions.several)
    app.include_router(groups.router)
    app.include_router(share_groups.router)
    app.include_router(consume.router)
    app.include_router(events.router)
    app.include_router(dashboard.router)
    app.include_router(admin_acls.router)
    permissions.check_complete(app)  # a route that does not say what it needs: no server
    app.include_router(auth.router)
    app.include_router(admin_keys.router)
    app.include_router(admin_quotas.router)
    app.add_middleware(
        RequestGate,
        broker=the_broker,
        direct=direct_routes(),
        handlers=app.exception_handlers,
    )

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            app.openapi_schema = openapi_document(app, the_broker.settings)
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
    return app
