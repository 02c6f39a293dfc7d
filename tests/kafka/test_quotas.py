"""The Kafka backend's quotas (app/kafka/quotas.py) against the native broker of make kafka:
a principal's quotas set, listed, changed and removed as Kafka's client quotas of the entity
user=<principal>, applied to the face's meters when the call returns; the defaults the
default user's; a change made through one gateway applied by another within about a second."""

from __future__ import annotations

import asyncio
import uuid

import pytest

from app.clock import SystemClock
from app.errors import ErrorCode, SluiceError
from app.kafka.cluster import Cluster
from app.kafka.protocol.messages import DescribeClientQuotasRequest
from app.kafka.quotas import MATCH_DEFAULT, KafkaQuotaAdmin
from app.security.quotas import FETCH, PRODUCE, Override, Quotas
from tests.kafka_cluster import KafkaCluster

pytestmark = pytest.mark.kafka

DEADLINE = 30.0
SETTING = 5_000  # the gateway's own default producer_byte_rate


def admin(cluster: Cluster) -> KafkaQuotaAdmin:
    clock = SystemClock()
    return KafkaQuotaAdmin(cluster, Quotas(clock, producer_byte_rate=SETTING), clock)


def who() -> str:
    """A principal of this test alone: the broker's quotas outlive a test."""
    return f"q-{uuid.uuid4().hex[:10]}"


async def user_quotas(cluster: Cluster, principal: str | None) -> dict[str, float]:
    """What DescribeClientQuotas answers for ``user=<principal>`` (None: the default user),
    asked of the broker directly."""
    conn = await cluster.any_connection()
    component = (
        DescribeClientQuotasRequest.ComponentData(entity_type="user", match_type=0, match=principal)
        if principal is not None
        else DescribeClientQuotasRequest.ComponentData(
            entity_type="user", match_type=MATCH_DEFAULT, match=None
        )
    )
    answer = await conn.send(DescribeClientQuotasRequest(components=[component], strict=True))
    assert answer.error_code == 0
    return {v.key: v.value for e in answer.entries or [] for v in e.values}


async def test_a_principals_quotas_are_kafkas_client_quotas_of_its_user(
    cluster: Cluster,
) -> None:
    alice = who()
    quotas = admin(cluster)
    await quotas.load()
    assert alice not in {r.principal for r in quotas.list()}

    row = await quotas.set(alice, Override(producer_byte_rate=1000))
    assert (row.principal, row.override) == (alice, Override(1000, None))
    assert await user_quotas(cluster, alice) == {"producer_byte_rate": 1000.0}
    assert row in quotas.list()
    # applied to the meters when set returned: the fetch quota is the default (unlimited)
    assert quotas.quotas.limit(alice, PRODUCE) == 1000
    assert quotas.quotas.limit(alice, FETCH) == 0
    assert quotas.quotas.produce.admit(alice) is not None

    # the same values again: Kafka keeps no time, the row keeps the time first seen
    assert await quotas.set(alice, Override(producer_byte_rate=1000)) == row
    await quotas.set(alice, Override(consumer_byte_rate=2000))
    assert await user_quotas(cluster, alice) == {"consumer_byte_rate": 2000.0}
    assert quotas.quotas.limit(alice, PRODUCE) == SETTING  # back to the gateway's default
    assert quotas.quotas.limit(alice, FETCH) == 2000

    await quotas.remove(alice)
    assert await user_quotas(cluster, alice) == {}
    assert alice not in {r.principal for r in quotas.list()}
    assert quotas.quotas.limit(alice, FETCH) == 0
    with pytest.raises(SluiceError) as missing:
        await quotas.remove(alice)
    assert missing.value.code is ErrorCode.NOT_FOUND
    with pytest.raises(SluiceError) as invalid:
        await quotas.set(alice, Override())
    assert invalid.value.code is ErrorCode.INVALID_REQUEST


async def test_the_defaults_are_the_default_users_quotas(cluster: Cluster) -> None:
    quotas = admin(cluster)
    await quotas.load()
    try:
        await quotas.set_defaults(Override(consumer_byte_rate=777))
        assert await user_quotas(cluster, None) == {"consumer_byte_rate": 777.0}
        # a kind the default user has none of keeps the gateway's setting
        assert quotas.defaults() == {PRODUCE: SETTING, FETCH: 777}
        assert quotas.quotas.limit(who(), FETCH) == 777
        assert all(r.principal for r in quotas.list())  # the default user is no principal's
    finally:
        await quotas.set_defaults(Override())
    assert await user_quotas(cluster, None) == {}
    assert quotas.defaults() == {PRODUCE: SETTING, FETCH: 0}


async def test_a_change_through_one_gateway_is_applied_by_another_within_a_second(
    cluster: Cluster, kafka_cluster: KafkaCluster
) -> None:
    bob = who()
    other_cluster = Cluster(kafka_cluster.bootstrap, client_id="sluice-test-b")
    await other_cluster.start()
    a, b = admin(cluster), admin(other_cluster)
    await a.load()
    await b.load()
    reloads = asyncio.create_task(b.run_reload())
    try:
        loop = asyncio.get_running_loop()
        began = loop.time()
        await a.set(bob, Override(4096, 8192))
        async with b.changed:
            await asyncio.wait_for(
                b.changed.wait_for(lambda: b.quotas.limit(bob, PRODUCE) == 4096), DEADLINE
            )
        assert loop.time() - began < 2 * b.reload_s
        assert b.quotas.limit(bob, FETCH) == 8192
        await a.remove(bob)
        async with b.changed:
            await asyncio.wait_for(
                b.changed.wait_for(lambda: bob not in {r.principal for r in b.list()}), DEADLINE
            )
    finally:
        reloads.cancel()
        with pytest.raises(asyncio.CancelledError):
            await reloads
        await other_cluster.close()
