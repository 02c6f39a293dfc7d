"""A server that requires API keys: the connector reads and writes with ``apiKey``, and its
transactions are bound by the key's ACLs."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from pyspark.errors import PySparkException

from tests.conftest import ServerProcess, cli, free_port


def _cli(data: Path, *args: str) -> str:
    return cli(data, *args).stdout.strip()


@pytest.fixture(scope="module")
def keyed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    """A server whose principal ``etl`` may use topics ``etl.*`` and transactional ids
    ``etl-*``; answers its URL and the key."""
    data = tmp_path_factory.mktemp("keyed") / "data"
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


# the sink's driver commits with commit-all, which Kafka cannot; and this server's keys and
# ACLs are made with the admin commands on its data directory, which a gateway has none of
@pytest.mark.embedded_only("commit_all")
def test_reads_and_transactional_writes_with_an_api_key(spark: Any, keyed: tuple[str, str]) -> None:
    url, key = keyed
    with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {key}"}) as http:
        for name in ("etl.in", "etl.out"):
            assert http.post("/v1/topics", json={"name": name, "partitions": 2}).status_code == 201
        r = http.post(
            "/v1/topics/etl.in/records", json={"records": [{"value": f"k{i}"} for i in range(50)]}
        )
        assert r.status_code == 200

        def load(**opts: str) -> Any:
            return (
                spark.read.format("sluice")
                .option("url", url)
                .option("topic", "etl.in")
                .options(**opts)
                .load()
            )

        with pytest.raises(PySparkException, match="UNAUTHENTICATED"):
            load().count()
        df = load(apiKey=key)
        assert df.count() == 50
        # transactional ids outside the key's ACL are refused, and nothing is written
        with pytest.raises(PySparkException, match="TRANSACTIONAL_ID_AUTHORIZATION_FAILED"):
            df.select("value").write.format("sluice").option("url", url).option(
                "topic", "etl.out"
            ).option("apiKey", key).mode("append").save()
        df.select("value").write.format("sluice").option("url", url).option(
            "topic", "etl.out"
        ).option("apiKey", key).option("transactionalIdPrefix", "etl").mode("append").save()
        got = 0
        for p in (0, 1):
            got += len(
                http.get(
                    f"/v1/topics/etl.out/partitions/{p}/records",
                    params={"isolation_level": "read_committed"},
                ).json()["records"]
            )
        assert got == 50
