"""Live overlay feed: WebSocket messages, SSE events, drop counting, auth, processors, CLI parsers."""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
import pytest
from fastapi.testclient import TestClient
from rfv_service_support import IMAGE_FROM_RINK, TOKENS, make_video
from starlette.websockets import WebSocketDisconnect

from rulesfromvideo.service.app import create_app
from rulesfromvideo.service.live import FixedCameraProcessor, LiveFeed, overlay_message
from rulesfromvideo.service.settings import Settings


@pytest.fixture
def live_settings(tmp_path):
    return Settings(data_dir=tmp_path / "data", database_url=f"sqlite:///{tmp_path / 'live.db'}", tokens=TOKENS)


def _profile():
    from calibration.fixed import CameraProfile

    xy_rink = np.array([[-20.0, -10.0], [20.0, -10.0], [20.0, 10.0], [-20.0, 10.0]])
    hom = np.c_[xy_rink, np.ones(4)] @ IMAGE_FROM_RINK.T
    return CameraProfile.from_point_pairs(hom[:, :2] / hom[:, 2:], xy_rink, "fixed", 320, 240)


def test_websocket_gets_one_overlay_message_per_frame(live_settings, tmp_path):
    from calibration.rink import RinkModel, RinkSpec

    video = make_video(tmp_path / "live.mp4", n=12)
    proc = FixedCameraProcessor(_profile(), RinkModel(RinkSpec.for_layout("ipc")))
    feed = LiveFeed(str(video), proc, queue_size=2, realtime=True, wait_for_clients=1)
    app = create_app(live_settings, live_feed=feed)
    with TestClient(app) as c, c.websocket_connect("/api/live/ws") as ws:
        ws.send_text(json.dumps({"token": "tok-broadcast"}))
        msgs = []
        while True:
            m = json.loads(ws.receive_text())
            msgs.append(m)
            if m["type"] == "end":
                break
        frames = [m for m in msgs if m["type"] == "frame"]
        assert [m["frame"] for m in frames] == list(range(12))  # real speed: nothing needed dropping
        assert [m["frame"] for m in frames] == sorted(m["frame"] for m in frames)
        f = frames[-1]
        assert abs(f["t"] - 11 / 30) < 1e-6
        np.testing.assert_allclose(np.array(f["H_rink_from_image"]) / f["H_rink_from_image"][2][2],
                                   np.linalg.inv(IMAGE_FROM_RINK), atol=1e-6)
        (u0, _v0), (u1, _v1) = f["lines_px"]["goal_line_+x"]
        assert abs(u0 - (160 + 5 * 26.0)) < 0.2 and abs(u1 - u0) < 0.2  # x = 26 m at 5 px/m
        assert abs(f["lines_px"]["centre_line"][0][0] - 160) < 0.2
        st = c.get("/api/live/status", headers={"Authorization": "Bearer tok-viewer"}).json()
        assert st["frames_read"] == 12 and st["frames_read"] == st["frames_processed"] + st["frames_dropped"]
        assert st["latency_ms"]["n"] == len(frames) and st["latency_ms"]["p50"] >= 0
        # Nothing vanishes unaccounted: a message the client was too slow for is counted as its drop.
        assert len(frames) + st["client_drops"] == st["frames_processed"]
        assert msgs[-1]["stats"]["frames_read"] == 12


def test_slow_processing_drops_and_counts_frames(live_settings, tmp_path):
    video = make_video(tmp_path / "fast.mp4", n=40)

    def slow(frame, i, t):
        time.sleep(0.03)
        return overlay_message(i, t, None, 0.0, None, [], None)

    feed = LiveFeed(str(video), slow, queue_size=1, realtime=False)
    app = create_app(live_settings, live_feed=feed)
    with TestClient(app) as c:
        assert feed.ended.wait(20)
        st = c.get("/api/live/status", headers={"Authorization": "Bearer tok-viewer"}).json()
    assert st["frames_read"] == 40
    assert st["frames_dropped"] > 0
    assert st["frames_processed"] + st["frames_dropped"] == 40


