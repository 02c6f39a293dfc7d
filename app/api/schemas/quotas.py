"""Per-principal byte-rate quotas (admin)."""

from __future__ import annotations

from pydantic import ConfigDict, Field

from app.api.schemas._base import Model, given

MAX_BYTE_RATE = 2**40


class QuotaSet(Model):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {"producer_byte_rate": 1_048_576, "consumer_byte_rate": 2_097_152},
                {"producer_byte_rate": 65_536},
            ],
            # at least one of the two
            "anyOf": [given("producer_byte_rate"), given("consumer_byte_rate")],
        }
    )

    producer_byte_rate: int = Field(
        None,  # type: ignore[assignment]  # absent: the default for produce
        ge=1,
        le=MAX_BYTE_RATE,
        description="bytes/s; absent: the server's default (SLUICE_QUOTA_PRODUCER_BYTE_RATE)",
    )
    consumer_byte_rate: int = Field(
        None,  # type: ignore[assignment]  # absent: the default for fetch
        ge=1,
        le=MAX_BYTE_RATE,
        description="bytes/s; absent: the server's default (SLUICE_QUOTA_CONSUMER_BYTE_RATE)",
    )


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
