"""benchmarks/clients.py: its summary, and a small run end to end (every form against a real
server, every answer checked) so that the benchmark cannot rot. No timed assertion here."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks import clients
from tests.conftest import ROOT


def _run(raw: float, python: float, js: float) -> dict[str, dict[str, float]]:
    out = {}
    for w in ("w1", "w2"):
        for form, rate in (("raw", raw), ("python", python), ("js", js)):
            out[f"{w}_{form}"] = {"records_per_s": rate}
    return out


def test_the_summary_takes_ratios_run_by_run() -> None:
    s = clients.summarise([_run(100, 90, 80), _run(200, 150, 210), _run(100, 85, 100)])
    assert s["w1_python_ratio_to_raw"]["median"] == 0.85
    assert s["w2_js_ratio_to_raw"]["median"] == 1.0
    (w1, w2) = s["targets"]
    assert w1["name"].startswith("W1 Python async client") and w1["ok"] is True
    assert w2["goal"] == ">= 0.85"


@pytest.mark.slow
def test_a_small_run_measures_every_form(tmp_path: Path) -> None:
    sizes = ["--runs", "1", "--w1-records", "1000", "--w2-records", "2000", "--wait-quiet", "0"]
    run = subprocess.run(
        [sys.executable, "-m", "benchmarks.clients", *sizes, "--out", str(tmp_path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    (path,) = tmp_path.glob("clients-*.json")
    doc = json.loads(path.read_text())
    (measured,) = doc["results"]["raw"]
    assert set(measured) == {f"{w}_{f}" for w in ("w1", "w2") for f in clients.FORMS}
    for w in ("w2_raw", "w2_python", "w2_js"):
        assert measured[w]["accepted"] == 2000
    assert all(m["records_per_s"] > 0 for m in measured.values())


def test_the_command_line_answers_help() -> None:
    r = subprocess.run(
        [sys.executable, "-m", "benchmarks.clients", "--help"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    assert "W1" in r.stdout and "--w2-records" in r.stdout
