"""report.html evidence (line crop, overhead mini-map) and overlay.mp4 (live call banner, frame count).

The report is built from the sample clip's exact truth (tracks from
`truth_to_tracks`, calibration from the true homography), so the drawings can
be checked against known positions.
"""

from __future__ import annotations

import json
import re
import shutil

import cv2
import numpy as np
import pytest

from calibration.rink import RinkModel
from rulesfromvideo.cli import sample_paths
from rulesfromvideo.game import GameDescriptor
from rulesfromvideo.overlay import banner_event, call_text, draw_banner
from rulesfromvideo.pipeline import analyze
from rulesfromvideo.report import MINIMAP_CM_PER_PX, event_line, minimap, write_report
from vision.sim.synth import truth_to_tracks
from vision.video import VideoWriter, iter_frames, probe


@pytest.fixture(scope="module")
def sample():
    video, game_path = sample_paths()
    truth = json.loads((video.parent / "truth.json").read_text())
    game = GameDescriptor.from_file(game_path)
    return video, game_path, truth, game, RinkModel(game.rink_spec())


@pytest.fixture(scope="module")
def truth_run(sample, tmp_path_factory):
    """An analyze-style folder holding the sample's truth as tracks.jsonl / calibration.jsonl."""
    video, _, truth, _, _ = sample
    out = tmp_path_factory.mktemp("truth_run")
    with open(out / "tracks.jsonl", "w") as fh:
        for rec in truth_to_tracks(truth):
            fh.write(json.dumps(rec) + "\n")
    with open(out / "calibration.jsonl", "w") as fh:
        for fr in truth["frames"]:
            H = np.linalg.inv(np.asarray(fr["H_image_from_rink"], float))
            fh.write(json.dumps({"frame": fr["frame"], "H_rink_from_image": H.tolist(), "quality": 1.0}) + "\n")
    return out


def test_event_line_is_the_attacked_ends_line(sample):
    """The deciding line is at the end the event's team attacks (206, 903 blue line; 906 goal line)."""
    _, _, truth, game, rink = sample
    ev = truth["events"][0]  # a zone entry
    end = game.attack_dir(ev["team"])
    name, x, y = event_line(ev, game, rink, puck_xy=(end * 20.0, 3.5))
    assert (name, x, y) == ("blue line", end * rink.spec.blue_line_x_m, 3.5)
    name, x, _ = event_line({**ev, "type": "goal", "team": "home"}, game, rink)
    assert (name, x) == ("goal line", game.attack_dir("home") * rink.spec.goal_line_x_m)
    assert event_line({**ev, "type": "crease"}, game, rink) is None


def test_report_holds_line_crop_and_minimap_for_the_event(sample, truth_run):
    video, _, truth, game, rink = sample
    ev = truth["events"][0]
    page = write_report(truth_run, video, game, rink, [ev]).read_text()
    section = page[page.index("<section class='event'>"):]
    for cls in ("frame", "linecrop", "minimap"):
        assert re.search(rf'<img class="{cls}"[^>]*src="data:image/(png|jpeg);base64,[A-Za-z0-9+/=]{{200,}}"',
                         section), cls
    # With the true homography the blue line at the puck's y is in view: the crop is from the video.
    assert "blue line (video)" in section


def test_minimap_draws_the_puck_and_the_line_where_they_are(sample):
    _, _, truth, game, rink = sample
    fr = truth["frames"][truth["events"][0]["frame"]]
    rec = next(r for r in truth_to_tracks(truth) if r["frame"] == fr["frame"])
    line = event_line(truth["events"][0], game, rink, (rec["puck"]["x"], rec["puck"]["y"]))
    img = minimap(rink, rec, line)
    td = rink.topdown_from_rink(MINIMAP_CM_PER_PX)
    u, v, w = td @ np.array([rec["puck"]["x"], rec["puck"]["y"], 1.0])
    assert tuple(img[int(round(v / w)), int(round(u / w))]) == (0, 0, 0)  # measured puck: black
    lu, lv, lw = td @ np.array([line[1], 0.0, 1.0])
    b, g, r = img[int(round(lv / lw)), int(round(lu / lw))]
    assert r > 150 and g < 80 and b < 80  # the deciding line in red


def test_banner_shows_the_last_call_for_a_few_seconds():
    ev = {"type": "zone_entry", "t": 1.5, "frame": 45, "team": "away", "verdict": "offside", "margin_m": 0.38}
    assert call_text(ev) == "zone entry: OFFSIDE (away) +38 cm"
    assert banner_event([ev], ev["t"] - 0.01) is None
    assert banner_event([ev], ev["t"] + 1.0) is ev
    assert banner_event([ev], ev["t"] + 10.0) is None
    later = {**ev, "t": ev["t"] + 0.5, "verdict": "onside"}
    assert banner_event([later, ev], ev["t"] + 1.0) is later
    img = draw_banner(np.zeros((180, 320, 3), np.uint8), ev)
    assert img[2, 160].any() and not img[170, 160].any()


def test_overlay_has_as_many_frames_as_the_clip(sample, tmp_path):
    """analyze --overlay writes overlay.mp4 after events.json, one frame per clip frame."""
    video, game_path, _, _, _ = sample
    short = tmp_path / "short.mp4"
    n = 8
    with VideoWriter(short, 30.0, 640, 360) as vw:
        for i, frame in iter_frames(video):
            if i >= n:
                break
            vw.write(cv2.resize(frame, (640, 360), interpolation=cv2.INTER_AREA))
    shutil.copy(game_path, tmp_path / "game.json")
    out = tmp_path / "out"
    res = analyze(short, tmp_path / "game.json", out, overlay=True, progress=False)
    assert res.complete and res.frames == n
    assert not (out / "overlay_error.txt").exists()
    assert probe(short)[3] == n
    assert sum(1 for _ in iter_frames(out / "overlay.mp4")) == n
    assert probe(out / "overlay.mp4")[1:3] == (640, 360)
    assert (out / "events.json").is_file() and (out / "report.html").is_file()


