"""The dashboard's page and static files as the router serves them: the right media types, a
policy that keeps the page on this server, nothing outside the shipped files, and no entry in
the OpenAPI description."""

from __future__ import annotations

import re
from collections.abc import Callable

import httpx
import pytest

from app.api.routes import dashboard
from app.config import Settings
from app.dashboard import STATIC
from app.main import create_app
from tests.conftest import ROOT

from .helpers import assert_error


async def test_the_page_is_served_at_the_root(client: httpx.AsyncClient) -> None:
    r = await client.get("/")
    assert r.status_code == 200
    assert r.headers["content-type"] == "text/html; charset=utf-8"
    assert r.text == (STATIC / "index.html").read_text()
    csp = r.headers["content-security-policy"]
    assert "default-src 'self'" in csp and "script-src 'self'" in csp
    assert "connect-src 'self'" in csp
    assert r.headers["x-content-type-options"] == "nosniff"


@pytest.mark.parametrize(
    ("path", "media_type"),
    [
        ("main.js", "text/javascript; charset=utf-8"),
        ("views/share_groups.js", "text/javascript; charset=utf-8"),
        ("app.css", "text/css; charset=utf-8"),
        ("icon.svg", "image/svg+xml"),
    ],
)
async def test_static_files_have_their_media_type(
    client: httpx.AsyncClient, path: str, media_type: str
) -> None:
    r = await client.get(f"/dashboard/{path}")
    assert r.status_code == 200
    assert r.headers["content-type"] == media_type
    assert r.content == (STATIC / path).read_bytes()


@pytest.mark.parametrize(
    "path",
    [
        "/dashboard/nothing.js",
        "/dashboard/__init__.py",
        "/dashboard/%2e%2e/main.py",
        "/dashboard/..%2fmain.py",
        "/dashboard/",
    ],
)
async def test_anything_else_is_not_found(client: httpx.AsyncClient, path: str) -> None:
    r = await client.get(path)
    assert_error(r, 404, "NOT_FOUND")


def test_every_module_the_page_imports_is_shipped() -> None:
    """Follow the page's script and every relative import: each file exists and is servable."""
    html = (STATIC / "index.html").read_text()
    entry = re.findall(r'<script type="module" src="dashboard/([^"]+)"', html)
    assert entry == ["main.js"]
    seen: set[str] = set()
    todo = list(entry)
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        assert name in dashboard.FILES, name
        source = (STATIC / name).read_text()
        base = name.rsplit("/", 1)[0] + "/" if "/" in name else ""
        for spec in re.findall(r'from "(\.{1,2}/[^"]+)"', source):
            parts = (base + spec).split("/")
            resolved: list[str] = []
            for part in parts:
                if part == "..":
                    resolved.pop()
                elif part not in (".", ""):
                    resolved.append(part)
            todo.append("/".join(resolved))
    # the dashboard's own modules are all used; the JavaScript client under client/ is shipped
    # whole, for other pages too (the page imports what it needs of it)
    own = {n for n in dashboard.FILES if n.endswith(".js") and not n.startswith("client/")}
    assert own == {n for n in seen if not n.startswith("client/")}, "unused modules"
    client = {p.name for p in (ROOT / "clients" / "js" / "src").glob("*.js")}
    assert {n for n in dashboard.FILES if n.startswith("client/")} == {
        f"client/{n}" for n in client
    }
    assert "client/index.js" in seen


def test_the_dashboard_is_not_in_the_api_description(
    settings_factory: Callable[..., Settings],
) -> None:
    paths = create_app(settings_factory()).openapi()["paths"]
    assert "/" not in paths
    assert not any(p.startswith("/dashboard") for p in paths)