def test_events_are_server_sent(live_settings, tmp_path):
    video = make_video(tmp_path / "ev.mp4", n=8)

    def with_event(frame, i, t):
        msg = overlay_message(i, t, None, 0.0, None, [], None)
        if i == 5:
            msg["events"] = [{"type": "zone_entry", "t": t, "frame": i, "team": "home", "verdict": "offside",
                              "confidence": 0.8, "margin_m": 0.12, "rule": "903 b1", "evidence": {}}]
        return msg

    feed = LiveFeed(str(video), with_event, queue_size=2, realtime=True, wait_for_clients=1)
    app = create_app(live_settings, live_feed=feed)
    with TestClient(app) as c:
        r = c.get("/api/live/events", headers={"Authorization": "Bearer tok-broadcast"})
        assert r.status_code == 200 and r.headers["content-type"].startswith("text/event-stream")
        blocks = [b for b in r.text.split("\n\n") if b.startswith("event:")]
        kinds = [b.split("\n")[0] for b in blocks]
        assert kinds == ["event: rule", "event: end"]
        ev = json.loads(blocks[0].split("\n", 1)[1][len("data: "):])
        assert (ev["verdict"], ev["frame"], ev["rule"]) == ("offside", 5, "903 b1")


def test_calls_still_settling_at_the_end_of_the_source_are_sent(live_settings, tmp_path):
    """A processor's `flush()` (rules still waiting to settle) goes out before the end event."""
    video = make_video(tmp_path / "fl.mp4", n=6)

    class WithRules:
        def __call__(self, frame, i, t):
            return overlay_message(i, t, None, 0.0, None, [], None)

        def flush(self):
            return [{"type": "icing", "t": 0.15, "frame": 4, "team": "away", "verdict": "icing",
                     "confidence": 0.9, "margin_m": 0.3, "rule": "905 b", "evidence": {}}]

    feed = LiveFeed(str(video), WithRules(), queue_size=2, realtime=True, wait_for_clients=1)
    app = create_app(live_settings, live_feed=feed)
    with TestClient(app) as c:
        r = c.get("/api/live/events", headers={"Authorization": "Bearer tok-broadcast"})
        blocks = [b for b in r.text.split("\n\n") if b.startswith("event:")]
        assert [b.split("\n")[0] for b in blocks] == ["event: rule", "event: end"]
        ev = json.loads(blocks[0].split("\n", 1)[1][len("data: "):])
        assert (ev["type"], ev["rule"]) == ("icing", "905 b")


def test_live_auth(live_settings, tmp_path):
    video = make_video(tmp_path / "a.mp4", n=5)
    feed = LiveFeed(str(video), lambda f, i, t: overlay_message(i, t, None, 0.0, None, [], None))
    app = create_app(live_settings, live_feed=feed)
    with TestClient(app) as c:
        assert c.get("/api/live/status").status_code == 401
        assert c.get("/api/live/events").status_code == 401
        with c.websocket_connect("/api/live/ws") as ws:
            ws.send_text(json.dumps({"token": "nope"}))
            with pytest.raises(WebSocketDisconnect) as exc:
                ws.receive_text()
            assert exc.value.code == 4401
        with c.websocket_connect("/api/live/ws", headers={"Authorization": "Bearer tok-viewer"}) as ws:
            assert json.loads(ws.receive_text())["type"] in ("frame", "end")


def test_no_feed_is_404(live_settings):
    app = create_app(live_settings)
    with TestClient(app) as c:
        assert c.get("/api/live/status", headers={"Authorization": "Bearer tok-viewer"}).status_code == 404


def test_bad_sources_and_options(tmp_path):
    with pytest.raises(ValueError, match="no such file"):
        LiveFeed(str(tmp_path / "missing.mp4"), lambda f, i, t: {})
    (tmp_path / "t.txt").write_text("not a video")
    with pytest.raises(ValueError, match="cannot be opened"):
        LiveFeed(str(tmp_path / "t.txt"), lambda f, i, t: {})
    with pytest.raises(ValueError, match="queue_size"):
        LiveFeed(str(make_video(tmp_path / "q.mp4", n=2)), lambda f, i, t: {}, queue_size=5)


def test_processor_errors_are_reported_not_fatal(live_settings, tmp_path):
    video = make_video(tmp_path / "e.mp4", n=6)

    def broken(frame, i, t):
        raise RuntimeError("detector exploded")

    feed = LiveFeed(str(video), broken, realtime=False, queue_size=2)
    app = create_app(live_settings, live_feed=feed)
    with TestClient(app) as c:
        assert feed.ended.wait(10)
        st = c.get("/api/live/status", headers={"Authorization": "Bearer tok-viewer"}).json()
    assert st["process_errors"] == st["frames_processed"] > 0


