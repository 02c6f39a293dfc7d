"""A streaming job: running totals per customer, from one Sluice topic to another, exactly once.

Input records on ``orders`` are JSON values like ``{"customer": "ada", "amount": 12.5}``. After
every micro-batch the job writes the totals to ``customer-totals`` (Spark's complete output
mode): the customer as the key, ``{"customer", "orders", "total"}`` as the value; the last
record of a key is its current total. The totals live in
Spark's checkpoint, the input is read by offsets (replayable), and each micro-batch is
committed on the server under ``<query id>:<batch id>``: a job killed at any point and started
again with the same checkpoint writes every update exactly once.

    python examples/spark_running_totals.py --url http://127.0.0.1:8080 \\
        --checkpoint /tmp/totals-checkpoint

Needs ``pip install ./clients/python './clients/spark[spark]'`` and Java 17.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

ORDER = "customer STRING, amount DOUBLE"


def running_totals(
    spark: SparkSession,
    url: str,
    source: str,
    sink: str,
    checkpoint: str,
    *,
    api_key: str | None = None,
    once: bool = False,
) -> Any:
    """Start the query; ``once`` processes what is there now and stops."""
    auth = {"apiKey": api_key} if api_key else {}
    orders = (
        spark.readStream.format("sluice")
        .option("url", url)
        .option("topic", source)
        .options(**auth)
        .load()
        .select(F.from_json(F.col("value").cast("string"), ORDER).alias("o"))
        .where(F.col("o.customer").isNotNull())
    )
    totals = orders.groupBy("o.customer").agg(
        F.count("*").alias("orders"), F.round(F.sum("o.amount"), 2).alias("total")
    )
    out = totals.select(
        F.col("customer").alias("key"),
        F.to_json(F.struct("customer", "orders", "total")).alias("value"),
    )
    writer = (
        out.writeStream.format("sluice")
        .option("url", url)
        .option("topic", sink)
        .options(**auth)
        .option("checkpointLocation", checkpoint)
        .outputMode("complete")
    )
    writer = (
        writer.trigger(availableNow=True) if once else writer.trigger(processingTime="2 seconds")
    )
    return writer.start()


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--url", default="http://127.0.0.1:8080")
    p.add_argument("--source", default="orders")
    p.add_argument("--sink", default="customer-totals")
    p.add_argument("--checkpoint", required=True)
    p.add_argument("--api-key", default=os.environ.get("SLUICE_API_KEY"))
    p.add_argument("--once", action="store_true", help="process what is there, then stop")
    args = p.parse_args()
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    spark = (
        SparkSession.builder.master("local[2]")
        .appName("running-totals")
        .config("spark.sql.shuffle.partitions", "2")
        .getOrCreate()
    )
    query = running_totals(
        spark,
        args.url,
        args.source,
        args.sink,
        args.checkpoint,
        api_key=args.api_key,
        once=args.once,
    )
    query.awaitTermination()


if __name__ == "__main__":
    main()
