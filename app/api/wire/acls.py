"""The body of ``POST /v1/admin/acls`` and the filter of listing and removing bindings."""

from __future__ import annotations

from typing import Any

from app.api.deps import json_object
from app.security import acls


def parse_binding(body: Any) -> acls.AclBinding:
    b = json_object(body)
    return acls.binding(
        b.get("principal"),
        b.get("resource_type"),
        b.get("resource_name"),
        b.get("operation"),
        b.get("permission"),
        b.get("pattern_type"),
    )


def show(bindings: list[acls.AclBinding]) -> list[dict[str, str]]:
    return [b.to_dict() for b in bindings]
