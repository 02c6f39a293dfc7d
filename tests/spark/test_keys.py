"""A server that requires API keys: the connector reads and writes with ``apiKey``, and its
transactions are bound by the key's ACLs."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from pyspark.errors import PySparkException

from tests.conftest import GATEWAY, ServerProcess, cli, free_port
from tests.kafka_cluster import empty
from tests.spark.conftest import Sluice


def _cli(data: Path, *args: str) -> str:
    return cli(data, *args).stdout.strip()


def _keyed_gateway(data: Path, bootstrap: str, sluice: Sluice) -> Iterator[tuple[str, str]]:
    """``keyed`` in the gateway pass: a gateway keeps its keys and ACLs in the cluster, so they
    are made over HTTP, the first key while the gateway still serves everyone. Every gateway of
    the cluster requires keys while they exist, the suite's own too: after the module they are
    removed, and the suite's gateway serves everyone again before the next test."""
    env = dict(os.environ)
    env.update(
        {
            "SLUICE_BACKEND": "kafka",
            "SLUICE_KAFKA_BOOTSTRAP": bootstrap,
            "SLUICE_SUPER_USERS": "admin",
        }
    )
    server = ServerProcess(data, free_port(), env)
    server.start()
    try:
        created = httpx.post(f"{server.url}/v1/admin/keys", json={"principal": "admin"})
        assert created.status_code == 201, created.text
        admin = {"Authorization": f"Bearer {created.json()['key']}"}
        with httpx.Client(base_url=server.url, headers=admin) as http:
            created = http.post("/v1/admin/keys", json={"principal": "etl"})
            assert created.status_code == 201, created.text
            for resource_type, name in (("TOPIC", "etl."), ("TRANSACTIONAL_ID", "etl-")):
                binding = {
                    "principal": "etl",
                    "resource_type": resource_type,
                    "resource_name": name,
                    "pattern_type": "PREFIXED",
                    "operation": "ALL",
                    "permission": "ALLOW",
                }
                r = http.post("/v1/admin/acls", json=binding)
                assert r.status_code == 201, r.text
            yield server.url, created.json()["key"]
            # the cluster's bindings outlive its topics and keys: removed here
            r = http.delete("/v1/admin/acls", params={"principal": "etl", "resource_type": "ANY"})
            assert r.status_code == 200, r.text
    finally:
        server.stop()
        empty(bootstrap)
    deadline = time.monotonic() + 30
    while sluice.http.get("/v1/topics").status_code != 200:  # it has read the tombstones
        assert time.monotonic() < deadline, "the suite's gateway still requires keys"
        time.sleep(0.1)


@pytest.fixture(scope="module")
def keyed(
    tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest
) -> Iterator[tuple[str, str]]:
    """A server whose principal ``etl`` may use topics ``etl.*`` and transactional ids
    ``etl-*``; answers its URL and the key."""
    data = tmp_path_factory.mktemp("keyed") / "data"
    if GATEWAY:
        bootstrap = request.getfixturevalue("kafka_cluster").bootstrap
        yield from _keyed_gateway(data, bootstrap, request.getfixturevalue("sluice"))
        return
    key = _cli(data, "keys", "create", "--principal", "etl")
    for resource in (("--topic", "etl."), ("--transactional-id", "etl-")):
        _cli(
            data,
            "acls",
            "add",
            "--principal",
            "etl",
            *resource,
            "--prefixed",
            "--operation",
            "ALL",
            "--allow",
        )
    server = ServerProcess(data, free_port(), dict(os.environ))
    server.start()
    yield server.url, key
    server.stop()


def _source(url: str, key: str, topic: str) -> None:
    """Topics ``topic`` and ``etl.out-<topic>``, 50 records in the first."""
    with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {key}"}) as http:
        for name in (topic, f"etl.out-{topic}"):
            r = http.post("/v1/topics", json={"name": name, "partitions": 2})
            assert r.status_code == 201, r.text
        r = http.post(
            f"/v1/topics/{topic}/records", json={"records": [{"value": f"k{i}"} for i in range(50)]}
        )
        assert r.status_code == 200, r.text


def _load(spark: Any, url: str, topic: str, **opts: str) -> Any:
    return (
        spark.read.format("sluice").option("url", url).option("topic", topic).options(**opts).load()
    )


def test_reads_with_an_api_key_and_writes_refused_outside_its_acls(
    spark: Any, keyed: tuple[str, str]
) -> None:
    url, key = keyed
    _source(url, key, "etl.read")
    with pytest.raises(PySparkException, match="UNAUTHENTICATED"):
        _load(spark, url, "etl.read").count()
    df = _load(spark, url, "etl.read", apiKey=key)
    assert df.count() == 50
    # transactional ids outside the key's ACL are refused, and nothing is written
    with pytest.raises(PySparkException, match="TRANSACTIONAL_ID_AUTHORIZATION_FAILED"):
        df.select("value").write.format("sluice").option("url", url).option(
            "topic", "etl.out-etl.read"
        ).option("apiKey", key).mode("append").save()
    with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {key}"}) as http:
        for p in (0, 1):
            got = http.get(
                f"/v1/topics/etl.out-etl.read/partitions/{p}/records",
                params={"isolation_level": "read_uncommitted"},
            ).json()
            assert got["records"] == [], got


# the sink's driver commits with commit-all, which Kafka cannot
@pytest.mark.embedded_only("commit_all")
def test_transactional_writes_with_an_api_key(spark: Any, keyed: tuple[str, str]) -> None:
    url, key = keyed
    _source(url, key, "etl.in")
    df = _load(spark, url, "etl.in", apiKey=key)
    df.select("value").write.format("sluice").option("url", url).option(
        "topic", "etl.out-etl.in"
    ).option("apiKey", key).option("transactionalIdPrefix", "etl").mode("append").save()
    got = 0
    with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {key}"}) as http:
        for p in (0, 1):
            got += len(
                http.get(
                    f"/v1/topics/etl.out-etl.in/partitions/{p}/records",
                    params={"isolation_level": "read_committed"},
                ).json()["records"]
            )
    assert got == 50
