"""Schemas of authentication and the API key admin endpoints (docs/security.md)."""

from __future__ import annotations

from pydantic import Field

from app.api.schemas._base import Model, with_examples


class KeyCreate(Model):
    model_config = with_examples(
        {"principal": "billing-service", "description": "the billing job"},
        {"principal": "alice"},
    )

    principal: str = Field(pattern=r"^[A-Za-z0-9._@:-]{1,255}$", min_length=1, max_length=255)
    description: str = Field(default="", max_length=1000)


class KeyCreated(Model):
    key: str = Field(description="the key itself: shown this once, never again")
    key_id: str
    principal: str
    created_ms: int


class KeyDescription(Model):
    key_id: str
    principal: str
    description: str
    created_ms: int
    revoked_ms: int | None


class KeyList(Model):
    keys: list[KeyDescription]


class WhoAmI(Model):
    principal: str | None = Field(description="null while the server requires no keys")
    keys_required: bool


class WsToken(Model):
    token: str = Field(description="opens one WebSocket as ?token=, until expires_ms")
    expires_ms: int
