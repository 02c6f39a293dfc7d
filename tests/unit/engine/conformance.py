"""Today's embedded objects as the seam's interfaces: assignments that mypy (strict, over
``tests``) checks. A method renamed, or its parameters or result changed, on either side makes
one of them an error; ``test_seam.py`` checks the same at run time by signature."""

from __future__ import annotations

from app import engine
from app.engine.embedded.engine import EmbeddedEngine
from app.engine.embedded.feed import EmbeddedFeedState
from app.engine.embedded.topics import EmbeddedTopics
from app.runtime import Broker
from app.share.push import PushSession
from app.topics import Topic


def interfaces(b: Broker, topic: Topic) -> None:
    """Each interface, by the object of ``b`` that implements it."""
    topics: engine.Topics = EmbeddedTopics(b.topics, b.retention, b.clock)
    view: engine.TopicView = topic
    offsets: engine.PartitionOffsets = topic.logs[0]
    produce: engine.Produce = b.producers
    reads: engine.Reads = b.reads
    transactions: engine.Transactions = b.transactions
    groups: engine.Groups = b.groups
    share: engine.ShareGroups = b.share
    membership: engine.ShareMembership = b.share.membership
    share_admin: engine.ShareAdmin = b.share_admin
    acquisitions: engine.ShareAcquisitions = b.acquisitions
    push: engine.PushSession = b.share.open_push("g", 10, None)
    embedded_push: PushSession = b.share.open_push("g", 10, None)
    feed: engine.FeedState = b.feed_state
    built: EmbeddedFeedState = b.feed_state
    keys: engine.Keys = b.keys
    acls: engine.Acls = b.acls
    quotas: engine.QuotaAdmin = b.quota_admin
    storage: engine.StorageState = b.storage_health
    del topics, view, offsets, produce, reads, transactions, groups, share
    del membership, share_admin, acquisitions, push, embedded_push, feed, built, keys, acls
    del quotas, storage


def bundle(b: Broker) -> engine.Engine:
    """Every interface at once, under the Broker's names: the engine the routes are given."""
    embedded: engine.Engine = EmbeddedEngine(b)
    return embedded
