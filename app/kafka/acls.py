"""ACL bindings on the Kafka backend (docs/kafka.md#security): Kafka's ACLs are the single
source of truth, written with CreateAcls, read with DescribeAcls and removed with DeleteAcls,
and the seam's ``Acls`` over them (``app.engine.admin``).

A binding of the contract (``app.security.acls.AclBinding``) is one of Kafka's with the
principal written ``User:<principal>`` (``*``, every principal, is Kafka's ``User:*``), the
host ``*``, and the contract's resource types, pattern types, operations and permissions under
Kafka's codes of the same names (``RESOURCE_TYPES`` and the tables beside it); the cluster is
the resource ``kafka-cluster``, as in Kafka.

The decision stays the face's: ``KafkaAcls`` loads the bindings it read into the same
``app.security.authorizer.Authorizer`` the embedded store loads, so a request is decided by
the same rules whichever store holds the bindings (deny wins, no binding means no access,
super users). Kafka may hold bindings the contract cannot express: another principal type,
a host other than ``*``, an operation or resource type the contract does not have (those a
native client's own bindings use, such as IDEMPOTENT_WRITE or DESCRIBE_CONFIGS). The gateway
leaves them out of its view; they are Kafka's, for Kafka's own clients, and the routes neither
list nor remove them.

A change made through this gateway is loaded when it returns; one made elsewhere (another
gateway, a native admin client) within about a second: ``run`` describes the bindings again
once a second and reloads the authorizer when they changed.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from app.errors import ErrorCode, SluiceError
from app.kafka.cluster import Cluster
from app.kafka.errors_map import to_sluice
from app.kafka.protocol.errors import NONE, ProtocolError
from app.kafka.protocol.messages import (
    CreateAclsRequest,
    DeleteAclsRequest,
    DescribeAclsRequest,
)
from app.security.acls import (
    AclBinding,
    AclFilter,
    Operation,
    PatternType,
    Permission,
    ResourceType,
)
from app.security.authorizer import Authorizer

log = logging.getLogger("sluice.kafka.acls")

RELOAD_INTERVAL_S = 1.0  # how often the bindings are described again (docs/kafka.md#security)
SETTLE_TIMEOUT_S = 10.0  # how long a change may take to be described by the broker asked

USER = "User:"  # Kafka's principal type of the contract's principals
ANY_HOST = "*"

# Kafka's codes (org.apache.kafka.common.resource.ResourceType, PatternType,
# org.apache.kafka.common.acl.AclOperation, AclPermissionType)
KAFKA_ANY = 1  # the filters' ANY, of every one of the four
KAFKA_MATCH = 2  # PatternType.MATCH
RESOURCE_TYPES: dict[ResourceType, int] = {
    ResourceType.TOPIC: 2,
    ResourceType.GROUP: 3,
    ResourceType.CLUSTER: 4,
    ResourceType.TRANSACTIONAL_ID: 5,
}
PATTERN_TYPES: dict[PatternType, int] = {PatternType.LITERAL: 3, PatternType.PREFIXED: 4}
OPERATIONS: dict[Operation, int] = {
    Operation.ALL: 2,
    Operation.READ: 3,
    Operation.WRITE: 4,
    Operation.CREATE: 5,
    Operation.DELETE: 6,
    Operation.ALTER: 7,
    Operation.DESCRIBE: 8,
}
PERMISSIONS: dict[Permission, int] = {Permission.DENY: 2, Permission.ALLOW: 3}

_RESOURCE_TYPES = {v: k for k, v in RESOURCE_TYPES.items()}
_PATTERN_TYPES = {v: k for k, v in PATTERN_TYPES.items()}
_OPERATIONS = {v: k for k, v in OPERATIONS.items()}
_PERMISSIONS = {v: k for k, v in PERMISSIONS.items()}


def kafka_principal(principal: str) -> str:
    """The contract's principal as Kafka writes it (``*``: ``User:*``, every user)."""
    return USER + principal


def contract_binding(
    principal: str,
    host: str,
    resource_type: int,
    resource_name: str,
    pattern_type: int,
    operation: int,
    permission: int,
) -> AclBinding | None:
    """One of Kafka's bindings as the contract's; None for one the contract cannot express."""
    if not principal.startswith(USER) or host != ANY_HOST:
        return None
    rtype = _RESOURCE_TYPES.get(resource_type)
    pattern = _PATTERN_TYPES.get(pattern_type)
    op = _OPERATIONS.get(operation)
    allow = _PERMISSIONS.get(permission)
    if rtype is None or pattern is None or op is None or allow is None:
        return None
    return AclBinding(principal[len(USER) :], rtype, pattern, resource_name, op, allow)


def creation(b: AclBinding) -> CreateAclsRequest.AclCreation:
    return CreateAclsRequest.AclCreation(
        resource_type=RESOURCE_TYPES[b.resource_type],
        resource_name=b.resource_name,
        resource_pattern_type=PATTERN_TYPES[b.pattern_type],
        principal=kafka_principal(b.principal),
        host=ANY_HOST,
        operation=OPERATIONS[b.operation],
        permission_type=PERMISSIONS[b.permission],
    )


def exact_filter(b: AclBinding) -> DeleteAclsRequest.DeleteAclsFilter:
    """The DeleteAcls filter that matches ``b`` and nothing else."""
    return DeleteAclsRequest.DeleteAclsFilter(
        resource_type_filter=RESOURCE_TYPES[b.resource_type],
        resource_name_filter=b.resource_name,
        pattern_type_filter=PATTERN_TYPES[b.pattern_type],
        principal_filter=kafka_principal(b.principal),
        host_filter=ANY_HOST,
        operation=OPERATIONS[b.operation],
        permission_type=PERMISSIONS[b.permission],
    )


