"""The main job end to end on the embedded sample clip (simulator truth), and its failure modes.

These run the real calibration, vision and rules stages on the first frames of
the sample (rendered by our simulator, with exact truth beside it).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from rulesfromvideo.cli import main, sample_paths
from rulesfromvideo.pipeline import AnalyzeError, analyze
from rulesfromvideo.schema import read_calibration_jsonl, read_events_json, read_tracks_jsonl

N = 12  # frames analysed per test: enough for calibration and tracking to settle


@pytest.fixture(scope="module")
def sample() -> tuple[Path, Path, dict]:
    video, game = sample_paths()
    truth = json.loads((video.parent / "truth.json").read_text())
    return video, game, truth


@pytest.fixture(scope="module")
def sample_run(sample, tmp_path_factory):
    video, game, _ = sample
    out = tmp_path_factory.mktemp("sample_out")
    result = analyze(video, game, out, progress=False, max_frames=N)
    return result, out


def test_contract_files_are_written_and_valid(sample_run):
    """design.md: events.json, tracks.jsonl, calibration.jsonl (one line per frame), report.html."""
    result, out = sample_run
    assert result.frames == N and result.complete
    calib = list(read_calibration_jsonl(out / "calibration.jsonl"))
    tracks = list(read_tracks_jsonl(out / "tracks.jsonl"))
    assert [c.frame for c in calib] == list(range(N))
    assert [t.frame for t in tracks] == list(range(N))
    assert all(abs(t.t - t.frame / 30.0) < 1e-6 for t in tracks)
    read_events_json(out / "events.json")  # raises on any contract violation
    run = json.loads((out / "run.json").read_text())
    assert run["complete"] is True and run["frames_processed"] == N
    page = (out / "report.html").read_text()
    assert page.startswith("<!doctype html>") and "data:image/png;base64," in page


def test_calibration_agrees_with_truth(sample, sample_run):
    """Every calibrated frame maps the truth's image points of visible ice back within 0.5 m."""
    _, _, truth = sample
    _, out = sample_run
    grid = np.array([[x, y] for x in range(-28, 29, 2) for y in range(-13, 14, 2)], float)
    checked = 0
    for c in read_calibration_jsonl(out / "calibration.jsonl"):
        if c.H_rink_from_image is None:
            continue
        h_true = np.array(truth["frames"][c.frame]["H_image_from_rink"], float)
        uvw = np.c_[grid, np.ones(len(grid))] @ h_true.T
        uv = uvw[:, :2] / uvw[:, 2:]
        w, h = truth["width"], truth["height"]
        inside = (uvw[:, 2] > 0) & (uv[:, 0] > 50) & (uv[:, 0] < w - 50) & (uv[:, 1] > 50) & (uv[:, 1] < h - 50)
        back = np.c_[uv[inside], np.ones(inside.sum())] @ np.array(c.H_rink_from_image).T
        err = np.linalg.norm(back[:, :2] / back[:, 2:] - grid[inside], axis=1)
        assert np.median(err) < 0.5, f"frame {c.frame}: median rink error {np.median(err):.2f} m"
        checked += 1
    assert checked >= N // 2


def _sample_cameras(sample, sample_run):
    """The sample run's observations and cameras, frame 5's calibration made null:
    (obs, calib records, {frame: H_rink_from_image or None}, width, height)."""
    from rulesfromvideo.observations import Observations

    _, _, truth = sample
    _, out = sample_run
    calib = [json.loads(line) for line in (out / "calibration.jsonl").read_text().splitlines()]
    calib[5]["H_rink_from_image"] = None
    obs = Observations.from_tracks_jsonl(out / "tracks.jsonl")
    return obs, calib, {r["frame"]: r["H_rink_from_image"] for r in calib}, truth["width"], truth["height"]


