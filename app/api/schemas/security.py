"""Answers of authentication and the API key admin endpoints (docs/security.md)."""

from __future__ import annotations

from pydantic import Field

from app.api.schemas._base import Model


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
