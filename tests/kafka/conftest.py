"""The native Kafka cluster of this package's tests (tests/kafka_cluster.py)."""

from tests.kafka_cluster import kafka_cluster as kafka_cluster
