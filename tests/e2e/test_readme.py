"""The READMEs' examples (README.md, clients/python/README.md, clients/js/README.md), run as
written: each section on its own empty server process, its console, Python and JavaScript
blocks in the order a reader meets them (tests/e2e/readme.py says how each kind runs)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import ServerProcess
from tests.e2e.readme import EXAMPLES, LISTINGS, READMES, Block, blocks, run_section, sections

pytestmark = pytest.mark.slow

# Blocks that are not run here, each with the reason: (file, section heading, how the block's
# first line starts).
R, PY, JS = "README.md", "clients/python/README.md", "clients/js/README.md"
SPARK_SESSION = "part of a PySpark session: tests/spark/test_readme.py runs it in a local Spark"
NOT_RUN: dict[tuple[str, str, str], str] = {
    (R, "## Two commands", "make serve"): "make serve's command is the server each section runs "
    "on; make test runs this suite",
    (R, "## Two commands", "docker build"): "needs a Docker engine, which the test machines do "
    "not run: tests/packaging/test_image.py builds and starts the image's install as the "
    "Dockerfile's COPY lines lay it out, and runs its health check",
    (R, "## Spark", "pip install"): "installs packages into the reader's environment: the "
    "test environment has them, installed by make",
    (R, "## Spark", "df = (spark.read"): SPARK_SESSION,
    (R, "## Spark", "(spark.readStream"): SPARK_SESSION,
    (R, "## Spark", "python examples/spark_running_totals.py"): "a Spark job that runs until "
    "stopped: tests/spark/test_example.py runs its pipeline in a local Spark",
    (R, "## Running Sluice safely", "ADMIN_KEY=$("): "starts a second server with TLS on port "
    "8080 and needs cert.pem and key.pem: tests/e2e/test_exposure.py runs the self-signed "
    "example of docs/security.md",
    (R, "## Past one machine", "make kafka"): "starts a Kafka cluster and a gateway that runs "
    "until stopped: tests/kafka/test_readme_kafka.py runs the section on them",
    (PY, "# sluice: the Python client of Sluice", "pip install"): "installs the package into "
    "the reader's environment: the test environment has it, installed by make",
    (JS, "# sluice-client", "npm pack"): "packs and installs the package, as "
    "tests/clients/test_js_client.py does",
}


def not_run(block: Block) -> bool:
    return any(block.named(*name) for name in NOT_RUN)


def runnable(block: Block) -> bool:
    return block.language in EXAMPLES and not not_run(block)


SECTIONS = [(f, h, bs) for f in READMES for h, bs in sections(f, runnable).items()]


def test_every_block_is_run_or_listed_with_its_reason() -> None:
    every = [b for f in READMES for b in blocks(f)]
    unknown = [b.where() for b in every if b.language not in (*EXAMPLES, *LISTINGS)]
    assert unknown == [], "blocks of a language the runner does not know"
    stray = [b.where() for b in every if b.language == "text"]
    assert stray == [], "output blocks that follow no Python or JavaScript block"
    examples = [b for b in every if b.language in EXAMPLES]
    for name in NOT_RUN:
        assert len([b for b in examples if b.named(*name)]) == 1, f"{name} names no one block"
    ran = sum(len(bs) for _, _, bs in SECTIONS)
    assert ran == len(examples) - len(NOT_RUN) and ran >= 35


def test_the_client_examples_of_the_readme_are_short() -> None:
    for b in blocks("README.md"):
        if b.heading in ("## Python client", "## JavaScript client"):
            assert len(b.code.strip().splitlines()) <= 12, b.where()  # ten lines and the import


@pytest.mark.parametrize(
    "file,heading,section", SECTIONS, ids=[f"{f} {h.lstrip('# ')}" for f, h, _ in SECTIONS]
)
def test_section_runs_as_written(
    server: ServerProcess, tmp_path: Path, file: str, heading: str, section: list[Block]
) -> None:
    run_section(server, tmp_path, section)
