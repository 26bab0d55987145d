"""The live feed's vision and rules stages in a process of their own (``live.PipelineProcessor``).

Live, calibration must keep up with every frame (the overlay's lines), while the vision
stage (puck, players: ≈ 60–100 ms of CPU a 720p frame here) cannot. So the feed's
processor calibrates every frame itself and hands a frame to this process only when it is
idle; each frame message carries the newest vision result and the frame it is from.

``VisionStage`` is what runs per frame (``FrameTracker`` → ``StreamingRules``, with each
player's blade error from the frame's camera as in ``analyze``); ``VisionWorker`` is the
parent's handle on ``python -m rulesfromvideo.service.vision_worker`` running one.

Protocol (pickles, parent's own child, so trusted), on the child's stdin / stdout:

* parent → child: ``("init", game_dict, fps, blade_sigma_m)``, then
  ``("frame", index, t, frame_bgr, calibration)`` (a ``CalibrationResult`` or None) and at
  the end ``("flush",)``; end of input stops the child.
* child → parent: ``("ready",)``; per frame ``("obs", index, puck, players, events)``;
  ``("flushed", events)``; ``("error", text)`` for a frame or set-up that failed (the child
  goes on with the next frame when it can).

A separate interpreter started with ``-m`` (as ``rulesfromvideo.calibration_worker``), not
``multiprocessing``'s spawn, which re-runs the parent's main script.
"""

from __future__ import annotations

import logging
import os
import pickle
import subprocess
import sys
import threading
from typing import Any

import numpy as np

from rulesfromvideo.childproc import checkout_env, result_stream

log = logging.getLogger("rulesfromvideo.service.live")


def blade_covs_by_player(frame_shape, H_rink_from_image, players,
                         factor_by_team: dict | None = None) -> dict | None:
    """{player id: (2, 2) blade covariance, m²} from this frame's camera, as ``analyze`` gives the
    rules (``vision.tracking.blade_covariance_rink``); None without a camera or players.

    Args:
        frame_shape: the frame's ``shape`` ((H, W, 3)), or None.
        H_rink_from_image: (3, 3) or None.
        players: tracks-format player records.
        factor_by_team: ``vision.tracking.blade_sigma_factor_by_team`` of the game, or None.
    """
    if H_rink_from_image is None or not players or frame_shape is None:
        return None
    from vision.tracking import player_blade_covariances

    h, w = frame_shape[:2]
    covs = player_blade_covariances(H_rink_from_image, w, h, players, factor_by_team)
    return {p["id"]: c for p, c in zip(players, covs) if c is not None} or None


def puck_sigma_m(frame_shape, H_rink_from_image, puck) -> float | None:
    """The puck's position error shared by nearby frames, m, from this frame's camera, as
    ``analyze`` gives the rules (``vision.puck.puck_sigma_rink_m``); None without a camera or puck.

    Args:
        frame_shape: the frame's ``shape`` ((H, W, 3)), or None.
        H_rink_from_image: (3, 3) or None.
        puck: tracks-format puck record ({x, y, ...}) or None.
    """
    if H_rink_from_image is None or not puck or frame_shape is None:
        return None
    from vision.puck import puck_sigma_rink_m

    h, w = frame_shape[:2]
    s = float(puck_sigma_rink_m(H_rink_from_image, w, h, np.array([[puck["x"], puck["y"]]]))[0])
    return s if np.isfinite(s) else None


class VisionStage:
    """Per frame: ``FrameTracker`` (puck, players) then ``StreamingRules`` (settled calls).

    Args:
        game: ``GameDescriptor``.
        rink: ``RinkModel``.
        fps: the feed's frame rate.
        blade_sigma_m: the vision's blade model error for frames without a camera, m.
    """

    def __init__(self, game, rink, fps: float, blade_sigma_m: float) -> None:
        from rulesfromvideo.rules.streaming import StreamingRules
        from vision.tracking import FrameTracker, blade_sigma_factor_by_team

        # No learned goalkeeper check live: a ~100 ms inference on every 10th frame would
        # hold the vision results back; goalkeepers by position only here.
        self.tracker = FrameTracker(rink, game, fps, goalkeeper_detector=None)
        self.rules = StreamingRules(game, rink, fps, blade_sigma_m=blade_sigma_m)
        self.blade_factor_by_team = blade_sigma_factor_by_team(game)

    def step(self, frame_bgr, index: int, t: float, calib) -> tuple[dict | None, list, list]:
        """(puck, players, settled rule events) of one frame."""
        obs = self.tracker.update(frame_bgr, index, t, calib)
        puck = obs.get("puck") if isinstance(obs, dict) else obs.puck
        players = obs.get("players", []) if isinstance(obs, dict) else obs.players
        H = getattr(calib, "rink_from_image", None)
        quality = float(getattr(calib, "quality", 0.0) or 0.0) if H is not None else 0.0
        shape = frame_bgr.shape if isinstance(frame_bgr, np.ndarray) else None
        events = self.rules.push({"frame": index, "t": t, "puck": puck, "players": players},
                                 blade_covs_by_player(shape, H, players, self.blade_factor_by_team), quality,
                                 puck_sigma_m(shape, H, puck))
        return puck, players, events

    def flush(self) -> list:
        return self.rules.flush()