def test_cli_parsers(tmp_path):
    from rulesfromvideo.service.cli import add_live_parser, add_serve_parser, build_processor

    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command", required=True)
    add_serve_parser(sub)
    add_live_parser(sub)
    a = parser.parse_args(["serve", "--port", "9000", "--data-dir", str(tmp_path)])
    assert (a.host, a.port, callable(a.func)) == ("127.0.0.1", 9000, True)
    a = parser.parse_args(["live", "rtsp://cam/stream", "--queue-size", "2"])
    assert (a.source, a.queue_size, a.host) == ("rtsp://cam/stream", 2, "127.0.0.1")
    with pytest.raises(SystemExit):
        parser.parse_args(["live", "x.mp4", "--queue-size", "3"])
    with pytest.raises(ValueError, match="--game"):
        build_processor(None, None, 30.0)
    prof = tmp_path / "cam.json"
    _profile().save(prof)
    assert isinstance(build_processor(None, prof, 30.0), FixedCameraProcessor)
    a = parser.parse_args(["live", str(tmp_path / "missing.mp4"), "--camera-profile", str(prof)])
    assert a.func(a) == 2  # a clear error, not a traceback


def test_pipeline_processor_emits_contract_shaped_messages(tmp_path):
    """The pipeline's Calibrator/FrameTracker behind the feed: one message per frame, tracks-format fields."""
    pytest.importorskip("calibration.registration")
    pytest.importorskip("vision.tracking")
    from calibration.rink import RinkModel
    from rfv_service_support import GAME

    from rulesfromvideo.game import GameDescriptor
    from rulesfromvideo.service.live import PipelineProcessor

    game = GameDescriptor.from_dict(GAME)
    proc = PipelineProcessor(game, RinkModel(game.rink_spec()), 30.0)
    frame = np.full((240, 320, 3), 200, np.uint8)  # no rink lines visible: calibration must say unknown or low
    for i in range(2):
        msg = proc(frame, i, i / 30)
        assert msg["type"] == "frame" and msg["frame"] == i
        assert set(msg) >= {"H_rink_from_image", "quality", "puck", "players", "lines_px", "puck_px"}
        assert 0.0 <= msg["quality"] <= 1.0
        assert isinstance(msg["players"], list)
        json.dumps(msg)  # JSON-ready as it is


def test_pipeline_processor_publishes_settled_rule_calls():
    """Rules run online behind the feed: the play's 903 b1 call goes out once, after it happened."""
    from types import SimpleNamespace

    from calibration.rink import RinkModel

    from rulesfromvideo.game import GameDescriptor
    from rulesfromvideo.service.live import PipelineProcessor
    from vision.sim.plays import make_play
    from vision.sim.synth import truth_to_tracks

    play = make_play("offside_pass", 1)
    game = GameDescriptor.from_dict(play.game)
    proc = PipelineProcessor(game, RinkModel(game.rink_spec()), play.fps, vision_process=False)
    recs = list(truth_to_tracks(play))
    # Perfect calibration and tracks in place of the pixel stages: this checks the rules' wiring.
    proc.calibrator = SimpleNamespace(update=lambda frame, i: SimpleNamespace(rink_from_image=np.eye(3), quality=1.0))
    proc.stage.tracker = SimpleNamespace(update=lambda frame, i, t, calib: recs[i])
    # The live rules take the vision's blade model error; the truth's blades are exact.
    from vision.tracking import BLADE_SIGMA_M
    assert proc.rules.blade_sigma_m == BLADE_SIGMA_M
    proc.rules.blade_sigma_m = 0.0
    sent = []
    for r in recs:
        msg = proc(None, r["frame"], r["t"])
        sent += [(r["t"], e) for e in msg.get("events", [])]
    entries = [(t_sent, e) for t_sent, e in sent if e["type"] == "zone_entry"]
    assert len(entries) == 1
    t_sent, e = entries[0]
    assert e["verdict"] == "offside" and e["rule"].startswith("903")
    assert t_sent >= float(e["t"]) + proc.rules.settle_s - 1e-9
    json.dumps(e)


