"""The authorizer: may this principal perform this operation on this resource? Pure, no I/O.

Kafka's rules (its standard authorizer, ``allow.everyone.if.no.acl.found=false``):

- a principal of ``None`` (the server runs without keys) may do everything;
- a super-user may do everything;
- a DENY binding for the operation (or ALL) that matches the resource refuses, whatever
  allows it: deny wins;
- otherwise an ALLOW binding for the operation (or ALL) that matches allows; READ, WRITE,
  DELETE and ALTER each imply DESCRIBE (for allows only: denying READ does not deny DESCRIBE);
- no matching ALLOW: refused.

Bindings are indexed by (principal, resource type), ``*`` principals apart, so a decision looks
at the few bindings that can apply; decisions are cached per (principal, operation, type,
name) until the bindings change (``load``). The store feeds it (``app.security.acls.AclStore``).
"""

from __future__ import annotations

from collections.abc import Iterable

from app.security.acls import (
    WILDCARD,
    AclBinding,
    Operation,
    PatternType,
    Permission,
    ResourceType,
)

# allows of these operations also allow DESCRIBE
_DESCRIBE_IMPLIED_BY = frozenset(
    {
        Operation.DESCRIBE,
        Operation.READ,
        Operation.WRITE,
        Operation.DELETE,
        Operation.ALTER,
        Operation.ALL,
    }
)
CACHE_MAX = 100_000  # decisions kept; beyond, the cache starts over (names come from clients)

Key = tuple[str, Operation, ResourceType, str]


def _allows(b: AclBinding, op: Operation) -> bool:
    return (
        b.operation is op
        or b.operation is Operation.ALL
        or (op is Operation.DESCRIBE and b.operation in _DESCRIBE_IMPLIED_BY)
    )


def _denies(b: AclBinding, op: Operation) -> bool:
    return b.operation is op or b.operation is Operation.ALL


class Authorizer:
    def __init__(
        self, bindings: Iterable[AclBinding] = (), super_users: Iterable[str] = ()
    ) -> None:
        self.super_users = frozenset(super_users)
        self.bindings: frozenset[AclBinding] = frozenset()
        self.version = 0  # bumped whenever the bindings change
        self._index: dict[tuple[str, ResourceType], tuple[AclBinding, ...]] = {}
        self._cache: dict[Key, bool] = {}
        self._any: dict[tuple[str, Operation, ResourceType], bool] = {}
        self.load(bindings)

    def load(self, bindings: Iterable[AclBinding]) -> bool:
        """Decide from ``bindings`` from now on; False (and nothing changes) when they are the
        ones already loaded."""
        new = frozenset(bindings)
        if new == self.bindings and self.version:
            return False
        index: dict[tuple[str, ResourceType], list[AclBinding]] = {}
        for b in new:
            index.setdefault((b.principal, b.resource_type), []).append(b)
        self.bindings = new
        self._index = {k: tuple(v) for k, v in index.items()}
        self._cache = {}
        self._any = {}
        self.version += 1
        return True

    def authorize(
        self, principal: str | None, operation: Operation, resource_type: ResourceType, name: str
    ) -> bool:
        if principal is None:
            return True
        key = (principal, operation, resource_type, name)
        decided = self._cache.get(key)
        if decided is None:
            decided = self._decide(principal, operation, resource_type, name)
            if len(self._cache) >= CACHE_MAX:
                self._cache = {}
            self._cache[key] = decided
        return decided

    def _candidates(self, principal: str, resource_type: ResourceType) -> tuple[AclBinding, ...]:
        return self._index.get((principal, resource_type), ()) + self._index.get(
            (WILDCARD, resource_type), ()
        )

    def _decide(
        self, principal: str, operation: Operation, resource_type: ResourceType, name: str
    ) -> bool:
        if principal in self.super_users:
            return True
        allowed = False
        for b in self._candidates(principal, resource_type):
            if not b.matches_name(name):
                continue
            if b.permission is Permission.DENY:
                if _denies(b, operation):
                    return False
            elif _allows(b, operation):
                allowed = True
        return allowed

    def authorize_any(
        self, principal: str | None, operation: Operation, resource_type: ResourceType
    ) -> bool:
        """Whether some resource of the type may be operated on (Kafka's authorization by
        resource type, which an idempotent producer needs: WRITE on some topic). An allow
        counts unless a deny covers its whole pattern: a ``*`` deny, a deny of the same
        literal name, or a prefix deny that is a prefix of the allow's pattern. Cached until
        the bindings change, as decisions are (produce asks it on every request)."""
        if principal is None or principal in self.super_users:
            return True
        key = (principal, operation, resource_type)
        decided = self._any.get(key)
        if decided is None:
            decided = self._decide_any(principal, operation, resource_type)
            if len(self._any) >= CACHE_MAX:
                self._any = {}
            self._any[key] = decided
        return decided

    def _decide_any(
        self, principal: str, operation: Operation, resource_type: ResourceType
    ) -> bool:
        candidates = self._candidates(principal, resource_type)
        denies = [
            b for b in candidates if b.permission is Permission.DENY and _denies(b, operation)
        ]
        for b in candidates:
            if (
                b.permission is Permission.ALLOW
                and _allows(b, operation)
                and not any(_covers(d, b) for d in denies)
            ):
                return True
        return False


def _covers(deny: AclBinding, allow: AclBinding) -> bool:
    """Whether every name ``allow`` matches is matched by ``deny`` too."""
    if deny.resource_name == WILDCARD and deny.pattern_type is PatternType.LITERAL:
        return True
    if allow.resource_name == WILDCARD and allow.pattern_type is PatternType.LITERAL:
        return False
    if deny.pattern_type is PatternType.PREFIXED:
        return allow.resource_name.startswith(deny.resource_name)
    return allow.pattern_type is PatternType.LITERAL and allow.resource_name == deny.resource_name
