"""Per-principal byte-rate quotas (admin): the answers."""

from __future__ import annotations

from pydantic import Field

from app.api.schemas._base import Model


class PrincipalQuota(Model):
    principal: str
    producer_byte_rate: int | None = Field(description="the principal's own; null: the default")
    consumer_byte_rate: int | None = Field(description="the principal's own; null: the default")
    updated_ms: int


class QuotaDefaults(Model):
    producer_byte_rate: int = Field(description="bytes/s; 0: unlimited")
    consumer_byte_rate: int = Field(description="bytes/s; 0: unlimited")


class QuotaList(Model):
    defaults: QuotaDefaults
    quotas: list[PrincipalQuota]
