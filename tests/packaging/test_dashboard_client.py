"""The dashboard ships the JavaScript client as real files in the package (app/dashboard/client),
the same bytes as clients/js/src: a link would be kept as a link by a COPY or an archive and
arrive without its target."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import ROOT

CLIENT = ROOT / "clients" / "js" / "src"
COPY = ROOT / "app" / "dashboard" / "client"


def _files(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and "__pycache__" not in p.parts
    }


def test_the_dashboards_client_is_a_byte_for_byte_copy_of_clients_js_src() -> None:
    assert not COPY.is_symlink(), "app/dashboard/client must hold real files, not a link"
    assert COPY.is_dir()
    copied, source = _files(COPY), _files(CLIENT)
    assert sorted(copied) == sorted(source), "run make dashboard-client"
    stale = [name for name in source if copied[name] != source[name]]
    assert stale == [], f"{stale} differ from clients/js/src: run make dashboard-client"
