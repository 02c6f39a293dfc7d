"""SQLite metadata: connections, migrations and typed queries per aggregate."""
