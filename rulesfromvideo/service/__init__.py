"""The review service: FastAPI review API, web review UI, durable storage, live overlay feed.

`create_app(settings)` builds the app (see `app.py`); `rulesfromvideo serve`
and `rulesfromvideo live SOURCE` run it (see `cli.py`). Documented in
`docs/service.md`.

`create_app` and `Settings` are imported on first use (PEP 562): every
`rulesfromvideo` command imports `service.cli` to build its parser, and loading
FastAPI, SQLAlchemy and the app there cost each command about a second.
"""

from __future__ import annotations

from typing import Any

__all__ = ["create_app", "Settings"]


def __getattr__(name: str) -> Any:
    if name == "create_app":
        from rulesfromvideo.service.app import create_app

        return create_app
    if name == "Settings":
        from rulesfromvideo.service.settings import Settings

        return Settings
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
