"""Forwarding (docs/kafka.md#several-gateways): a share-group member's request that reaches a
gateway other than the one holding the member is sent on to that gateway, and its answer
returned as it came.

Kafka keeps a share-group member's share sessions on the connections of the gateway that
opened them: a ShareFetch from another gateway would open a new session and end the old one,
releasing what the member holds. So the member ids a gateway chooses name it
(``app.kafka.share_members.gateway_of``), and the requests keyed by a member id (share
heartbeat, fetch and acknowledge with ``member_id`` in the body; the member's ``DELETE``) are
looked at here, before the application: when the id names another gateway that
``__sluice_gateways`` announces (``app.kafka.gateways``), the request goes to that gateway's
advertised address as it came (method, path, query, headers with the caller's credentials,
body), and the owner's status, headers and body are the answer. When the owner cannot be
reached (its connection refused, or lost before it answered: a gateway killed), the answer is
``UNKNOWN_MEMBER_ID``, as Kafka's own when a member's session is gone, and the client joins
again. Any other request, and one whose member id names this gateway, no gateway or a gateway
not announced, is served here.

A forwarded request carries the header ``Sluice-Forwarded``: the sending gateway's id, the
time and an HMAC-SHA256 of both with the method and path, keyed from the secret every gateway
of the cluster reads from ``__sluice_keys``. A gateway serves a request with that header
itself and never forwards it again, so a request crosses at most one hop. A header that does
not verify (another secret, altered, or older than ``SIGNATURE_VALID_MS``) is refused with 401
``UNAUTHENTICATED``: a client cannot pass for a gateway. The header carries no authority of its
own: the owner authenticates and authorizes the caller's credentials as for any request.

Requests are checked as ``RequestGate`` checks them before they are forwarded (readiness, the
names and origins of a server without keys, the API key): one that would be refused here goes
to the application, which refuses it.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import logging
import re
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, NamedTuple

import httpx
from starlette.types import Message, Receive, Scope, Send

from app.api.errors import error_response
from app.clock import Clock
from app.errors import ErrorCode, SluiceError
from app.kafka.share_members import gateway_of, unknown_member
from app.main import RequestGate, Sluice

if TYPE_CHECKING:
    from app.kafka.engine import KafkaEngine

log = logging.getLogger("sluice.kafka.forward")

HEADER = b"sluice-forwarded"
SIGNATURE_VALID_MS = 60_000  # how old a forwarded request's signature may be (clocks differ)
CONNECT_TIMEOUT_S = 5.0  # an owner that does not take the connection within this is gone
# what a forwarded request's answer may take on top of the owner's own bounds
ANSWER_MARGIN_S = 10.0
_KEY_LABEL = b"sluice gateway forwarding"  # the signing key's derivation from the secret
# headers of one connection, not of the request or answer
_HOP = frozenset(
    {
        b"connection",
        b"keep-alive",
        b"transfer-encoding",
        b"te",
        b"trailer",
        b"upgrade",
        b"proxy-connection",
    }
)
# left out of the request sent on: the body's length, which the forward sets anew, and the
# header of a forward, which it signs anew
_NOT_SENT_ON = _HOP | {b"content-length", HEADER}
# left out of the answer given back: what this gateway's server adds to every answer itself
_NOT_GIVEN_BACK = _HOP | {b"date", b"server"}
# what httpx adds to a request that lacks them: left out unless the client sent them
_ADDED = ("accept", "accept-encoding", "user-agent")

_PREFIX = "/v1/share-groups/"
_IN_BODY = re.compile(r"/v1/share-groups/([^/]+)/(heartbeat|fetch|acknowledge)")
_IN_PATH = re.compile(r"/v1/share-groups/([^/]+)/members/([^/]+)")
# the member id of a body, found without parsing it all (the owner parses it; this only
# chooses where it goes). An escaped quote never matches, so text inside a string does not.
_MEMBER_ID = re.compile(rb'"member_id"\s*:\s*"([0-9A-Za-z._-]{1,64})"')


class MemberRoute(NamedTuple):
    """A request keyed by a share member: its group, the route's template (for the request
    metrics) and the member id when the path has it (else it is in the body)."""

    group_id: str
    template: str
    member_id: str | None


def member_route(scope: Scope) -> MemberRoute | None:
    path: str = scope["path"]
    if not path.startswith(_PREFIX):
        return None
    method = scope["method"]
    if method == "POST" and (m := _IN_BODY.fullmatch(path)) is not None:
        return MemberRoute(m.group(1), f"{_PREFIX}{{group_id}}/{m.group(2)}", None)
    if method == "DELETE" and (m := _IN_PATH.fullmatch(path)) is not None:
        return MemberRoute(m.group(1), f"{_PREFIX}{{group_id}}/members/{{member_id}}", m.group(2))
    return None


def signing_key(secret: bytes) -> bytes:
    """The key of forwarding signatures, derived from the cluster's secret (which also signs
    WebSocket tokens: one key for each use)."""
    return hmac.new(secret, _KEY_LABEL, hashlib.sha256).digest()


def sign(key: bytes, gateway_id: str, now_ms: int, method: str, path: str) -> bytes:
    message = f"{gateway_id}\0{now_ms}\0{method}\0{path}".encode()
    digest = hmac.new(key, message, hashlib.sha256).hexdigest()
    return f"{gateway_id}.{now_ms}.{digest}".encode()


def verify(key: bytes, header: bytes, now_ms: int, method: str, path: str) -> bool:
    """Whether ``header`` is a gateway's signature of this request, made within
    ``SIGNATURE_VALID_MS``."""
    try:
        gateway_id, at, _ = header.decode("ascii").split(".")
        signed = int(at)
    except ValueError:
        return False
    if abs(now_ms - signed) > SIGNATURE_VALID_MS:
        return False
    return hmac.compare_digest(sign(key, gateway_id, signed, method, path), header)


FORGED = SluiceError(
    ErrorCode.UNAUTHENTICATED,
    "the Sluice-Forwarded header does not verify: only gateways of the cluster send it",
)


class Forwarder:
    """Forwarding on a started gateway: ``gate`` is the application's ``RequestGate`` (its
    checks and metrics), ``kafka`` the gateway's engine (its id, the announced gateways and
    the cluster's secret)."""

    def __init__(self, gate: RequestGate, kafka: KafkaEngine, clock: Clock) -> None:
        self.gate = gate
        self.kafka = kafka
        self.clock = clock
        settings = kafka.settings
        self.max_body = settings.max_request_bytes
        self.body_timeout_ms = settings.body_timeout_ms
        answer_s = (
            settings.max_wait_ms + 2 * settings.kafka_request_timeout_ms
        ) / 1000 + ANSWER_MARGIN_S
        self.client = httpx.AsyncClient(
            timeout=httpx.Timeout(answer_s, connect=CONNECT_TIMEOUT_S, pool=None),
            # one connection per request in flight: long polls hold theirs
            limits=httpx.Limits(max_connections=None, max_keepalive_connections=100),
            follow_redirects=False,
            trust_env=False,
        )
        kafka.on_close(self.client.aclose)

    def _key(self) -> bytes:
        return signing_key(self.kafka.keys.token_secret)

    def _checked(self, scope: Scope) -> bool:
        """Whether ``RequestGate`` would let the request through to its route."""
        return self.gate.refusal(scope) is None

    async def serve(
        self,
        scope: Scope,
        receive: Receive,
        send: Send,
        route: MemberRoute,
        app: Callable[[Scope, Receive, Send], Awaitable[None]],
    ) -> None:
        if not self._checked(scope):
            await app(scope, receive, send)  # refused there, as any request
            return
        started = time.perf_counter()
        header = next((v for k, v in scope["headers"] if k == HEADER), None)
        if header is not None:
            if not verify(self._key(), header, self.clock.now_ms(), scope["method"], scope["path"]):
                await self._answer(scope, receive, send, route, started, FORGED)
                return
            # sent by the gateway it reached: served here, whether or not held here
            await app(scope, receive, send)
            return
        body: list[bytes] = []
        complete = True
        member_id = route.member_id
        if member_id is None:
            declared = next((v for k, v in scope["headers"] if k == b"content-length"), b"")
            if declared.isdigit() and int(declared) > self.max_body:
                await app(scope, receive, send)  # refused there before it is read
                return
            try:
                complete = await _read(receive, body, self.max_body, self.body_timeout_ms)
            except TimeoutError:
                slow = SluiceError(
                    ErrorCode.REQUEST_TIMEOUT,
                    f"the body did not arrive within {self.body_timeout_ms} ms",
                )
                await self._answer(scope, receive, send, route, started, slow)
                return
            if complete:
                m = _MEMBER_ID.search(b"".join(body))
                member_id = None if m is None else m.group(1).decode()
        owner = None if member_id is None else gateway_of(member_id)
        url = None if owner is None else self.kafka.gateways.url_of(owner)
        if url is None or member_id is None:
            await app(scope, _replay(body, receive, complete), send)
            return
        status = await self._forward(scope, send, b"".join(body), url, route, member_id)
        self.gate.metrics.request(
            route.template, scope["method"], status, time.perf_counter() - started
        )

    async def _answer(
        self,
        scope: Scope,
        receive: Receive,
        send: Send,
        route: MemberRoute,
        started: float,
        error: SluiceError,
    ) -> None:
        await error_response(error)(scope, receive, send)
        self.gate.metrics.request(
            route.template, scope["method"], error.code.status, time.perf_counter() - started
        )

    async def _forward(
        self, scope: Scope, send: Send, body: bytes, url: str, route: MemberRoute, member_id: str
    ) -> int:
        """Send the request to the owner at ``url`` and its answer to the client; answers
        the status sent."""
        method: str = scope["method"]
        path: str = scope["path"]
        target = url + (scope.get("raw_path") or path.encode()).decode("latin-1")
        if scope.get("query_string"):
            target += "?" + scope["query_string"].decode("latin-1")
        headers = [(k, v) for k, v in scope["headers"] if k not in _NOT_SENT_ON]
        headers.append(
            (HEADER, sign(self._key(), self.kafka.gateways.id, self.clock.now_ms(), method, path))
        )
        request = self.client.build_request(method, target, headers=headers, content=body)
        sent = {k.decode("latin-1") for k, _ in headers}
        for name in _ADDED:
            if name not in sent:
                del request.headers[name]
        try:
            answer = await self.client.send(request, stream=True)
        except httpx.TransportError as exc:
            # the owner is gone (killed, stopped, unreachable): so is its member's session
            log.info("gateway at %s did not answer for member %s: %r", url, member_id, exc)
            gone = unknown_member(route.group_id, member_id)
            await error_response(gone)(scope, _no_body, send)
            return gone.code.status
        try:
            await send(
                {
                    "type": "http.response.start",
                    "status": answer.status_code,
                    "headers": [
                        (k.lower(), v)
                        for k, v in answer.headers.raw
                        if k.lower() not in _NOT_GIVEN_BACK
                    ],
                }
            )
            async for chunk in answer.aiter_raw():
                await send({"type": "http.response.body", "body": chunk, "more_body": True})
            await send({"type": "http.response.body", "body": b"", "more_body": False})
        except httpx.TransportError:
            # the answer was cut after it began: the client's connection is closed unfinished
            log.warning("the answer of the gateway at %s was cut", url, exc_info=True)
        finally:
            await answer.aclose()
        return answer.status_code


