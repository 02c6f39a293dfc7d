"""benchmarks/spark.py: its summary and its memory sampler (the benchmark itself runs a local
Spark for minutes; the Spark suite covers the connector)."""

from __future__ import annotations

import os
import subprocess
import sys

from benchmarks import spark


def _run(read: float, write: float, pss: float) -> dict[str, object]:
    return {
        "batch_read": {"records_per_s": read},
        "stream_write": {"records_per_s": write},
        "topic_to_topic": {"records_per_s": write / 2},
        "spark_pss_peak_bytes": pss * spark.GiB,
        "server_rss_peak_bytes": 80 * 2**20,
    }


def test_the_summary_holds_the_three_targets() -> None:
    s = spark.summarise([_run(210_000, 90_000, 1.5), _run(190_000, 120_000, 2.5)])
    read, write, memory = s["targets"]
    assert read["median"] == 200_000 and read["ok"] is True
    assert write["median"] == 105_000 and write["ok"] is True
    assert memory["median"] == 2.0 and memory["ok"] is True and memory["goal"] == "<= 2"
    assert s["server_rss_peak_mib"]["median"] == 80


def test_the_tree_sampler_counts_children_and_leaves_out_the_server() -> None:
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    server = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        alone = spark.TreePss(skip=server.pid)
        total = alone.sample()
        assert alone.peak_processes >= 2  # this process and the child, not the server
        # the processes grow between two samples: within 10 %
        assert total >= 0.9 * (spark._pss(os.getpid()) + spark._pss(child.pid)) > 0
        assert spark._pss(server.pid) > 0
        everything = spark.TreePss(skip=-1)
        everything.sample()
        assert everything.peak_processes == alone.peak_processes + 1
    finally:
        child.kill()
        server.kill()
        child.wait()
        server.wait()
