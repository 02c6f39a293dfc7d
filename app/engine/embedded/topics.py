"""``EmbeddedTopics``: the seam's ``Topics`` on the embedded engine, over the topic registry
(``app.topics.TopicRegistry``), retention (``app.retention.Retention``, which moves log starts)
and the engine's clock.

The registry stays what the engine's own services use (a synchronous ``get``, the dict of
topics); this is what the face asks: the list of live topics, a topic's description, and the
changes, each dated by the engine's clock rather than by the caller.
"""

from __future__ import annotations

import builtins
from collections.abc import Mapping

from app.clock import Clock
from app.engine.topics import TopicListing
from app.retention import Retention
from app.topics import Topic, TopicRegistry


class EmbeddedTopics:
    def __init__(self, registry: TopicRegistry, retention: Retention, clock: Clock) -> None:
        self.registry = registry
        self.retention = retention
        self.clock = clock

    async def list(self) -> builtins.list[TopicListing]:
        return [
            TopicListing(t.name, t.partitions)
            for t in sorted(self.registry.topics.values(), key=lambda t: t.name)
            if not t.deleting
        ]

    async def create(self, name: str, partitions: int, config: Mapping[str, int | None]) -> Topic:
        return await self.registry.create(name, partitions, config, self.clock.now_ms())

    async def get(self, name: str) -> Topic:
        return self.registry.get(name)

    async def update(
        self, name: str, partitions: int | None, config: Mapping[str, int | None] | None
    ) -> Topic:
        return await self.registry.update(name, partitions, config, self.clock.now_ms())

    async def delete(self, name: str) -> None:
        await self.registry.delete(name)

    async def delete_records(
        self, topic_name: str, partitions: builtins.list[tuple[int, int]]
    ) -> builtins.list[tuple[int, int]]:
        return await self.retention.delete_records(topic_name, partitions)
