"""The end-to-end suite: its definition, and `eval suite` on a rendered 2-clip mini-suite.

The mini-suite's predictions are built from its own truth (perfect tracks,
the true homography, the truth events) in the folders where
`rulesfromvideo batch 'SUITE/**/clip.mp4' --out PRED` puts them, so every figure
is known: zero calibration error, full recall, F1 = 1; then one verdict is
flipped and the figures must say so.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from rulesfromvideo.batch import out_dir_for
from rulesfromvideo.cli import main
from rulesfromvideo.evaluation.suite import CLOSE_ENTRY_M, entry_margin_errors_cm, evaluate_suite
from rulesfromvideo.suite import SUITE, SUITE_SEED_BASE, clip_dirs, render_suite
from vision.sim.camera import PRESETS
from vision.sim.looks import HELD_OUT_LOOKS
from vision.sim.plays import SCENARIOS
from vision.sim.synth import truth_to_tracks


def test_suite_covers_every_scenario_and_preset():
    assert len(SUITE) >= 24
    assert {c.scenario for c in SUITE} == set(SCENARIOS)
    assert {cam for c in SUITE for cam in c.cameras} == set(PRESETS)
    assert any(len(c.cameras) > 1 for c in SUITE)  # one play filmed by synchronised cameras
    assert sum(c.look is not None for c in SUITE) >= 3 and {c.look for c in SUITE if c.look} <= set(HELD_OUT_LOOKS)
    seeds = [c.seed for c in SUITE]
    assert len(set(seeds)) == len(seeds) and all(SUITE_SEED_BASE <= s < SUITE_SEED_BASE + 100 for s in seeds)
    # Sledge hockey on the other rinks it is played on: NHL and IIHF layouts, side cameras and a goal camera.
    assert {c.layout for c in SUITE} == {None, "nhl", "iihf"}
    assert {c.cameras[0] for c in SUITE if c.layout} >= {"broadcast", "goalcam", "blueline"}


def test_suite_has_games_in_other_jerseys_with_white_road_kits():
    """Every clip before 2026-12-07 wore red against navy; the drawn-kit games see the other
    kits, white road kits on white ice among them, for each kind of call and every preset but
    the broadcast-and-goal pair."""
    from vision.sim.players import KIT_COLOURS_BGR, draw_kits

    drawn = [c for c in SUITE if c.kits == "drawn"]
    assert len(drawn) >= 6 and {c.kits for c in SUITE} == {"classic", "drawn"}
    pairs = [draw_kits(c.seed) for c in drawn]
    assert sum(away == KIT_COLOURS_BGR["white"] for _, away in pairs) >= 2
    classic = {(46, 16, 200), (91, 38, 12)}  # the classic red and navy, as B, G, R
    assert sum(not ({home, away} <= classic) for home, away in pairs) == len(pairs)
    families = {"zone": ("side", "pass", "carr"), "icing": ("icing",), "goal": ("goal",)}
    for fam, keys in families.items():
        assert any(any(k in c.scenario for k in keys) for c in drawn), fam
    assert {c.cameras[0] for c in drawn} == {"blueline", "broadcast", "goalcam", "overhead"}


def test_suite_clips_keep_their_names_and_seeds():
    """Clips added later are appended: a rendered suite resumes, and older figures stay comparable."""
    assert [(c.name, c.seed) for c in SUITE[:25]][::12] == [
        ("s00_onside_carried_blueline", 7000), ("s12_icing_goalkeeper_broadcast", 7012),
        ("s24_icing_blueline", 7024)]
    assert SUITE[25].name == "s25_offside_pass_broadcast_nhl" and SUITE[25].layout == "nhl"
    assert all(c.kits == "classic" for c in SUITE[:29])
    assert SUITE[29].name == "s29_offside_carried_blueline_nhl_kits" and SUITE[29].kits == "drawn"


def test_batch_gives_every_suite_clip_its_own_folder(tmp_path):
    videos = [tmp_path / d / "clip.mp4" for c in SUITE for d, _ in clip_dirs(c)]
    outs = {out_dir_for(v, tmp_path / "pred", videos) for v in videos}
    assert len(outs) == len(videos)


def test_batch_folders_stay_apart_for_two_multi_camera_plays(tmp_path):
    # Two plays filmed by the same presets: `a/broadcast/clip.mp4` and `b/broadcast/clip.mp4`
    # share stem and parent name; sharing a folder, the second would be skipped as complete.
    videos = [tmp_path / p / cam / "clip.mp4" for p in ("a", "b") for cam in ("broadcast", "goalcam")]
    videos.append(tmp_path / "c" / "clip.mp4")
    outs = [out_dir_for(v, tmp_path / "pred", videos) for v in videos]
    assert len(set(outs)) == len(videos)
    assert outs[0].name == "a__broadcast__clip" and outs[-1].name == "c__clip"
    # A run without the clash keeps the short names the suite's folders have always had.
    single = videos[:2] + videos[-1:]
    assert [out_dir_for(v, tmp_path / "pred", single).name for v in single] == \
        ["broadcast__clip", "goalcam__clip", "c__clip"]


def manifest_events(suite: Path) -> list[dict]:
    """Every truth event of the suite's clips, contract types only."""
    manifest = json.loads((suite / "suite.json").read_text())
    return [e for c in manifest["clips"] for e in json.loads((suite / c["dir"] / "truth.json").read_text())["events"]
            if e["type"] in ("zone_entry", "icing", "goal", "crease")]


