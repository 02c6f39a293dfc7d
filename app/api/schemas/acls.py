"""ACL bindings (``/v1/admin/acls``): the answers; the names of a binding's parts are those of
its body (``app.api.wire.acls``)."""

from __future__ import annotations

from app.api.schemas._base import Model
from app.api.wire.acls import (
    FilterPatternName,
    OperationName,
    PatternTypeName,
    PermissionName,
    ResourceTypeName,
)

__all__ = [
    "AclBinding",
    "AclList",
    "AclsRemoved",
    "FilterPatternName",
    "OperationName",
    "PatternTypeName",
    "PermissionName",
    "ResourceTypeName",
]


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
