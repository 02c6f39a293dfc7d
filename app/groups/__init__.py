"""Consumer groups (KIP-848 style): membership, assignment, offsets, KIP-447 offsets."""
