"""The operator dashboard: static files only (HTML, CSS and ES modules, no build step), served by
``app.api.routes.dashboard``. The page reads the live feed ``/v1/events`` and the documented HTTP
endpoints, and nothing else; docs/dashboard.md describes its panels."""

from __future__ import annotations

from pathlib import Path

STATIC = Path(__file__).resolve().parent
