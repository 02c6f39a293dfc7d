"""One local Spark (``local[2,2]``: two cores, a failed task tried once more) and one real
Sluice server process for the whole Spark suite; each test takes its own topics.

With ``SLUICE_TEST_BACKEND=kafka`` (the gateway pass of ``make test-kafka``) that server is a
gateway on the Kafka cluster of tests/kafka_cluster.py, emptied before the suite and after it;
the tests marked ``embedded_only`` are left out of that pass (docs/kafka.md#tested).

Spark's Python workers are other processes: they reach the server on its loopback port and
import the connector from the installed package (``pip install -e clients/spark``), never from
this process's path.
"""

from __future__ import annotations

import gc
import os
import shutil
import sys
import time
import uuid
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from pyspark import SparkContext
from sluice_spark.local import local_session

from tests.conftest import GATEWAY, ServerProcess, free_port
from tests.kafka_cluster import empty

HERE = Path(__file__).resolve().parent

# never skipped: make test installs the spark extra and Java 17; without them this suite fails
if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
    raise RuntimeError("the Spark suite needs Java 17 on the PATH (make test installs it)")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every test here is marked ``spark``. PySpark leaves the sockets it reads results from
    to the garbage collector: their warnings (and only theirs) are not errors here."""
    for item in items:
        if HERE in Path(item.path).parents:
            item.add_marker(pytest.mark.spark)
            item.add_marker(pytest.mark.filterwarnings("ignore:unclosed <socket:ResourceWarning"))
            item.add_marker(
                pytest.mark.filterwarnings(
                    "ignore:Exception ignored in. <socket.socket"
                    ":pytest.PytestUnraisableExceptionWarning"
                )
            )


class Sluice:
    """The server under test, with the few admin calls the tests make."""

    def __init__(self, server: ServerProcess) -> None:
        self.server = server
        self.url = server.url
        self.http = httpx.Client(base_url=server.url, timeout=30)

    def topic(self, partitions: int = 2, name: str | None = None) -> str:
        name = name or f"t-{uuid.uuid4().hex[:10]}"
        r = self.http.post("/v1/topics", json={"name": name, "partitions": partitions})
        assert r.status_code == 201, r.text
        return name

    def produce(self, topic: str, records: list[dict[str, Any]]) -> None:
        for i in range(0, len(records), 5000):
            r = self.http.post(
                f"/v1/topics/{topic}/records", json={"records": records[i : i + 5000]}
            )
            assert r.status_code == 200, r.text

    def read_all(self, topic: str, committed: bool = True) -> list[dict[str, Any]]:
        """Every record of every partition, read_committed by default."""
        out: list[dict[str, Any]] = []
        for p in self.http.get(f"/v1/topics/{topic}").json()["partitions"]:
            offset = p["log_start_offset"]
            while True:
                got = self.http.get(
                    f"/v1/topics/{topic}/partitions/{p['partition']}/records",
                    params={
                        "offset": offset,
                        "max_records": 10000,
                        "isolation_level": "read_committed" if committed else "read_uncommitted",
                    },
                ).json()
                out.extend(got["records"])
                if got["next_offset"] == offset:
                    break
                offset = got["next_offset"]
        return out

    def settled_transactions(self, prefix: str, timeout: float = 20.0) -> list[str]:
        """The transactions under ``prefix`` still open once they settle (at most ``timeout``
        seconds). After a job fails, Spark cancels its other tasks without waiting for them:
        one still running may open its transaction after the driver's abort, and that one is
        ended by the server's transaction timeout (the tests that fail jobs set a short one)."""
        deadline = time.monotonic() + timeout
        while True:
            got = self.open_transactions(prefix)
            if not got or time.monotonic() > deadline:
                return got
            time.sleep(0.1)

    def open_transactions(self, prefix: str = "") -> list[str]:
        txns = self.http.get("/v1/transactions", params={"state": "Ongoing"}).json()
        return [
            t["transactional_id"]
            for t in txns["transactions"]
            if t["transactional_id"].startswith(prefix)
        ]


# package scope: torn down right after the last test here, so that nothing of Spark's (its
# JVM, the sockets it leaves to the garbage collector) outlives this suite into the next
@pytest.fixture(scope="package")
def sluice(
    tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest
) -> Iterator[Sluice]:
    data = tmp_path_factory.mktemp("spark-server") / "data"
    env = dict(os.environ)
    env["SLUICE_TXN_TIMEOUT_CHECK_INTERVAL_MS"] = "200"
    bootstrap = ""
    if GATEWAY:
        # the cluster's broker aborts a transaction past its timeout itself (its cleanup
        # interval, a second on the test cluster): the check interval above is the embedded
        # engine's alone
        bootstrap = request.getfixturevalue("kafka_cluster").bootstrap
        env.update({"SLUICE_BACKEND": "kafka", "SLUICE_KAFKA_BOOTSTRAP": bootstrap})
        empty(bootstrap)  # what other suites left on the cluster, their keys too
    s = ServerProcess(data, free_port(), env)
    s.start()
    yield Sluice(s)
    s.stop()
    if GATEWAY:
        empty(bootstrap)


@pytest.fixture(scope="package")
def spark(sluice: Sluice) -> Iterator[Any]:
    os.environ["PYSPARK_PYTHON"] = sys.executable  # the workers import the connector from here
    os.environ.setdefault("SPARK_CONF_DIR", str(HERE))  # log4j2.properties: errors only
    s = local_session(cores=2, max_failures=2)
    # warm-up: the first Python data-source query starts Spark's Python workers (seconds)
    t = sluice.topic(1)
    sluice.produce(t, [{"value": "warm"}])
    assert s.read.format("sluice").option("url", sluice.url).option("topic", t).load().count() == 1
    yield s
    s.stop()
    # the JVM's gateway keeps sockets open until it is shut down: closed here, while warnings
    # are ignored, so that none is reported as unclosed when pytest exits
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ResourceWarning)
        gateway = SparkContext._gateway
        if gateway is not None:
            proc = getattr(gateway, "proc", None)  # the JVM, which lives while its stdin is open
            gateway.shutdown()
            if proc is not None:
                proc.stdin.close()
                proc.wait(30)
            SparkContext._gateway = None
            SparkContext._jvm = None
        gc.collect()


@pytest.fixture
def reader(spark: Any, sluice: Sluice) -> Callable[..., Any]:
    def make(topic: str, **options: Any) -> Any:
        r = spark.read.format("sluice").option("url", sluice.url).option("topic", topic)
        for k, v in options.items():
            r = r.option(k, str(v))
        return r.load()

    return make
