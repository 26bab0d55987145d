"""Shared FastAPI dependencies: settings, database session, job runner, analyze function.

Each one reads what `create_app` put on `app.state`, so tests replace any of
them with `app.dependency_overrides[...]` without touching globals.
"""

from __future__ import annotations

from collections.abc import Iterator

from fastapi import Request
from sqlalchemy.orm import Session

from rulesfromvideo.service.db import Database
from rulesfromvideo.service.settings import Settings


async def get_app_settings(request: Request) -> Settings:
    return request.app.state.settings


async def get_database(request: Request) -> Database:
    return request.app.state.database


def get_db(request: Request) -> Iterator[Session]:
    """A session per request; closed afterwards (uncommitted work is rolled back)."""
    with request.app.state.database.session() as session:
        yield session


async def get_runner(request: Request):
    return request.app.state.runner


def get_analyze_fn():
    """The function that analyses one job (see `jobs.AnalyzeFn`); override in tests."""
    from rulesfromvideo.service.jobs import subprocess_analyze

    return subprocess_analyze