async def _read(receive: Receive, into: list[bytes], limit: int, timeout_ms: int) -> bool:
    """Read the request's body into ``into``; False (having read a little more than
    ``limit``, or the client having left) when the application is to refuse it. A body that
    came with its headers is taken at once; the rest of one must arrive within
    ``timeout_ms`` (``TimeoutError``), as ``app.api.deps.read_body`` requires."""
    message = await receive()
    if message["type"] == "http.request" and not message.get("more_body", False):
        into.append(message.get("body", b""))
        return len(into[0]) <= limit
    async with asyncio.timeout(timeout_ms / 1000):
        size = 0
        while True:
            if message["type"] != "http.request":
                return False
            chunk = message.get("body", b"")
            into.append(chunk)
            size += len(chunk)
            if size > limit:
                return False
            if not message.get("more_body", False):
                return True
            message = await receive()


def _replay(body: list[bytes], receive: Receive, complete: bool = True) -> Receive:
    """``receive`` with what was read of the body given again first, in one message."""
    if not body:
        return receive
    pending = [b"".join(body)]

    async def replayed() -> Message:
        if pending:
            return {"type": "http.request", "body": pending.pop(), "more_body": not complete}
        return await receive()

    return replayed


async def _no_body() -> Message:
    return {"type": "http.request", "body": b"", "more_body": False}


class GatewayApp(Sluice):
    """The application of a gateway: ``Sluice``, with a share member's requests forwarded
    to the gateway that holds the member, once started."""

    forwarder: Forwarder | None = None

    def serve_direct(self, gate: RequestGate) -> None:
        super().serve_direct(gate)
        kafka = self.state.broker.kafka
        self.forwarder = Forwarder(gate, kafka, kafka.clock)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        forwarder = self.forwarder
        if forwarder is not None and scope["type"] == "http":
            route = member_route(scope)
            if route is not None:
                await forwarder.serve(scope, receive, send, route, super().__call__)
                return
        await super().__call__(scope, receive, send)
