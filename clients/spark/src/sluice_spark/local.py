"""A quiet local Spark session for trying the connector, its tests and its benchmark: loopback
only, no UI, small shuffles, and a JVM that starts fast and stays small on a few cores."""

from __future__ import annotations

import os
import sys
from typing import Any

QUICK_START = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"


def local_session(
    cores: int = 2,
    max_failures: int = 1,
    *,
    app_name: str = "sluice",
    memory: str = "1g",
    java_options: str = QUICK_START,
) -> Any:
    """``local[cores,max_failures]`` (a failed task is tried ``max_failures`` times in all).
    Spark's Python workers run this interpreter, so they import the connector installed here.
    ``java_options``: by default the client compiler and the serial collector, which halve the
    JVM's start time and memory on a small machine (short jobs, tests); long jobs run faster
    with the JVM's defaults ("")."""
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    from pyspark.sql import SparkSession

    spark = (
        SparkSession.builder.master(f"local[{cores},{max_failures}]")
        .appName(app_name)
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", str(cores))
        .config("spark.default.parallelism", str(cores))
        .config("spark.sql.adaptive.enabled", "false")
        .config("spark.driver.memory", memory)
        .config("spark.driver.extraJavaOptions", java_options)
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.sql.session.timeZone", "UTC")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    return spark
