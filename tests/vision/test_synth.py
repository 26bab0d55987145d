"""synth_clip writes a consistent clip/game/truth triple; perfect tracks; YOLO export."""

from __future__ import annotations

import json

import numpy as np
import pytest

from vision.sim.export_yolo import export_yolo
from vision.sim.plays import make_play
from vision.sim.synth import list_cameras, list_scenarios, synth_clip, truth_to_tracks

W, H, DUR = 320, 180, 0.5


@pytest.fixture(scope="module")
def clip(tmp_path_factory):
    out = tmp_path_factory.mktemp("synth")
    info = synth_clip("offside_pass", "broadcast", 2, out / "a", width=W, height=H, duration_s=DUR)
    return out, info


def test_three_files_with_consistent_frame_counts(clip):
    from vision.video import probe

    out, info = clip
    d = out / "a"
    assert {p.name for p in d.iterdir()} >= {"clip.mp4", "game.json", "truth.json"}
    truth = json.loads((d / "truth.json").read_text())
    n = int(round(DUR * 30))
    fps, w, h, frames = probe(d / "clip.mp4")
    assert (w, h, frames) == (W, H, n) and info["frames"] == n == len(truth["frames"])
    assert [f["frame"] for f in truth["frames"]] == list(range(n))
    f0 = truth["frames"][0]
    assert np.array(f0["camera"]["K"]).shape == (3, 3) and np.array(f0["H_image_from_rink"]).shape == (3, 3)
    assert {"x", "y", "z", "visible", "in_frame"} <= set(f0["puck"])
    p0 = f0["players"][0]
    assert {"id", "team", "role", "blades", "footprint", "stick_blade", "visible"} <= set(p0)
    assert len(f0["players"]) == 12  # 5 skaters + goalkeeper per team
    game = json.loads((d / "game.json").read_text())
    from rulesfromvideo.game import GameDescriptor

    GameDescriptor.from_dict(game)
    # The jerseys worn, as game.json names them: red (#c8102e) against navy (#0b3d91) by default.
    assert truth["kits"] == {"draw": "classic", "home": "#c8102e", "away": "#0b3d91"}
    assert [game["teams"][t]["color"] for t in ("home", "away")] == ["#c8102e", "#0b3d91"]


def test_homography_maps_the_puck_to_its_pixel(clip):
    out, _ = clip
    fr = json.loads((out / "a" / "truth.json").read_text())["frames"][3]
    K, R, t = (np.array(fr["camera"][k]) for k in ("K", "R", "t"))
    pk = fr["puck"]
    xc = K @ (R @ [pk["x"], pk["y"], 0.0] + t)  # pinhole part (H has no distortion)
    q = np.array(fr["H_image_from_rink"]) @ [pk["x"], pk["y"], 1.0]
    assert np.allclose(q[:2] / q[2], xc[:2] / xc[2], atol=1e-2)


def test_same_seed_same_truth_bytes(clip, tmp_path):
    out, _ = clip
    synth_clip("offside_pass", "broadcast", 2, tmp_path / "b", width=W, height=H, duration_s=DUR)
    assert (tmp_path / "b" / "truth.json").read_bytes() == (out / "a" / "truth.json").read_bytes()


def test_multi_camera_subfolders(tmp_path):
    info = synth_clip("goal", "broadcast,goalcam", 1, tmp_path, width=160, height=90, duration_s=0.2)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["broadcast", "goalcam"]
    a, b = (json.loads((tmp_path / c / "truth.json").read_text()) for c in ("broadcast", "goalcam"))
    assert a["frames"][2]["puck"] == {**b["frames"][2]["puck"], "visible": a["frames"][2]["puck"]["visible"],
                                      "in_frame": a["frames"][2]["puck"]["in_frame"],
                                      "visible_fraction": a["frames"][2]["puck"]["visible_fraction"]}
    assert len(info["clips"]) == 2


def test_truth_to_tracks_round_trip(clip):
    out, _ = clip
    truth = json.loads((out / "a" / "truth.json").read_text())
    from_truth = list(truth_to_tracks(truth))
    from_play = list(truth_to_tracks(make_play("offside_pass", 2)))[: len(from_truth)]
    assert len(from_truth) == len(truth["frames"])
    for a, b in zip(from_truth, from_play):
        assert a["frame"] == b["frame"] and a["puck"]["measured"] is True
        assert abs(a["puck"]["x"] - b["puck"]["x"]) < 2e-6 and abs(a["puck"]["y"] - b["puck"]["y"]) < 2e-6
        assert a["puck"].get("touch") == b["puck"].get("touch")
        assert [p["id"] for p in a["players"]] == [p["id"] for p in b["players"]]
        assert np.allclose([p["blades"] for p in a["players"]], [p["blades"] for p in b["players"]], atol=2e-6)
    touches = [r for r in from_play if "touch" in r["puck"]]
    assert touches and touches[0]["puck"]["touch"]["team"] in ("home", "away")


def test_events_carry_over_to_the_clip():
    p = make_play("offside_pass", 2)
    e = p.events[0]
    assert e["type"] == "zone_entry" and e["frame"] == round(e["t"] * 30)


def test_yolo_export_labels_in_range(clip, tmp_path):
    out, _ = clip
    counts = export_yolo([out / "a"], tmp_path / "ds", every=5)
    assert counts["images"] == 3 and counts["boxes"] > 0 and counts["landmark_points"] > 0
    for key, per_obj in (("detect", 5), ("pose", 5 + 4 * 3)):
        assert (tmp_path / "ds" / key / "data.yaml").exists()
        rows = [r.split() for f in (tmp_path / "ds" / key / "labels").rglob("*.txt") for r in f.read_text().splitlines()]
        assert rows
        for r in rows:
            assert len(r) == per_obj
            vals = np.array(r[1:], float)
            assert np.all((vals[:4] >= 0.0) & (vals[:4] <= 1.0))
            kp = vals[4:].reshape(-1, 3)
            assert np.all((kp[:, :2] >= 0.0) & (kp[:, :2] <= 1.0)) and set(kp[:, 2]) <= {0.0, 1.0, 2.0}
    lm = [r.split() for f in (tmp_path / "ds" / "landmarks" / "labels").rglob("*.txt") for r in f.read_text().splitlines()]
    assert lm and all(np.all(np.array(r[1:5], float) <= 1.0) for r in lm)


def test_listings():
    assert "offside_pass" in list_scenarios() and "broadcast" in list_cameras()
    with pytest.raises(ValueError):
        synth_clip("offside_pass", "nope", 0, "/tmp/never")
