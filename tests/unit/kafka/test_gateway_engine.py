"""The Broker built with SLUICE_BACKEND=kafka: the gateway's engine behind the seam, no data
directory, and what the gateway does not have yet answering UNSUPPORTED_ON_KAFKA_BACKEND (a
400 with the name of what is missing), not a 500. No broker is needed: nothing connects
before start."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.config import Settings
from app.errors import ErrorCode, Unsupported
from app.kafka.engine import GatewayProduce, KafkaEngine
from app.kafka.groups import KafkaGroups
from app.kafka.share_admin import KafkaShareAdmin
from app.kafka.topics import KafkaTopics
from app.kafka.transactions import KafkaTransactions
from app.runtime import Broker


def test_the_backend_setting_chooses_the_engine(tmp_path: Path) -> None:
    embedded = Broker(Settings(data_dir=str(tmp_path / "embedded")))
    assert embedded.kafka is None
    assert not isinstance(embedded.engine, KafkaEngine)
    data = tmp_path / "data"
    gateway = Broker(Settings(data_dir=str(data), backend="kafka", kafka_bootstrap="127.0.0.1:9"))
    assert isinstance(gateway.engine, KafkaEngine)
    assert gateway.kafka is gateway.engine
    assert isinstance(gateway.engine.topics, KafkaTopics)
    assert isinstance(gateway.engine.producers, GatewayProduce)
    assert isinstance(gateway.engine.transactions, KafkaTransactions)
    assert isinstance(gateway.engine.groups, KafkaGroups)
    assert isinstance(gateway.engine.share_admin, KafkaShareAdmin)
    assert gateway.keys is gateway.engine.keys
    assert not gateway.ready and not gateway.engine.ready
    assert not data.exists()


@pytest.mark.parametrize(
    ("member", "name"),
    [
        ("acquisitions", "share_acquisitions"),
        ("feed", "event_feed"),
    ],
)
def test_what_the_gateway_lacks_answers_unsupported(member: str, name: str) -> None:
    gateway = Broker(Settings(backend="kafka", kafka_bootstrap="127.0.0.1:9"))
    with pytest.raises(Unsupported) as refused:
        getattr(gateway, member).groups  # noqa: B018 - any member refuses
    assert refused.value.code is ErrorCode.UNSUPPORTED_ON_KAFKA_BACKEND
    assert refused.value.code.status == 400
    assert refused.value.to_dict()["unsupported"] == name
