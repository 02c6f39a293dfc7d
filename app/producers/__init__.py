"""Producer state per partition: epochs, sequences and the duplicate window."""
