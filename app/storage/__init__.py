"""The log engine: record batches, segments, sparse indexes, partition logs and recovery.

No asyncio, no SQLite, no HTTP in here: plain files and bytes. Methods are not thread-safe
unless their docstring says so; the server calls them from the event loop, except ``flush``.
"""
