"""Apache Kafka as a backend: the pieces that speak to a Kafka cluster."""
