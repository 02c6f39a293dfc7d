"""The Broker built with SLUICE_BACKEND=kafka: the gateway's engine behind the seam, no data
directory, and what the gateway does not have yet answering UNSUPPORTED_ON_KAFKA_BACKEND (a
400 with the name of what is missing), not a 500. No broker is needed: nothing connects
before start."""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from app._feed_state import empty_state
from app.config import Settings
from app.errors import ErrorCode, Unsupported
from app.feed import EventFeed
from app.kafka.engine import GatewayProduce, KafkaEngine
from app.kafka.feed_state import KafkaFeedState
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


def test_what_the_gateway_lacks_answers_unsupported() -> None:
    gateway = Broker(Settings(backend="kafka", kafka_bootstrap="127.0.0.1:9"))
    with pytest.raises(Unsupported) as refused:
        gateway.acquisitions.fetch  # noqa: B018 - any member refuses
    assert refused.value.code is ErrorCode.UNSUPPORTED_ON_KAFKA_BACKEND
    assert refused.value.code.status == 400
    assert refused.value.to_dict()["unsupported"] == "share_acquisitions"


async def test_the_gateway_feed_reads_the_cluster_and_survives_its_absence() -> None:
    """The event feed is the face's over the engine's feed state; with no broker answering, a
    reading does not raise: it is an empty state, and later the last state read."""
    settings = Settings(
        backend="kafka", kafka_bootstrap="127.0.0.1:9", kafka_request_timeout_ms=1000
    )
    gateway = Broker(settings)
    assert isinstance(gateway.feed, EventFeed)
    assert isinstance(gateway.feed_state, KafkaFeedState)
    assert gateway.feed.state_source is gateway.feed_state is gateway.engine.feed_state
    seen = await gateway.feed_state.observe(0, 500)
    assert seen.state == empty_state()
    assert (seen.counts, seen.txn_topics, seen.totals, seen.stale) == ({}, {}, (0, 0), True)
    sub = await gateway.feed.subscribe()
    assert (await sub.next_frame() or b"").startswith(b'{"type":"snapshot"')
    await gateway.stop()


def test_the_embedded_server_loads_no_kafka_module_beyond_its_errors() -> None:
    """The Kafka backend's modules (the protocol's message classes above all, some 30 MB of
    resident memory) are loaded by a gateway only: an embedded server's application, built
    whole, has none of them but the error table the face maps a broker's errors with."""
    code = (
        "import sys\n"
        "from app.config import Settings\n"
        "from app.main import create_app\n"
        "create_app(Settings(data_dir=sys.argv[1]))\n"
        "print(sorted(m for m in sys.modules if m.startswith('app.kafka')))\n"
    )
    with tempfile.TemporaryDirectory() as data:
        done = subprocess.run(
            [sys.executable, "-c", code, data], capture_output=True, text=True, timeout=60
        )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str(
        ["app.kafka", "app.kafka.errors_map", "app.kafka.protocol", "app.kafka.protocol.errors"]
    )
