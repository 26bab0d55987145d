"""eval calibration on hand-made truth and predictions with known errors."""

import argparse
import json

import numpy as np
import pytest

from calibration.evaluation import add_eval_calibration_parser, evaluate_clip, summarise
from vision.sim.camera import Camera

W, H = 640, 360


def _write_clip(tmp_path, preds, dist=None, camera="blueline"):
    cam = Camera.from_look_at([8.67, -22.0, 8.0], [8.67, -1.0, 0.0], 70.0, W, H, dist=dist)
    frames = [{"frame": i, "t": i / 30, "camera": cam.to_dict(), "H_image_from_rink": cam.H_image_from_rink().tolist()}
              for i in range(len(preds))]
    truth = {"version": 1, "fps": 30.0, "width": W, "height": H, "camera": camera, "seed": 0,
             "rink": {"layout": "ipc", "length_m": 60, "width_m": 30}, "frames": frames, "events": []}
    clip = tmp_path / "clip"
    clip.mkdir()
    (clip / "truth.json").write_text(json.dumps(truth))
    out = tmp_path / "pred"
    out.mkdir()
    rink_from_image = np.linalg.inv(cam.H_image_from_rink())
    with open(out / "calibration.jsonl", "w") as fh:
        for i, p in enumerate(preds):
            if p is None:
                rec = {"frame": i, "H_rink_from_image": None, "quality": 0.0}
            else:
                shift_m, q = p
                T = np.array([[1, 0, shift_m], [0, 1, 0], [0, 0, 1.0]])  # rink-space shift along x
                rec = {"frame": i, "H_rink_from_image": (T @ rink_from_image).tolist(), "quality": q}
            fh.write(json.dumps(rec) + "\n")
    return clip, out


def test_known_errors_completeness_wrong_and_jitter(tmp_path):
    preds = [(0.0, 1.0), (0.10, 1.0), None, (2.0, 0.9), (2.0, 0.2)]
    clip, out = _write_clip(tmp_path, preds)
    r = evaluate_clip(clip, out)
    assert r["eligible"] == 5 and r["calibrated_eligible"] == 4
    assert r["confident_wrong"] == 1  # 2 m off at quality 0.9; the 0.2 one is not confident
    s = summarise([r])["blueline"]
    assert s["completeness"] == pytest.approx(0.8)
    # Errors are exactly 0, 10, 200, 200 cm per grid point.
    e = r["errors_cm"]
    assert sorted(set(np.round(e, 6))) == [0.0, 10.0, 200.0]
    n = len(e) // 4
    assert np.isclose(np.percentile(e, 95), 200.0) and np.count_nonzero(np.isclose(e, 200.0)) == 2 * n
    # Static camera: jitter between consecutive calibrated frames 0->1 is 10 cm, 3->4 is 0.
    assert r["static"]
    assert sorted(np.round(r["jitter_cm"], 6)) == [0.0, 10.0]


def test_blue_line_camera_error_within_2_m_of_the_blue_line(tmp_path):
    # The blue-line target is measured within 2 m of a blue line (0.5 m grid). A
    # prediction stretched 1 % along x is off by 1 % of |x|: 6.7-10.7 cm there (median at
    # the line, 8.67 cm), whatever else the view shows.
    clip, out = _write_clip(tmp_path, [(0.0, 1.0)])
    rec = json.loads((out / "calibration.jsonl").read_text())
    rec["H_rink_from_image"] = (np.diag([1.01, 1.0, 1.0]) @ np.asarray(rec["H_rink_from_image"])).tolist()
    (out / "calibration.jsonl").write_text(json.dumps(rec) + "\n")
    r = evaluate_clip(clip, out)
    b = r["blue_errors_cm"]
    assert len(b) > 0 and b.min() >= 6.67 - 1e-6 and b.max() <= 10.67 + 1e-6
    assert len(r["goal_errors_cm"]) == 0
    s = summarise([r])["blueline"]
    assert s["blue_median_cm"] == pytest.approx(8.67, abs=0.3) and s["goal_median_cm"] is None


def test_distortion_is_applied_to_truth(tmp_path):
    # With lens distortion in the truth, the undistorted pinhole H is no longer exact.
    clip, out = _write_clip(tmp_path, [(0.0, 1.0)], dist=[-0.08, 0.01, 0, 0, 0])
    r = evaluate_clip(clip, out)
    assert np.median(r["errors_cm"]) > 1.0


def test_cli_prints_table_and_rejects_missing_prediction(tmp_path, capsys):
    clip, out = _write_clip(tmp_path, [(0.0, 1.0), (0.0, 1.0)])
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="what")
    add_eval_calibration_parser(sub)
    args = parser.parse_args(["calibration", "--truth", str(clip), "--pred", str(out), "--json", str(tmp_path / "s.json")])
    assert args.func(args) == 0
    text = capsys.readouterr().out
    assert "blueline" in text and "100.0%" in text
    assert json.loads((tmp_path / "s.json").read_text())["blueline"]["median_cm"] == pytest.approx(0.0, abs=1e-6)
    args = parser.parse_args(["calibration", "--truth", str(clip), "--pred", str(tmp_path / "nowhere")])
    assert args.func(args) == 2


def test_cli_scores_clip_folders_at_any_depth(tmp_path, capsys):
    # A multi-camera play keeps one clip folder per camera under the play's folder:
    # suite/play/broadcast and suite/single are both scored, each against the same
    # relative path under --pred.
    import shutil

    clip, out = _write_clip(tmp_path, [(0.0, 1.0), (0.10, 1.0)])
    suite, pred = tmp_path / "suite", tmp_path / "preds"
    for rel in ("play/broadcast", "single"):
        shutil.copytree(clip, suite / rel)
        shutil.copytree(out, pred / rel)
    parser = argparse.ArgumentParser()
    add_eval_calibration_parser(parser.add_subparsers(dest="what"))
    args = parser.parse_args(["calibration", "--truth", str(suite), "--pred", str(pred), "--json", str(tmp_path / "s.json")])
    assert args.func(args) == 0
    s = json.loads((tmp_path / "s.json").read_text())
    assert s["blueline"]["clips"] == 2 and s["blueline"]["frames"] == 4


def test_cli_follows_symlinked_clip_folders(tmp_path):
    # A suite assembled from links to clips rendered elsewhere.
    clip, out = _write_clip(tmp_path, [(0.0, 1.0)])
    suite, pred = tmp_path / "suite", tmp_path / "preds"
    suite.mkdir()
    pred.mkdir()
    (suite / "linked").symlink_to(clip, target_is_directory=True)
    (pred / "linked").symlink_to(out, target_is_directory=True)
    parser = argparse.ArgumentParser()
    add_eval_calibration_parser(parser.add_subparsers(dest="what"))
    args = parser.parse_args(["calibration", "--truth", str(suite), "--pred", str(pred), "--json", str(tmp_path / "s.json")])
    assert args.func(args) == 0
    assert json.loads((tmp_path / "s.json").read_text())["blueline"]["clips"] == 1