def _perfect_predictions(suite: Path, pred: Path) -> list[Path]:
    manifest = json.loads((suite / "suite.json").read_text())
    videos = [suite / e["dir"] / "clip.mp4" for e in manifest["clips"]]
    dirs = []
    for e, v in zip(manifest["clips"], videos):
        truth = json.loads((suite / e["dir"] / "truth.json").read_text())
        d = out_dir_for(v, pred, videos)
        d.mkdir(parents=True)
        with open(d / "tracks.jsonl", "w") as fh:
            for rec in truth_to_tracks(truth):
                fh.write(json.dumps(rec) + "\n")
        with open(d / "calibration.jsonl", "w") as fh:
            for fr in truth["frames"]:
                H = np.linalg.inv(np.asarray(fr["H_image_from_rink"], float)).tolist()
                fh.write(json.dumps({"frame": fr["frame"], "H_rink_from_image": H, "quality": 1.0}) + "\n")
        (d / "events.json").write_text(json.dumps({"events": truth["events"]}))
        dirs.append(d)
    return dirs


@pytest.fixture(scope="module")
def mini_suite(tmp_path_factory):
    root = tmp_path_factory.mktemp("mini_suite")
    manifest = render_suite(root / "suite", width=320, height=180, only=2, max_duration_s=2.4, fps=10.0,
                            log=lambda s: None)
    return root, manifest


def test_mini_suite_evaluates_perfect_predictions_as_perfect(mini_suite, capsys):
    root, manifest = mini_suite
    assert [e["seed"] for e in manifest["clips"]] == [SUITE[0].seed, SUITE[1].seed]
    _perfect_predictions(root / "suite", root / "pred")
    rc = main(["eval", "suite", "--suite", str(root / "suite"), "--pred", str(root / "pred"),
               "--json", str(root / "figures.json")])
    assert rc == 0
    table = capsys.readouterr().out
    assert SUITE[0].name in table and "[all]" in table
    res = json.loads((root / "figures.json").read_text())
    assert len(res["clips"]) == 2 and not res["missing"]
    allr = res["pooled"]["all"]
    assert allr["clips"] == 2
    # The true 3×3 ignores the lens distortion of the simulated cameras: a few cm, not zero.
    assert allr["calib_median_cm"] < 10.0 and allr["completeness"] == 1.0 and allr["confident_wrong"] == 0
    assert allr["puck_recall"] == 1.0 and allr["puck_precision"] == 1.0 and allr["idf1"] == 1.0
    assert allr["zone_entry_truth"] == 2 and allr["zone_entry_f1"] == 1.0
    assert allr["median_dt_frames"] == 0.0 and allr["wrong_goal_calls"] == 0
    assert allr["wrong_decisive_calls"] == 0 and allr["decisive_calls"] == sum(
        e["verdict"] != "inconclusive" for e in manifest_events(root / "suite"))
    assert {"blueline", "broadcast"} <= set(res["pooled"])


def test_a_wrong_verdict_costs_f1_and_a_missing_clip_is_reported(mini_suite, tmp_path):
    root, _ = mini_suite
    dirs = _perfect_predictions(root / "suite", tmp_path / "pred")
    ev = json.loads((dirs[0] / "events.json").read_text())
    ev["events"][0]["verdict"] = "offside" if ev["events"][0]["verdict"] == "onside" else "onside"
    (dirs[0] / "events.json").write_text(json.dumps(ev))
    res = evaluate_suite(root / "suite", tmp_path / "pred")
    assert res["clips"][0]["zone_entry_f1"] == 0.0 and res["clips"][1]["zone_entry_f1"] == 1.0
    assert res["pooled"]["all"]["zone_entry_f1"] == 0.5
    assert res["clips"][0]["wrong_decisive_calls"] == 1 and res["clips"][1]["wrong_decisive_calls"] == 0
    # Open instead of wrong: no longer a wrong call; a phantom offside far from any entry is one.
    ev["events"][0]["verdict"] = "inconclusive"
    ev["events"].append({**ev["events"][0], "t": ev["events"][0]["t"] + 5.0, "verdict": "offside"})
    (dirs[0] / "events.json").write_text(json.dumps(ev))
    res = evaluate_suite(root / "suite", tmp_path / "pred")
    assert res["clips"][0]["wrong_decisive_calls"] == 1
    for f in dirs[1].iterdir():
        f.unlink()
    res = evaluate_suite(root / "suite", tmp_path / "pred")
    assert res["missing"] == [json.loads((root / "suite" / "suite.json").read_text())["clips"][1]["name"]]


