"""`create_app(settings)`: the review service's FastAPI app.

Start-up order: settings → database (migrated to the newest revision) →
token table → job runner (recovers orphaned jobs, then starts its workers)
→ optional live feed. The OpenAPI document is at `/openapi.json`, the
interactive docs at `/docs`, the review UI at `/ui/`.
"""

from __future__ import annotations

import logging
import re
from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import Depends, FastAPI, HTTPException
from fastapi.middleware.cors import CORSMiddleware
from fastapi.responses import RedirectResponse
from fastapi.staticfiles import StaticFiles
from sqlalchemy import text

from rulesfromvideo.service.auth import Principal, TokenTable, reader
from rulesfromvideo.service.db import Database
from rulesfromvideo.service.deps import get_analyze_fn
from rulesfromvideo.service.jobs import JobRunner
from rulesfromvideo.service.routers import calibration, clips, decisions, events, export, jobs, live, rink, venues
from rulesfromvideo.service.settings import Settings

STATIC_DIR = Path(__file__).with_name("static")
UPLOAD_PATHS = ("/api/clips",)
log = logging.getLogger("rulesfromvideo.service")


class _RedactTokens(logging.Filter):
    """Scrub anything that looks like a bearer token from log records (defence in depth)."""

    pattern = re.compile(r"(?i)(bearer\s+|token[\"']?\s*[:=]\s*[\"']?)[A-Za-z0-9._~+/=-]+")

    def filter(self, record: logging.LogRecord) -> bool:
        msg = record.getMessage()
        if self.pattern.search(msg):
            record.msg, record.args = self.pattern.sub(r"\1<redacted>", msg), ()
        return True


def install_log_redaction() -> None:
    # Logger filters only see records created on that very logger, so name each one the service uses.
    for name in ("rulesfromvideo.service", "rulesfromvideo.service.jobs", "rulesfromvideo.service.live",
                 "uvicorn", "uvicorn.access", "uvicorn.error", "fastapi"):
        lg = logging.getLogger(name)
        if not any(isinstance(f, _RedactTokens) for f in lg.filters):
            lg.addFilter(_RedactTokens())


