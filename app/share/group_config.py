"""Share-group configuration: the keys a group may set, their bounds (from the server settings)
and the effective values (A1.14). Unknown keys and values out of bounds are ``INVALID_CONFIG``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from app.config import Settings
from app.errors import ErrorCode, InvalidRequest
from app.share.partition import Limits
from app.topics import NAME

KEYS = ("record_lock_duration_ms", "delivery_count_limit", "partition_max_record_locks",
        "auto_offset_reset", "isolation_level", "renew_enabled", "dead_letter_topic")
ISOLATION_LEVELS = ("read_uncommitted", "read_committed")
_MAX_DURATION_MS = 100 * 365 * 24 * 3600 * 1000


def _bad(message: str) -> InvalidRequest:
    return InvalidRequest(message, ErrorCode.INVALID_CONFIG)


def _int(key: str, value: Any, lo: int, hi: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
        raise _bad(f"{key} must be an integer from {lo} to {hi}")
    return value


def parse_offset_reset(value: Any, key: str = "auto_offset_reset") -> str:
    if value in ("latest", "earliest"):
        return str(value)
    if isinstance(value, str) and value.startswith("by_duration:"):
        ms = value.removeprefix("by_duration:")
        if ms.isascii() and ms.isdigit() and int(ms) <= _MAX_DURATION_MS:
            return value
    raise _bad(f"{key} must be latest, earliest or by_duration:<ms>")


def validate(changes: Any, current: dict[str, Any], settings: Settings) -> dict[str, Any]:
    """``current`` with ``changes`` applied (null sets a key back to its default)."""
    if not isinstance(changes, dict):
        raise _bad("the body must be a JSON object of config keys")
    out = dict(current)
    for key, value in changes.items():
        if key not in KEYS:
            raise _bad(f"unknown config key {key!r}; known: {', '.join(KEYS)}")
        if value is None:
            out.pop(key, None)
            continue
        if key == "record_lock_duration_ms":
            out[key] = _int(key, value, settings.share_min_record_lock_duration_ms,
                            settings.share_max_record_lock_duration_ms)
        elif key == "delivery_count_limit":
            out[key] = _int(key, value, 2, 10)
        elif key == "partition_max_record_locks":
            out[key] = _int(key, value, 100, 10_000)
        elif key == "auto_offset_reset":
            out[key] = parse_offset_reset(value)
        elif key == "isolation_level":
            if value not in ISOLATION_LEVELS:
                raise _bad(f"isolation_level must be one of {', '.join(ISOLATION_LEVELS)}")
            out[key] = value
        elif key == "renew_enabled":
            if not isinstance(value, bool):
                raise _bad("renew_enabled must be true or false")
            out[key] = value
        else:  # dead_letter_topic
            if not isinstance(value, str) or (value and not NAME.fullmatch(value)):
                raise _bad("dead_letter_topic must be a topic name (or null or \"\" for none)")
            out[key] = value
    return out


@dataclass(frozen=True, slots=True)
class GroupConfig:
    record_lock_duration_ms: int
    delivery_count_limit: int
    partition_max_record_locks: int
    auto_offset_reset: str
    isolation_level: str
    renew_enabled: bool
    dead_letter_topic: str | None

    @classmethod
    def effective(cls, explicit: dict[str, Any], settings: Settings) -> GroupConfig:
        lock_ms = explicit.get("record_lock_duration_ms", settings.share_record_lock_duration_ms)
        lock_ms = min(max(lock_ms, settings.share_min_record_lock_duration_ms),
                      settings.share_max_record_lock_duration_ms)
        return cls(
            record_lock_duration_ms=lock_ms,
            delivery_count_limit=explicit.get("delivery_count_limit",
                                              settings.share_delivery_count_limit),
            partition_max_record_locks=explicit.get(
                "partition_max_record_locks", settings.share_partition_max_record_locks),
            auto_offset_reset=explicit.get("auto_offset_reset", "latest"),
            isolation_level=explicit.get("isolation_level", "read_uncommitted"),
            renew_enabled=explicit.get("renew_enabled", True),
            dead_letter_topic=explicit.get("dead_letter_topic") or None,
        )

    @property
    def limits(self) -> Limits:
        return Limits(self.record_lock_duration_ms, self.delivery_count_limit,
                      self.partition_max_record_locks, self.renew_enabled)

    def to_dict(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in KEYS}