def test_blade_covariances_follow_each_frames_camera(sample, sample_run):
    """The rules get our vision's blade error per player and frame from that frame's camera:
    the sample's side camera (on the −y side, design.md) knows x better than y; a frame whose
    calibration is null gets NaN (the rules then fall back to the isotropic error)."""
    from rulesfromvideo.pipeline import blade_covariances_from_cameras
    from vision.geometry import PlaneCamera
    from vision.tracking import blade_covariance_rink

    obs, calib, H_by_frame, w, h = _sample_cameras(sample, sample_run)
    cov = blade_covariances_from_cameras(obs, H_by_frame, w, h)
    assert cov.shape == (len(obs.player_ids), obs.n_frames, 2, 2)
    mid = obs.blade_mid_rink_m()
    seen = np.isfinite(mid).all(axis=2)
    assert seen.sum() >= 2 * N
    assert np.isnan(cov[:, 5]).all()
    for k, i in zip(*np.nonzero(seen)):
        if i == 5 or calib[i]["H_rink_from_image"] is None:
            continue
        cam = PlaneCamera.from_homography(np.array(calib[i]["H_rink_from_image"]), w, h)
        np.testing.assert_allclose(cov[k, i], blade_covariance_rink(cam, mid[k, i][None])[0])
        assert cov[k, i, 0, 0] < cov[k, i, 1, 1]


def test_blade_covariances_take_each_players_kit_factor(sample, sample_run):
    """With the game's kit factors each player's covariance is the model's times his team's factor
    squared; a player of no clear team (``player_team`` "") takes the None entry."""
    from rulesfromvideo.pipeline import blade_covariances_from_cameras

    obs, _, H_by_frame, w, h = _sample_cameras(sample, sample_run)
    plain = blade_covariances_from_cameras(obs, H_by_frame, w, h)
    obs.player_team = obs.player_team.copy()
    obs.player_team[0] = ""
    factors = {"home": 0.5, "away": 2.0, None: 3.0}
    cov = blade_covariances_from_cameras(obs, H_by_frame, w, h, factor_by_team=factors)
    for k, team in enumerate(obs.player_team):
        f = factors.get(str(team), factors[None])
        np.testing.assert_allclose(cov[k], f ** 2 * plain[k])
    assert np.isfinite(cov[0]).any()


def test_the_puck_takes_a_pixel_of_its_frames_camera_as_a_shared_error(sample, sample_run):
    """``analyze``'s rules add ``vision.puck.puck_sigma_rink_m`` at the puck on every frame with a
    camera (``puck_sigma_from_cameras``): NaN on a frame whose calibration is null or without
    a puck position."""
    from rulesfromvideo.pipeline import puck_sigma_from_cameras
    from vision.puck import puck_sigma_rink_m

    obs, calib, H_by_frame, w, h = _sample_cameras(sample, sample_run)
    s = puck_sigma_from_cameras(obs, H_by_frame, w, h)
    assert s.shape == (obs.n_frames,) and np.isnan(s[5])
    has = np.isfinite(obs.puck_xy_rink_m).all(axis=1)
    assert np.isnan(s[~has]).all() and has.sum() >= N // 2
    for i in np.flatnonzero(has):
        if i == 5 or calib[i]["H_rink_from_image"] is None:
            continue
        H = np.array(calib[i]["H_rink_from_image"])
        assert s[i] == pytest.approx(puck_sigma_rink_m(H, w, h, obs.puck_xy_rink_m[i][None])[0])
        assert 0.005 < s[i] < 0.2  # a pixel of a 720p broadcast view


def test_calibration_process_gives_the_same_files_as_one_process(sample, sample_run, tmp_path):
    """The calibration process only moves work to the second core: byte-identical outputs."""
    video, game, _ = sample
    _, out_parallel = sample_run
    out = tmp_path / "one_process"
    result = analyze(video, game, out, progress=False, max_frames=N, parallel=False)
    assert result.frames == N and result.complete
    for name in ("calibration.jsonl", "tracks.jsonl", "events.json"):
        assert (out / name).read_bytes() == (out_parallel / name).read_bytes(), name


def test_calibration_process_hands_back_its_errors(sample, tmp_path):
    """An error in the calibration process reaches the caller as itself, not as a hang or EOF."""
    from rulesfromvideo.pipeline import calibrations
    from vision.video import VideoError

    _, game, _ = sample
    with pytest.raises(VideoError, match="missing.mp4"):
        list(calibrations(tmp_path / "missing.mp4", game, 30.0))