def test_blade_ellipse_is_the_k_sigma_contour():
    """Every outline point p satisfies (p − c)ᵀ Σ⁻¹ (p − c) = k²; for a diagonal Σ the outline
    spans ±k·σ on each axis (hand-computed: 3 × 0.3 m and 3 × 0.1 m)."""
    from rulesfromvideo.report import blade_ellipse_rink

    c = np.array([9.0, 2.0])
    S = np.diag([0.3 ** 2, 0.1 ** 2])
    pts = blade_ellipse_rink(c, S, 3.0, n=360)
    np.testing.assert_allclose(pts.max(axis=0) - c, [0.9, 0.3], atol=1e-3)
    np.testing.assert_allclose(pts.min(axis=0) - c, [-0.9, -0.3], atol=1e-3)
    r = np.array([[np.cos(0.7), -np.sin(0.7)], [np.sin(0.7), np.cos(0.7)]])
    S_rot = r @ S @ r.T
    d = blade_ellipse_rink(c, S_rot, 3.0) - c
    np.testing.assert_allclose(np.einsum("ni,ij,nj->n", d, np.linalg.inv(S_rot), d), 9.0)


def test_decisive_frame_rings_each_player_with_his_3_sigma_blade_error(sample):
    """With ``blade_k_sigma`` the overlay outlines each player's k-sigma ellipse of the vision's
    blade error (vision.tracking.blade_covariance_rink) in his team colour; without, only the blades."""
    from rulesfromvideo.report import blade_ellipse_rink, draw_frame_overlay
    from vision.geometry import PlaneCamera
    from vision.tracking import blade_covariance_rink

    _, _, truth, _, rink = sample
    fr = truth["frames"][40]
    H = np.linalg.inv(np.asarray(fr["H_image_from_rink"], float))
    w, h = truth["width"], truth["height"]
    blank = np.full((h, w, 3), 255, np.uint8)
    mid = np.array([6.0, -2.0])
    rec = {"puck": None, "players": [{"id": 1, "team": "home", "role": "skater",
                                      "blades": [[6.0, -1.875], [6.0, -2.125]]}]}

    class NoLines:
        markings = ()

    plain = draw_frame_overlay(blank, NoLines(), H, rec)
    ringed = draw_frame_overlay(blank, NoLines(), H, rec, blade_k_sigma=3.0)
    S = blade_covariance_rink(PlaneCamera.from_homography(H, w, h), mid[None])[0]
    outline = blade_ellipse_rink(mid, S, 3.0, n=24)
    uvw = np.c_[outline, np.ones(len(outline))] @ np.asarray(fr["H_image_from_rink"], float).T
    uv = np.round(uvw[:, :2] / uvw[:, 2:]).astype(int)
    home_bgr = np.array([46, 16, 200])
    near = [np.abs(ringed[v - 1:v + 2, u - 1:u + 2].reshape(-1, 3).astype(int) - home_bgr).sum(axis=1).min() < 200
            for u, v in uv]
    assert np.mean(near) > 0.9  # the ring runs through the projected 3σ contour
    assert not np.array_equal(plain, ringed)
    assert all(np.all(plain[v, u] == 255) for u, v in uv)  # and only with blade_k_sigma


def test_evidence_puck_position_is_read_from_each_rules_key():
    """Zone entries and goals name ``puck_xy_rink_m``, icings the point at the goal line."""
    from rulesfromvideo.report import evidence_puck_xy

    assert evidence_puck_xy({"evidence": {"puck_xy_rink_m": [9.1, 2.0]}}) == [9.1, 2.0]
    assert evidence_puck_xy({"evidence": {"puck_xy_at_goal_line_rink_m": [26.0, -4.0]}}) == [26.0, -4.0]
    assert evidence_puck_xy({"evidence": {"puck_xy": [1.0, 2.0]}}) == [1.0, 2.0]
    assert evidence_puck_xy({"evidence": {"puck_xy_rink_m": [float("nan"), 2.0]}}) is None
    assert evidence_puck_xy({"evidence": {}}) is None and evidence_puck_xy({}) is None


def test_report_draws_every_event_in_one_pass_whatever_their_order(sample, truth_run):
    """Events out of frame order each get their own decisive frame, and the zoom at the puck
    that the rules' evidence names (``puck_xy_rink_m``)."""
    video, _, truth, game, rink = sample
    recs = {r["frame"]: r for r in truth_to_tracks(truth)}
    base = truth["events"][0]
    events = []
    for fi in (90, 10, 50):
        pk = recs[fi]["puck"]
        events.append({**base, "frame": fi, "t": fi / 30.0,
                       "evidence": {"puck_xy_rink_m": [pk["x"], pk["y"]]}})
    page = write_report(truth_run, video, game, rink, events).read_text()
    sections = page.split("<section class='event'>")[1:]
    assert len(sections) == 3
    assert [int(re.search(r"frame (\d+); rings", s).group(1)) for s in sections] == [10, 50, 90]
    assert all('<img class="crop"' in s for s in sections)
    assert not (truth_run / "report.html.tmp").exists()
