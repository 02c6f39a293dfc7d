"""Topics: names, partition counts, per-topic configuration and their partition logs.

Changes are staged in memory synchronously (a name being created or deleted is reserved, so
concurrent requests cannot interleave), made durable in SQLite, then completed.
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from app.config import DAY_MS, GiB, MiB
from app.errors import Conflict, ErrorCode, InvalidRequest, NotFound, StorageError
from app.flusher import Flusher
from app.metadata.store import TopicStore
from app.storage.log import LogConfig, PartitionLog
from app.storage.manager import LogManager

NAME = re.compile(r"[A-Za-z0-9._-]{1,249}")
# the same rule as a JSON Schema pattern (for the OpenAPI document): not . or ..
NAME_PATTERN = r"^(?!\.\.?$)[A-Za-z0-9._-]{1,249}$"
"""The characters and length of every name: topics, groups, transactional ids."""


@dataclass(frozen=True, slots=True)
class _Key:
    default: int
    lo: int
    hi: int
    doc: str
    minus_one_ok: bool = False


TOPIC_CONFIG: dict[str, _Key] = {
    "retention_ms": _Key(
        7 * DAY_MS, 1, 2**62, "delete segments older than this; -1 never", minus_one_ok=True
    ),
    "retention_bytes": _Key(
        -1, 0, 2**62, "delete old segments beyond this size; -1 never", minus_one_ok=True
    ),
    "segment_bytes": _Key(128 * MiB, 1024, 1 * GiB, "roll a new segment at this size"),
    "segment_ms": _Key(7 * DAY_MS, 1, 2**62, "roll a new segment after this time"),
    "index_interval_bytes": _Key(4096, 64, 16 * MiB, "bytes between sparse index entries"),
    "max_message_bytes": _Key(1 * MiB, 64, 64 * MiB, "largest record accepted"),
}


def is_valid_name(name: str) -> bool:
    """1-249 of [A-Za-z0-9._-], except ``.`` and ``..``: as path segments of a URL they would
    be resolved away before reaching the server (Kafka refuses them too)."""
    return NAME.fullmatch(name) is not None and name not in (".", "..")


def validate_name(name: str, what: str = "topic") -> str:
    if not is_valid_name(name):
        raise InvalidRequest(
            ErrorCode.INVALID_TOPIC if what == "topic" else ErrorCode.INVALID_REQUEST,
            f"invalid {what} name {name!r}: 1-249 characters of [A-Za-z0-9._-]",
        )
    return name


def check_partitions(partitions: int, max_partitions: int) -> int:
    """A partition count a topic may have."""
    if not 1 <= partitions <= max_partitions:
        raise InvalidRequest(
            ErrorCode.INVALID_PARTITIONS,
            f"partitions must be an integer from 1 to {max_partitions}",
        )
    return partitions


def validate_config(
    changes: Mapping[str, int | None], current: Mapping[str, int] | None = None
) -> dict[str, int]:
    """Merge ``changes`` into ``current`` after checking every key and bound; a null value
    sets its key back to the default."""
    out = dict(current or {})
    for key, value in changes.items():
        spec = TOPIC_CONFIG.get(key)
        if spec is None:
            raise InvalidRequest(
                ErrorCode.INVALID_CONFIG,
                f"unknown config key {key!r}; known: {', '.join(sorted(TOPIC_CONFIG))}",
            )
        if value is None:
            out.pop(key, None)
            continue
        if not (spec.lo <= value <= spec.hi or (spec.minus_one_ok and value == -1)):
            bounds = f"{spec.lo} to {spec.hi}" + (" or -1" if spec.minus_one_ok else "")
            raise InvalidRequest(
                ErrorCode.INVALID_CONFIG, f"config {key}={value} is out of bounds ({bounds})"
            )
        out[key] = value
    return out


def effective_config(config: Mapping[str, int]) -> dict[str, int]:
    return {k: config.get(k, spec.default) for k, spec in TOPIC_CONFIG.items()}


def log_config(config: dict[str, int]) -> LogConfig:
    c = effective_config(config)
    return LogConfig(
        segment_bytes=c["segment_bytes"],
        segment_ms=c["segment_ms"],
        retention_ms=c["retention_ms"],
        retention_bytes=c["retention_bytes"],
        index_interval_bytes=c["index_interval_bytes"],
    )


class TopicState(enum.Enum):
    """A topic's lifecycle, as the ``topics.state`` column stores it."""

    LIVE = "live"
    DELETING = "deleting"  # refused to every request; its files and rows are going