def test_a_folder_of_synth_clips_without_a_manifest_is_scored_clip_by_clip(mini_suite, tmp_path, capsys):
    """Fresh renders made one by one with ``synth`` (no ``suite.json``) are scored as a suite: each
    clip's scenario, camera, seed and layout read from its truth.json, the same figures as with the
    manifest; a folder with no clips at all is a clear error."""
    import shutil

    from rulesfromvideo.suite import load_manifest

    root, manifest = mini_suite
    renders = tmp_path / "renders"
    shutil.copytree(root / "suite", renders, ignore=shutil.ignore_patterns("suite.json"))
    derived = load_manifest(renders)
    assert [(c["name"], c["dir"], c["scenario"], c["camera"], c["seed"]) for c in derived["clips"]] == \
        [(c["name"], c["dir"], c["scenario"], c["camera"], c["seed"]) for c in manifest["clips"]]
    assert (derived["width"], derived["height"]) == (320, 180)
    _perfect_predictions(root / "suite", tmp_path / "pred")  # batch's folder names: the same clips
    with_manifest = evaluate_suite(root / "suite", tmp_path / "pred")
    without = evaluate_suite(renders, tmp_path / "pred")
    assert not without["missing"]
    assert without["pooled"]["all"] == with_manifest["pooled"]["all"]
    assert [c["kits"] for c in derived["clips"]] == ["classic", "classic"]  # from truth.json
    (tmp_path / "empty").mkdir()
    rc = main(["eval", "suite", "--suite", str(tmp_path / "empty"), "--pred", str(tmp_path / "pred")])
    assert rc == 2 and "no suite.json and no clip folders" in capsys.readouterr().err


def test_close_entry_margin_errors_are_predicted_minus_true_over_matched_close_entries():
    """903 b1 margins, hand-made: a close offside read 4 cm deeper and a close onside read 2 cm
    short (inconclusive still states its margin); an entry far from the line, one without a
    predicted margin, one matched by no prediction and an icing are left out."""
    truth = [
        {"type": "zone_entry", "t": 1.00, "verdict": "offside", "margin_m": 0.30},
        {"type": "zone_entry", "t": 5.00, "verdict": "onside", "margin_m": -0.50},
        {"type": "zone_entry", "t": 9.00, "verdict": "onside", "margin_m": -(CLOSE_ENTRY_M + 7.0)},
        {"type": "zone_entry", "t": 13.0, "verdict": "offside", "margin_m": 0.10},
        {"type": "zone_entry", "t": 17.0, "verdict": "offside", "margin_m": 0.20},
        {"type": "icing", "t": 21.0, "verdict": "icing", "margin_m": 0.05},
    ]
    pred = [
        {"type": "zone_entry", "t": 1.01, "verdict": "offside", "margin_m": 0.34},
        {"type": "zone_entry", "t": 5.02, "verdict": "inconclusive", "margin_m": -0.52},
        {"type": "zone_entry", "t": 9.00, "verdict": "onside", "margin_m": -7.5},
        {"type": "zone_entry", "t": 13.0, "verdict": "inconclusive", "margin_m": None},
        {"type": "icing", "t": 21.0, "verdict": "icing", "margin_m": 0.50},
    ]
    assert entry_margin_errors_cm(truth, pred) == pytest.approx([4.0, -2.0])
    assert entry_margin_errors_cm(truth, []) == []


def test_suite_reports_the_close_entry_margin_error(mini_suite, tmp_path):
    """Perfect predictions read both clips' close entries exactly; one read 6 cm deep shows as
    that clip's 6 cm error and bias, and the pooled median of 6 and 0 is 3 cm."""
    root, _ = mini_suite
    dirs = _perfect_predictions(root / "suite", tmp_path / "pred")
    res = evaluate_suite(root / "suite", tmp_path / "pred")
    assert [c["entry_margin_n"] for c in res["clips"]] == [1, 1]
    assert res["pooled"]["all"]["entry_margin_abs_err_cm"] == 0.0
    ev = json.loads((dirs[0] / "events.json").read_text())
    entry = next(e for e in ev["events"] if e["type"] == "zone_entry")
    entry["margin_m"] += 0.06
    (dirs[0] / "events.json").write_text(json.dumps(ev))
    res = evaluate_suite(root / "suite", tmp_path / "pred")
    assert res["clips"][0]["entry_margin_abs_err_cm"] == pytest.approx(6.0)
    assert res["clips"][0]["entry_margin_bias_cm"] == pytest.approx(6.0)
    assert res["clips"][1]["entry_margin_abs_err_cm"] == 0.0
    assert res["pooled"]["all"]["entry_margin_abs_err_cm"] == pytest.approx(3.0)
    assert res["pooled"]["all"]["entry_margin_n"] == 2


