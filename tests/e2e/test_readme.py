"""The README's curl examples, run as written against a real server process (one per section)."""

from __future__ import annotations

import httpx
import pytest

from tests.conftest import ServerProcess
from tests.e2e.readme import console_steps, run_as_written

pytestmark = pytest.mark.slow

TOUR = "## A five-minute tour"
TRANSACTIONS = "## Exactly once: the producer protocol and transactions"
GROUPS = "## Consumer groups"
SHARE = "## Share groups (queues)"
TXN_ACKS = "### Exactly-once processing: acknowledgements in a transaction"
REDRIVE = "### Dead-letter topic and redrive"


def test_every_section_has_its_examples() -> None:
    assert len(console_steps(TOUR)) >= 8
    assert len(console_steps(TRANSACTIONS)) >= 10
    assert len(console_steps(GROUPS)) >= 7
    assert len(console_steps(SHARE)) >= 8
    assert len(console_steps(TXN_ACKS)) >= 10
    assert len(console_steps(REDRIVE)) >= 9


def test_tour_runs_as_written(server: ServerProcess) -> None:
    run_as_written(server, console_steps(TOUR))


def test_transactions_run_as_written(server: ServerProcess) -> None:
    run_as_written(server, console_steps(TRANSACTIONS))


def test_consumer_groups_run_as_written(server: ServerProcess) -> None:
    r = httpx.post(server.url + "/v1/topics", json={"name": "orders", "partitions": 3})
    assert r.status_code == 201, r.text  # the section's topic (the tour made its own)
    run_as_written(server, console_steps(GROUPS))


def test_share_groups_run_as_written(server: ServerProcess) -> None:
    run_as_written(server, console_steps(SHARE))


def test_transactional_acknowledgements_run_as_written(server: ServerProcess) -> None:
    run_as_written(server, console_steps(TXN_ACKS))


def test_dead_letter_redrive_runs_as_written(server: ServerProcess) -> None:
    run_as_written(server, console_steps(REDRIVE))
