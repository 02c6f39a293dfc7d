"""The hostile-input servers on either engine: in the gateway pass (SLUICE_TEST_BACKEND=kafka)
each module's servers are gateways on the tests' Kafka cluster (tests/e2e/conftest.py)."""

from collections.abc import Iterator

import pytest

from tests.e2e.hostile import helpers


@pytest.fixture(scope="module", autouse=True)
def backend(backend_env: dict[str, str]) -> Iterator[None]:
    helpers.BACKEND_ENV.update(backend_env)
    try:
        yield
    finally:
        helpers.BACKEND_ENV.clear()
