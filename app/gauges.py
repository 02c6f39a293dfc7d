"""The gauges of ``/metrics`` that are read at scrape time from the services' state.

One collector in the broker's registry: each scrape asks the services for their
``statistics()`` once and answers a gauge per figure, so nothing has to be kept up to date as
the state changes.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from prometheus_client.metrics_core import GaugeMetricFamily, Metric

from app.metrics import Collector

if TYPE_CHECKING:
    from app.runtime import Broker


class BrokerGauges(Collector):
    def __init__(self, broker: Broker) -> None:
        self.broker = broker

    def collect(self) -> Iterator[Metric]:
        b = self.broker
        stats = b.statistics()
        health = b.storage_health
        groups = b.groups.groups.values()
        gauges: list[tuple[str, str, float]] = [
            ("sluice_topics", "topics", stats["topics"]),
            ("sluice_partitions", "partitions", stats["partitions"]),
            ("sluice_ready", "1 when serving", 1.0 if b.ready else 0.0),
            # the disk
            (
                "sluice_storage_failing",
                "1 while the disk refuses writes (full or failing), 0 once one succeeds again",
                1.0 if health.failing else 0.0,
            ),
            (
                "sluice_storage_errors",
                "writes and fsyncs the disk refused since the start (a counter)",
                health.errors,
            ),
            (
                "sluice_storage_error_episodes",
                "times the disk started refusing writes since the start (a counter)",
                health.episodes,
            ),
            # transactions
            (
                "sluice_transactions_open",
                "transactions in state Ongoing",
                stats["transactions"]["Ongoing"],
            ),
            (
                "sluice_transactional_ids",
                "transactional ids known",
                sum(stats["transactions"].values()),
            ),
            # consumer groups
            ("sluice_consumer_groups", "consumer groups", len(b.groups.groups)),
            (
                "sluice_consumer_group_members",
                "members of consumer groups",
                sum(len(g.members) for g in groups),
            ),
            # share groups
            ("sluice_share_groups", "share groups", stats["share_groups"]),
            ("sluice_share_members", "members of share groups", stats["share_members"]),
            *(
                (f"sluice_share_records_{state}", f"in-flight share-partition records {state}", n)
                for state, n in stats["share_records"].items()
            ),
            (
                "sluice_share_dead_letter_copies",
                "records copied to dead-letter topics",
                stats["share_dead_letter_copies"],
            ),
        ]
        for name, doc, value in gauges:
            yield GaugeMetricFamily(name, doc, value=float(value))
