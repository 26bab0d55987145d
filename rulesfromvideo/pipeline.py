"""The main job: video frames → calibration → vision → rules → output files.

`analyze(video, game, out_dir)` streams the video once. Per frame it asks the
calibration stage for `rink_from_image`, the vision stage for one
`tracks.jsonl` record in rink metres, and appends both to their files (memory
stays flat in video length; tracks records wait in ``vision.revisions.HeldRecords``: a fixed
4 s for what the tracker learns later (a flight's first frames, a logo's track), and at most
a few seconds in ``vision.possession.CarriedPuckFiller`` while the puck is unknown, so that a
carried puck is placed at its carrier's stick once the footage shows who had it). A second
process decodes the video, calibrates each frame and builds its ice scene (the vision stage's
part that needs only the frame and its calibration, `vision.frame_scene`), and hands the
frames, calibrations and scenes over through shared memory, a few frames ahead (`calibrations`,
`rulesfromvideo.calibration_worker`, `rulesfromvideo.shm_pipe`), so the two processes use two
cores at once; each still sees every frame in order, so the outputs are byte-identical to a
one-process run (``parallel=False``). Threads do not overlap the two: both spend much of
their time in Python, under one lock.

At the end — or when interrupted — the rule detectors read the tracks back and
`events.json`, `run.json` and `report.html` are written, each atomically, so an
interrupted run leaves readable results for the frames that were processed. With
`overlay` a second pass then decodes the clip again and writes `overlay.mp4` from
the files just written, so its banner can show each call as it happens (the calls
exist only after the rules).
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


class AnalyzeError(Exception):
    """A bad input to `analyze` (unreadable video, bad descriptor); the message says which."""


class CalibrationProcessError(RuntimeError):
    """The calibration stage ended without a result or an error (its process killed or unable to
    start), or fell out of step with the frames."""


@dataclass
class AnalyzeResult:
    """What one `analyze` run produced.

    Attributes:
        out_dir: the output folder.
        frames: frames processed.
        n_frames_expected: frames the container announced (0 when unknown).
        complete: False when the run was interrupted before the end of the video.
        seconds: wall time of the frame loop.
        events: the events written to `events.json`.
    """

    out_dir: Path
    frames: int
    n_frames_expected: int
    complete: bool
    seconds: float
    events: list[dict] = field(default_factory=list)

    @property
    def fps(self) -> float:
        return self.frames / self.seconds if self.seconds > 0 else 0.0


def write_json_atomic(path: Path, obj) -> None:
    """Write JSON through a temporary file and `os.replace`, so readers never see a torn file."""
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump(obj, fh, indent=1)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


def analyze(
    video_path: str | Path,
    game_path: str | Path,
    out_dir: str | Path,
    *,
    overlay: bool = False,
    camera_profile_path: str | Path | None = None,
    progress: bool = True,
    max_frames: int | None = None,
    parallel: bool = True,
) -> AnalyzeResult:
    """Run the whole pipeline on one video.

    Args:
        video_path: the clip (any container OpenCV/ffmpeg reads).
        game_path: GAME.json (see `rulesfromvideo.game`).
        out_dir: folder receiving `events.json`, `tracks.jsonl`, `calibration.jsonl`,
            `extra_events.json`, `run.json`, `report.html` and, with `overlay`, `overlay.mp4`.
        overlay: also render `overlay.mp4`.
        camera_profile_path: a stored fixed-camera calibration (`calibration.fixed`).
        progress: show a progress bar with frames/s and ETA on stderr.
        max_frames: stop after this many frames (for quick looks and tests).
        parallel: calibrate in a second process (`calibrations`); False runs both
            stages in this process (same outputs, slower).

    Sets this process's malloc thresholds for the rest of its life
    (`rulesfromvideo.allocator.keep_frame_arrays_in_heap`): frame-sized blocks stay in the heap.

    Returns:
        The `AnalyzeResult`.

    Raises:
        AnalyzeError: the video cannot be read or the descriptor is invalid.
    """
    from calibration.rink import RinkModel
    from rulesfromvideo.game import GameDescriptor
    import cv2

    from vision.video import VideoError, iter_frames, probe

    video_path, out_dir = Path(video_path), Path(out_dir)
    try:
        game = GameDescriptor.from_file(game_path)
    except (OSError, ValueError) as exc:  # GameError is a ValueError naming the field
        raise AnalyzeError(f"{game_path}: {exc}") from exc
    try:
        fps, width, height, n_frames = probe(video_path)
    except VideoError as exc:
        raise AnalyzeError(f"{video_path}: {exc}") from exc
    if not fps or fps <= 0:
        raise AnalyzeError(f"{video_path}: the video has no frame rate")

    from rulesfromvideo.allocator import keep_frame_arrays_in_heap

    # The frame loop's image-sized arrays reused from the heap, not faulted in afresh
    # (rulesfromvideo.allocator; the calibration process does the same).
    keep_frame_arrays_in_heap()
    rink = RinkModel(game.rink_spec())
    profile = None
    if camera_profile_path is not None:  # also with the calibration process: a bad file fails here, first
        from calibration.fixed import CameraProfile

        profile = CameraProfile.load(camera_profile_path)

    from calibration.registration import Calibrator
    from vision.revisions import HeldRecords
    from vision.tracking import FrameTracker

    if parallel:
        stages = calibrations(video_path, game_path, fps, camera_profile_path, max_frames)
    else:
        stages = calibrate_frames(iter_frames(video_path), Calibrator(rink, camera_profile=profile, fps=fps), max_frames)
    tracker = FrameTracker(rink, game, fps)
    # What the tracker learns later about earlier frames (a new track's first frames, a flight's
    # first rays) reaches the records while they are held; then a puck lost while carried is
    # placed at its carrier's stick (measured: false), held at most a few seconds.
    held = HeldRecords(fps, stick_reach_m=tracker.body.stick_reach_m)
    out_dir.mkdir(parents=True, exist_ok=True)

    bar = _progress_bar(n_frames if n_frames > 0 else None, enabled=progress)
    frames_done, complete = 0, False
    t0 = time.perf_counter()
    tracks_path, calib_path = out_dir / "tracks.jsonl", out_dir / "calibration.jsonl"
    cv_threads = cv2.getNumThreads()
    if parallel:
        # Each process keeps to its core: OpenCV's worker threads only take CPU from the other
        # process (900 frames, six alternating rounds: 29.5-29.8 against 28.9-29.6 frames/s).
        cv2.setNumThreads(1)
    try:
        with open(tracks_path, "w", encoding="utf-8") as tracks_fh, open(
            calib_path, "w", encoding="utf-8"
        ) as calib_fh:
            try:
                for index, frame_bgr, calib, scene in stages:
                    t = index / fps
                    obs = tracker.update(frame_bgr, index, t, calib, scene)
                    # The contract's three fields, plus the optional lens model and method
                    # (calibration.registration.CalibrationResult.to_record).
                    calib_fh.write(json.dumps(calib.to_record(index)) + "\n")
                    record = {"frame": index, "t": round(t, 6), **_obs_dict(obs)}
                    for rec in held.push(record, obs.puck_backfill, obs.puck_revisions, obs.player_retractions,
                                     obs.player_backfill, obs.puck_retractions):
                        tracks_fh.write(json.dumps(rec) + "\n")
                    frames_done = index + 1
                    bar.update(1)
                else:
                    complete = True
                if max_frames is not None and frames_done >= max_frames:
                    complete = True
            except (VideoError, CalibrationProcessError) as exc:
                # A truncated file mid-way, or the calibration process gone: keep what was
                # read, say so in run.json.
                _write_run(out_dir, video_path, frames_done, n_frames, False, str(exc), t0)
                raise AnalyzeError(f"{video_path}: {exc} (after {frames_done} frames)") from exc
            finally:
                # The records still held are written on every way out (the end, an error,
                # Ctrl-C): no processed frame is lost.
                for rec in held.flush():
                    tracks_fh.write(json.dumps(rec) + "\n")
    except KeyboardInterrupt:
        complete = False
    finally:
        stages.close()  # stops the calibration process (also on Ctrl-C or an error)
        cv2.setNumThreads(cv_threads)
        bar.close()
    seconds = time.perf_counter() - t0

    # An interrupt while the rules run (a few seconds) waits for them: the calls of the frames
    # processed are written either way, then the run stops there, incomplete.
    with _interrupts_held() as stop:
        from rulesfromvideo.rules.engine import split_contract

        # events.json holds exactly the design's four event types; the other rule
        # outputs (delayed offside, 1064, key 3 s, mercy) go beside it in the same format.
        events, extra_events = split_contract(_run_rules(tracks_path, game, rink, calib_path, (width, height)))
        write_json_atomic(out_dir / "events.json", {"events": events})
        write_json_atomic(out_dir / "extra_events.json", {"events": extra_events})
        _write_run(out_dir, video_path, frames_done, n_frames, complete and not stop.requested, None, t0, seconds)
    if stop.requested:  # (written again: the interrupt may have come while run.json was written)
        _write_run(out_dir, video_path, frames_done, n_frames, False, None, t0, seconds)
        return AnalyzeResult(out_dir, frames_done, n_frames, False, seconds, events)
    result = AnalyzeResult(out_dir, frames_done, n_frames, complete, seconds, events)
    try:
        try:
            from rulesfromvideo.report import write_report

            write_report(out_dir, video_path, game, rink, events)
        except Exception as exc:  # the report must never cost the calls already written
            (out_dir / "report_error.txt").write_text(f"report failed: {exc!r}\n")
        if overlay:
            try:
                from rulesfromvideo.overlay import write_overlay

                write_overlay(video_path, out_dir / "overlay.mp4", rink, fps, width, height, tracks_path,
                              calib_path, events, max_frames=frames_done)
            except Exception as exc:  # nor must the overlay
                (out_dir / "overlay_error.txt").write_text(f"overlay failed: {exc!r}\n")
    except KeyboardInterrupt:  # stopped while drawing: the calls are written, the run is not complete
        result.complete = False
        _write_run(out_dir, video_path, frames_done, n_frames, False, None, t0, seconds)
    return result


class _InterruptRequest:
    requested = False


@contextlib.contextmanager
def _interrupts_held() -> Iterator[_InterruptRequest]:
    """Hold Ctrl-C (and a SIGTERM the caller turns into one, as the CLI does) until the block
    ends, noting it instead; in the main thread only (signals reach no other)."""
    stop = _InterruptRequest()
    if threading.current_thread() is not threading.main_thread():
        yield stop
        return

    def note(signum, frame) -> None:
        stop.requested = True

    held = [signal.SIGINT] + ([signal.SIGTERM] if callable(signal.getsignal(signal.SIGTERM)) else [])
    before = {s: signal.signal(s, note) for s in held}
    try:
        yield stop
    finally:
        for s, handler in before.items():
            signal.signal(s, handler)


def calibrations(video_path: str | Path, game_path: str | Path, fps: float,
                 camera_profile_path: str | Path | None = None,
                 max_frames: int | None = None) -> Iterator[tuple[int, Any, Any, Any]]:
    """The frames with their calibration and scene, in frame order, computed in a second process.

    The process (`rulesfromvideo.calibration_worker`) decodes the video, runs
    `calibration.registration.Calibrator` and the vision stage's
    `vision.frame_scene.SceneBuilder` over every frame in order, and hands the frames and
    their scenes over through shared memory (`rulesfromvideo.shm_pipe`); it runs at most a
    few frames ahead. Closing the generator stops the process.

    Args:
        video_path: the clip.
        game_path: GAME.json (the process builds the same rink from it).
        fps: the clip's frame rate.
        camera_profile_path: a stored fixed-camera calibration, or None.
        max_frames: stop after this many frames (None: all).

    Yields:
        (frame index, frame_bgr (H, W, 3) uint8, `CalibrationResult`,
        `vision.frame_scene.FrameScene`).

    Raises:
        What decoding or calibration raised in the process (a truncated video's
        ``VideoError``), after the results before it; `CalibrationProcessError` when the
        process ended without a word (killed for memory, or it could not start).
    """
    cmd = [sys.executable, "-m", "rulesfromvideo.calibration_worker", str(video_path), str(game_path), repr(float(fps))]
    if camera_profile_path is not None:
        cmd += ["--camera-profile", str(camera_profile_path)]
    if max_frames is not None:
        cmd += ["--max-frames", str(int(max_frames))]
    from rulesfromvideo.childproc import checkout_env
    from rulesfromvideo.shm_pipe import SlotReader

    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=checkout_env())
    reader = SlotReader(proc.stdout, proc.stdin)
    try:
        while True:
            try:
                item = reader.recv()
            except EOFError:
                raise CalibrationProcessError(
                    f"the calibration process stopped without a word (exit code {proc.wait()})") from None
            except Exception as exc:  # a message cut off or garbled, its shared memory gone
                raise CalibrationProcessError(f"the calibration process's output broke off: {exc!r}") from exc
            if item is None:
                return
            if isinstance(item, BaseException):
                raise item
            yield item
    finally:
        reader.close()
        # Closing both pipes ends the process at its next send or wait (it frees its shared
        # memory on the way out); terminate() only if it does not.
        for pipe in (proc.stdin, proc.stdout):
            try:
                pipe.close()
            except OSError:
                pass
        try:
            proc.wait(timeout=10.0)
        except subprocess.TimeoutExpired:
            proc.terminate()
            try:
                proc.wait(timeout=10.0)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def calibrate_frames(frames, calibrator, max_frames: int | None) -> Iterator[tuple[int, Any, Any, None]]:
    """(index, frame_bgr, `CalibrationResult`, None) for each (index, frame_bgr) of ``frames``, in
    order, in this process (``analyze(parallel=False)``; the tracker then builds each frame's
    scene itself). Frames the calibrator cannot register are held and tracked backwards from the
    next it registers (`calibration.backfill`), as the calibration process does."""
    from calibration.backfill import calibrated_in_order

    for index, frame_bgr, calib in calibrated_in_order(frames, calibrator, max_frames):
        yield index, frame_bgr, calib, None


def _obs_dict(obs) -> dict:
    """A `FrameObservation` (object or dict) → the `puck`/`players` part of a tracks record."""
    if isinstance(obs, dict):
        return {"puck": obs.get("puck"), "players": obs.get("players", [])}
    return {"puck": obs.puck, "players": obs.players}


def run_rules_on_files(tracks_path: Path, game, rink, calib_path: Path | None = None,
                       image_size: tuple[int, int] | None = None, **obs_kw) -> tuple[list[dict], int]:
    """The rule events of a ``tracks.jsonl`` (and its ``calibration.jsonl``), and its frame count.

    Both files are streamed; a video longer than ``rules.windows.SINGLE_PASS_S`` is judged
    in overlapping windows so that memory stays flat in its length (``rules.windows``).
    Serves ``analyze`` (after its frame loop) and ``rulesfromvideo rules``.

    Args:
        tracks_path: the tracks file (any tracking system's, validated line by line).
        game: ``GameDescriptor``.
        rink: ``RinkModel``.
        calib_path: ``calibration.jsonl``; each frame's ``quality`` scales its position error
            (a weakly registered frame cannot carry a narrow call).
        image_size: (width, height) px of the video: with ``calib_path``, every blade point
            takes our vision's per-view error from its frame's camera
            (``blade_covariances_from_cameras``).
        **obs_kw: passed to ``Observations.from_records`` (``blade_sigma_m``, sigmas).

    Returns:
        (events sorted by ``t``, number of frames read).

    Raises:
        rulesfromvideo.schema.SchemaError: a bad tracks or calibration line (named).
    """
    from rulesfromvideo.observations import Observations
    from rulesfromvideo.rules.windows import run_rules_windowed
    from rulesfromvideo.schema import iter_track_dicts, read_calibration_jsonl

    tracks_path = Path(tracks_path)
    if tracks_path.stat().st_size == 0:
        return [], 0
    # Touches are inferred from the puck's motion only when the source records none: decided
    # once for the whole file (a cheap text scan), not per window.
    with open(tracks_path, encoding="utf-8") as fh:
        any_touch = any('"touch"' in line for line in fh)
    obs_kw.setdefault("infer_touches", not any_touch)
    has_calib = calib_path is not None and Path(calib_path).exists()
    factor_by_team = None
    if has_calib and image_size is not None:
        from vision.tracking import blade_sigma_factor_by_team

        factor_by_team = blade_sigma_factor_by_team(game)
    cameras = iter(read_calibration_jsonl(calib_path)) if has_calib else iter(())
    n_frames = 0

    def items():
        """(tracks record, its frame's CalibrationFrame or None), in frame order."""
        nonlocal n_frames
        cal = next(cameras, None)
        for rec in iter_track_dicts(tracks_path):
            while cal is not None and cal.frame < rec["frame"]:
                cal = next(cameras, None)
            n_frames += 1
            yield rec, (cal if cal is not None and cal.frame == rec["frame"] else None)

    def build(window: list) -> Observations:
        quality = {rec["frame"]: c.quality for rec, c in window if c is not None}
        obs = Observations.from_records([rec for rec, _ in window], quality_by_frame=quality or None, **obs_kw)
        if has_calib and image_size is not None:
            H_by_frame = {rec["frame"]: c.H_rink_from_image for rec, c in window if c is not None}
            obs.blade_cov_rink_m2 = blade_covariances_from_cameras(obs, H_by_frame, *image_size,
                                                                   factor_by_team=factor_by_team)
            obs.add_position_sigma(puck_sigma_from_cameras(obs, H_by_frame, *image_size))
        return obs

    events = run_rules_windowed(items(), build, game, rink, time_of=lambda item: float(item[0]["t"]))
    return events, n_frames


def _run_rules(tracks_path: Path, game, rink, calib_path: Path | None = None,
               image_size: tuple[int, int] | None = None) -> list[dict]:
    """``analyze``'s rules: ``run_rules_on_files`` on tracks of our vision, whose blades carry
    its measured blade model error (per view where the frame's camera is known, else
    isotropic at its along-the-view size)."""
    from vision.tracking import BLADE_SIGMA_M

    return run_rules_on_files(tracks_path, game, rink, calib_path, image_size, blade_sigma_m=BLADE_SIGMA_M)[0]


def blade_covariances_from_cameras(obs, H_by_frame: dict, width: int, height: int,
                                   factor_by_team: dict | None = None):
    """Our vision's blade error per player and frame from the frames' cameras.

    Args:
        obs: ``Observations`` of our vision's tracks.
        H_by_frame: {frame: 3×3 ``rink_from_image`` (raw px to rink m) or None}.
        width, height: image size, px (the camera's principal point).
        factor_by_team: ``vision.tracking.blade_sigma_factor_by_team`` of the game (the
            player's kit scales his sigmas); None: 1 for every player.

    Returns:
        (P, F, 2, 2) covariance in rink metres (m²), NaN where the frame has no
        calibration or the player no blades (``vision.tracking.blade_covariance_rink``).
    """
    import numpy as np

    from vision.tracking import blade_covariances_from_homography, blade_sigma_factors

    mid = obs.blade_mid_rink_m()  # (P, F, 2)
    factor = blade_sigma_factors(factor_by_team, [str(t) for t in obs.player_team])
    out = np.full(mid.shape + (2,), np.nan)
    for i, f in enumerate(obs.frame):
        H = H_by_frame.get(int(f))
        if H is not None:  # frames without a camera (or a degenerate one): isotropic fallback
            out[:, i] = blade_covariances_from_homography(H, width, height, mid[:, i], factor)
    return out


def puck_sigma_from_cameras(obs, H_by_frame: dict, width: int, height: int):
    """Our vision's puck position error beyond the tracks' noise, per frame, from the frames'
    cameras (``vision.puck.puck_sigma_rink_m`` at the puck).

    Args:
        obs: ``Observations`` of our vision's tracks.
        H_by_frame: {frame: 3×3 ``rink_from_image`` (raw px to rink m) or None}.
        width, height: image size, px.

    Returns:
        (F,) m; NaN where the frame has no calibration or no puck position.
    """
    import numpy as np

    from vision.puck import puck_sigma_rink_m

    out = np.full(obs.n_frames, np.nan)
    for i, f in enumerate(obs.frame):
        H = H_by_frame.get(int(f))
        if H is not None and np.isfinite(obs.puck_xy_rink_m[i]).all():
            out[i] = puck_sigma_rink_m(H, width, height, obs.puck_xy_rink_m[i][None])[0]
    return out


def _write_run(out_dir, video_path, frames, n_frames, complete, error, t0, seconds=None) -> None:
    import rulesfromvideo

    seconds = seconds if seconds is not None else time.perf_counter() - t0
    write_json_atomic(
        out_dir / "run.json",
        {
            "video": str(video_path),
            "frames_processed": frames,
            "frames_expected": n_frames,
            "complete": complete,
            "error": error,
            "seconds": round(seconds, 3),
            "fps": round(frames / seconds, 2) if seconds > 0 else 0.0,
            "version": getattr(rulesfromvideo, "__version__", "0"),
        },
    )


class _NoBar:
    def update(self, n: int) -> None:
        pass

    def close(self) -> None:
        pass


def _progress_bar(total: int | None, enabled: bool):
    if not enabled:
        return _NoBar()
    from tqdm import tqdm

    return tqdm(total=total, unit="frame", desc="analyze", dynamic_ncols=True)
