"""Today's embedded objects as the seam's interfaces: assignments that mypy (strict, over
``tests``) checks. A method renamed, or its parameters or result changed, on either side makes
one of them an error; ``test_seam.py`` checks the same at run time by signature."""

from __future__ import annotations

from app import engine
from app.engine.embedded.feed import EmbeddedFeedState
from app.runtime import Broker
from app.share.push import PushSession
from app.topics import Topic


class EmbeddedEngine(Broker):
    """The Broker with the one member of ``engine.Engine`` it lacks today."""

    @property
    def feed_state(self) -> EmbeddedFeedState:
        return EmbeddedFeedState(self.topics, self.share_admin, self.groups, self.transactions)


def interfaces(b: Broker, session: PushSession, topic: Topic) -> None:
    """Each interface, by the object of ``b`` that implements it."""
    topics: engine.Topics = b.topics
    view: engine.TopicView = topic
    offsets: engine.PartitionOffsets = topic.logs[0]
    deletion: engine.RecordDeletion = b.retention
    produce: engine.Produce = b.producers
    reads: engine.Reads = b.reads
    transactions: engine.Transactions = b.transactions
    groups: engine.Groups = b.groups
    share: engine.ShareGroups = b.share
    membership: engine.ShareMembership = b.share.membership
    share_admin: engine.ShareAdmin = b.share_admin
    acquisitions: engine.ShareAcquisitions = b.acquisitions
    push: engine.PushSession = session
    feed: engine.FeedState = EmbeddedFeedState(b.topics, b.share_admin, b.groups, b.transactions)
    keys: engine.Keys = b.keys
    acls: engine.Acls = b.acls
    quotas: engine.QuotaAdmin = b.quota_admin
    del topics, view, offsets, deletion, produce, reads, transactions, groups, share
    del membership, share_admin, acquisitions, push, feed, keys, acls, quotas


def bundle(b: EmbeddedEngine) -> engine.Engine:
    """Every interface at once, under the Broker's names."""
    return b
