"""What each endpoint needs: the one table of the server's HTTP and WebSocket routes, and the
checks that enforce it.

The table follows Kafka's mapping of operations to requests (Produce needs WRITE on the topic,
Fetch READ, OffsetCommit READ on the group and the topics, EndTxn WRITE on the transactional id,
and so on). Each entry has:

- ``checks``: what the path names (the ``topic``, ``group_id`` or ``tid`` parameter, or the
  cluster), which the handler checks first, before it reads the body (``require_topic``…). An
  unknown resource the principal may not use is refused like a known one, so a refusal tells
  nothing about what exists;
- ``body``: what the handler checks once it has parsed the body (topics of a produce,
  a transactional id, the groups and topics of transactional offsets…), in words, with
  ``require`` and ``require_all``. Where the path names nothing, the handler first checks,
  before it reads the body, that the principal may perform the operation on some resource of
  the type (``require_some``): a principal that may do nothing of the kind is refused before
  the server reads or parses what it sent;
- ``access``: ``"checked"``; ``"filtered"``, a listing that shows only what the principal may
  DESCRIBE (``visible``), or an action on every resource that matches that acts only on those
  the principal may use (``allowed``); ``"authenticated"``, any valid key (about the caller
  itself); or ``"public"``.

Every route of the app must have an entry: ``check_complete`` refuses to build an app with a
route the table lacks, and a test generated from the route list asks every route, as a
principal without ACLs and as one with exactly those the route needs, and expects the table's
answers. Everything under ``/v1/admin/`` needs DESCRIBE on the cluster to read and
ALTER on the cluster to change, whatever its path.

A refusal is a 403 whose code names the resource type that failed
(``TOPIC_AUTHORIZATION_FAILED``…); a WebSocket refused at connect is accepted, sent the error
frame and closed with 1008, a refused frame is answered with an error frame. A principal of
``None`` (a server without keys) passes every check at the cost of one dictionary lookup.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Literal

from fastapi import FastAPI
from fastapi.routing import iter_route_contexts
from starlette.requests import HTTPConnection
from starlette.routing import Route, WebSocketRoute

from app.errors import ErrorCode, SluiceError
from app.security import PRINCIPAL
from app.security.acls import CLUSTER_NAME, Operation, ResourceType
from app.security.authorizer import Authorizer

TOPIC, GROUP, TXN, CLUSTER = (
    ResourceType.TOPIC,
    ResourceType.GROUP,
    ResourceType.TRANSACTIONAL_ID,
    ResourceType.CLUSTER,
)
READ, WRITE, CREATE, DELETE, DESCRIBE, ALTER = (
    Operation.READ,
    Operation.WRITE,
    Operation.CREATE,
    Operation.DELETE,
    Operation.DESCRIBE,
    Operation.ALTER,
)

FAILED: dict[ResourceType, ErrorCode] = {
    TOPIC: ErrorCode.TOPIC_AUTHORIZATION_FAILED,
    GROUP: ErrorCode.GROUP_AUTHORIZATION_FAILED,
    TXN: ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED,
    CLUSTER: ErrorCode.CLUSTER_AUTHORIZATION_FAILED,
}
_WORDS = {TOPIC: "topic", GROUP: "group", TXN: "transactional id"}
WS = "WS"  # the method of a WebSocket route in the table

Access = Literal["checked", "filtered", "authenticated", "public"]


@dataclass(frozen=True, slots=True)
class Check:
    """``operation`` on the resource of ``resource_type`` named by the path parameter
    ``param`` (None: the cluster)."""

    resource_type: ResourceType
    operation: Operation
    param: str | None = None


@dataclass(frozen=True, slots=True)
class Need:
    checks: tuple[Check, ...] = ()
    body: str = ""
    access: Access = "checked"


def _need(*checks: Check, body: str = "") -> Need:
    return Need(checks, body)


def _t(op: Operation) -> Check:
    return Check(TOPIC, op, "topic")


def _g(op: Operation) -> Check:
    return Check(GROUP, op, "group_id")


def _x(op: Operation) -> Check:
    return Check(TXN, op, "tid")


def _c(op: Operation) -> Check:
    return Check(CLUSTER, op)


PUBLIC = Need(access="public")
FILTERED = Need(access="filtered")
AUTHENTICATED = Need(access="authenticated")  # a valid key, no ACL: about the caller itself

T, SG, G, X = (
    "/v1/topics",
    "/v1/share-groups/{group_id}",
    "/v1/groups/{group_id}",
    "/v1/transactions",
)

PERMISSIONS: dict[str, Need] = {
    # service
    "GET /healthz": PUBLIC,
    "GET /readyz": PUBLIC,
    "GET /metrics": _need(_c(DESCRIBE)),
    "GET /openapi.json": PUBLIC,
    "GET /docs": PUBLIC,
    "GET /docs/oauth2-redirect": PUBLIC,
    "GET /redoc": PUBLIC,
    "GET /": PUBLIC,
    "GET /dashboard/{path:path}": PUBLIC,
    # topics (CreateTopics, Metadata, DescribeConfigs, AlterConfigs, CreatePartitions,
    # DeleteTopics, DeleteRecords)
    f"POST {T}": _need(
        body="CREATE on the cluster, or CREATE on the topic named (before the body: CREATE on "
        "the cluster or on some topic)"
    ),
    f"GET {T}": FILTERED,
    f"GET {T}/{{topic}}": _need(_t(DESCRIBE)),
    f"PATCH {T}/{{topic}}": _need(_t(ALTER)),
    f"DELETE {T}/{{topic}}": _need(_t(DELETE)),
    f"POST {T}/{{topic}}/delete-records": _need(_t(DELETE)),
    # records (Produce, Fetch, ListOffsets)
    f"POST {T}/{{topic}}/records": _need(_t(WRITE)),
    f"POST {T}/{{topic}}/partitions/{{partition}}/batches": _need(
        _t(WRITE), body="WRITE on the transactional id when the query names one"
    ),
    f"GET {T}/{{topic}}/partitions/{{partition}}/records": _need(_t(READ)),
    f"GET {T}/{{topic}}/partitions/{{partition}}/offsets": _need(_t(DESCRIBE)),
    # producers and transactions (InitProducerId, Produce, EndTxn, TxnOffsetCommit, …)
    "POST /v1/producers": _need(
        body="WRITE on the transactional id; without one (idempotent), WRITE on some topic "
        "(before the body: WRITE on some transactional id or some topic, else the cluster's "
        "refusal)"
    ),
    "POST /v1/produce": _need(
        body="WRITE on every topic of the batches; WRITE on the transactional id when given "
        "(before the body: WRITE on some topic)"
    ),
    f"POST {X}:commit-all": _need(
        body="WRITE on every transactional id of the request (before the body: WRITE on some "
        "transactional id)"
    ),
    f"POST {X}:abort-prefix": Need(
        body="aborts only the transactions of transactional ids the principal may WRITE "
        "(before the body: WRITE on some transactional id)",
        access="filtered",
    ),
    f"POST {X}/{{tid}}/commit": _need(
        _x(WRITE),
        body="WRITE on the topics of the batches; READ on the groups and topics of "
        "group_offsets and share_acknowledgements",
    ),
    f"POST {X}/{{tid}}/abort": _need(_x(WRITE)),
    f"POST {X}/{{tid}}/offsets": _need(_x(WRITE), body="READ on the group and its topics"),
    f"POST {X}/{{tid}}/acknowledgements": _need(
        _x(WRITE), body="READ on the share group and the topics acknowledged"
    ),
    f"GET {X}": FILTERED,
    f"GET {X}/{{tid}}": _need(_x(DESCRIBE)),
    # consumer groups (ConsumerGroupHeartbeat, OffsetCommit, OffsetFetch, OffsetDelete,
    # ListGroups, DescribeGroups, DeleteGroups)
    f"POST {G}/heartbeat": _need(_g(READ), body="READ on the subscribed topics"),
    f"POST {G}/offsets": _need(_g(READ), body="READ on the topics committed"),
    f"GET {G}/offsets": _need(
        _g(DESCRIBE), body="DESCRIBE on the topic asked for; offsets of others are left out"
    ),
    f"DELETE {G}/offsets": _need(_g(DELETE), body="READ on the topic asked for"),
    "GET /v1/groups": FILTERED,
    f"GET {G}": _need(_g(DESCRIBE)),
    f"DELETE {G}": _need(_g(DELETE)),
    # share groups (ShareGroupHeartbeat, ShareFetch, ShareAcknowledge, admin)
    f"POST {SG}/heartbeat": _need(_g(READ), body="READ on the subscribed topics"),
    f"DELETE {SG}/members/{{member_id}}": _need(_g(READ)),
    f"POST {SG}/fetch": _need(
        _g(READ), body="READ on the topics fetched (subscribed) and acknowledged"
    ),
    f"POST {SG}/acknowledge": _need(_g(READ), body="READ on the topics acknowledged"),
    f"POST {SG}/acquisitions/acknowledge": _need(
        _g(READ), body="READ on the topics of the records the acquisitions hold"
    ),
    f"GET {SG}/acquisitions": _need(
        _g(DESCRIBE), body="partitions of topics the principal may not DESCRIBE are left out"
    ),
    f"PATCH {SG}/config": _need(
        _g(ALTER), body="WRITE on the dead-letter topic when the change names one"
    ),
    "GET /v1/share-groups": FILTERED,
    f"GET {SG}": _need(_g(DESCRIBE)),
    f"GET {SG}/partitions/{{topic}}/{{partition}}/records": _need(_g(DESCRIBE), _t(DESCRIBE)),
    f"POST {SG}/offsets": _need(_g(READ), body="READ on the topics reset"),
    f"DELETE {SG}/offsets": _need(_g(DELETE), body="READ on the topic"),
    f"DELETE {SG}": _need(_g(DELETE)),
    f"WS {SG}/consume": _need(_g(READ), body="READ on the topics of the subscribe frame"),
    # the event feed: every entity the principal may DESCRIBE
    "WS /v1/events": FILTERED,
    # the caller's own principal, and a one-use token for a WebSocket of the same principal
    "GET /v1/auth/whoami": AUTHENTICATED,
    "POST /v1/auth/ws-token": AUTHENTICATED,
}

_ADMIN_PREFIX = "/v1/admin/"
_ADMIN_READ = _need(_c(DESCRIBE))
_ADMIN_CHANGE = _need(_c(ALTER))


def need_of(method: str, path: str) -> Need | None:
    """The entry of a route (``method``: an HTTP method or ``WS``), None when it has none."""
    found = PERMISSIONS.get(f"{method} {path}")
    if found is None and (path.startswith(_ADMIN_PREFIX) or path == _ADMIN_PREFIX[:-1]):
        return _ADMIN_READ if method == "GET" else _ADMIN_CHANGE
    return found


# -- refusals ----------------------------------------------------------------------------------


def refusal(
    principal: str, operation: Operation, resource_type: ResourceType, name: str
) -> SluiceError:
    what = "the cluster" if resource_type is CLUSTER else f"{_WORDS[resource_type]} {name!r}"
    return SluiceError(
        FAILED[resource_type], f"principal {principal!r} may not {operation.value} {what}"
    )


def routes_of(app: FastAPI) -> list[tuple[str, str]]:
    """(method, path) of every route the app serves (``WS`` for a WebSocket), routers
    included."""
    out = []
    for context in iter_route_contexts(app.routes):
        route = context.original_route
        path = context.path or ""
        if isinstance(route, WebSocketRoute):
            out.append((WS, path))
        elif isinstance(route, Route):
            out += [(m, path) for m in sorted((context.methods or set()) - {"HEAD"})]
    return out


def check_complete(app: FastAPI) -> None:
    """Refuse (``RuntimeError``) an app with a route the table lacks: a new endpoint must say
    what it needs before the server starts."""
    missing = [f"{m} {p}" for m, p in routes_of(app) if need_of(m, p) is None]
    if missing:
        raise RuntimeError(
            "routes without an entry in app.security.permissions: " + ", ".join(missing)
        )


# -- the handlers' checks ----------------------------------------------------------------------


def authorizer_of(conn: HTTPConnection) -> Authorizer:
    a: Authorizer = conn.scope["app"].state.authorizer
    return a


def require(
    conn: HTTPConnection, operation: Operation, resource_type: ResourceType, name: str
) -> None:
    """Refuse (403) unless the principal may perform ``operation`` on the resource."""
    principal = conn.scope.get(PRINCIPAL)
    if principal is not None and not authorizer_of(conn).authorize(
        principal, operation, resource_type, name
    ):
        raise refusal(principal, operation, resource_type, name)


def require_topic(conn: HTTPConnection, operation: Operation, name: str) -> None:
    require(conn, operation, TOPIC, name)


def require_group(conn: HTTPConnection, operation: Operation, name: str) -> None:
    require(conn, operation, GROUP, name)


def require_txn(conn: HTTPConnection, operation: Operation, name: str) -> None:
    require(conn, operation, TXN, name)


def require_cluster(conn: HTTPConnection, operation: Operation) -> None:
    require(conn, operation, CLUSTER, CLUSTER_NAME)


def require_all(
    conn: HTTPConnection, operation: Operation, resource_type: ResourceType, names: Iterable[str]
) -> None:
    """``require`` for each of ``names`` (the first refused is the answer)."""
    principal = conn.scope.get(PRINCIPAL)
    if principal is None:
        return
    authorize = authorizer_of(conn).authorize
    for name in names:
        if not authorize(principal, operation, resource_type, name):
            raise refusal(principal, operation, resource_type, name)


def may(conn: HTTPConnection, operation: Operation, resource_type: ResourceType, name: str) -> bool:
    principal = conn.scope.get(PRINCIPAL)
    return principal is None or authorizer_of(conn).authorize(
        principal, operation, resource_type, name
    )


def visible(conn: HTTPConnection, resource_type: ResourceType) -> Callable[[str], bool]:
    """Whether the principal may DESCRIBE a resource of the type (for listings)."""
    return allowed(conn, DESCRIBE, resource_type)


def allowed(
    conn: HTTPConnection, operation: Operation, resource_type: ResourceType
) -> Callable[[str], bool]:
    """Whether the principal may perform ``operation`` on a resource of the type (for
    listings, and actions on every resource that matches)."""
    principal = conn.scope.get(PRINCIPAL)
    if principal is None:
        return lambda _: True
    authorize = authorizer_of(conn).authorize
    return lambda name: authorize(principal, operation, resource_type, name)


def require_reads(conn: HTTPConnection, group_id: str, topics: Iterable[str]) -> None:
    """READ on the group, then on each topic: what consuming as a group member needs
    (OffsetCommit, ShareFetch, ShareAcknowledge, TxnOffsetCommit…)."""
    require(conn, READ, GROUP, group_id)
    require_all(conn, READ, TOPIC, topics)


def require_topic_creation(conn: HTTPConnection, topic: str) -> None:
    """CreateTopics: CREATE on the cluster, or else CREATE on the topic."""
    if not may(conn, CREATE, CLUSTER, CLUSTER_NAME):
        require(conn, CREATE, TOPIC, topic)


def require_some(conn: HTTPConnection, operation: Operation, resource_type: ResourceType) -> None:
    """Refuse (403, the type's code) unless the principal may perform ``operation`` on some
    resource of the type: what a handler checks before it reads a body that names the
    resources, so that a principal that may do nothing of the kind is refused before anything
    it sent is read or parsed. Which resource, the body says, and is checked once parsed."""
    principal = conn.scope.get(PRINCIPAL)
    if principal is not None and not authorizer_of(conn).authorize_any(
        principal, operation, resource_type
    ):
        raise SluiceError(
            FAILED[resource_type],
            f"principal {principal!r} may not {operation.value} any {_WORDS[resource_type]}",
        )


def require_some_topic_creation(conn: HTTPConnection) -> None:
    """CreateTopics before its body: CREATE on the cluster, or else CREATE on some topic."""
    if not may(conn, CREATE, CLUSTER, CLUSTER_NAME):
        require_some(conn, CREATE, TOPIC)


def require_some_producer(conn: HTTPConnection) -> None:
    """InitProducerId before its body: WRITE on some transactional id (a transactional
    producer) or on some topic (an idempotent one), else CLUSTER_AUTHORIZATION_FAILED."""
    principal = conn.scope.get(PRINCIPAL)
    if principal is None:
        return
    authorize_any = authorizer_of(conn).authorize_any
    if not authorize_any(principal, WRITE, TXN) and not authorize_any(principal, WRITE, TOPIC):
        raise SluiceError(
            ErrorCode.CLUSTER_AUTHORIZATION_FAILED,
            f"principal {principal!r} may not produce: it may WRITE no transactional id and "
            "no topic",
        )


def require_idempotent_write(conn: HTTPConnection) -> None:
    """InitProducerId without a transactional id: WRITE on some topic (Kafka's rule since
    idempotence became the default), else CLUSTER_AUTHORIZATION_FAILED."""
    principal = conn.scope.get(PRINCIPAL)
    if principal is not None and not authorizer_of(conn).authorize_any(principal, WRITE, TOPIC):
        raise SluiceError(
            ErrorCode.CLUSTER_AUTHORIZATION_FAILED,
            f"principal {principal!r} may not produce idempotently: it may WRITE no topic",
        )


# the event feed's kinds of entities and the resource type each one is
FEED_KINDS: dict[str, ResourceType] = {
    "topics": TOPIC,
    "share_groups": GROUP,
    "groups": GROUP,
    "transactions": TXN,
}


def feed_view(conn: HTTPConnection) -> tuple[Callable[[str, str], bool], Callable[[], int]] | None:
    """What the event feed may show the principal: (visible(kind, id), the ACLs' version);
    None when everything (no keys, or a super-user: then the socket costs what one without
    keys costs)."""
    principal = conn.scope.get(PRINCIPAL)
    if principal is None:
        return None
    authorizer = authorizer_of(conn)
    if principal in authorizer.super_users:
        return None

    def visible(kind: str, key: str) -> bool:
        return authorizer.authorize(principal, DESCRIBE, FEED_KINDS[kind], key)

    return visible, lambda: authorizer.version
