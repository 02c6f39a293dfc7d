"""Quotas on the wire: the body of ``PUT /v1/admin/quotas/{principal}`` and the answers."""

from __future__ import annotations

from typing import Any

from app.api.wire._fields import integer, obj, optional
from app.security.quota_store import QuotaRow
from app.security.quotas import FETCH, MAX_BYTE_RATE, PRODUCE, Override


def parse_set(body: Any) -> Override:
    """``{"producer_byte_rate"?: int, "consumer_byte_rate"?: int}`` (bytes/s, 1 to 2⁴⁰)."""
    b = obj(body, "body", "a JSON object")
    return Override(
        optional(integer, b.get("producer_byte_rate"), "producer_byte_rate", 1, MAX_BYTE_RATE),
        optional(integer, b.get("consumer_byte_rate"), "consumer_byte_rate", 1, MAX_BYTE_RATE),
    )


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
