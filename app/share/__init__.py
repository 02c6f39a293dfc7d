"""Share groups (KIP-932): record states, share partitions, persistence, the coordinator."""
