"""The Kafka backend's topics, reads, produce, transactions, consumer groups, share-group
administration, keys, ACLs and quotas, and the gateway's engine, follow the seam's
protocols (``app.engine``): every member a protocol declares is on the Kafka object with the
protocol's parameters (names, kinds, which have defaults), a coroutine where the protocol's is,
and also where docs/engine.md (#kafka-async) lists it as async on Kafka already. mypy checks
the assignments below."""

from __future__ import annotations

import inspect
from typing import Any

import pytest

from app import engine
from app.clock import SystemClock
from app.config import Settings
from app.kafka.acls import KafkaAcls
from app.kafka.cluster import Cluster
from app.kafka.engine import GatewayProduce, GatewayTransactions, KafkaEngine
from app.kafka.groups import KafkaGroups
from app.kafka.idempotency import KafkaIdempotency
from app.kafka.keys import KafkaKeys
from app.kafka.produce import KafkaProduce
from app.kafka.producer_owners import ProducerOwners
from app.kafka.quotas import KafkaQuotaAdmin
from app.kafka.reads import KafkaReads
from app.kafka.share_admin import KafkaShareAdmin
from app.kafka.topics import KafkaTopic, KafkaTopics, PartitionView
from app.kafka.transactions import KafkaTransactions
from app.security.authorizer import Authorizer
from app.security.quotas import Quotas
from tests.unit.engine.test_seam import members, shape

# what mypy checks: the values and the protocols that match them member for member
topics: engine.Topics = KafkaTopics(Cluster("127.0.0.1:9"))
reads: engine.Reads = KafkaReads(Cluster("127.0.0.1:9"))
groups: engine.Groups = KafkaGroups(Cluster("127.0.0.1:9"), KafkaReads(Cluster("127.0.0.1:9")))
view: engine.TopicView = KafkaTopic("t", {}, [PartitionView(0, 0, 0)])
offsets: engine.PartitionOffsets = PartitionView(0, 0, 0)
share_admin: engine.ShareAdmin = KafkaShareAdmin(Cluster("127.0.0.1:9"))
keys: engine.Keys = KafkaKeys(Cluster("127.0.0.1:9"), SystemClock())
acls: engine.Acls = KafkaAcls(Cluster("127.0.0.1:9"), Authorizer())
quota_admin: engine.QuotaAdmin = KafkaQuotaAdmin(
    Cluster("127.0.0.1:9"), Quotas(SystemClock()), SystemClock()
)

transactions: engine.Transactions = GatewayTransactions(
    Cluster("127.0.0.1:9"),
    KafkaProduce(Cluster("127.0.0.1:9"), Settings()),
    SystemClock(),
    ProducerOwners(
        Cluster("127.0.0.1:9"),
        KafkaProduce(Cluster("127.0.0.1:9"), Settings()),
        SystemClock(),
        expiration_ms=1000,
    ),
)
produce: engine.Produce = GatewayProduce(
    KafkaProduce(Cluster("127.0.0.1:9"), Settings()),
    KafkaIdempotency(
        Cluster("127.0.0.1:9"),
        KafkaProduce(Cluster("127.0.0.1:9"), Settings()),
        KafkaTransactions(Cluster("127.0.0.1:9"), KafkaProduce(Cluster("127.0.0.1:9"), Settings())),
        SystemClock(),
        retention_ms=1000,
    ),
    ProducerOwners(
        Cluster("127.0.0.1:9"),
        KafkaProduce(Cluster("127.0.0.1:9"), Settings()),
        SystemClock(),
        expiration_ms=1000,
    ),
)
gateway: engine.Engine = KafkaEngine(
    Settings(backend="kafka", kafka_bootstrap="127.0.0.1:9"),
    SystemClock(),
    Quotas(SystemClock()),
    Authorizer(),
)

# (protocol, Kafka class, members async on Kafka while the seam's are not, members replaced)
CASES: list[tuple[type[Any], type[Any], set[str], dict[str, str]]] = [
    (engine.Topics, KafkaTopics, set(), {}),
    (engine.Reads, KafkaReads, set(), {}),
    (engine.Produce, GatewayProduce, set(), {}),
    (engine.Transactions, GatewayTransactions, set(), {}),
    (engine.Groups, KafkaGroups, set(), {}),
    (engine.ShareAdmin, KafkaShareAdmin, set(), {}),
    (engine.Keys, KafkaKeys, set(), {}),
    (engine.Acls, KafkaAcls, set(), {}),
    (engine.QuotaAdmin, KafkaQuotaAdmin, set(), {}),
]


@pytest.mark.parametrize(("protocol", "cls", "now_async", "replaced"), CASES)
def test_the_kafka_objects_have_the_protocols_members(
    protocol: type[Any], cls: type[Any], now_async: set[str], replaced: dict[str, str]
) -> None:
    for name, member in members(protocol):
        if name in replaced:
            assert inspect.iscoroutinefunction(getattr(cls, replaced[name]))
            continue
        assert isinstance(member, property) or hasattr(cls, name), name
        if isinstance(member, property):
            continue
        theirs_async, theirs = shape(getattr(cls, name))
        ours_async, ours = shape(member)  # type: ignore[arg-type]
        assert theirs == ours, name
        assert theirs_async == (ours_async or name in now_async), name


def test_the_async_list_of_the_docs_names_these_members() -> None:
    from tests.conftest import ROOT

    text = (ROOT / "docs" / "engine.md").read_text()
    section = text[text.index('<a id="kafka-async"></a>') : text.index('<a id="order"></a>')]
    for protocol, _, now_async, replaced in CASES:
        for name in [*now_async, *replaced]:
            assert f"`{protocol.__name__}.{name}`" in section
