"""app/kafka/protocol/messages.py is what kafka/gen_protocol.py writes from the message
definitions in the kafka-clients jar of kafka/pom.xml's release (fetched as make kafka fetches
the cluster's jars, when no copy is found)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from types import ModuleType

import pytest

from tests.conftest import ROOT

pytestmark = pytest.mark.kafka

GENERATOR = ROOT / "kafka" / "gen_protocol.py"
OUTPUT = ROOT / "app" / "kafka" / "protocol" / "messages.py"


def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("gen_protocol", GENERATOR)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def test_the_committed_messages_are_what_the_generator_writes_from_the_jar() -> None:
    gen = _generator()
    version = gen.kafka_version()
    if not any(path.is_file() for path in gen.jar_candidates(version)):
        subprocess.run(["bash", "kafka/cluster.sh", "fetch"], cwd=ROOT, check=True, timeout=600)
    done = subprocess.run(
        [sys.executable, str(GENERATOR), "--output", "-"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == OUTPUT.read_text(), "regenerate: make kafka-protocol"
    assert f"Kafka {version}'s message definitions" in done.stdout
