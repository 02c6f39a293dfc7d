"""ACL bindings as Kafka has them, their validation and their table (``acls``).

A binding says that a principal may (ALLOW) or may not (DENY) perform an operation on the
resources of one type whose names match a pattern: a LITERAL name (``*`` meaning every name
of that type) or a PREFIXED one. The cluster is the one resource named ``kafka-cluster``. A
principal ``*`` stands for every authenticated principal. ``app.security.authorizer`` decides
requests from the bindings; this module only describes, checks and stores them.

The table is written by the server (``/v1/admin/acls``) and by ``python -m app acls`` (straight
into SQLite, also while the server runs); both go through the functions here, which take a
plain ``sqlite3.Connection`` so that either can run them.
"""

from __future__ import annotations

import asyncio
import enum
import functools
import re
import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from app.errors import ErrorCode, InvalidRequest

if TYPE_CHECKING:
    from app.clock import Clock
    from app.metadata.db import Database
    from app.security.authorizer import Authorizer


class ResourceType(enum.Enum):
    # members are singletons: hashing by identity keeps the authorizer's cache lookups cheap
    # (an Enum hashes its name in Python code otherwise)
    __hash__ = object.__hash__

    TOPIC = "TOPIC"
    GROUP = "GROUP"
    TRANSACTIONAL_ID = "TRANSACTIONAL_ID"
    CLUSTER = "CLUSTER"


class PatternType(enum.Enum):
    LITERAL = "LITERAL"
    PREFIXED = "PREFIXED"


class Operation(enum.Enum):
    __hash__ = object.__hash__  # as ResourceType's

    ALL = "ALL"
    READ = "READ"
    WRITE = "WRITE"
    CREATE = "CREATE"
    DELETE = "DELETE"
    DESCRIBE = "DESCRIBE"
    ALTER = "ALTER"


class Permission(enum.Enum):
    ALLOW = "ALLOW"
    DENY = "DENY"


CLUSTER_NAME = "kafka-cluster"  # the cluster's one resource, named as Kafka names it
WILDCARD = "*"  # a literal name (or principal) matching every one
PRINCIPAL_MAX_CHARS = 255
PRINCIPAL_PATTERN = r"^(\*|[A-Za-z0-9._@:-]{1,255})$"  # a key's principal (app.security.keys)
NAME_PATTERN = r"^(\*|[A-Za-z0-9._-]{1,249})$"  # a name, a prefix, or the wildcard
_PRINCIPAL = re.compile(PRINCIPAL_PATTERN[1:-1])
_NAME = re.compile(NAME_PATTERN[1:-1])
RELOAD_INTERVAL_S = 1.0  # how often the server looks for changes made by another process

# the operations that mean something on each resource type (any other is refused)
VALID_OPERATIONS: dict[ResourceType, frozenset[Operation]] = {
    ResourceType.TOPIC: frozenset(Operation),
    ResourceType.GROUP: frozenset(
        {Operation.ALL, Operation.READ, Operation.DESCRIBE, Operation.DELETE, Operation.ALTER}
    ),
    ResourceType.TRANSACTIONAL_ID: frozenset({Operation.ALL, Operation.WRITE, Operation.DESCRIBE}),
    ResourceType.CLUSTER: frozenset(
        {Operation.ALL, Operation.CREATE, Operation.DESCRIBE, Operation.ALTER}
    ),
}


@dataclass(frozen=True, slots=True)
class AclBinding:
    principal: str
    resource_type: ResourceType
    pattern_type: PatternType
    resource_name: str
    operation: Operation
    permission: Permission

    def matches_name(self, name: str) -> bool:
        """Whether the binding's pattern covers the resource ``name``."""
        if self.pattern_type is PatternType.PREFIXED:
            return name.startswith(self.resource_name)
        return self.resource_name == name or self.resource_name == WILDCARD

    def to_dict(self) -> dict[str, str]:
        return {
            "principal": self.principal,
            "resource_type": self.resource_type.value,
            "pattern_type": self.pattern_type.value,
            "resource_name": self.resource_name,
            "operation": self.operation.value,
            "permission": self.permission.value,
        }

    def row(self) -> tuple[str, str, str, str, str, str]:
        return (
            self.principal,
            self.resource_type.value,
            self.pattern_type.value,
            self.resource_name,
            self.operation.value,
            self.permission.value,
        )


