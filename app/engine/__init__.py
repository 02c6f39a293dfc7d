"""The seam between the face (the HTTP and WebSocket routes, the event feed, the dashboard)
and the engine (the log, producers and transactions, consumer and share groups).

One module per interface, each a set of ``typing.Protocol`` classes over the value types the
engine already answers (records, answers, error codes of ``app.errors``):

- ``topics``: ``Topics`` (with ``TopicView``, what a topic shows, and ``TopicListing``);
- ``produce``: ``Produce``;
- ``reads``: ``Reads``;
- ``producers``: ``Transactions`` (producer ids and transactions);
- ``groups``: ``Groups`` (consumer groups);
- ``share``: ``ShareGroups``, ``ShareMembership``, ``ShareAdmin``, ``ShareAcquisitions``;
- ``push``: ``PushSession`` (a share-group member over a WebSocket);
- ``feed``: ``FeedState`` (the state the event feed shows);
- ``admin``: ``Keys``, ``Acls``, ``QuotaAdmin`` (their storage);
- ``storage``: ``StorageState`` (the engine's own disk, where it has one).

``Engine`` bundles them under the names ``app.runtime.Broker`` gives today's objects, so that
the routes keep their ``b.topics``, ``b.share``… once they hold an ``Engine`` (from
``app.api.deps.engine_of``) instead of the ``Broker``. Two implementations: ``embedded``
(today's engine, the default: ``app.engine.embedded.engine.EmbeddedEngine``, the ``Broker``'s
objects and what ``app.engine.embedded`` adds to them) and ``kafka``
(``app.kafka.engine.KafkaEngine``, with ``SLUICE_BACKEND=kafka``; docs/kafka.md). Some routes
use this package already, the others still the ``Broker``: docs/engine.md says what each
interface is, what implements it, and in which order the routes move onto it.
"""

from __future__ import annotations

from typing import Protocol

from app.engine.admin import Acls, Keys, QuotaAdmin
from app.engine.feed import FeedObservation, FeedState
from app.engine.groups import Groups
from app.engine.produce import Produce
from app.engine.producers import Transactions
from app.engine.push import PushSession
from app.engine.reads import Reads
from app.engine.share import ShareAcquisitions, ShareAdmin, ShareGroups, ShareMembership
from app.engine.storage import StorageState
from app.engine.topics import PartitionOffsets, TopicListing, Topics, TopicView

__all__ = [
    "Acls",
    "Engine",
    "FeedObservation",
    "FeedState",
    "Groups",
    "Keys",
    "PartitionOffsets",
    "Produce",
    "PushSession",
    "QuotaAdmin",
    "Reads",
    "ShareAcquisitions",
    "ShareAdmin",
    "ShareGroups",
    "ShareMembership",
    "StorageState",
    "TopicListing",
    "TopicView",
    "Topics",
    "Transactions",
]


class Engine(Protocol):
    """Every interface of the seam, by the name the ``Broker`` gives its implementation
    today."""

    @property
    def ready(self) -> bool:
        """Recovery (embedded) or the first read of the cluster's metadata and internal
        topics (Kafka) is done: ``/readyz`` answers 200 and ``/v1/`` is served."""
        ...

    def storage(self) -> StorageState | None:
        """The state of the engine's own storage, which ``/readyz`` shows; None where the
        engine keeps no data on this server's disk (Kafka)."""
        ...

    @property
    def topics(self) -> Topics: ...

    @property
    def producers(self) -> Produce: ...

    @property
    def reads(self) -> Reads: ...

    @property
    def transactions(self) -> Transactions: ...

    @property
    def groups(self) -> Groups: ...

    @property
    def share(self) -> ShareGroups: ...

    @property
    def share_admin(self) -> ShareAdmin: ...

    @property
    def acquisitions(self) -> ShareAcquisitions: ...

    @property
    def feed_state(self) -> FeedState:
        """What the event feed reads of the engine once a tick: on the embedded engine the
        ``Broker``'s ``EmbeddedFeedState``, the one the feed is given."""
        ...

    @property
    def keys(self) -> Keys: ...

    @property
    def acls(self) -> Acls: ...

    @property
    def quota_admin(self) -> QuotaAdmin: ...
