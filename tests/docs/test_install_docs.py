"""What the install instructions say a package brings is what its pyproject.toml declares."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from tests.conftest import ROOT

PYTHON_CLIENT = ROOT / "clients" / "python"


def _dependencies() -> list[str]:
    """The names of the Python client's dependencies, without versions or extras."""
    project = tomllib.loads((PYTHON_CLIENT / "pyproject.toml").read_text())["project"]
    return [re.split(r"[\s<>=!~;\[]", d, maxsplit=1)[0] for d in project["dependencies"]]


@pytest.mark.parametrize(
    "page", [ROOT / "README.md", PYTHON_CLIENT / "README.md"], ids=["README", "client-README"]
)
def test_the_python_clients_install_names_every_dependency(page: Path) -> None:
    text = page.read_text()
    start = text.find("pip install ./clients/python")
    assert start >= 0, "the page does not say how to install the client"
    # the paragraph (or the commented block) where the install is given
    end = text.find("\n\n", start)
    said = text[start : end if end >= 0 else None]
    deps = _dependencies()
    assert deps
    missing = [d for d in deps if not re.search(rf"\b{re.escape(d)}\b", said)]
    assert missing == [], f"{page.name}: the install leaves out {missing}"