@pytest.mark.parametrize("executable, message", [
    # ends without a word: an interpreter that exits at once, as a process killed for memory would
    ("/bin/false", "calibration process stopped"),
    # a stream that is not ours: an interpreter that prints its arguments as text
    ("/bin/echo", "calibration process's output broke off"),
])
def test_calibration_process_that_fails_is_a_clear_error_not_a_hang(sample, tmp_path, monkeypatch, executable,
                                                                     message):
    """A calibration process that dies or writes garbage: analyze names the calibration process (not a
    pickle error, not a hang) and run.json records it."""
    import sys

    video, game, _ = sample
    monkeypatch.setattr(sys, "executable", executable)
    with pytest.raises(AnalyzeError, match=message):
        analyze(video, game, tmp_path / "out", progress=False, max_frames=N)
    run = json.loads((tmp_path / "out" / "run.json").read_text())
    assert run["complete"] is False and "calibration process" in run["error"]


def test_truncated_video_keeps_the_frames_before_the_cut(sample, tmp_path):
    """A file cut mid-way: a clear error naming it, and the frames decoded so far on disk."""
    video, game, _ = sample
    cut = tmp_path / "cut.mp4"
    data = video.read_bytes()
    cut.write_bytes(data[: len(data) // 2])
    with pytest.raises(AnalyzeError, match="cut.mp4"):
        analyze(cut, game, tmp_path / "out", progress=False)
    run = json.loads((tmp_path / "out" / "run.json").read_text())
    assert run["complete"] is False and run["error"]
    n = len((tmp_path / "out" / "tracks.jsonl").read_text().splitlines())
    assert 0 < n == run["frames_processed"]
    assert len((tmp_path / "out" / "calibration.jsonl").read_text().splitlines()) == n


def test_unreadable_video_is_a_clear_error(sample, tmp_path):
    _, game, _ = sample
    bad = tmp_path / "broken.mp4"
    bad.write_bytes(b"this is not a video at all")
    with pytest.raises(AnalyzeError, match="broken.mp4"):
        analyze(bad, game, tmp_path / "out", progress=False)


def test_bad_descriptor_names_the_field(sample, tmp_path):
    video, _, _ = sample
    game = tmp_path / "game.json"
    game.write_text(json.dumps({"rules": "no-such-profile", "teams": {"home": {"color": "#c8102e"},
                                                                     "away": {"color": "#0b3d91"}}}))
    with pytest.raises(AnalyzeError, match="rules"):
        analyze(video, game, tmp_path / "out", progress=False)


def _shared_memory_blocks() -> set[str]:
    """Names of the POSIX shared-memory blocks Python made on this machine (Linux)."""
    from pathlib import Path

    shm = Path("/dev/shm")
    return {p.name for p in shm.glob("psm_*")} if shm.is_dir() else set()


def _ctrl_c_at_frame(monkeypatch, frame: int) -> None:
    """Ctrl-C (a KeyboardInterrupt) as the tracker starts on frame ``frame``, in every video."""
    import vision.tracking

    real_update = vision.tracking.FrameTracker.update

    def update(self, frame_bgr, frame_index, *args):
        if frame_index == frame:
            raise KeyboardInterrupt
        return real_update(self, frame_bgr, frame_index, *args)

    monkeypatch.setattr(vision.tracking.FrameTracker, "update", update)


def test_interrupt_leaves_readable_partial_results(sample, tmp_path, monkeypatch):
    """Ctrl-C mid-run: events.json is readable for what was processed; run.json says incomplete."""
    video, game, _ = sample
    _ctrl_c_at_frame(monkeypatch, 5)
    before = _shared_memory_blocks()
    result = analyze(video, game, tmp_path / "out", progress=False)
    assert not result.complete and result.frames == 5
    # The calibration process, stopped mid-clip, freed the shared memory it handed frames in.
    assert _shared_memory_blocks() - before == set()
    read_events_json(tmp_path / "out" / "events.json")
    assert len((tmp_path / "out" / "tracks.jsonl").read_text().splitlines()) == 5
    assert json.loads((tmp_path / "out" / "run.json").read_text())["complete"] is False


def test_cli_analyze_sample(tmp_path, capsys):
    assert main(["analyze", "--sample", "--out", str(tmp_path / "o"), "--max-frames", "3", "--quiet"]) == 0
    assert "3 frames" in capsys.readouterr().out


def test_cli_analyze_bad_video_exit_code(tmp_path, sample, capsys):
    _, game, _ = sample
    bad = tmp_path / "x.mp4"
    bad.write_text("nope")
    assert main(["analyze", str(bad), "--game", str(game), "--out", str(tmp_path / "o"), "--quiet"]) == 2
    assert "error:" in capsys.readouterr().err


def test_cli_analyze_stopped_by_sigterm_writes_what_it_has(sample, tmp_path):
    """`kill` (a container or a cluster stopping the job) ends `rulesfromvideo analyze` as Ctrl-C does:
    exit code 130, run.json incomplete, events.json readable with the calls of the frames done, tracks
    for those frames, no shared memory left behind."""
    import signal
    import subprocess
    import sys
    import time

    from rulesfromvideo.childproc import checkout_env

    video, game, _ = sample
    out = tmp_path / "out"
    before = _shared_memory_blocks()
    proc = subprocess.Popen([sys.executable, "-m", "rulesfromvideo.cli", "analyze", str(video), "--game", str(game),
                             "--out", str(out), "--quiet"], env=checkout_env(), stdout=subprocess.PIPE)
    calib = out / "calibration.jsonl"  # written as the frames go (the tracks wait 4 s in HeldRecords)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        if calib.is_file() and len(calib.read_bytes().splitlines()) >= 3:
            break
        time.sleep(0.02)
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=60) == 130, proc.stdout.read()
    run = json.loads((out / "run.json").read_text())
    assert run["complete"] is False and 0 < run["frames_processed"] <= run["frames_expected"]
    read_events_json(out / "events.json")
    assert len((out / "tracks.jsonl").read_text().splitlines()) == run["frames_processed"]
    assert _shared_memory_blocks() - before == set()


def test_an_interrupt_while_the_rules_run_waits_for_their_calls(sample, tmp_path, monkeypatch):
    """Ctrl-C after the last frame, while the rules run: they finish and events.json holds their calls;
    the run is marked incomplete and stops there (no report)."""
    import os
    import signal

    import rulesfromvideo.pipeline as pipeline
    from rulesfromvideo.rules.engine import split_contract

    video, game, _ = sample
    real_rules = pipeline._run_rules
    calls = []
    # Ctrl-C's handler before the run: Python's default, or SIG_IGN where the tests were started
    # as a background job (a shell starts those with SIGINT ignored).
    handler_before = signal.getsignal(signal.SIGINT)

    def rules_interrupted(*args, **kwargs):
        os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C, delivered here, in the rules
        calls.append(real_rules(*args, **kwargs))
        return calls[-1]

    monkeypatch.setattr(pipeline, "_run_rules", rules_interrupted)
    result = analyze(video, game, tmp_path / "out", progress=False, max_frames=N)
    assert result.frames == N and result.complete is False
    read_events_json(tmp_path / "out" / "events.json")  # valid
    events = json.loads((tmp_path / "out" / "events.json").read_text())["events"]
    assert events == result.events == split_contract(calls[0])[0]  # the rules' calls, all of them
    assert json.loads((tmp_path / "out" / "run.json").read_text())["complete"] is False
    assert not (tmp_path / "out" / "report.html").exists()
    assert signal.getsignal(signal.SIGINT) is handler_before  # Ctrl-C works again as before


def _batch_folder(sample, tmp_path) -> Path:
    video, game, _ = sample
    root = tmp_path / "season"
    (root / "g1").mkdir(parents=True)
    (root / "g2").mkdir()
    shutil.copy(video, root / "g1" / "clip.mp4")
    shutil.copy(game, root / "g1" / "game.json")
    (root / "g2" / "clip.mp4").write_bytes(b"\x00" * 100)  # corrupt
    shutil.copy(game, root / "g2" / "game.json")
    return root


def test_batch_survives_a_failed_video_and_skips_complete_ones(sample, tmp_path):
    from rulesfromvideo.batch import run_batch

    root = _batch_folder(sample, tmp_path)
    outcomes = run_batch(str(root / "**" / "*.mp4"), tmp_path / "out", max_frames=3)
    status = {Path(o["video"]).parent.name: o["status"] for o in outcomes}
    assert status == {"g1": "done", "g2": "failed"}
    assert (Path([o for o in outcomes if o["status"] == "failed"][0]["out_dir"]) / "error.txt").is_file()
    again = run_batch(str(root / "**" / "*.mp4"), tmp_path / "out", max_frames=3)
    status = {Path(o["video"]).parent.name: o["status"] for o in again}
    assert status == {"g1": "skipped", "g2": "failed"}
    summary = json.loads((tmp_path / "out" / "batch.json").read_text())
    assert (summary["skipped"], summary["failed"]) == (1, 1)


def test_ctrl_c_stops_a_local_batch_not_only_its_video(sample, tmp_path, monkeypatch):
    """Ctrl-C during a batch's first video: that video keeps its partial results (failed,
    "interrupted") and the batch stops there; the next video is not started, batch.json says so."""
    import vision.tracking
    from rulesfromvideo.batch import run_batch

    video, game, _ = sample
    for g in ("g1", "g2"):
        (tmp_path / "season" / g).mkdir(parents=True)
        shutil.copy(video, tmp_path / "season" / g / "clip.mp4")
        shutil.copy(game, tmp_path / "season" / g / "game.json")
    _ctrl_c_at_frame(monkeypatch, 2)
    outcomes = run_batch(str(tmp_path / "season" / "**" / "*.mp4"), tmp_path / "out", max_frames=5)
    assert [(Path(o["video"]).parent.name, o["status"], o["error"], o["frames"]) for o in outcomes] == [
        ("g1", "failed", "interrupted", 2)]
    summary = json.loads((tmp_path / "out" / "batch.json").read_text())
    assert summary["interrupted"] is True and summary["videos"] == 2
    assert not any((tmp_path / "out").glob("*g2*"))  # never started


def test_batch_on_local_ray(sample, tmp_path):
    """One Ray task per video on a local Ray instance; the corrupt video fails, the other lands."""
    pytest.importorskip("ray")
    from rulesfromvideo.batch import run_batch

    root = _batch_folder(sample, tmp_path)
    outcomes = run_batch(str(root / "**" / "*.mp4"), tmp_path / "out", ray_address="local", max_frames=3)
    status = {Path(o["video"]).parent.name: o["status"] for o in outcomes}
    assert status == {"g1": "done", "g2": "failed"}
    assert len((tmp_path / "out" / "g1__clip" / "tracks.jsonl").read_text().splitlines()) == 3


def test_run_rules_scales_position_error_by_calibration_quality(tmp_path):
    """analyze's rules read calibration.jsonl's quality as ``rules --calibration`` does: the
    same 903 b1 entry (blades 38 cm over the line) on frames registered at quality 0.05 takes
    1 cm / 0.05 = 20 cm of calibration error on every position."""
    import sys

    sys.path.insert(0, str(Path(__file__).parent / "rules"))
    from rules_clip import Clip, still

    from calibration.rink import RinkModel
    from rulesfromvideo.game import GameDescriptor
    from rulesfromvideo.pipeline import _run_rules

    c = Clip(1.6)
    c.puck = lambda t: (10.0 * t, 2.0)
    c.player(1, "home", still(-1.0, 2.0)).player(2, "home", still(9.2, 6.0))
    c.touches = {0: 1}
    recs = c.records()
    tracks = tmp_path / "tracks.jsonl"
    tracks.write_text("".join(json.dumps(r) + "\n" for r in recs))
    game = GameDescriptor.from_dict(c.game)
    sigma = {}
    for q in (1.0, 0.05):
        calib = tmp_path / f"calibration_{q}.jsonl"
        calib.write_text("".join(json.dumps({"frame": r["frame"], "H_rink_from_image": None, "quality": q}) + "\n"
                                 for r in recs))
        entry = [e for e in _run_rules(tracks, game, RinkModel(game.rink_spec()), calib, (1280, 720))
                 if e["type"] == "zone_entry"]
        sigma[q] = entry[0]["evidence"]["sigma_m"]
    # Quality 1: the blade model error (0.25 m, no camera in these records) and ~1 cm of position.
    assert sigma[1.0] == pytest.approx(0.25, abs=0.005)
    # Quality 0.05: 0.2 m on the puck and on each blade besides: √(0.2² + 0.2² + 0.25²) ≈ 0.38 m.
    assert sigma[0.05] == pytest.approx(np.sqrt(0.2 ** 2 + 0.2 ** 2 + 0.25 ** 2), abs=0.01)


def test_analyze_gives_back_the_callers_opencv_threads(sample, tmp_path):
    """analyze keeps OpenCV to one thread while its two processes share the cores, and gives the
    caller's setting back afterwards."""
    import cv2

    video, game, _ = sample
    before = cv2.getNumThreads()
    cv2.setNumThreads(3)
    try:
        analyze(video, game, tmp_path / "out", progress=False, max_frames=3)
        assert cv2.getNumThreads() == 3
    finally:
        cv2.setNumThreads(before)
