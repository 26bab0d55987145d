"""End-to-end: the web review UI in headless Debian Chromium (Python playwright) against a live server.

Loads a clip, opens an event, steps frames, toggles a layer, zooms on the goal
line, records a decision, reloads, and finds the decision still there.
"""

from __future__ import annotations

import json
import os
import time

import httpx
import pytest
from rfv_service_support import (ADMIN, CHROMIUM, GAME, JUDGE, TOKENS, VIEWER, FakeAnalyze, make_video, serving,
                                 signed_in_page)

pytestmark = [
    pytest.mark.skipif(not os.path.exists(CHROMIUM), reason=f"{CHROMIUM} is missing (apt-get install chromium)"),
]


@pytest.fixture
def server(tmp_path):
    pytest.importorskip("uvicorn")
    from rulesfromvideo.service.settings import Settings

    settings = Settings(data_dir=tmp_path / "data", database_url=f"sqlite:///{tmp_path / 'ui.db'}", tokens=TOKENS,
                        job_heartbeat_s=0.05)
    with serving(settings, FakeAnalyze()) as (base, _app), httpx.Client(base_url=base, timeout=30) as http:
        deadline = time.monotonic() + 40
        video = make_video(tmp_path / "goal.mp4")
        with open(video, "rb") as fh:
            clip = http.post("/api/clips", headers=ADMIN, files={"file": ("goal.mp4", fh, "video/mp4")},
                             data={"game": json.dumps(GAME), "name": "Period 2 goal"}).json()
        job = http.post(f"/api/clips/{clip['id']}/jobs", headers=ADMIN).json()
        while http.get(f"/api/jobs/{job['id']}", headers=ADMIN).json()["state"] != "succeeded":
            assert time.monotonic() < deadline
            time.sleep(0.05)
        yield base, clip, http


def test_review_ui_end_to_end(server, tmp_path):
    sync_api = pytest.importorskip("playwright.sync_api")
    base, clip, http = server
    with sync_api.sync_playwright() as pw, \
            signed_in_page(pw, base, JUDGE, "judge judy (judge)", {"width": 1400, "height": 900}) as (page, errors):
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
    trail = http.get("/api/decisions", headers=ADMIN).json()
    assert [(d["decision"], d["note"]) for d in trail] == [("overturn", "puck never fully across")]


def test_review_ui_hides_decisions_from_a_viewer(server):
    sync_api = pytest.importorskip("playwright.sync_api")
    base, clip, _http = server
    with sync_api.sync_playwright() as pw, \
            signed_in_page(pw, base, VIEWER, "(viewer)", {"width": 1280, "height": 720}) as (page, _errors):
        page.click(f"#clips li[data-clip-id='{clip['id']}']")
        page.click("#events li.event >> nth=0")
        page.wait_for_selector("#event-pane:not([hidden])")
        assert not page.is_visible("#decide-confirm")
        assert "Only a judge" in page.text_content("#decide-note")
        page.fill("#token", "wrong")
        page.click("#signin")
        page.wait_for_selector("#status:has-text('sign-in failed: 401')")