class KafkaAcls:
    """The seam's ``Acls`` on a Kafka cluster (``cluster`` started): ``load`` once before
    serving, then ``run`` beside the server."""

    def __init__(self, cluster: Cluster, authorizer: Authorizer) -> None:
        self.cluster = cluster
        self.authorizer = authorizer
        self._changes = 0  # changes of this gateway's; a reload that overlapped one is dropped
        # notified whenever the authorizer was loaded with other bindings
        self.changed = asyncio.Condition()

    async def describe(self) -> list[AclBinding]:
        """Every binding of the cluster the contract can express, asked now."""
        conn = await self.cluster.any_connection()
        answer = await conn.send(
            DescribeAclsRequest(
                resource_type_filter=KAFKA_ANY,
                resource_name_filter=None,
                pattern_type_filter=KAFKA_ANY,
                principal_filter=None,
                host_filter=None,
                operation=KAFKA_ANY,
                permission_type=KAFKA_ANY,
            )
        )
        if answer.error_code != NONE:
            raise to_sluice(answer.error_code, answer.error_message, "DescribeAcls")
        out: list[AclBinding] = []
        for r in answer.resources:
            for a in r.acls:
                b = contract_binding(
                    a.principal,
                    a.host,
                    r.resource_type,
                    r.resource_name,
                    r.pattern_type,
                    a.operation,
                    a.permission_type,
                )
                if b is not None:
                    out.append(b)
        return out

    async def load(self) -> bool:
        """Describe the bindings and decide from them; whether they had changed. A description
        asked before one of this gateway's changes was loaded is dropped: it may not hold the
        change."""
        changes = self._changes
        bindings = await self.describe()
        if changes != self._changes:
            return False
        return await self._load(bindings)

    async def _load(self, bindings: list[AclBinding] | frozenset[AclBinding]) -> bool:
        if not self.authorizer.load(bindings):
            return False
        async with self.changed:
            self.changed.notify_all()
        return True

    def matching(self, f: AclFilter) -> list[AclBinding]:
        """The bindings ``f`` matches, of those last described (at most about a second old,
        and every change of this gateway's in them)."""
        return sorted((b for b in self.authorizer.bindings if f.matches(b)), key=AclBinding.row)

    async def add(self, b: AclBinding) -> bool:
        """CreateAcls of ``b`` (True: new; False: the cluster had it); decided from when this
        returns."""
        current = frozenset(await self.describe())
        if b in current:
            await self._loaded(current)
            return False
        conn = await self.cluster.any_connection()
        answer = await conn.send(CreateAclsRequest(creations=[creation(b)]))
        (result,) = answer.results
        if result.error_code != NONE:
            raise to_sluice(result.error_code, result.error_message, "CreateAcls")
        await self._settle(lambda bindings: b in bindings)
        return True

    async def remove(self, f: AclFilter) -> list[AclBinding]:
        """DeleteAcls of the bindings ``f`` matches, answered; decided without them from when
        this returns. The bindings are described first and each is removed by a filter that
        matches it alone, so that what is removed is exactly what ``matching`` answers: never
        a binding of Kafka's own clients that the contract cannot see."""
        current = frozenset(await self.describe())
        targets = sorted((b for b in current if f.matches(b)), key=AclBinding.row)
        if not targets:
            await self._loaded(current)
            return []
        conn = await self.cluster.any_connection()
        answer = await conn.send(DeleteAclsRequest(filters=[exact_filter(b) for b in targets]))
        gone: set[AclBinding] = set()
        for result in answer.filter_results:
            if result.error_code != NONE:
                raise to_sluice(result.error_code, result.error_message, "DeleteAcls")
            for m in result.matching_acls:
                if m.error_code != NONE:
                    raise to_sluice(m.error_code, m.error_message, "DeleteAcls")
                b = contract_binding(
                    m.principal,
                    m.host,
                    m.resource_type,
                    m.resource_name,
                    m.pattern_type,
                    m.operation,
                    m.permission_type,
                )
                if b is not None:
                    gone.add(b)
        await self._settle(lambda bindings: not gone & bindings)
        return sorted(gone, key=AclBinding.row)

    async def _settle(self, done: Callable[[frozenset[AclBinding]], bool]) -> None:
        """Describe until the change shows: the controller has taken it when CreateAcls or
        DeleteAcls answers, and the broker asked describes it once it has applied the
        controller's record, a moment later. Loading the authorizer from an earlier view
        would undo the change for a second."""
        deadline = asyncio.get_running_loop().time() + SETTLE_TIMEOUT_S
        while True:
            bindings = frozenset(await self.describe())
            if done(bindings):
                await self._loaded(bindings)
                return
            if asyncio.get_running_loop().time() >= deadline:
                raise SluiceError(
                    ErrorCode.INTERNAL,
                    "the Kafka cluster took the ACL change but has not shown it yet",
                )
            await asyncio.sleep(self.cluster.retry_backoff)

    async def _loaded(self, bindings: frozenset[AclBinding]) -> None:
        """Decide from ``bindings``, described after this gateway's change, from now on."""
        self._changes += 1
        await self._load(bindings)

    async def run(self, interval_s: float = RELOAD_INTERVAL_S) -> None:
        """Describe the bindings again every ``interval_s``, for changes made elsewhere. A
        description that fails (the broker went or moved) leaves the bindings as they were
        until the next one."""
        while True:
            await asyncio.sleep(interval_s)
            try:
                await self.load()
            except (SluiceError, ProtocolError):
                log.warning("describing the ACLs failed; the bindings stay", exc_info=True)
