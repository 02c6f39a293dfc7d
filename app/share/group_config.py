"""Share-group configuration: the keys a group may set, their bounds (from the server settings)
and the effective values (docs/semantics.md#share-group-config). Unknown keys and values out of
bounds are ``INVALID_CONFIG``."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TypeVar

from app.config import Settings
from app.errors import ErrorCode, InvalidRequest
from app.share.partition import Limits
from app.topics import NAME

KEYS = (
    "record_lock_duration_ms",
    "delivery_count_limit",
    "partition_max_record_locks",
    "auto_offset_reset",
    "isolation_level",
    "renew_enabled",
    "dead_letter_topic",
)
ISOLATION_LEVELS = ("read_uncommitted", "read_committed")
# by_duration:<ms> takes at most 12 digits (31 years), a rule a JSON Schema pattern states exactly
OFFSET_RESET_PATTERN = r"^(latest|earliest|by_duration:[0-9]{1,12})$"


def _bad(message: str) -> InvalidRequest:
    return InvalidRequest(ErrorCode.INVALID_CONFIG, message)


def _int(key: str, value: object, lo: int, hi: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
        raise _bad(f"{key} must be an integer from {lo} to {hi}")
    return value


def parse_offset_reset(value: object, key: str = "auto_offset_reset") -> str:
    if value in ("latest", "earliest"):
        return str(value)
    if isinstance(value, str) and value.startswith("by_duration:"):
        ms = value.removeprefix("by_duration:")
        if ms.isascii() and ms.isdigit() and len(ms) <= 12:
            return value
    raise _bad(f"{key} must be latest, earliest or by_duration:<ms>")


def validate(
    changes: Mapping[str, object], current: Mapping[str, object], settings: Settings
) -> dict[str, object]:
    """``current`` with ``changes`` applied (null sets a key back to its default)."""
    out = dict(current)
    for key, value in changes.items():
        if key not in KEYS:
            raise _bad(f"unknown config key {key!r}; known: {', '.join(KEYS)}")
        if value is None:
            out.pop(key, None)
            continue
        if key == "record_lock_duration_ms":
            out[key] = _int(
                key,
                value,
                settings.share_min_record_lock_duration_ms,
                settings.share_max_record_lock_duration_ms,
            )
        elif key == "delivery_count_limit":
            out[key] = _int(key, value, 2, 10)
        elif key == "partition_max_record_locks":
            out[key] = _int(key, value, 100, 10_000)
        elif key == "auto_offset_reset":
            out[key] = parse_offset_reset(value)
        elif key == "isolation_level":
            if not isinstance(value, str) or value not in ISOLATION_LEVELS:
                raise _bad(f"isolation_level must be one of {', '.join(ISOLATION_LEVELS)}")
            out[key] = value
        elif key == "renew_enabled":
            if not isinstance(value, bool):
                raise _bad("renew_enabled must be true or false")
            out[key] = value
        else:  # dead_letter_topic
            if not isinstance(value, str) or (value and not NAME.fullmatch(value)):
                raise _bad('dead_letter_topic must be a topic name (or null or "" for none)')
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
    def effective(cls, explicit: Mapping[str, object], settings: Settings) -> GroupConfig:
        """The config of a group with the ``explicit`` keys (as ``validate`` answers them)."""
        lock_ms = _get(
            explicit, "record_lock_duration_ms", int, settings.share_record_lock_duration_ms
        )
        lock_ms = min(
            max(lock_ms, settings.share_min_record_lock_duration_ms),
            settings.share_max_record_lock_duration_ms,
        )
        return cls(
            record_lock_duration_ms=lock_ms,
            delivery_count_limit=_get(
                explicit, "delivery_count_limit", int, settings.share_delivery_count_limit
            ),
            partition_max_record_locks=_get(
                explicit,
                "partition_max_record_locks",
                int,
                settings.share_partition_max_record_locks,
            ),
            auto_offset_reset=_get(explicit, "auto_offset_reset", str, "latest"),
            isolation_level=_get(explicit, "isolation_level", str, "read_uncommitted"),
            renew_enabled=_get(explicit, "renew_enabled", bool, True),
            dead_letter_topic=_get(explicit, "dead_letter_topic", str, "") or None,
        )

    @property
    def limits(self) -> Limits:
        return Limits(
            self.record_lock_duration_ms,
            self.delivery_count_limit,
            self.partition_max_record_locks,
            self.renew_enabled,
        )

    def to_dict(self) -> dict[str, object]:
        return {k: getattr(self, k) for k in KEYS}


T = TypeVar("T", int, str, bool)


def _get(explicit: Mapping[str, object], key: str, kind: type[T], default: T) -> T:
    value = explicit.get(key, default)
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise TypeError(f"share group config {key}={value!r} is not a {kind.__name__}")
    return value