class VisionWorker:
    """The parent's handle on a child process running a ``VisionStage``.

    ``offer`` hands a frame over only while the child is idle (else the frame is skipped
    for vision and counted); ``latest`` is the newest result; ``events`` takes the rule
    calls received since the last call. A child that dies or fails is said once (warning)
    and the feed goes on with calibration only (``error`` holds why).

    Args:
        game: ``GameDescriptor``.
        fps: the feed's frame rate.
        blade_sigma_m: the vision's blade model error, m.
    """

    def __init__(self, game, fps: float, blade_sigma_m: float) -> None:
        self._proc = subprocess.Popen([sys.executable, "-m", "rulesfromvideo.service.vision_worker"],
                                      stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=checkout_env())
        self._lock = threading.Lock()
        self._idle = threading.Event()
        self._flushed = threading.Event()
        self._flush_events: list = []
        self._events: list = []
        self.latest: tuple[int, dict | None, list] | None = None  # (frame, puck, players)
        self.frames_sent = 0
        self.frames_skipped = 0
        self.error: str | None = None
        self._closing = False
        self._send(("init", game.to_dict(), float(fps), float(blade_sigma_m)))
        self._reader = threading.Thread(target=self._read, name="rfv-live-vision-reader", daemon=True)
        self._reader.start()

    def wait_ready(self, timeout: float = 60.0) -> bool:
        """Block until the child has built its stages (True) or failed (False)."""
        return self._idle.wait(timeout) and self.error is None

    @property
    def alive(self) -> bool:
        return self.error is None and self._proc.poll() is None

    def offer(self, frame_bgr, index: int, t: float, calib) -> bool:
        """Hand this frame to the child if it is idle; returns whether it was taken."""
        if not self.alive or not self._idle.is_set():
            self.frames_skipped += 1
            return False
        self._idle.clear()
        if not self._send(("frame", int(index), float(t), frame_bgr, calib)):
            return False
        self.frames_sent += 1
        return True

    def wait_idle(self, timeout: float = 30.0) -> bool:
        """Block until the frame handed over last has been processed (tests, benchmarks)."""
        return self._idle.wait(timeout)

    def events(self) -> list:
        with self._lock:
            out, self._events = self._events, []
        return out

    def flush(self, timeout: float = 30.0) -> list:
        """The rule calls still settling: waits for the frame in work, then the child's flush."""
        if not self.alive:
            return self.events()
        self._idle.wait(timeout)
        if self._send(("flush",)):
            self._flushed.wait(timeout)
        return self.events() + self._flush_events

    def close(self) -> None:
        self._closing = True
        try:
            self._proc.stdin.close()
        except OSError:
            pass
        try:
            self._proc.wait(timeout=5.0)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()

    def _send(self, msg) -> bool:
        try:
            pickle.dump(msg, self._proc.stdin, protocol=pickle.HIGHEST_PROTOCOL)
            self._proc.stdin.flush()
            return True
        except (OSError, ValueError) as exc:  # the child is gone
            self._fail(f"vision process unreachable: {exc}")
            return False

    def _fail(self, text: str) -> None:
        if self.error is None:
            self.error = text
            log.warning("live vision: %s; the feed goes on with calibration only", text)
        self._idle.set()
        self._flushed.set()

    def _read(self) -> None:
        while True:
            try:
                msg = pickle.load(self._proc.stdout)
            except (EOFError, OSError, pickle.UnpicklingError):
                if not self._closing:
                    self._fail(f"vision process ended (exit code {self._proc.wait()})")
                return
            kind = msg[0]
            if kind == "ready":
                self._idle.set()
            elif kind == "obs":
                _, index, puck, players, events = msg
                with self._lock:
                    self.latest = (index, puck, players)
                    self._events += events
                self._idle.set()
            elif kind == "flushed":
                self._flush_events = list(msg[1])
                self._flushed.set()
            elif kind == "error":
                if str(msg[1]).startswith("init:"):
                    self._fail(msg[1])  # set-up failed: no stages to run
                else:
                    log.warning("live vision: %s", msg[1])
                self._idle.set()


def main() -> int:
    from rulesfromvideo.allocator import keep_frame_arrays_in_heap

    out = result_stream()
    inp = os.fdopen(os.dup(sys.stdin.fileno()), "rb")
    keep_frame_arrays_in_heap()  # each frame's arrays reused from the heap (rulesfromvideo.allocator)

    def send(msg: Any) -> None:
        pickle.dump(msg, out, protocol=pickle.HIGHEST_PROTOCOL)
        out.flush()

    stage = None
    try:
        while True:
            try:
                msg = pickle.load(inp)
            except EOFError:
                return 0
            kind = msg[0]
            try:
                if kind == "init":
                    from calibration.rink import RinkModel
                    from rulesfromvideo.game import GameDescriptor

                    game = GameDescriptor.from_dict(msg[1])
                    stage = VisionStage(game, RinkModel(game.rink_spec()), msg[2], msg[3])
                    send(("ready",))
                elif kind == "frame":
                    _, index, t, frame, calib = msg
                    puck, players, events = stage.step(frame, index, t, calib)
                    send(("obs", index, puck, players, events))
                elif kind == "flush":
                    send(("flushed", stage.flush() if stage is not None else []))
            except (BrokenPipeError, KeyboardInterrupt):
                raise
            except Exception as exc:  # one bad frame must not end the feed's vision
                send(("error", f"{kind}: {type(exc).__name__}: {exc}"))
    except BrokenPipeError:  # the parent stopped reading
        return 0
    except KeyboardInterrupt:
        return 130
    finally:
        for fh in (out, inp):
            try:
                fh.close()
            except OSError:
                pass


if __name__ == "__main__":
    sys.exit(main())
