"""Found by Spark's discovery of Python data sources (every top-level ``pyspark_*`` module is
imported and its ``DefaultSource`` registered): ``spark.read.format("sluice")`` works after
``pip install`` without ``spark.dataSource.register``."""

from sluice_spark import SluiceDataSource as DefaultSource

__all__ = ["DefaultSource"]
