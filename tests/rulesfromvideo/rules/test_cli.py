"""``rules`` and ``eval events`` subcommands: outputs, exit codes, clear errors."""

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from rules_clip import Clip, still  # noqa: E402

from rulesfromvideo.evaluation.events import add_eval_events_parser, score_events  # noqa: E402
from rulesfromvideo.rules.cli import add_rules_parser  # noqa: E402


def parser():
    p = argparse.ArgumentParser(prog="rulesfromvideo")
    sub = p.add_subparsers(dest="command", required=True)
    add_rules_parser(sub)
    ev = sub.add_parser("eval")
    add_eval_events_parser(ev.add_subparsers(dest="what", required=True))
    return p


def run(argv):
    args = parser().parse_args(argv)
    return args.func(args)


def write_clip(tmp_path):
    c = Clip(1.6)
    c.puck = lambda t: (10.0 * t, 2.0)
    c.player(1, "home", still(-1.0, 2.0)).player(2, "home", still(9.2, 6.0))
    c.player(20, "away", still(20.0, -5.0))
    c.touches = {0: 1}
    tracks = tmp_path / "tracks.jsonl"
    tracks.write_text("\n".join(json.dumps(r) for r in c.records()) + "\n")
    game = tmp_path / "game.json"
    game.write_text(json.dumps(c.game))
    return tracks, game


def test_rules_writes_events_json(tmp_path, capsys):
    tracks, game = write_clip(tmp_path)
    out = tmp_path / "out"
    assert run(["rules", str(tracks), "--game", str(game), "--out", str(out)]) == 0
    ev = json.loads((out / "events.json").read_text())["events"]
    entry = [e for e in ev if e["type"] == "zone_entry"]
    assert len(entry) == 1 and entry[0]["verdict"] == "offside"  # 903 b1
    assert set(entry[0]) == {"type", "t", "frame", "team", "verdict", "confidence", "margin_m",
                             "rule", "evidence"}
    assert "sigma_m" in entry[0]["evidence"]
    # extra rule outputs go to extra_events.json (docs/interfaces.md)
    assert json.loads((out / "extra_events.json").read_text()) == {"events": []}


def test_rules_blade_sigma_option(tmp_path, capsys):
    """Blades 38 cm over the line: offside on exact blades, undecided with a 0.25 m blade model error."""
    tracks, game = write_clip(tmp_path)
    out = tmp_path / "out"
    assert run(["rules", str(tracks), "--game", str(game), "--out", str(out), "--blade-sigma-m", "0.25"]) == 0
    entry = [e for e in json.loads((out / "events.json").read_text())["events"] if e["type"] == "zone_entry"]
    assert entry[0]["verdict"] == "inconclusive" and entry[0]["evidence"]["sigma_m"] >= 0.25
    assert run(["rules", str(tracks), "--game", str(game), "--out", str(out), "--blade-sigma-m", "-1"]) == 2
    assert "--blade-sigma-m" in capsys.readouterr().err


def test_rules_image_size_takes_the_blade_error_from_each_frames_camera(tmp_path, capsys):
    """With --calibration and --image-size the tracks are our vision's: the deciding blade's
    sigma is its covariance projected on x (as analyze does), small for a camera looking
    across the blue line, larger than vision's isotropic 0.25 m for one looking along the rink."""
    import numpy as np

    from vision.sim.camera import Camera

    tracks, game = write_clip(tmp_path)
    n = len(tracks.read_text().splitlines())
    sigmas = {}
    cams = {"side": Camera.from_look_at([9.0, -20.0, 6.0], [9.0, 4.0, 0.0], 40.0, 1280, 720),
            "end": Camera.from_look_at([-12.0, 6.0, 6.0], [9.0, 6.0, 0.0], 40.0, 1280, 720)}
    for name, cam in cams.items():
        H = np.linalg.inv(cam.H_image_from_rink()).tolist()
        calib = tmp_path / f"calibration_{name}.jsonl"
        calib.write_text("".join(json.dumps({"frame": f, "H_rink_from_image": H, "quality": 1.0})
                                 + "\n" for f in range(n)))
        out = tmp_path / name
        assert run(["rules", str(tracks), "--game", str(game), "--out", str(out), "--calibration", str(calib),
                    "--image-size", "1280x720"]) == 0
        entry = [e for e in json.loads((out / "events.json").read_text())["events"] if e["type"] == "zone_entry"]
        sigmas[name] = entry[0]["evidence"]["sigma_m"]
    assert sigmas["side"] < 0.25 < sigmas["end"], sigmas
    assert run(["rules", str(tracks), "--game", str(game), "--out", str(tmp_path), "--image-size", "1280x720"]) == 2
    assert "--calibration" in capsys.readouterr().err
    assert run(["rules", str(tracks), "--game", str(game), "--out", str(tmp_path), "--calibration",
                str(tmp_path / "calibration_side.jsonl"), "--image-size", "wide"]) == 2
    assert "WxH" in capsys.readouterr().err


def test_rules_bad_input_exit_2(tmp_path, capsys):
    tracks, game = write_clip(tmp_path)
    assert run(["rules", str(tmp_path / "nope.jsonl"), "--game", str(game), "--out", str(tmp_path)]) == 2
    assert "no such file" in capsys.readouterr().err
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"rules": "ipc-sledge", "teams": {"home": {"color": "#c8102e", "attacks": "+x"}, "away": {"color": "#0b3d91"}}, "rink": {"length_m": 5}}))
    assert run(["rules", str(tracks), "--game", str(bad), "--out", str(tmp_path)]) == 2
    assert "rink" in capsys.readouterr().err
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"frame": 0, "t": 0.0, "puck": null}\n{not json\n')
    assert run(["rules", str(broken), "--game", str(game), "--out", str(tmp_path)]) == 2
    assert "line 2" in capsys.readouterr().err


def test_eval_events_on_truth(tmp_path, capsys):
    tracks, game = write_clip(tmp_path)
    out = tmp_path / "out"
    assert run(["rules", str(tracks), "--game", str(game), "--out", str(out)]) == 0
    pred = json.loads((out / "events.json").read_text())["events"]
    clip = tmp_path / "clip"
    clip.mkdir()
    truth = [{**pred[0], "t": pred[0]["t"] + 1 / 60}]
    (clip / "truth.json").write_text(json.dumps({"fps": 30.0, "events": truth}))
    assert run(["eval", "events", "--truth", str(clip), "--pred", str(out)]) == 0
    text = capsys.readouterr().out
    assert "zone_entry" in text
    s = score_events(truth, pred, 30.0)["zone_entry"]
    assert s["recall"] == 1.0 and s["verdict_accuracy"] == 1.0
    assert abs(s["median_time_error_frames"] - 0.5) < 1e-6
    assert run(["eval", "events", "--truth", str(tmp_path / "none"), "--pred", str(out)]) == 2
