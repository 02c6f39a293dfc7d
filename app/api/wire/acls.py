"""The body of ``POST /v1/admin/acls`` declared, and the bindings shown; what a binding may
name beyond its shape (the cluster's one name, the wildcard, the operations of each resource
type) is the ACL module's rule (``app.security.acls.binding``)."""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal

from msgspec import Meta

from app.api.wire.body import Body, Nullable, decode, given, is_, when, whole
from app.config import Settings
from app.security import acls
from app.security.acls import CLUSTER_NAME, VALID_OPERATIONS, WILDCARD, Operation, ResourceType

ResourceTypeName = Literal["TOPIC", "GROUP", "TRANSACTIONAL_ID", "CLUSTER"]
PatternTypeName = Literal["LITERAL", "PREFIXED"]
OperationName = Literal["ALL", "READ", "WRITE", "CREATE", "DELETE", "DESCRIBE", "ALTER"]
PermissionName = Literal["ALLOW", "DENY"]
FilterPatternName = Literal["LITERAL", "PREFIXED", "ANY", "MATCH"]


class AclBindingRequest(Body, kw_only=True):
    examples: ClassVar[list[dict[str, Any]]] = [
        {
            "principal": "alice",
            "resource_type": "TOPIC",
            "resource_name": "orders",
            "operation": "READ",
            "permission": "ALLOW",
        },
        {
            "principal": "billing",
            "resource_type": "GROUP",
            "resource_name": "billing-",
            "pattern_type": "PREFIXED",
            "operation": "ALL",
            "permission": "ALLOW",
        },
        {
            "principal": "ops",
            "resource_type": "CLUSTER",
            "operation": "DESCRIBE",
            "permission": "ALLOW",
        },
    ]
    rules: ClassVar[list[dict[str, Any]]] = [
        # the cluster has one name, literal; every other type needs a name
        when(
            is_("resource_type", ResourceType.CLUSTER.value),
            {
                "properties": {
                    "resource_name": {"enum": [CLUSTER_NAME, None]},
                    "pattern_type": {"enum": ["LITERAL", None]},
                }
            },
        ),
        when({"not": is_("resource_type", ResourceType.CLUSTER.value)}, given("resource_name")),
        # * is the literal wildcard, never a prefix
        when(is_("resource_name", WILDCARD), {"not": is_("pattern_type", "PREFIXED")}),
        # the operations that mean something on each type
        *(
            when(
                is_("resource_type", rtype.value),
                {
                    "properties": {
                        "operation": {
                            "enum": [o.value for o in Operation if o in VALID_OPERATIONS[rtype]]
                        }
                    }
                },
            )
            for rtype in ResourceType
        ),
    ]

    principal: Annotated[
        str, Meta(pattern=whole(acls.PRINCIPAL_PATTERN), description="* for every principal")
    ]
    resource_type: ResourceTypeName
    resource_name: (
        Annotated[
            str,
            Meta(
                pattern=whole(acls.NAME_PATTERN),
                description="a name, a prefix (PREFIXED) or * (LITERAL: every name); the "
                "cluster's is kafka-cluster, the default for CLUSTER and its only name",
            ),
        ]
        | None
    ) = None
    pattern_type: Nullable[PatternTypeName] = "LITERAL"
    operation: Annotated[
        OperationName,
        Meta(
            description="TOPIC: any; GROUP: ALL, READ, DESCRIBE, DELETE, ALTER; TRANSACTIONAL_ID: "
            "ALL, WRITE, DESCRIBE; CLUSTER: ALL, CREATE, DESCRIBE, ALTER"
        ),
    ]
    permission: PermissionName


def parse_binding(raw: bytes, s: Settings) -> acls.AclBinding:
    b = decode(raw, AclBindingRequest, s)
    return acls.binding(
        b.principal, b.resource_type, b.resource_name, b.operation, b.permission, b.pattern_type
    )


def show(bindings: list[acls.AclBinding]) -> list[dict[str, str]]:
    return [b.to_dict() for b in bindings]