def _enum(cls: type[enum.Enum], value: Any, where: str) -> Any:
    if isinstance(value, str):
        try:
            return cls(value)
        except ValueError:
            pass
    choices = ", ".join(m.value for m in cls)
    raise InvalidRequest(ErrorCode.INVALID_REQUEST, f"{where}: expected one of {choices}")


def principal(value: Any, where: str = "principal") -> str:
    """A principal (``PRINCIPAL_PATTERN``; ``*``: every principal)."""
    if isinstance(value, str) and _PRINCIPAL.fullmatch(value):
        return value
    raise InvalidRequest(
        ErrorCode.INVALID_REQUEST,
        f"{where}: expected 1-{PRINCIPAL_MAX_CHARS} characters of [A-Za-z0-9._@:-], "
        "or * for every principal",
    )


def binding(
    principal_name: Any,
    resource_type: Any,
    resource_name: Any,
    operation: Any,
    permission: Any,
    pattern_type: Any = None,
) -> AclBinding:
    """A binding from raw values (a body or flags), each checked with a clear 400."""
    who = principal(principal_name)
    rtype = _enum(ResourceType, resource_type, "resource_type")
    pattern = (
        PatternType.LITERAL
        if pattern_type is None
        else _enum(PatternType, pattern_type, "pattern_type")
    )
    op = _enum(Operation, operation, "operation")
    allow = _enum(Permission, permission, "permission")
    if rtype is ResourceType.CLUSTER:
        if resource_name is None:
            resource_name = CLUSTER_NAME
        if resource_name != CLUSTER_NAME or pattern is not PatternType.LITERAL:
            raise InvalidRequest(
                ErrorCode.INVALID_REQUEST,
                f"resource_name: the cluster is the literal name {CLUSTER_NAME!r}",
            )
    elif not isinstance(resource_name, str) or not resource_name:
        raise InvalidRequest(
            ErrorCode.INVALID_REQUEST, "resource_name: required, a name, a prefix or *"
        )
    elif resource_name == WILDCARD:
        if pattern is PatternType.PREFIXED:
            raise InvalidRequest(
                ErrorCode.INVALID_REQUEST,
                "resource_name: * is the literal wildcard; a PREFIXED pattern takes a real prefix",
            )
    elif not _NAME.fullmatch(resource_name):
        raise InvalidRequest(
            ErrorCode.INVALID_REQUEST,
            f"resource_name {resource_name!r}: 1-249 characters of [A-Za-z0-9._-], or *",
        )
    if op not in VALID_OPERATIONS[rtype]:
        valid = ", ".join(o.value for o in Operation if o in VALID_OPERATIONS[rtype])
        raise InvalidRequest(
            ErrorCode.INVALID_REQUEST,
            f"operation: {op.value} means nothing on a {rtype.value}; expected one of {valid}",
        )
    return AclBinding(who, rtype, pattern, resource_name, op, allow)


def from_row(row: Iterable[Any]) -> AclBinding:
    p, rtype, pattern, name, op, allow = row
    return AclBinding(
        p, ResourceType(rtype), PatternType(pattern), name, Operation(op), Permission(allow)
    )


# -- filters (list and remove) -----------------------------------------------------------------

ANY = "ANY"  # pattern filter: LITERAL and PREFIXED bindings alike
MATCH = "MATCH"  # pattern filter: the bindings that apply to the named resource
FILTER_PATTERNS = ("LITERAL", "PREFIXED", ANY, MATCH)


@dataclass(frozen=True, slots=True)
class AclFilter:
    """Which bindings to list or remove (Kafka's AclBindingFilter): each field left None
    matches any value. ``pattern_type`` is LITERAL, PREFIXED, ANY (the default) or MATCH: the
    bindings that apply to ``resource_name`` (literal, ``*`` and prefixes of it)."""

    principal: str | None = None
    resource_type: ResourceType | None = None
    resource_name: str | None = None
    pattern_type: str = ANY
    operation: Operation | None = None
    permission: Permission | None = None

    @property
    def empty(self) -> bool:
        return self == AclFilter()

    def matches(self, b: AclBinding) -> bool:
        if self.principal is not None and b.principal != self.principal:
            return False
        if self.resource_type is not None and b.resource_type is not self.resource_type:
            return False
        if self.operation is not None and b.operation is not self.operation:
            return False
        if self.permission is not None and b.permission is not self.permission:
            return False
        if self.pattern_type == MATCH:
            return self.resource_name is None or b.matches_name(self.resource_name)
        if self.pattern_type != ANY and b.pattern_type.value != self.pattern_type:
            return False
        return self.resource_name is None or b.resource_name == self.resource_name


