"""The body of ``POST /v1/admin/keys`` declared (docs/security.md)."""

from __future__ import annotations

from typing import Annotated, Any, ClassVar

from msgspec import Meta

from app.api.wire.body import Body, Nullable, decode, whole
from app.config import Settings
from app.security import keys


class KeyCreate(Body):
    examples: ClassVar[list[dict[str, Any]]] = [
        {"principal": "billing-service", "description": "the billing job"},
        {"principal": "alice"},
    ]

    principal: Annotated[str, Meta(pattern=whole(keys.PRINCIPAL_PATTERN.pattern))]
    description: Nullable[Annotated[str, Meta(max_length=1000)]] = ""


def parse_create(raw: bytes, s: Settings) -> tuple[str, str]:
    """(principal, description) of a new key."""
    b = decode(raw, KeyCreate, s)
    return b.principal, b.description
