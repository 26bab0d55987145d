"""Fixtures for the review service tests (helpers and constants: `rfv_service_support.py`).

Storage tests run on SQLite and, when `RFV_TEST_POSTGRES_URL` is set (CI sets
it), on PostgreSQL too.
"""

from __future__ import annotations

import os
import sys
import uuid
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from rfv_service_support import (  # noqa: E402
    ADMIN, TOKENS, VIEWER, FakeAnalyze, make_video, running_app, upload, wait_job,
)
from rulesfromvideo.service.settings import Settings  # noqa: E402


def _pg_reset(url: str) -> None:
    from sqlalchemy import create_engine, text

    eng = create_engine(url.replace("postgresql://", "postgresql+psycopg://", 1) if url.startswith("postgresql://") else url)
    with eng.begin() as conn:
        conn.execute(text("DROP SCHEMA IF EXISTS public CASCADE"))
        conn.execute(text("CREATE SCHEMA public"))
    eng.dispose()


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request, tmp_path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'data' / 'review.db'}"
    url = os.environ.get("RFV_TEST_POSTGRES_URL")
    if not url:
        pytest.skip("PostgreSQL tests need RFV_TEST_POSTGRES_URL (CI sets it)")
    _pg_reset(url)
    return url


@pytest.fixture
def settings(tmp_path, database_url) -> Settings:
    media = tmp_path / "media"
    media.mkdir()
    return Settings(data_dir=tmp_path / "data", media_root=media, database_url=database_url, tokens=TOKENS,
                    max_upload_bytes=1_000_000, job_heartbeat_s=0.05, job_stale_s=1.0)


@pytest.fixture
def fake() -> FakeAnalyze:
    return FakeAnalyze()


@pytest.fixture
def client(settings, fake):
    with running_app(settings, fake) as c:
        yield c


@pytest.fixture
def video(tmp_path) -> Path:
    return make_video(tmp_path / f"clip-{uuid.uuid4().hex[:6]}.mp4")


@pytest.fixture
def analysed(client, video):
    """A clip uploaded and analysed by the fake: (clip, job, events)."""
    clip = upload(client, video).json()
    job = client.post(f"/api/clips/{clip['id']}/jobs", headers=ADMIN).json()
    job = wait_job(client, job["id"])
    assert job["state"] == "succeeded", job
    events = client.get(f"/api/clips/{clip['id']}/events", headers=VIEWER).json()["events"]
    return clip, job, events
