"""Kafka's wire protocol: codecs for its primitives and messages, a connection to one broker
and a cluster of them (docs/kafka-protocol.md).

``messages`` is generated from Kafka 4.4.0's message definitions by kafka/gen_protocol.py;
everything else here is written by hand. Nothing in the codec modules does I/O.
"""