class BodySizeLimit:
    """ASGI middleware: 413 for uploads larger than `max_bytes`, before they fill the disk.

    A declared `Content-Length` above the limit is refused without reading the
    body; a chunked body is counted as it streams and cut off at the limit.
    """

    def __init__(self, app, max_bytes: int, paths: tuple[str, ...]) -> None:
        self.app, self.max_bytes, self.paths = app, max_bytes, paths

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or scope.get("method") != "POST" or scope.get("path") not in self.paths:
            return await self.app(scope, receive, send)
        # Multipart framing adds a few hundred bytes around the file itself.
        limit = self.max_bytes + 64 * 1024
        for k, v in scope.get("headers", []):
            if k == b"content-length":
                try:
                    declared = int(v)
                except ValueError:
                    declared = -1
                if declared > limit:
                    return await self._too_large(send)
        seen = 0

        async def counting_receive():
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > limit:
                    raise HTTPException(413, f"upload larger than {self.max_bytes} bytes")
            return message

        await self.app(scope, counting_receive, send)

    async def _too_large(self, send) -> None:
        body = b'{"detail":"upload larger than the limit of %d bytes"}' % self.max_bytes
        await send({"type": "http.response.start", "status": 413,
                    "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                                (b"connection", b"close")]})
        await send({"type": "http.response.body", "body": body})


class SecurityHeaders:
    """Conservative headers on every HTTP response (the UI needs only its own origin)."""

    HEADERS = [
        (b"x-content-type-options", b"nosniff"),
        (b"x-frame-options", b"DENY"),
        (b"referrer-policy", b"no-referrer"),
    ]
    CSP = (b"content-security-policy",
           b"default-src 'self'; img-src 'self' blob: data:; connect-src 'self'; frame-ancestors 'none'")

    def __init__(self, app) -> None:
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        is_ui = scope.get("path", "").startswith("/ui")

        async def wrapped(message):
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", [])) + self.HEADERS
                if is_ui:
                    headers.append(self.CSP)
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, wrapped)


def install_out_of_range_handler(app: FastAPI) -> None:
    """Answer 422 (not 500) when a request's integer does not fit the database's 64-bit column.

    SQLite raises `OverflowError` for ids such as 2**63; PostgreSQL raises
    `DataError` (numeric value out of range). Found by schemathesis
    (tests/service/test_schemathesis.py).
    """
    from fastapi.responses import JSONResponse
    from sqlalchemy.exc import DataError

    async def out_of_range(request, exc):
        return JSONResponse({"detail": "a number in the request is out of range"}, status_code=422)

    app.add_exception_handler(OverflowError, out_of_range)
    app.add_exception_handler(DataError, out_of_range)


def create_app(settings: Settings | None = None, *, live_feed=None, database: Database | None = None,
               analyze_fn=None) -> FastAPI:
    """Build the review service.

    Args:
        settings: configuration (default: from `RFV_*` environment variables).
        live_feed: a `live.LiveFeed` to serve on `/api/live/*` (started with the app).
        database: an already open `Database` (default: opened from `settings`).
        analyze_fn: the `jobs.AnalyzeFn` for analysis jobs (default:
            `jobs.subprocess_analyze`). `app.dependency_overrides[get_analyze_fn]`
            takes precedence (tests); prefer this argument in production, since any
            dependency override makes FastAPI re-resolve every dependency per request.

    Returns:
        The FastAPI app. Use it as an ASGI app (uvicorn) or in
        `with TestClient(app):` so that the job runner starts and stops.
    """
    settings = settings or Settings()
    install_log_redaction()
    Path(settings.data_dir).mkdir(parents=True, exist_ok=True)
    database = database or Database(settings.resolved_database_url())

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        import asyncio

        app.state.runner.start()
        if app.state.live_feed is not None:
            app.state.live_feed.start(asyncio.get_running_loop())
        try:
            yield
        finally:
            if app.state.live_feed is not None:
                app.state.live_feed.stop()
            app.state.runner.stop()

    app = FastAPI(
        title="rulesfromvideo review service",
        version="1",
        description="Review API for a video goal judge: clips, analysis jobs, events with evidence images, "
        "decisions with an append-only audit trail, venues and camera profiles, exports, live overlay feed. "
        "Authenticate with `Authorization: Bearer TOKEN`; roles are described in docs/service.md.",
        lifespan=lifespan,
    )
    app.state.settings = settings
    app.state.database = database
    app.state.tokens = TokenTable.from_settings(settings)
    app.state.live_feed = live_feed
    # Resolved per job so that `app.dependency_overrides[get_analyze_fn]` reaches the background runner.
    def resolve_analyze_fn():
        override = app.dependency_overrides.get(get_analyze_fn)
        if override is not None:
            return override()
        return analyze_fn if analyze_fn is not None else get_analyze_fn()

    app.state.runner = JobRunner(database, settings, resolve_analyze_fn)

    for r in (clips, jobs, events, decisions, calibration, venues, export, live, rink):
        app.include_router(r.router)
    install_out_of_range_handler(app)

    @app.get("/api/health", tags=["meta"], summary="Liveness and database check (no token needed)")
    def health() -> dict:
        with database.engine.connect() as conn:
            conn.execute(text("SELECT 1"))
        return {"status": "ok", "database": database.engine.dialect.name, "tokens": len(app.state.tokens) > 0}

    @app.get("/api/me", tags=["meta"], summary="Who the token belongs to (name and role)")
    def me(who: Principal = Depends(reader)) -> dict:
        return {"name": who.name, "role": who.role}

    @app.get("/", include_in_schema=False)
    def root():
        return RedirectResponse("/ui/")

    app.mount("/ui", StaticFiles(directory=STATIC_DIR, html=True), name="ui")

    app.add_middleware(BodySizeLimit, max_bytes=settings.max_upload_bytes, paths=UPLOAD_PATHS)
    if settings.cors_origins:
        app.add_middleware(CORSMiddleware, allow_origins=settings.cors_origins, allow_credentials=False,
                           allow_methods=["GET", "POST", "PUT", "PATCH", "DELETE"],
                           allow_headers=["Authorization", "Content-Type"])
    app.add_middleware(SecurityHeaders)
    if not len(app.state.tokens):
        log.warning("no tokens configured (RFV_TOKENS / RFV_TOKENS_FILE): every API call will answer 401")
    return app
