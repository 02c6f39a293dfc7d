"""ACL bindings (``/v1/admin/acls``)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from app.api.schemas._base import Model, given, is_, when, with_examples
from app.security.acls import (
    CLUSTER_NAME,
    NAME_PATTERN,
    PRINCIPAL_PATTERN,
    VALID_OPERATIONS,
    WILDCARD,
    Operation,
    ResourceType,
)

ResourceTypeName = Literal["TOPIC", "GROUP", "TRANSACTIONAL_ID", "CLUSTER"]
PatternTypeName = Literal["LITERAL", "PREFIXED"]
OperationName = Literal["ALL", "READ", "WRITE", "CREATE", "DELETE", "DESCRIBE", "ALTER"]
PermissionName = Literal["ALLOW", "DENY"]
FilterPatternName = Literal["LITERAL", "PREFIXED", "ANY", "MATCH"]


class AclBindingRequest(Model):
    model_config = with_examples(
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
        rules=[
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
            when(
                {"not": is_("resource_type", ResourceType.CLUSTER.value)},
                given("resource_name"),
            ),
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
        ],
    )

    principal: str = Field(pattern=PRINCIPAL_PATTERN, description="* for every principal")
    resource_type: ResourceTypeName
    resource_name: str | None = Field(
        None,
        pattern=NAME_PATTERN,
        description="a name, a prefix (PREFIXED) or * (LITERAL: every name); the cluster's "
        "is kafka-cluster, the default for CLUSTER and its only name",
    )
    pattern_type: PatternTypeName | None = "LITERAL"
    operation: OperationName = Field(
        description="TOPIC: any; GROUP: ALL, READ, DESCRIBE, DELETE, ALTER; TRANSACTIONAL_ID: "
        "ALL, WRITE, DESCRIBE; CLUSTER: ALL, CREATE, DESCRIBE, ALTER"
    )
    permission: PermissionName


class AclBinding(Model):
    principal: str
    resource_type: ResourceTypeName
    pattern_type: PatternTypeName
    resource_name: str
    operation: OperationName
    permission: PermissionName


class AclList(Model):
    acls: list[AclBinding]


class AclsRemoved(Model):
    removed: list[AclBinding]
