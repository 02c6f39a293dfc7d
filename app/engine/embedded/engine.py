"""``EmbeddedEngine``: every interface of the seam (``app.engine.Engine``) on the embedded
engine, as ``deps.engine_of`` gives it to the routes.

The ``Broker`` builds the objects and owns their start and stop; this holds, under the seam's
names, those the face may ask. Most are the ``Broker``'s own objects, which implement their
protocols as they are; topics are ``EmbeddedTopics`` over the registry, retention and the clock.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.engine.embedded.topics import EmbeddedTopics
from app.storage.health import StorageHealth

if TYPE_CHECKING:
    from app.runtime import Broker


class EmbeddedEngine:
    def __init__(self, broker: Broker) -> None:
        self._broker = broker
        self.topics = EmbeddedTopics(broker.topics, broker.retention, broker.clock)
        self.producers = broker.producers
        self.reads = broker.reads
        self.transactions = broker.transactions
        self.groups = broker.groups
        self.share = broker.share
        self.share_admin = broker.share_admin
        self.acquisitions = broker.acquisitions
        self.feed_state = broker.feed_state
        self.keys = broker.keys
        self.acls = broker.acls
        self.quota_admin = broker.quota_admin

    @property
    def ready(self) -> bool:
        return self._broker.ready

    def storage(self) -> StorageHealth:
        return self._broker.storage_health