def test_pipeline_processor_gives_the_rules_each_frames_blade_covariance():
    """As in analyze, the live rules get every player's blade error from the frame's camera
    (vision.tracking.blade_covariance_rink at his blade midpoint); none without a camera."""
    from rulesfromvideo.service.vision_worker import blade_covs_by_player
    from vision.geometry import PlaneCamera
    from vision.sim.camera import Camera
    from vision.tracking import blade_covariance_rink

    cam = Camera.from_look_at([0.0, -24.0, 9.0], [0.0, 0.0, 0.0], 50.0, 1280, 720)
    H = np.linalg.inv(cam.H_image_from_rink())
    players = [{"id": 3, "team": "home", "role": "skater", "blades": [[5.0, 1.1], [5.0, 0.9]]},
               {"id": 7, "team": None, "role": "skater", "blades": [[-9.0, -4.0], [-9.2, -4.0]]}]
    covs = blade_covs_by_player((720, 1280, 3), H, players)
    expect = blade_covariance_rink(PlaneCamera.from_homography(H, 1280, 720), np.array([[5.0, 1.0], [-9.1, -4.0]]))
    assert set(covs) == {3, 7}
    np.testing.assert_allclose(covs[3], expect[0])
    np.testing.assert_allclose(covs[7], expect[1])
    assert covs[3][0, 0] < covs[3][1, 1]  # a side camera: x better known than y
    assert blade_covs_by_player((720, 1280, 3), None, players) is None
    assert blade_covs_by_player(None, H, players) is None


def _sample_frames(n):
    from rulesfromvideo.cli import sample_paths
    from vision.video import iter_frames

    video, game_path = sample_paths()
    frames = []
    for i, f in iter_frames(video):
        if i >= n:
            break
        frames.append(f)
    return game_path, frames


def _sample_processor(n_frames, **kw):
    """(a PipelineProcessor on the sample clip's game, its first ``n_frames`` frames)."""
    from calibration.rink import RinkModel

    from rulesfromvideo.game import GameDescriptor
    from rulesfromvideo.service.live import PipelineProcessor

    game_path, frames = _sample_frames(n_frames)
    game = GameDescriptor.from_file(game_path)
    return PipelineProcessor(game, RinkModel(game.rink_spec()), 30.0, **kw), frames


def test_vision_process_gives_the_in_process_results_frame_by_frame():
    """Vision and rules in their own process see the frames they are handed exactly as the
    in-process stages do: the same puck and players, frame for frame."""
    local, frames = _sample_processor(12, vision_process=False)
    remote, _ = _sample_processor(0)
    try:
        assert remote.worker.wait_ready(60.0), remote.worker.error
        for i, f in enumerate(frames):
            want = local(f, i, i / 30.0)
            got = remote(f, i, i / 30.0)
            assert got["H_rink_from_image"] == want["H_rink_from_image"] and got["lines_px"] == want["lines_px"]
            assert remote.worker.wait_idle(60.0)
            index, puck, players = remote.worker.latest
            assert index == i and puck == want["puck"] and players == want["players"]
            # The message names the frame its objects are from (the previous one's, here).
            assert got["objects_frame"] == (i - 1 if i else None)
        assert want["players"] and want["objects_frame"] == len(frames) - 1
        assert remote.worker.frames_sent == len(frames) and remote.worker.frames_skipped == 0
    finally:
        remote.close()
    assert remote.worker._proc.poll() is not None  # closed: the process is gone


def test_busy_vision_process_skips_frames_and_the_lines_keep_every_frame():
    proc, frames = _sample_processor(8)
    try:
        assert proc.worker.wait_ready(60.0)
        msgs = [proc(f, i, i / 30.0) for i, f in enumerate(frames)]  # no waiting: faster than vision
        assert all(m["H_rink_from_image"] is not None and m["lines_px"] for m in msgs)
        assert proc.worker.frames_sent + proc.worker.frames_skipped == len(frames)
        assert proc.worker.frames_skipped > 0
        for m in msgs:
            if m["objects_frame"] is not None:
                assert m["objects_frame"] < m["frame"]
                assert m["objects_lag_s"] == pytest.approx((m["frame"] - m["objects_frame"]) / 30.0, abs=1e-4)
    finally:
        proc.close()


def test_vision_process_that_dies_leaves_a_calibration_only_feed():
    """The overlay's lines must not stop because the vision process was killed."""
    proc, frames = _sample_processor(4)
    try:
        assert proc.worker.wait_ready(60.0)
        proc.worker._proc.kill()
        proc.worker._proc.wait()
        msgs = [proc(f, i, i / 30.0) for i, f in enumerate(frames)]
        deadline = time.monotonic() + 10.0
        while proc.worker.error is None and time.monotonic() < deadline:
            time.sleep(0.05)
        m = proc(frames[-1], len(frames), len(frames) / 30.0)
        assert all(x["lines_px"] for x in msgs + [m])
        assert "vision process" in m["vision_error"] and m["objects_frame"] is None
        assert proc.flush() == []
    finally:
        proc.close()
