"""Sluice: Kafka's queue and exactly-once semantics over plain HTTP."""

__version__ = "0.1.0"
