"""Transaction coordinator: state table, markers, timeouts, fencing."""
