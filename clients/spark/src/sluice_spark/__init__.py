"""Spark data source for Sluice (format ``sluice``).

- batch and streaming reads of a topic by offsets (``read_committed`` by default);
- a stream from a share group (queue semantics, at least once);
- a transactional sink for batch jobs and streams: all of a job or micro-batch, or nothing, and
  a micro-batch Spark runs again is not written twice.

After ``pip install``, Spark finds the format by itself (the ``pyspark_sluice`` module);
``register(spark)`` does the same explicitly.
"""

from __future__ import annotations

from typing import Any

from sluice_spark.options import OptionError, Options
from sluice_spark.source import SluiceDataSource

__all__ = ["OptionError", "Options", "SluiceDataSource", "register"]


def register(spark: Any) -> None:
    """Register the ``sluice`` format with a session (not needed after ``pip install``)."""
    spark.dataSource.register(SluiceDataSource)
