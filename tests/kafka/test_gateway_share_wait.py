"""A share-group member of the gateway (``GatewayShareGroups``) whose fetch waits longer than
its group's session timeout, against the native broker: Kafka counts heartbeats only, so the
gateway heartbeats for the member during the wait, and the member is still the group's when the
wait ends (its next fetch gets the record produced meanwhile, under the same member id)."""

from __future__ import annotations

import time

import pytest

from app.clock import SystemClock
from app.kafka.cluster import Cluster
from app.kafka.produce import KafkaProduce
from app.kafka.share import KafkaShareGroups
from app.kafka.share_members import GatewayShareGroups
from tests.kafka.test_share import new_group, new_topic, produce

pytestmark = pytest.mark.kafka

SESSION_MS = 2_000  # the group's session timeout: a member without a heartbeat for 2 s is gone
WAIT_MS = 6_000  # three session timeouts


async def test_a_member_outlives_a_fetch_that_waits_past_its_session_timeout(
    cluster: Cluster, writer: KafkaProduce
) -> None:
    topic = await new_topic(cluster)
    group = await new_group(
        cluster,
        more={
            "share.session.timeout.ms": str(SESSION_MS),
            "share.heartbeat.interval.ms": "500",
        },
    )
    kafka = KafkaShareGroups(cluster)
    gateway = GatewayShareGroups(kafka, SystemClock())
    try:
        joined = await gateway.fetch(
            group,
            None,
            [topic],
            max_records=10,
            max_wait_ms=1_000,
            record_limit=False,
            acks={},
            principal=None,
        )
        member_id = joined.member_id
        assert member_id is not None and joined.records == []
        started = time.monotonic()
        quiet = await gateway.fetch(
            group,
            member_id,
            None,
            max_records=10,
            max_wait_ms=WAIT_MS,
            record_limit=False,
            acks={},
            principal=None,
        )
        assert quiet.records == [] and time.monotonic() - started >= SESSION_MS / 1000
        await produce(writer, topic, [(0, b"after the wait")])
        deadline = time.monotonic() + 30
        records: list[bytes | None] = []
        while not records and time.monotonic() < deadline:
            got = await gateway.fetch(
                group,
                member_id,
                None,
                max_records=10,
                max_wait_ms=1_000,
                record_limit=False,
                acks={},
                principal=None,
            )
            assert got.member_id == member_id
            records = [r.value for part in got.records for r, _count in part.records]
        assert records == [b"after the wait"]
    finally:
        await gateway.close()
