"""Sluice benchmarks: workloads against a real server process, results as JSON.

Run the whole suite from the repository root with ``python -m benchmarks.run_all``; each
workload also runs alone, e.g. ``python -m benchmarks.produce --help``.
"""
