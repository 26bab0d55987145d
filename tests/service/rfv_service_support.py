"""Helpers for the review service tests: a tiny real video, contract output files, a fake analyze.

The fake analyze writes `events.json`, `tracks.jsonl` and `calibration.jsonl`
exactly in the design contract's format, with a known homography
(`IMAGE_FROM_RINK`: 5 px per metre, centre ice at the image centre), so the
evidence images can be checked pixel by pixel.
"""

from __future__ import annotations

import json
import threading
import time
from contextlib import contextmanager
from pathlib import Path

import cv2
import numpy as np
from fastapi.testclient import TestClient

from rulesfromvideo.service.app import create_app
from rulesfromvideo.service.deps import get_analyze_fn
from rulesfromvideo.service.settings import Settings

W, H, N_FRAMES, FPS = 320, 240, 30, 30.0
IMAGE_FROM_RINK = np.array([[5.0, 0.0, 160.0], [0.0, -5.0, 120.0], [0.0, 0.0, 1.0]])
RINK_FROM_IMAGE = np.linalg.inv(IMAGE_FROM_RINK)
GAME = {"rules": "ipc-sledge", "rink": {"layout": "ipc", "length_m": 60, "width_m": 30},
        "teams": {"home": {"color": "#c8102e", "attacks": "+x"}, "away": {"color": "#0b3d91"}}}
TOKENS = {
    "tok-admin": {"role": "admin", "name": "ada"},
    "tok-judge": {"role": "judge", "name": "judge judy"},
    "tok-viewer": {"role": "viewer", "name": "vic"},
    "tok-broadcast": {"role": "broadcast", "name": "tv"},
}
ADMIN = {"Authorization": "Bearer tok-admin"}
JUDGE = {"Authorization": "Bearer tok-judge"}
VIEWER = {"Authorization": "Bearer tok-viewer"}
BROADCAST = {"Authorization": "Bearer tok-broadcast"}

EVENTS = [
    {"type": "goal", "t": 0.5, "frame": 15, "team": "home", "verdict": "goal", "confidence": 0.93,
     "margin_m": 0.021, "rule": "906", "evidence": {"puck_xy": [26.1, 0.0], "sigma_m": 0.01}},
    {"type": "zone_entry", "t": 0.2, "frame": 6, "team": "away", "verdict": "inconclusive", "confidence": 0.4,
     "margin_m": -0.003, "rule": "903 b1", "evidence": {"player": 7}},
]


def make_video(path: Path, n: int = N_FRAMES, w: int = W, h: int = H, fps: float = FPS) -> Path:
    """A small mp4 whose frame i has grey level 8·i (decodable by OpenCV's ffmpeg backend)."""
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"mp4v"), fps, (w, h))
    assert writer.isOpened()
    for i in range(n):
        writer.write(np.full((h, w, 3), min(255, 8 * i), np.uint8))
    writer.release()
    return path


def puck_at(frame: int) -> dict:
    """The fixture's puck: moves along +x from 20 m, reaching 26.1 m at frame 15."""
    return {"x": round(20.0 + 6.1 * frame / 15, 4), "y": 0.0, "measured": True}


def write_outputs(out_dir: Path, n: int, events=EVENTS) -> None:
    with open(out_dir / "tracks.jsonl", "w") as fh:
        for i in range(n):
            rec = {"frame": i, "t": round(i / FPS, 6), "puck": puck_at(i),
                   "players": [{"id": 7, "team": "away", "role": "skater", "blades": [[10.0, 2.0], [10.4, 2.0]]}]}
            fh.write(json.dumps(rec) + "\n")
    with open(out_dir / "calibration.jsonl", "w") as fh:
        for i in range(n):
            # Frame 20 has no calibration ("unknown"), as the contract allows.
            Hm = None if i == 20 else RINK_FROM_IMAGE.tolist()
            fh.write(json.dumps({"frame": i, "H_rink_from_image": Hm, "quality": 0.0 if Hm is None else 0.9}) + "\n")
    (out_dir / "events.json").write_text(json.dumps({"events": events}))


class FakeAnalyze:
    """An `AnalyzeFn` that writes contract fixtures, with knobs for the lifecycle tests.

    Attributes:
        gate: when set, the analysis waits at `gate_frame` until `release` is set.
        error: an exception to raise instead of finishing.
        events: what events.json will hold (None: write no events.json).
    """

    def __init__(self) -> None:
        self.gate = False
        self.gate_frame = 10
        self.reached = threading.Event()
        self.release = threading.Event()
        self.error: Exception | None = None
        self.events = EVENTS
        self.calls: list[int] = []
        self.profiles: list[dict | None] = []  # the camera profile handed to each call

    def __call__(self, ctx) -> None:
        self.calls.append(ctx.job_id)
        path = ctx.camera_profile_path
        self.profiles.append(json.loads(path.read_text()) if path is not None else None)
        n = ctx.frames_total or N_FRAMES
        for i in range(n):
            ctx.report(i, n)
            if self.gate and i == self.gate_frame:
                self.reached.set()
                while not self.release.wait(0.02):
                    ctx.check_cancel()
            ctx.check_cancel()
        if self.error is not None:
            raise self.error
        write_outputs(ctx.out_dir, n, self.events) if self.events is not None else None
        ctx.report(n, n)


@contextmanager
def running_app(settings: Settings, fake: FakeAnalyze):
    app = create_app(settings)
    app.dependency_overrides[get_analyze_fn] = lambda: fake
    with TestClient(app) as client:
        yield client
    app.state.database.dispose()


# --- browser tests: a real server on loopback, Debian's chromium ---------------------------------
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"]


@contextmanager
def serving(settings: Settings, fake: FakeAnalyze | None = None):
    """The app under uvicorn on a free 127.0.0.1 port, in a thread; yields (base URL, app)."""
    import socket

    import uvicorn

    app = create_app(settings)
    if fake is not None:
        app.dependency_overrides[get_analyze_fn] = lambda: fake
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    srv = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="on"))
    th = threading.Thread(target=srv.run, daemon=True)
    th.start()
    deadline = time.monotonic() + 20
    while not srv.started:
        assert time.monotonic() < deadline, "server did not start"
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}", app
    finally:
        srv.should_exit = True
        th.join(10)
        app.state.database.dispose()


@contextmanager
def signed_in_page(pw, base: str, headers: dict, who: str, viewport: dict):
    """A headless Chromium page on the UI, signed in with a token; yields (page, page errors)."""
    browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
    try:
        page = browser.new_page(viewport=viewport)
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(base + "/ui/")
        page.fill("#token", headers["Authorization"].split()[1])
        page.click("#signin")
        page.wait_for_selector(f"#whoami:has-text('{who}')")
        yield page, errors
    finally:
        browser.close()


def wait_job(client, job_id: int, states=("succeeded", "failed", "cancelled"), timeout: float = 20.0) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        job = client.get(f"/api/jobs/{job_id}", headers=VIEWER).json()
        if job["state"] in states:
            return job
        time.sleep(0.02)
    raise AssertionError(f"job {job_id} still {job['state']} after {timeout} s")


def upload(client, path: Path, game=GAME, headers=ADMIN, **form):
    with open(path, "rb") as fh:
        return client.post("/api/clips", headers=headers,
                           files={"file": (path.name, fh, "video/mp4")},
                           data={"game": json.dumps(game), **{k: str(v) for k, v in form.items()}})


