"""What the end-to-end modules share on either engine: the settings that make a module's own
server (one it starts itself, not through ``server_factory``) a gateway in the gateway pass,
and a consumer group's session timeout."""

from collections.abc import Callable, Iterator

import pytest

from tests.conftest import GATEWAY
from tests.kafka_cluster import EMPTY_TIMEOUT, empty


@pytest.fixture(scope="module")
def backend_env(request: pytest.FixtureRequest) -> Iterator[dict[str, str]]:
    """Empty on the embedded engine; in the gateway pass (SLUICE_TEST_BACKEND=kafka) the
    settings of a gateway on the tests' Kafka cluster, emptied before and after the module as
    ``server_factory`` empties it around each test. A module's server that is a gateway is
    stopped, not killed, before the module ends, so that its share-group members leave."""
    if not GATEWAY:
        yield {}
        return
    bootstrap = request.getfixturevalue("kafka_cluster").bootstrap
    empty(bootstrap)
    yield {"SLUICE_BACKEND": "kafka", "SLUICE_KAFKA_BOOTSTRAP": bootstrap}
    empty(bootstrap)


@pytest.fixture
def group_session_timeout(
    request: pytest.FixtureRequest,
) -> Iterator[Callable[[str, int], None]]:
    """``set(group, ms)``: the consumer group's session timeout (its heartbeat interval half
    of it). On the embedded engine a no-op, the server's SLUICE_GROUP_SESSION_TIMEOUT_MS and
    SLUICE_GROUP_HEARTBEAT_INTERVAL_MS giving them; on a gateway, which applies neither, the
    group's own configs in the cluster (docs/kafka.md: ``group_session_timeout``), removed
    again after the test so that later tests of the cluster get Kafka's defaults."""
    if not GATEWAY:
        yield lambda group, ms: None
        return
    from confluent_kafka.admin import (
        AdminClient,
        AlterConfigOpType,
        ConfigEntry,
        ConfigResource,
        ResourceType,
    )

    admin = AdminClient({"bootstrap.servers": request.getfixturevalue("kafka_cluster").bootstrap})
    groups: list[str] = []

    def alter(group: str, entries: list[ConfigEntry]) -> None:
        resource = ConfigResource(ResourceType.GROUP, group, incremental_configs=entries)
        for future in admin.incremental_alter_configs([resource]).values():
            future.result(timeout=EMPTY_TIMEOUT)

    def set_timeout(group: str, ms: int) -> None:
        groups.append(group)
        op = AlterConfigOpType.SET
        alter(
            group,
            [
                ConfigEntry("consumer.session.timeout.ms", str(ms), incremental_operation=op),
                ConfigEntry(
                    "consumer.heartbeat.interval.ms", str(ms // 2), incremental_operation=op
                ),
            ],
        )

    yield set_timeout
    for group in groups:
        op = AlterConfigOpType.DELETE
        alter(
            group,
            [
                ConfigEntry("consumer.session.timeout.ms", None, incremental_operation=op),
                ConfigEntry("consumer.heartbeat.interval.ms", None, incremental_operation=op),
            ],
        )
