"""The Kafka backend's ACLs (app/kafka/acls.py) against the native broker of make kafka: a
binding written through the gateway is the one a native admin client describes, and one the
native client writes is the gateway's; the gateway decides by the embedded authorizer's rules
from the bindings it read, and sees a change made elsewhere within about a second; removing
by a filter removes what the filter matches and nothing of Kafka's own clients."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable

import pytest
from confluent_kafka.admin import (
    AclBinding as NativeBinding,
)
from confluent_kafka.admin import (
    AclBindingFilter,
    AclOperation,
    AclPermissionType,
    AdminClient,
    ResourcePatternType,
    ResourceType,
)

from app.kafka.acls import KafkaAcls
from app.kafka.cluster import Cluster
from app.security.acls import AclBinding, AclFilter, Operation, acl_filter, binding
from app.security.acls import ResourceType as Type
from app.security.authorizer import Authorizer
from tests.kafka_cluster import KafkaCluster

pytestmark = pytest.mark.kafka

DEADLINE = 30.0


@pytest.fixture
def admin(kafka_cluster: KafkaCluster) -> AdminClient:
    return AdminClient({"bootstrap.servers": kafka_cluster.bootstrap})


def who() -> str:
    """A principal of this test alone: the broker's bindings outlive a test."""
    return f"p-{uuid.uuid4().hex[:10]}"


def everything_of(principal: str) -> AclBindingFilter:
    """The native client's filter of every binding of ``User:<principal>``: any name and any
    host are None there, which its annotations (``str``) do not say."""
    return AclBindingFilter(
        ResourceType.ANY,
        None,  # type: ignore[arg-type]
        ResourcePatternType.ANY,
        f"User:{principal}",
        None,  # type: ignore[arg-type]
        AclOperation.ANY,
        AclPermissionType.ANY,
    )


def native_of(admin: AdminClient, principal: str) -> set[tuple[object, ...]]:
    """The bindings of ``User:<principal>`` as the native admin client describes them."""
    future = admin.describe_acls(everything_of(principal), request_timeout=DEADLINE)
    return {
        (
            b.restype,
            b.name,
            b.resource_pattern_type,
            b.principal,
            b.host,
            b.operation,
            b.permission_type,
        )
        for b in future.result()
    }


async def until(acls: KafkaAcls, condition: Callable[[], bool]) -> None:
    """Wait, with a deadline, for the bindings the gateway decides from to satisfy
    ``condition`` (each load that changes them is notified)."""
    async with acls.changed:
        await asyncio.wait_for(acls.changed.wait_for(condition), DEADLINE)


async def test_a_binding_written_through_the_gateway_is_what_a_native_client_describes(
    cluster: Cluster, admin: AdminClient
) -> None:
    alice = who()
    acls = KafkaAcls(cluster, Authorizer())
    await acls.load()
    read = binding(alice, "TOPIC", "orders", "READ", "ALLOW")
    deny = binding(alice, "TOPIC", "orders-", "WRITE", "DENY", "PREFIXED")
    joins = binding(alice, "GROUP", "*", "READ", "ALLOW")
    txn = binding(alice, "TRANSACTIONAL_ID", "tx-", "ALL", "ALLOW", "PREFIXED")
    create = binding(alice, "CLUSTER", None, "CREATE", "ALLOW")
    for b in (read, deny, joins, txn, create):
        assert await acls.add(b) is True
    assert await acls.add(read) is False  # it was there

    user = f"User:{alice}"
    assert native_of(admin, alice) == {
        (
            ResourceType.TOPIC,
            "orders",
            ResourcePatternType.LITERAL,
            user,
            "*",
            AclOperation.READ,
            AclPermissionType.ALLOW,
        ),
        (
            ResourceType.TOPIC,
            "orders-",
            ResourcePatternType.PREFIXED,
            user,
            "*",
            AclOperation.WRITE,
            AclPermissionType.DENY,
        ),
        (
            ResourceType.GROUP,
            "*",
            ResourcePatternType.LITERAL,
            user,
            "*",
            AclOperation.READ,
            AclPermissionType.ALLOW,
        ),
        (
            ResourceType.TRANSACTIONAL_ID,
            "tx-",
            ResourcePatternType.PREFIXED,
            user,
            "*",
            AclOperation.ALL,
            AclPermissionType.ALLOW,
        ),
        (
            ResourceType.BROKER,
            "kafka-cluster",
            ResourcePatternType.LITERAL,
            user,
            "*",
            AclOperation.CREATE,
            AclPermissionType.ALLOW,
        ),
    }
    assert acls.matching(acl_filter(principal_name=alice)) == sorted(
        [read, deny, joins, txn, create], key=AclBinding.row
    )

    # effective when add returned: the embedded authorizer's rules on Kafka's bindings
    authorizer = acls.authorizer
    assert authorizer.authorize(alice, Operation.READ, Type.TOPIC, "orders")
    assert authorizer.authorize(alice, Operation.DESCRIBE, Type.TOPIC, "orders")  # implied
    assert not authorizer.authorize(alice, Operation.WRITE, Type.TOPIC, "orders")
    assert authorizer.authorize(alice, Operation.WRITE, Type.TRANSACTIONAL_ID, "tx-1")
    assert authorizer.authorize(alice, Operation.READ, Type.GROUP, "any-group")
    assert not authorizer.authorize(who(), Operation.READ, Type.TOPIC, "orders")  # no binding

    # removed through the gateway: gone from what the native client describes
    gone = await acls.remove(acl_filter(principal_name=alice, resource_type="TOPIC"))
    assert gone == sorted([read, deny], key=AclBinding.row)
    assert not authorizer.authorize(alice, Operation.READ, Type.TOPIC, "orders")
    assert {b[0] for b in native_of(admin, alice)} == {
        ResourceType.GROUP,
        ResourceType.TRANSACTIONAL_ID,
        ResourceType.BROKER,
    }
    assert await acls.remove(acl_filter(principal_name=alice)) == sorted(
        [joins, txn, create], key=AclBinding.row
    )
    assert native_of(admin, alice) == set()
    assert await acls.remove(acl_filter(principal_name=alice)) == []


