"""Schemathesis against the service's own OpenAPI schema: no operation answers 5xx.

Every operation in `/openapi.json` gets `MAX_EXAMPLES` generated requests
(derandomized, so a run is reproducible) checked with schemathesis'
`not_a_server_error`, once with the admin token and once with no token (which
must never be a 5xx either; the auth layer answers 401/403 first). Analysis
jobs run through the tests' `FakeAnalyze`, so starting a job is cheap. Skipped:
`GET /api/live/events` (a server-sent event stream that does not end).

Standalone: `.venv/bin/python -m pytest tests/service/test_schemathesis.py -q`
(figures in docs/service.md, "Schemathesis").
"""

from __future__ import annotations

import pytest

schemathesis = pytest.importorskip("schemathesis")

from hypothesis import HealthCheck, given, settings as hyp_settings  # noqa: E402
from schemathesis.checks import not_a_server_error  # noqa: E402

from rfv_service_support import ADMIN, TOKENS, FakeAnalyze  # noqa: E402
from rulesfromvideo.service.app import create_app  # noqa: E402
from rulesfromvideo.service.deps import get_analyze_fn  # noqa: E402
from rulesfromvideo.service.settings import Settings  # noqa: E402

MAX_EXAMPLES = 15
SKIP_PATHS = {"/api/live/events"}  # endless text/event-stream


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    from fastapi.testclient import TestClient

    root = tmp_path_factory.mktemp("schemathesis")
    (root / "media").mkdir()
    settings = Settings(data_dir=root / "data", media_root=root / "media",
                        database_url=f"sqlite:///{root / 'data' / 'review.db'}", tokens=TOKENS,
                        max_upload_bytes=1_000_000, job_heartbeat_s=0.05, job_stale_s=1.0)
    app = create_app(settings)
    app.dependency_overrides[get_analyze_fn] = lambda: FakeAnalyze()
    with TestClient(app):  # runs the lifespan (database, job runner) for the whole module
        yield app
    app.state.database.dispose()


def operations(app):
    schema = schemathesis.openapi.from_asgi("/openapi.json", app)
    ops = [result.ok() for result in schema.get_all_operations()]
    return [op for op in ops if op.path not in SKIP_PATHS]


def fuzz(app, headers: dict) -> tuple[list[str], dict[int, int]]:
    """Run `not_a_server_error` over every operation.

    Returns:
        The failures, one line each, and the count of each response status seen.
    """
    failures: list[str] = []
    statuses: dict[int, int] = {}
    ops = operations(app)
    assert len(ops) >= 30, [op.label for op in ops]
    for op in ops:
        @hyp_settings(max_examples=MAX_EXAMPLES, derandomize=True, deadline=None, database=None,
                      suppress_health_check=list(HealthCheck))
        @given(case=op.as_strategy())
        def run(case):
            try:  # the TestClient re-raises an unhandled server exception: also a server error
                response = case.call(headers=headers)
                statuses[response.status_code] = statuses.get(response.status_code, 0) + 1
                case.validate_response(response, checks=[not_a_server_error])
            except Exception as exc:  # noqa: BLE001 - collect all, report together
                failures.append(f"{op.label}: {type(exc).__name__}: {str(exc)[:400]}")
        run()
    print(f"{len(ops)} operations, {sum(statuses.values())} requests, statuses {sorted(statuses.items())}")
    return failures, statuses


def test_no_server_error_with_admin_token(app):
    failures, statuses = fuzz(app, ADMIN)
    assert failures == []
    assert any(200 <= code < 300 for code in statuses)  # the token works: not every request is refused


def test_no_server_error_without_token(app):
    failures, statuses = fuzz(app, {})
    assert failures == []
    # Without a token only /api/health (and the public rink markings) may succeed; the rest is 401.
    assert statuses.get(401, 0) > 0 and not any(code >= 500 for code in statuses)


@pytest.mark.parametrize("path", [
    "/api/events/9223372036854775808/frame.png",  # the case schemathesis found (SQLite OverflowError → 500)
    "/api/clips/9223372036854775808",
    "/api/jobs/-9223372036854775809",
    "/api/decisions?offset=9223372036854775808",
])
def test_integer_beyond_64_bits_is_422_not_500(app, path):
    from fastapi.testclient import TestClient

    response = TestClient(app, raise_server_exceptions=False).get(path, headers=ADMIN)
    assert response.status_code == 422, (response.status_code, response.text)
    # An id that fits is still a plain 404.
    assert TestClient(app).get("/api/clips/9223372036854775807", headers=ADMIN).status_code == 404
