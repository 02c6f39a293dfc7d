"""Quotas on the wire: the body of ``PUT /v1/admin/quotas/{principal}`` declared, and the
answers."""

from __future__ import annotations

from typing import Annotated, Any, ClassVar

from msgspec import Meta

from app.api.wire.body import Body, decode, given
from app.config import Settings
from app.security.quota_store import QuotaRow
from app.security.quotas import FETCH, MAX_BYTE_RATE, PRODUCE, Override

ByteRate = Annotated[int, Meta(ge=1, le=MAX_BYTE_RATE)]


class QuotaSet(Body):
    """``{"producer_byte_rate"?: int, "consumer_byte_rate"?: int}`` (bytes/s, 1 to 2⁴⁰); at
    least one (``app.security.quota_admin``)."""

    examples: ClassVar[list[dict[str, Any]]] = [
        {"producer_byte_rate": 1_048_576, "consumer_byte_rate": 2_097_152},
        {"producer_byte_rate": 65_536},
    ]
    rules: ClassVar[list[dict[str, Any]]] = [
        {"anyOf": [given("producer_byte_rate"), given("consumer_byte_rate")]}
    ]

    producer_byte_rate: (
        Annotated[
            ByteRate,
            Meta(
                description="bytes/s; absent: the server's default "
                "(SLUICE_QUOTA_PRODUCER_BYTE_RATE)"
            ),
        ]
        | None
    ) = None
    consumer_byte_rate: (
        Annotated[
            ByteRate,
            Meta(
                description="bytes/s; absent: the server's default "
                "(SLUICE_QUOTA_CONSUMER_BYTE_RATE)"
            ),
        ]
        | None
    ) = None


def parse_set(raw: bytes, s: Settings) -> Override:
    b = decode(raw, QuotaSet, s)
    return Override(b.producer_byte_rate, b.consumer_byte_rate)


def show_quota(row: QuotaRow) -> dict[str, Any]:
    return {
        "principal": row.principal,
        "producer_byte_rate": row.override.producer_byte_rate,
        "consumer_byte_rate": row.override.consumer_byte_rate,
        "updated_ms": row.updated_ms,
    }


def show_quotas(defaults: dict[str, int], rows: list[QuotaRow]) -> dict[str, Any]:
    return {
        "defaults": {
            "producer_byte_rate": defaults[PRODUCE],
            "consumer_byte_rate": defaults[FETCH],
        },
        "quotas": [show_quota(r) for r in rows],
    }
