"""A gateway process on a native node with a SASL_SSL listener (``KAFKA_SECURITY=sasl_ssl
kafka/cluster.sh start 1``, in a run directory of this module's own, stopped after it): the
gateway logs in with SCRAM-SHA-512 over TLS checked against the node's authority, and serves a
topic, records produced and read back and a share group's fetch and acknowledgement through
it; the same gateway with a wrong password stops at start, saying why; and the password
appears in neither gateway's log nor in any answer of /v1 or /metrics. Each mechanism the
listener enables, and a wrong password for each, over the connection alone."""

from __future__ import annotations

import os
import subprocess
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from app.config import Settings
from app.kafka.connection import BrokerConnection
from app.kafka.credentials import tls_context
from app.kafka.protocol.errors import AuthenticationError
from app.kafka.protocol.messages import MetadataRequest
from app.kafka.sasl import MECHANISMS, SaslLogin
from tests.conftest import ServerProcess, free_port
from tests.kafka.native import TIMEOUT
from tests.kafka_cluster import ROOT, SCRIPT, START_TIMEOUT

pytestmark = [pytest.mark.kafka, pytest.mark.trials]


@dataclass(frozen=True)
class SecureCluster:
    bootstrap: str  # the SASL_SSL listeners
    user: str
    password_file: Path
    ca_file: Path

    @property
    def password(self) -> str:
        return self.password_file.read_text().strip()