async def test_a_binding_a_native_client_writes_is_decided_by_the_gateway_within_a_second(
    cluster: Cluster, admin: AdminClient
) -> None:
    bob = who()
    acls = KafkaAcls(cluster, Authorizer())
    await acls.load()
    assert not acls.authorizer.authorize(bob, Operation.READ, Type.TOPIC, "events-1")
    reloads = asyncio.create_task(acls.run(interval_s=0.2))
    try:
        user = f"User:{bob}"
        allow = NativeBinding(
            ResourceType.TOPIC,
            "events-",
            ResourcePatternType.PREFIXED,
            user,
            "*",
            AclOperation.READ,
            AclPermissionType.ALLOW,
        )
        for f in admin.create_acls([allow], request_timeout=DEADLINE).values():
            f.result()
        await until(
            acls, lambda: acls.authorizer.authorize(bob, Operation.READ, Type.TOPIC, "events-1")
        )
        assert acls.matching(AclFilter(principal=bob)) == [
            binding(bob, "TOPIC", "events-", "READ", "ALLOW", "PREFIXED")
        ]

        # deny wins, whoever wrote it
        deny = NativeBinding(
            ResourceType.TOPIC,
            "events-1",
            ResourcePatternType.LITERAL,
            user,
            "*",
            AclOperation.ALL,
            AclPermissionType.DENY,
        )
        for f in admin.create_acls([deny], request_timeout=DEADLINE).values():
            f.result()
        await until(
            acls,
            lambda: not acls.authorizer.authorize(bob, Operation.READ, Type.TOPIC, "events-1"),
        )
        assert acls.authorizer.authorize(bob, Operation.READ, Type.TOPIC, "events-2")

        # a binding the contract cannot express (a host of its own, an operation it does not
        # have) is Kafka's alone: not decided from, not listed, not removed by the gateway
        own = [
            NativeBinding(
                ResourceType.TOPIC,
                "events-2",
                ResourcePatternType.LITERAL,
                user,
                "10.0.0.1",
                AclOperation.ALL,
                AclPermissionType.DENY,
            ),
            NativeBinding(
                ResourceType.BROKER,
                "kafka-cluster",
                ResourcePatternType.LITERAL,
                user,
                "*",
                AclOperation.IDEMPOTENT_WRITE,
                AclPermissionType.ALLOW,
            ),
        ]
        for f in admin.create_acls(own, request_timeout=DEADLINE).values():
            f.result()
        removed = await acls.remove(AclFilter(principal=bob))
        assert len(removed) == 2
        assert {(b[4], b[5]) for b in native_of(admin, bob)} == {
            ("10.0.0.1", AclOperation.ALL),
            ("*", AclOperation.IDEMPOTENT_WRITE),
        }
        assert not acls.authorizer.authorize(bob, Operation.READ, Type.TOPIC, "events-2")
    finally:
        reloads.cancel()
        with pytest.raises(asyncio.CancelledError):
            await reloads
        for f in admin.delete_acls([everything_of(bob)], request_timeout=DEADLINE).values():
            f.result()


async def test_super_users_and_the_wildcard_principal_decide_as_in_the_embedded_server(
    cluster: Cluster,
) -> None:
    carol, root = who(), who()
    acls = KafkaAcls(cluster, Authorizer(super_users=[root]))
    everyone = binding("*", "TOPIC", f"shared-{carol}", "READ", "ALLOW")
    await acls.add(everyone)
    try:
        assert acls.authorizer.authorize(carol, Operation.READ, Type.TOPIC, f"shared-{carol}")
        assert not acls.authorizer.authorize(carol, Operation.WRITE, Type.TOPIC, "anything")
        assert acls.authorizer.authorize(root, Operation.WRITE, Type.TOPIC, "anything")
        assert everyone in acls.matching(AclFilter(principal="*"))
    finally:
        assert await acls.remove(AclFilter(resource_name=f"shared-{carol}")) == [everyone]
