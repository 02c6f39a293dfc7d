"""The pages in docs/ against the code: routes, error codes, settings, links and anchors."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from app.config import Settings
from app.errors import ErrorCode
from app.main import create_app
from tests.conftest import ROOT

DOCS = ROOT / "docs"
PAGES = sorted(DOCS.glob("*.md"))
METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE")


def _text(name: str) -> str:
    return (DOCS / name).read_text()


def _shape(path: str) -> str:
    """A path with its parameters unnamed: /v1/topics/{topic} and /v1/topics/{name} agree."""
    return re.sub(r"\{[^}]*\}", "{}", path)


def _served_routes(tmp_path: Path) -> set[str]:
    app = create_app(Settings(data_dir=str(tmp_path / "data")))
    doc = app.openapi()
    routes = {f"{m.upper()} {_shape(p)}" for p, ops in doc["paths"].items() for m in ops}
    # served, but not part of the API's description
    return routes | {
        "GET /openapi.json",
        "GET /docs",
        "GET /docs/oauth2-redirect",
        "GET /redoc",
        "GET /",
        "GET /dashboard/{}",
    }


def _documented_routes() -> set[str]:
    found = re.findall(r"`(" + "|".join(METHODS) + r") (/[^`?\s]*)", _text("api.md"))
    return {f"{m} {_shape(p)}" for m, p in found}


def test_every_route_is_documented_and_every_documented_route_exists(tmp_path: Path) -> None:
    served, documented = _served_routes(tmp_path), _documented_routes()
    assert sorted(served - documented) == [], "routes missing from docs/api.md"
    assert sorted(documented - served) == [], "docs/api.md documents routes the server lacks"


def test_the_error_code_table_matches_the_code() -> None:
    rows = re.findall(
        r"^\| `([A-Z_]+)` \| (\d{3}) \| (yes|no) \| (-?\d+|—) \|", _text("api.md"), re.M
    )
    table = {
        name: (int(status), retriable == "yes", None if kafka == "—" else int(kafka))
        for name, status, retriable, kafka in rows
    }
    code = {c.name: (c.status, c.retriable, c.kafka_code) for c in ErrorCode}
    assert table == code


def test_every_setting_is_in_the_operations_page_with_its_default() -> None:
    text = _text("operations.md")
    for f in dataclasses.fields(Settings):
        row = f"| `SLUICE_{f.name.upper()}` | `{f.default}` |"
        assert row in text, f"docs/operations.md lacks {row}"


def test_every_metric_is_named_in_the_operations_page(tmp_path: Path) -> None:
    """Each family of ``/metrics`` by the name a scrape shows (counters with ``_total``); the
    process collectors' families are named there too."""
    text = _text("operations.md")
    broker = create_app(Settings(data_dir=str(tmp_path / "data"))).state.broker
    families = list(broker.metrics.registry.collect())
    assert len(families) > 30
    for family in families:
        name = family.name + ("_total" if family.type == "counter" else "")
        assert f"`{name}`" in text, f"docs/operations.md does not name {name}"


def _anchors(page: Path) -> set[str]:
    return set(re.findall(r'<a id="([a-z0-9-]+)"></a>', page.read_text()))


def test_anchors_are_unique_per_page() -> None:
    for page in PAGES:
        ids = re.findall(r'<a id="([a-z0-9-]+)"></a>', page.read_text())
        assert len(ids) == len(set(ids)), page.name


@pytest.mark.parametrize("page", [*PAGES, ROOT / "README.md"], ids=lambda p: p.name)
def test_every_link_between_pages_resolves(page: Path) -> None:
    for target in re.findall(r"\]\(([^)\s]+)\)", page.read_text()):
        if re.match(r"[a-z]+:", target):
            continue  # an address outside the repository
        file, _, anchor = target.partition("#")
        resolved = (page.parent / file).resolve() if file else page
        assert resolved.exists(), f"{page.name}: {target}"
        assert resolved.is_relative_to(ROOT), f"{page.name}: {target} leaves the repository"
        if anchor:
            assert anchor in _anchors(resolved), f"{page.name}: {target}: no such anchor"


def test_references_in_the_code_name_existing_sections() -> None:
    anchors = {page.name: _anchors(page) for page in PAGES}
    refs = []
    for folder in ("app", "tests", "benchmarks"):
        for source in sorted(p for p in (ROOT / folder).rglob("*") if p.suffix in (".py", ".sql")):
            for name, anchor in re.findall(r"docs/([a-z]+\.md)#([a-z0-9-]+)", source.read_text()):
                refs.append((source.relative_to(ROOT), name, anchor))
                assert anchor in anchors.get(name, set()), f"{source}: docs/{name}#{anchor}"
    assert refs, "the code cites no section of docs/"


def _unsupported_names() -> set[str]:
    """The names kafka.md gives: its list of what a gateway answers UNSUPPORTED_ON_KAFKA_BACKEND
    for (in "Choosing the backend"), each name it gives beside that code elsewhere (the tables,
    the summary), and the names of the differences that answer no error."""
    text = _text("kafka.md")
    start = text.index("**What answers `UNSUPPORTED_ON_KAFKA_BACKEND` today**")
    end = text.index("**Not yet as this page specifies", start)
    named = re.findall(r"`UNSUPPORTED_ON_KAFKA_BACKEND` \(`([a-z_]+)`\)", text)
    # the differences that answer no error, each named after its bold title
    differences = re.findall(r"^- \*\*[^*]+\*\* \(`([a-z_]+)`\)", text, re.MULTILINE)
    return set(re.findall(r"\(`([a-z_]+)`\)", text[start:end])) | set(named) | set(differences)


def test_every_name_of_an_embedded_only_test_is_one_kafka_md_lists() -> None:
    listed = _unsupported_names()
    assert "share_acquisitions" in listed and "share_start_offset" in listed  # where they were
    used: dict[str, set[str]] = {}
    for source in sorted((ROOT / "tests").rglob("*.py")):
        for args in re.findall(r"mark\.embedded_only\(([^)]*)\)", source.read_text()):
            names = set(re.findall(r"\"([^\"]*)\"", args))
            assert names, f"{source}: embedded_only({args}) names no unsupported feature"
            used.setdefault(str(source.relative_to(ROOT)), set()).update(names)
    assert used, "no test is marked embedded_only"
    for path, names in used.items():
        assert names <= listed, f"{path}: {sorted(names - listed)} are not in kafka.md's list"