def _script(run_dir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
    env.update(KAFKA_RUN_DIR=str(run_dir), KAFKA_SECURITY="sasl_ssl")
    return subprocess.run(
        ["bash", str(SCRIPT), *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=START_TIMEOUT,
    )


@pytest.fixture(scope="module")
def secure_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SecureCluster]:
    run_dir = tmp_path_factory.mktemp("kafka-sasl-ssl") / "run"
    started = _script(run_dir, "start", "1")
    try:
        assert started.returncode == 0, started.stderr
        names = dict(
            line.split("=", 1)
            for line in (run_dir / "secure" / "secure.env").read_text().splitlines()
        )
        yield SecureCluster(
            bootstrap=started.stdout.strip().splitlines()[-1],
            user=names["SASL_USER"],
            password_file=Path(names["SASL_PASSWORD_FILE"]),
            ca_file=Path(names["CA_FILE"]),
        )
    finally:
        stopped = _script(run_dir, "stop")
        assert stopped.returncode == 0, stopped.stderr


def gateway(cluster: SecureCluster, tmp_path: Path, **env: str) -> ServerProcess:
    settings = {
        "SLUICE_BACKEND": "kafka",
        "SLUICE_KAFKA_BOOTSTRAP": cluster.bootstrap,
        "SLUICE_KAFKA_SECURITY_PROTOCOL": "SASL_SSL",
        "SLUICE_KAFKA_SASL_MECHANISM": "SCRAM-SHA-512",
        "SLUICE_KAFKA_SASL_USERNAME": cluster.user,
        "SLUICE_KAFKA_TLS_CAFILE": str(cluster.ca_file),
        **env,
    }
    return ServerProcess(tmp_path / "unused", free_port(), {**os.environ, **settings})


def test_a_gateway_logs_in_with_scram_over_tls_and_serves_records_and_share_fetches(
    secure_cluster: SecureCluster, tmp_path: Path
) -> None:
    server = gateway(
        secure_cluster, tmp_path, SLUICE_KAFKA_SASL_PASSWORD_FILE=str(secure_cluster.password_file)
    )
    server.start(timeout=90)
    answers: list[str] = []
    try:
        with httpx.Client(base_url=server.url, timeout=TIMEOUT) as http:

            def call(method: str, path: str, **kw: object) -> httpx.Response:
                answer = http.request(method, path, **kw)  # type: ignore[arg-type]
                answers.append(answer.text)
                assert answer.is_success, answer.text
                return answer

            topic, group = f"sasl-{uuid.uuid4().hex[:8]}", f"sasl-g-{uuid.uuid4().hex[:8]}"
            call("POST", "/v1/topics", json={"name": topic, "partitions": 1})
            values = [f"v{i}" for i in range(5)]
            produced = call(
                "POST",
                f"/v1/topics/{topic}/records",
                json={"records": [{"value": v} for v in values]},
            )
            assert [o["offset"] for o in produced.json()["offsets"]] == [0, 1, 2, 3, 4]
            read = call("GET", f"/v1/topics/{topic}/partitions/0/records", params={"offset": 0})
            assert [r["value"] for r in read.json()["records"]] == values

            call(
                "PATCH", f"/v1/share-groups/{group}/config", json={"auto_offset_reset": "earliest"}
            )
            first = call(
                "POST",
                f"/v1/share-groups/{group}/fetch",
                json={"member_id": None, "subscribed_topics": [topic], "max_wait_ms": 500},
            ).json()
            member, got = first["member_id"], list(first["records"])
            deadline = time.monotonic() + TIMEOUT
            while len(got) < len(values):
                assert time.monotonic() < deadline, f"{len(got)} of {len(values)} records came"
                got += call(
                    "POST",
                    f"/v1/share-groups/{group}/fetch",
                    json={"member_id": member, "max_wait_ms": 500},
                ).json()["records"]
            assert sorted(r["value"] for r in got) == values
            acked = call(
                "POST",
                f"/v1/share-groups/{group}/acknowledge",
                json={
                    "member_id": member,
                    "acknowledgements": [
                        {
                            "topic": topic,
                            "partition": 0,
                            "first_offset": 0,
                            "last_offset": 4,
                            "type": "accept",
                        }
                    ],
                },
            )
            assert [r["error"] for r in acked.json()["results"]] == [None]
            call("GET", "/v1/topics")
            call("GET", f"/v1/share-groups/{group}")
            answers.append(httpx.get(server.url + "/metrics").text)
    finally:
        assert server.stop() == 0
    password = secure_cluster.password
    assert password not in server.logs()
    assert not [a for a in answers if password in a]


def test_a_wrong_password_stops_the_gateway_at_start_saying_why(
    secure_cluster: SecureCluster, tmp_path: Path
) -> None:
    wrong = "wrong-" + secure_cluster.password
    server = gateway(secure_cluster, tmp_path, SLUICE_KAFKA_SASL_PASSWORD=wrong)
    with pytest.raises(RuntimeError, match="server exited"):
        server.start(timeout=90)
    log = server.logs()
    assert (
        f"no broker answered: SCRAM-SHA-512 login of '{secure_cluster.user}' to "
        f"{secure_cluster.bootstrap} failed: SASL_AUTHENTICATION_FAILED" in log
    ), log
    assert wrong not in log and secure_cluster.password not in log


@pytest.mark.parametrize("mechanism", MECHANISMS)
async def test_each_mechanism_logs_in_to_the_broker_and_a_wrong_password_is_refused(
    secure_cluster: SecureCluster, mechanism: str
) -> None:
    host, _, port = secure_cluster.bootstrap.split(",")[0].rpartition(":")
    settings = Settings(
        backend="kafka",
        kafka_bootstrap=secure_cluster.bootstrap,
        kafka_security_protocol="SASL_SSL",
        kafka_sasl_mechanism=mechanism,
        kafka_sasl_username=secure_cluster.user,
        kafka_sasl_password_file=str(secure_cluster.password_file),
        kafka_tls_cafile=str(secure_cluster.ca_file),
    )
    tls = tls_context(settings)
    # by the name the certificate gives besides the address
    for name in (host, "localhost"):
        login = SaslLogin(mechanism, secure_cluster.user, secure_cluster.password)
        conn = await BrokerConnection.open(name, int(port), ssl=tls, sasl=login)
        try:
            answer = await conn.send(MetadataRequest(topics=None))
            assert answer.brokers and answer.brokers[0].port == int(port)  # SASL_SSL's own
        finally:
            await conn.close()
    wrong = SaslLogin(mechanism, secure_cluster.user, "wrong-" + secure_cluster.password)
    with pytest.raises(AuthenticationError, match="SASL_AUTHENTICATION_FAILED") as info:
        await BrokerConnection.open(host, int(port), ssl=tls, sasl=wrong)
    assert secure_cluster.password not in str(info.value)