@dataclass(slots=True)
class Topic:
    topic_id: int
    name: str
    config: dict[str, int]
    logs: list[PartitionLog] = field(default_factory=list)
    sticky: int = -1
    state: TopicState = TopicState.LIVE
    # records answered to produce requests, and records read by offset or delivered to share
    # groups, since the server started: the event feed's rates of what a principal may see
    produced: int = 0
    consumed: int = 0

    @property
    def deleting(self) -> bool:
        return self.state is TopicState.DELETING

    @property
    def partitions(self) -> int:
        return len(self.logs)

    @property
    def max_message_bytes(self) -> int:
        return self.config.get("max_message_bytes", TOPIC_CONFIG["max_message_bytes"].default)

    def next_sticky_partition(self) -> int:
        self.sticky = (self.sticky + 1) % len(self.logs)
        return self.sticky

    def log(self, partition: int) -> PartitionLog:
        if not 0 <= partition < len(self.logs):
            raise NotFound(
                ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
                f"topic {self.name!r} has no partition {partition}",
            )
        return self.logs[partition]


class TopicRegistry:
    def __init__(
        self, store: TopicStore, logs: LogManager, flusher: Flusher, max_partitions: int
    ) -> None:
        self.store = store
        self.log_manager = logs
        self.flusher = flusher
        self.max_partitions = max_partitions
        self.topics: dict[str, Topic] = {}
        self._reserved: set[str] = set()
        self._locks: dict[str, asyncio.Lock] = {}

    async def load(self, now_ms: int) -> None:
        """Open every topic's logs (recovery happens here) and finish interrupted deletes."""
        rows = await self.store.load_all()
        for row in rows:
            if TopicState(row.state) is TopicState.DELETING:
                await asyncio.to_thread(self.log_manager.remove_topic_files, row.topic_id)
                await self.store.delete(row.topic_id)
                continue
            config = {k: int(v) for k, v in row.config.items()}
            topic = Topic(row.topic_id, row.name, config)
            lc = log_config(config)
            topic.logs = [
                self.log_manager.open(row.topic_id, p, lc, now_ms) for p in range(row.partitions)
            ]
            self.topics[row.name] = topic
        self.log_manager.remove_orphans({t.topic_id for t in self.topics.values()})

    def get(self, name: str) -> Topic:
        topic = self.topics.get(name)
        if topic is None or topic.deleting:
            raise NotFound(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, f"topic {name!r} does not exist")
        return topic

    async def create(
        self, name: str, partitions: int, config: Mapping[str, int | None], now_ms: int
    ) -> Topic:
        name = validate_name(name)
        partitions = check_partitions(partitions, self.max_partitions)
        cfg = validate_config(config)
        if name in self.topics or name in self._reserved:
            raise Conflict(ErrorCode.TOPIC_ALREADY_EXISTS, f"topic {name!r} already exists")
        self._reserved.add(name)
        try:
            topic_id = await self.store.insert(name, partitions, cfg, now_ms)
            topic = Topic(topic_id, name, cfg)
            lc = log_config(cfg)
            try:
                topic.logs = [
                    self.log_manager.open(topic_id, p, lc, now_ms) for p in range(partitions)
                ]
            except OSError as exc:  # the disk refused the logs: the topic is not created
                self.log_manager.close_topic(topic_id)
                self.log_manager.health.failed(f"creating the logs of topic {name!r}", exc)
                with contextlib.suppress(OSError):
                    self.log_manager.remove_topic_files(topic_id)
                # should the disk refuse this delete too (507 as well), the row stays and the
                # next start opens the topic, empty: never a topic half there
                await self.store.delete(topic_id)
                raise StorageError.of(f"creating topic {name!r}", exc) from exc
            self.topics[name] = topic
            return topic
        finally:
            self._reserved.discard(name)

    def _lock(self, name: str) -> asyncio.Lock:
        return self._locks.setdefault(name, asyncio.Lock())

    async def update(
        self,
        name: str,
        partitions: int | None,
        config: Mapping[str, int | None] | None,
        now_ms: int,
    ) -> Topic:
        """More partitions (never fewer) and/or config changes (null keys back to default)."""
        async with self._lock(name):
            topic = self.get(name)
            new_count = topic.partitions
            if partitions is not None:
                new_count = check_partitions(partitions, self.max_partitions)
                if new_count < topic.partitions:
                    raise InvalidRequest(
                        ErrorCode.INVALID_PARTITIONS,
                        f"partitions can only grow (now {topic.partitions})",
                    )
            new_config = topic.config if config is None else validate_config(config, topic.config)
            await self.store.update(topic.topic_id, new_count, new_config)
            topic.config = new_config
            lc = log_config(new_config)
            for lg in topic.logs:
                lg.config = lc
            topic.logs.extend(
                self.log_manager.open(topic.topic_id, p, lc, now_ms)
                for p in range(topic.partitions, new_count)
            )
            return topic

    async def delete(self, name: str) -> None:
        async with self._lock(name):
            topic = self.get(name)
            topic.state = TopicState.DELETING
            try:
                await self.store.mark_deleting(topic.topic_id)
            except BaseException:
                topic.state = TopicState.LIVE
                raise
            await self.flusher.flush_round()
            async with self.flusher.exclusive():
                for lg in topic.logs:
                    self.flusher.forget(lg)
                self.log_manager.close_topic(topic.topic_id)
            await asyncio.to_thread(self.log_manager.remove_topic_files, topic.topic_id)
            await self.store.delete(topic.topic_id)
            del self.topics[name]
            self._locks.pop(name, None)