def acl_filter(
    principal_name: Any = None,
    resource_type: Any = None,
    resource_name: Any = None,
    pattern_type: Any = None,
    operation: Any = None,
    permission: Any = None,
) -> AclFilter:
    """A filter from raw values (query parameters or flags), each checked with a clear 400."""
    pattern = ANY if pattern_type is None else pattern_type
    if pattern not in FILTER_PATTERNS:
        raise InvalidRequest(
            ErrorCode.INVALID_REQUEST, f"pattern_type: expected one of {', '.join(FILTER_PATTERNS)}"
        )
    if resource_name is not None and (
        not isinstance(resource_name, str) or not _NAME.fullmatch(resource_name)
    ):
        raise InvalidRequest(
            ErrorCode.INVALID_REQUEST,
            "resource_name: 1-249 characters of [A-Za-z0-9._-], or *",
        )
    return AclFilter(
        None if principal_name is None else principal(principal_name),
        None if resource_type is None else _enum(ResourceType, resource_type, "resource_type"),
        resource_name,
        pattern,
        None if operation is None else _enum(Operation, operation, "operation"),
        None if permission is None else _enum(Permission, permission, "permission"),
    )


# -- the table ---------------------------------------------------------------------------------

_COLUMNS = "principal, resource_type, pattern_type, resource_name, operation, permission"
SELECT_ALL = f"SELECT {_COLUMNS} FROM acls ORDER BY {_COLUMNS}"


def load_all(conn: sqlite3.Connection) -> list[AclBinding]:
    return [from_row(r) for r in conn.execute(SELECT_ALL)]


def insert(conn: sqlite3.Connection, b: AclBinding, created_ms: int) -> bool:
    """Store ``b``; False when it was there already (nothing changes)."""
    cur = conn.execute(
        f"INSERT OR IGNORE INTO acls ({_COLUMNS}, created_ms) VALUES (?, ?, ?, ?, ?, ?, ?)",
        (*b.row(), created_ms),
    )
    return cur.rowcount == 1


def delete(conn: sqlite3.Connection, f: AclFilter) -> list[AclBinding]:
    """Remove the bindings ``f`` matches; answers them."""
    gone = [b for b in load_all(conn) if f.matches(b)]
    conn.executemany(
        "DELETE FROM acls WHERE principal = ? AND resource_type = ? AND pattern_type = ? "
        "AND resource_name = ? AND operation = ? AND permission = ?",
        [b.row() for b in gone],
    )
    return gone


class AclStore:
    """The server's side of the table: changes made through the API, and the authorizer kept
    equal to the table, including changes another process (``python -m app acls``) commits
    while the server runs: ``run`` looks at SQLite's ``data_version`` about once a second and
    reloads the table when any other connection committed (the bindings are compared, so the
    authorizer's cache only starts over when they really changed)."""

    def __init__(self, db: Database, authorizer: Authorizer, clock: Clock) -> None:
        self.db = db
        self.authorizer = authorizer
        self.clock = clock
        self._version: int | None = None

    async def load(self) -> None:
        self.authorizer.load(from_row(r) for r in await self.db.reader.fetchall(SELECT_ALL))

    async def add(self, b: AclBinding) -> bool:
        """Store a binding (True: new; False: it was there); effective when this returns."""
        created = await self.db.run(functools.partial(insert, b=b, created_ms=self.clock.now_ms()))
        await self.load()
        return created

    async def remove(self, f: AclFilter) -> list[AclBinding]:
        gone = await self.db.run(functools.partial(delete, f=f))
        await self.load()
        return gone

    def matching(self, f: AclFilter) -> list[AclBinding]:
        return sorted((b for b in self.authorizer.bindings if f.matches(b)), key=AclBinding.row)

    async def reload_if_changed(self) -> bool:
        """Reload when the database changed since the last look; True when it had."""
        ((version,),) = await self.db.reader.fetchall("PRAGMA data_version")
        if version == self._version:
            return False
        self._version = version
        await self.load()
        return True

    async def run(self, interval_s: float = RELOAD_INTERVAL_S) -> None:
        while True:
            await asyncio.sleep(interval_s)
            await self.reload_if_changed()
