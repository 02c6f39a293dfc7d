"""The dashboard's page and static files: ``GET /`` answers ``index.html``,
``GET /dashboard/{path}`` one of the files shipped in ``app/dashboard`` (the JavaScript client
among them, under ``client/``). Not part of the API, so
left out of the OpenAPI description.

The files that may be served are listed once, at import: a path is looked up in that table and
never joined to a directory, so no request can reach outside it.
"""

from __future__ import annotations

import os
from pathlib import Path

from fastapi import APIRouter
from starlette.responses import FileResponse, Response

from app.dashboard import STATIC
from app.errors import ErrorCode, NotFound

router = APIRouter(include_in_schema=False)

PREFIX = "/dashboard"

MEDIA_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".svg": "image/svg+xml",
}

# The page loads its own files and talks to this server only; no inline script or style.
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; "
    "frame-ancestors 'none'"
)

HEADERS = {
    "Cache-Control": "no-cache",
    "X-Content-Type-Options": "nosniff",
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
}


def _shipped(root: Path) -> dict[str, Path]:
    """Every servable file under ``root`` by its path relative to it, with ``/`` separators.

    ``client/`` is the JavaScript client (a copy of ``clients/js/src`` in the repository), which
    the page imports and other pages may too."""
    found = (Path(directory, name) for directory, _, names in os.walk(root) for name in names)
    return {
        p.relative_to(root).as_posix(): p
        for p in sorted(found)
        if p.is_file() and p.suffix in MEDIA_TYPES
    }


FILES = _shipped(STATIC)


def _answer(path: Path) -> Response:
    return FileResponse(path, media_type=MEDIA_TYPES[path.suffix], headers=HEADERS)


@router.get("/")
async def page() -> Response:
    return _answer(FILES["index.html"])


@router.get(PREFIX + "/{path:path}")
async def static_file(path: str) -> Response:
    found = FILES.get(path)
    if found is None:
        raise NotFound(ErrorCode.NOT_FOUND, f"no dashboard file {path!r}")
    return _answer(found)