def test_batch_gives_a_video_the_venue_profile_beside_it(tmp_path, monkeypatch):
    """A goal camera's `camera_profile.json` in the video's folder reaches `analyze`; others get none."""
    import rulesfromvideo.pipeline as pipeline
    from rulesfromvideo.batch import run_batch

    for name in ("goalcam", "broadcast"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "clip.mp4").write_bytes(b"")
        (tmp_path / name / "game.json").write_text("{}")
    (tmp_path / "goalcam" / "camera_profile.json").write_text("{}")
    seen = {}

    def fake_analyze(video, game, out, **kw):
        seen[Path(video).parent.name] = kw.get("camera_profile_path")
        raise RuntimeError("not analysed in this test")

    monkeypatch.setattr(pipeline, "analyze", fake_analyze)
    outcomes = run_batch(str(tmp_path / "*" / "clip.mp4"), tmp_path / "pred")
    assert {o["status"] for o in outcomes} == {"failed"}
    assert seen == {"goalcam": str(tmp_path / "goalcam" / "camera_profile.json"), "broadcast": None}


def test_synth_writes_the_clicked_venue_profile_beside_a_goal_camera_clip(tmp_path):
    """A goal camera has no cold registration (docs/calibration.md): `synth`, like `synth-suite`,
    writes the profile an operator would click beside its clip, and none beside the others.
    The profile maps the clip's pixels to the rink as the truth's own camera does."""
    from calibration.fixed import CameraProfile

    out = tmp_path / "play"
    assert main(["synth", "--scenario", "goal", "--camera", "broadcast,goalcam", "--seed", "7", "--out", str(out),
                 "--width", "320", "--height", "180", "--duration", "0.1"]) == 0
    assert not (out / "broadcast" / "camera_profile.json").exists()
    profile = CameraProfile.load(out / "goalcam" / "camera_profile.json")
    assert profile
    truth = json.loads((out / "goalcam" / "truth.json").read_text())
    rink_from_image_true = np.linalg.inv(np.asarray(truth["frames"][0]["H_image_from_rink"], dtype=np.float64))
    xy_image_px = np.array([[160.0, 150.0], [80.0, 120.0], [240.0, 120.0], [160.0, 100.0]])
    q = np.c_[xy_image_px, np.ones(len(xy_image_px))] @ rink_from_image_true.T
    xy_rink_true_m = q[:, :2] / q[:, 2:]
    assert np.max(np.linalg.norm(profile(xy_image_px) - xy_rink_true_m, axis=1)) < 0.10


def test_synth_of_a_play_that_does_not_fit_its_seed_and_rink_is_a_clear_error(tmp_path, capsys):
    """A scripted play whose truth does not give its intended call (``no_goal_post`` on the NHL
    rink, seed 7001: its truth has no goal event at all) is said in one line, exit 2, nothing
    written — not a traceback."""
    from vision.sim.plays import PlayIntentError, make_play

    with pytest.raises(PlayIntentError, match="intended"):
        make_play("no_goal_post", 7001, layout="nhl")
    out = tmp_path / "play"
    assert main(["synth", "--scenario", "no_goal_post", "--camera", "goalcam", "--seed", "7001", "--layout", "nhl",
                 "--out", str(out), "--width", "320", "--height", "180"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: no_goal_post:") and "intended" in err and "Traceback" not in err
    assert not (out / "clip.mp4").exists()


def test_games_in_other_jerseys_are_pooled_apart(mini_suite, tmp_path):
    """A manifest's drawn-kit clips get their own pooled row, and each clip row names its kits."""
    import shutil

    root, _ = mini_suite
    suite = tmp_path / "suite"
    shutil.copytree(root / "suite", suite)
    manifest = json.loads((suite / "suite.json").read_text())
    assert [c["kits"] for c in manifest["clips"]] == ["classic", "classic"]
    manifest["clips"][1]["kits"] = "drawn"
    (suite / "suite.json").write_text(json.dumps(manifest))
    _perfect_predictions(suite, tmp_path / "pred")
    res = evaluate_suite(suite, tmp_path / "pred")
    assert [r["kits"] for r in res["clips"]] == ["classic", "drawn"]
    assert res["pooled"]["drawn kits"]["clips"] == 1 and res["pooled"]["all"]["clips"] == 2
    assert res["pooled"]["drawn kits"]["zone_entry_truth"] == 1
