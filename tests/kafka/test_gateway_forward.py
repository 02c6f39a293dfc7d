"""Two gateways on one cluster, as real processes (docs/kafka.md#several-gateways): a share
member joined at one is served through the other, which forwards its requests to the gateway
holding it (fetch, acknowledge, heartbeat and leave, records acquired through one acknowledged
through the other); the member of a gateway killed with SIGKILL is unknown to the other, and
its records come again, their delivery count one higher, to the member that joins in its
place; a forwarding header a client makes up is refused, and one a gateway signed is never
sent on; and the announcements of ``__sluice_gateways``, a killed gateway's taken over by the
next one started at its address."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from app.clock import SystemClock
from app.kafka.cluster import Cluster
from app.kafka.forward import HEADER, sign, signing_key
from app.kafka.gateways import Gateways
from app.kafka.keys import KafkaKeys
from app.kafka.share_members import gateway_of
from tests.conftest import ServerProcess
from tests.kafka.conftest import keyed_gateways
from tests.kafka.native import TIMEOUT
from tests.kafka.test_gateway_share import (
    acknowledge,
    fetch,
    fetch_until,
    held_acks,
    new_group,
    new_topic,
)
from tests.kafka_cluster import KafkaCluster

pytestmark = pytest.mark.kafka

Gateway = tuple[ServerProcess, httpx.Client]


@pytest.fixture
def gateways(
    kafka_cluster: KafkaCluster,
    server_factory: Callable[..., ServerProcess],
    tmp_path: Path,
) -> Iterator[tuple[Gateway, Gateway]]:
    with keyed_gateways(kafka_cluster.bootstrap, server_factory, tmp_path, 2) as (a, b):
        yield a, b


def join(http: httpx.Client, group: str, topic: str) -> str:
    joined = http.post(
        f"/v1/share-groups/{group}/heartbeat",
        json={"member_id": None, "member_epoch": 0, "subscribed_topics": [topic]},
    )
    assert joined.status_code == 200, joined.text
    member: str = joined.json()["member_id"]
    return member


def unknown(answer: httpx.Response) -> bool:
    return answer.status_code == 404 and answer.json()["error"]["code"] == "UNKNOWN_MEMBER_ID"


def test_a_member_joined_at_one_gateway_is_served_through_the_other(
    kafka_cluster: KafkaCluster, gateways: tuple[Gateway, Gateway]
) -> None:
    (_, a), (_, b) = gateways
    group = new_group(kafka_cluster.bootstrap)
    topic = new_topic(a, [f"v{i}" for i in range(6)])
    member = join(a, group, topic)
    assert gateway_of(member) is not None  # the id names the gateway that holds it

    # fetched through B: B forwards to A, which holds the member's share sessions
    first = fetch_until(b, group, member, 3, max_records=3, acquire_mode="record_limit")
    assert [(r["offset"], r["delivery_count"]) for r in first] == [(0, 1), (1, 1), (2, 1)]
    # acquired through B, accepted through A
    assert [r["error"] for r in acknowledge(a, group, member, held_acks(topic, first))] == [None]
    # fetched through A, accepted through B
    rest = fetch_until(a, group, member, 3, max_records=3, acquire_mode="record_limit")
    assert [(r["offset"], r["delivery_count"]) for r in rest] == [(3, 1), (4, 1), (5, 1)]
    assert [r["error"] for r in acknowledge(b, group, member, held_acks(topic, rest))] == [None]

    # a heartbeat through B is the member's at A
    beat = b.post(
        f"/v1/share-groups/{group}/heartbeat", json={"member_id": member, "member_epoch": 1}
    )
    assert beat.status_code == 200, beat.text
    # the owner's answer as it came, with the headers of one answer, not of two servers
    for name in ("content-type", "content-length", "date"):
        assert len(beat.headers.get_list(name)) == 1, (name, beat.headers)
    assert "server" not in beat.headers  # neither gateway names what it runs on
    assert beat.json()["member_id"] == member
    assert beat.json()["assignment"] == [{"topic": topic, "partitions": [0]}]

    # every record was accepted once: a member joined at B finds none
    other = fetch(b, group, {"member_id": None, "subscribed_topics": [topic]})
    assert other["records"] == []

    # the member leaves through B; then it is unknown to both
    assert b.delete(f"/v1/share-groups/{group}/members/{member}").status_code == 204
    for http in (a, b):
        assert unknown(
            http.post(
                f"/v1/share-groups/{group}/acknowledge",
                json={"member_id": member, "acknowledgements": []},
            )
        )


def test_the_member_of_a_killed_gateway_is_unknown_and_its_records_come_again(
    kafka_cluster: KafkaCluster, gateways: tuple[Gateway, Gateway]
) -> None:
    (server_a, a), (_, b) = gateways
    group = new_group(kafka_cluster.bootstrap)
    topic = new_topic(a, [f"v{i}" for i in range(3)])
    member = join(a, group, topic)
    held = fetch_until(b, group, member, 3)
    assert {r["delivery_count"] for r in held} == {1}

    server_a.kill()
    # B cannot reach the member's gateway: the member is gone, and the client joins again
    assert unknown(b.post(f"/v1/share-groups/{group}/fetch", json={"member_id": member}))
    assert unknown(b.delete(f"/v1/share-groups/{group}/members/{member}"))
    again: list[dict[str, Any]] = []
    deadline = time.monotonic() + TIMEOUT
    rejoined = None
    while len(again) < 3:
        assert time.monotonic() < deadline, f"{len(again)} of 3 records came again"
        answer = fetch(b, group, {"member_id": rejoined, "subscribed_topics": [topic]})
        rejoined = answer["member_id"]
        again += answer["records"]
    assert sorted((r["offset"], r["delivery_count"]) for r in again) == [(0, 2), (1, 2), (2, 2)]
    assert rejoined is not None and rejoined != member
    assert [r["error"] for r in acknowledge(b, group, rejoined, held_acks(topic, again))] == [None]


def test_a_forwarding_header_made_up_by_a_client_is_refused(
    kafka_cluster: KafkaCluster, gateways: tuple[Gateway, Gateway]
) -> None:
    (_, a), (_, b) = gateways
    group = new_group(kafka_cluster.bootstrap)
    topic = new_topic(a, ["v0"])
    member = join(a, group, topic)
    path = f"/v1/share-groups/{group}/fetch"
    now_ms = int(time.time() * 1000)
    made_up = [
        b"not-a-signature",
        # signed with a key that is not the cluster's
        sign(signing_key(b"guessed"), gateway_of(member) or "", now_ms, "POST", path),
    ]
    for header in made_up:
        refused = b.post(
            path, json={"member_id": member}, headers={HEADER.decode(): header.decode()}
        )
        assert refused.status_code == 401, refused.text
        assert refused.json()["error"]["code"] == "UNAUTHENTICATED"
    # without it, the same request is forwarded and served
    assert b.post(path, json={"member_id": member, "max_wait_ms": 0}).status_code == 200
    # one a gateway signed is served where it arrives, never sent on: B does not hold the
    # member, A does
    signed = sign(
        signing_key(cluster_secret(kafka_cluster.bootstrap)), "ffffff", now_ms, "POST", path
    )
    forwarded = {HEADER.decode(): signed.decode()}
    body = {"member_id": member, "max_wait_ms": 0}
    assert unknown(b.post(path, json=body, headers=forwarded))
    assert a.post(path, json=body, headers=forwarded).status_code == 200


def cluster_secret(bootstrap: str) -> bytes:
    """The secret every gateway of the cluster reads from ``__sluice_keys``."""

    async def read() -> bytes:
        cluster = Cluster(bootstrap, client_id="gw-forward-test-keys", request_timeout=TIMEOUT)
        await cluster.start()
        keys = KafkaKeys(cluster, SystemClock())
        try:
            await keys.start()
            return keys.token_secret
        finally:
            await keys.close()
            await cluster.close()

    return asyncio.run(read())


async def test_gateways_announce_themselves_and_a_killed_ones_address_is_taken_over(
    cluster: Cluster,
) -> None:
    clock = SystemClock()
    url = f"http://gw-{uuid.uuid4().hex[:8]}.test:8080"
    killed = Gateways(cluster, clock, url)
    await killed.start()
    await killed._follower.close()  # killed: no record withdrawn
    other = Gateways(cluster, clock, f"http://gw-{uuid.uuid4().hex[:8]}.test:8080")
    await other.start()
    try:
        assert other.url_of(killed.id) == url
        assert other.url_of(other.id) is None  # its own members are served where they are
        # a gateway started at the killed one's address removes its record
        restarted = Gateways(cluster, clock, url)
        await restarted.start()
        assert killed.id not in restarted.announced
        await other.sync()
        assert other.url_of(killed.id) is None and other.url_of(restarted.id) == url
        # one that stops withdraws its record
        await restarted.close()
        await other.sync()
        assert other.url_of(restarted.id) is None
    finally:
        await other.close()
