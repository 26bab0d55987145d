"""End-to-end: the web review UI in headless Debian Chromium (Python playwright) against a live server.

Loads a clip, opens an event, steps frames, toggles a layer, zooms on the goal
line, records a decision, reloads, and finds the decision still there.
"""

from __future__ import annotations

import os
import socket
import threading
import time

import httpx
import pytest
from rfv_service_support import ADMIN, JUDGE, TOKENS, FakeAnalyze, make_video

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"]

pytestmark = [
    pytest.mark.skipif(not os.path.exists(CHROMIUM), reason=f"{CHROMIUM} is missing (apt-get install chromium)"),
]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def server(tmp_path):
    uvicorn = pytest.importorskip("uvicorn")
    from rulesfromvideo.service.app import create_app
    from rulesfromvideo.service.deps import get_analyze_fn
    from rulesfromvideo.service.settings import Settings

    settings = Settings(data_dir=tmp_path / "data", database_url=f"sqlite:///{tmp_path / 'ui.db'}", tokens=TOKENS,
                        job_heartbeat_s=0.05)
    app = create_app(settings)
    fake = FakeAnalyze()
    app.dependency_overrides[get_analyze_fn] = lambda: fake
    port = _free_port()
    srv = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="on"))
    th = threading.Thread(target=srv.run, daemon=True)
    th.start()
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 20
    while not srv.started:
        assert time.monotonic() < deadline, "server did not start"
        time.sleep(0.05)
    with httpx.Client(base_url=base, timeout=30) as http:
        video = make_video(tmp_path / "goal.mp4")
        import json

        from rfv_service_support import GAME

        with open(video, "rb") as fh:
            clip = http.post("/api/clips", headers=ADMIN, files={"file": ("goal.mp4", fh, "video/mp4")},
                             data={"game": json.dumps(GAME), "name": "Period 2 goal"}).json()
        job = http.post(f"/api/clips/{clip['id']}/jobs", headers=ADMIN).json()
        while http.get(f"/api/jobs/{job['id']}", headers=ADMIN).json()["state"] != "succeeded":
            assert time.monotonic() < deadline + 20
            time.sleep(0.05)
        yield base, clip, http
    srv.should_exit = True
    th.join(10)
    app.state.database.dispose()


def test_review_ui_end_to_end(server, tmp_path):
    sync_api = pytest.importorskip("playwright.sync_api")
    base, clip, http = server
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            errors = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(base + "/ui/")
            page.fill("#token", JUDGE["Authorization"].split()[1])
            page.click("#signin")
            page.wait_for_selector("#whoami:has-text('judge judy (judge)')")
            page.click(f"#clips li[data-clip-id='{clip['id']}']")
            page.wait_for_selector("#events li.event")
            assert page.locator("#events li.event").count() == 2
            assert page.locator("#timeline .tick").count() == 2
            page.click("#events li.event >> nth=0")  # the goal, decisive frame 15

            def frame_shown(n: int) -> None:
                page.wait_for_function(
                    "n => { const i = document.querySelector('#frame-img');"
                    " return i.dataset.frame == String(n) && i.complete && i.naturalWidth === 320; }", arg=n)

            frame_shown(15)
            assert "906" in page.text_content("#event-facts") and "2.1 cm" in page.text_content("#event-facts")
            page.click("#next-frame")
            frame_shown(16)
            page.click("#prev-frame")
            page.click("#prev-frame")
            frame_shown(14)
            assert page.text_content("#frame-no") == "14"
            page.keyboard.press("ArrowRight")
            frame_shown(15)
            before = page.get_attribute("#frame-img", "src")
            page.uncheck("#layer-lines")
            page.wait_for_function("s => document.querySelector('#frame-img').src !== s", arg=before)
            frame_shown(15)
            page.check("#layer-lines")
            page.click("#zoom-goal")
            page.wait_for_function("() => { const z = document.querySelector('#zoom-img');"
                                   " return !z.hidden && z.complete && z.naturalWidth === 480; }")
            page.screenshot(path=str(tmp_path / "review.png"))

            page.fill("#note", "puck never fully across")
            page.click("#decide-overturn")
            page.wait_for_selector("#audit tbody tr[data-decision-id] td.decision:has-text('overturn')")
            page.wait_for_selector("#status:has-text('decision recorded: overturn')")

            page.reload()
            page.wait_for_selector("#audit tbody tr[data-decision-id]")
            row = page.text_content("#audit tbody tr[data-decision-id]")
            assert "overturn" in row and "judge judy" in row and "puck never fully across" in row
            frame_shown(15)
            assert errors == []
        finally:
            browser.close()
    trail = http.get("/api/decisions", headers=ADMIN).json()
    assert [(d["decision"], d["note"]) for d in trail] == [("overturn", "puck never fully across")]


def test_review_ui_hides_decisions_from_a_viewer(server):
    sync_api = pytest.importorskip("playwright.sync_api")
    base, clip, _http = server
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        try:
            page = browser.new_page()
            page.goto(base + "/ui/")
            page.fill("#token", "tok-viewer")
            page.click("#signin")
            page.wait_for_selector("#whoami:has-text('(viewer)')")
            page.click(f"#clips li[data-clip-id='{clip['id']}']")
            page.click("#events li.event >> nth=0")
            page.wait_for_selector("#event-pane:not([hidden])")
            assert not page.is_visible("#decide-confirm")
            assert "Only a judge" in page.text_content("#decide-note")
            page.fill("#token", "wrong")
            page.click("#signin")
            page.wait_for_selector("#status:has-text('sign-in failed: 401')")
        finally:
            browser.close()
