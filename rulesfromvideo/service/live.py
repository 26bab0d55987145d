"""Live overlay feed: read a source at real speed, process the newest frame, fan out per-frame overlay data.

```
reader thread ──► bounded queue (1–2, newest wins) ──► processor thread ──► asyncio loop ──► WebSocket clients
 (file paced to fps,    a frame that waits while a newer    process_fn(frame, i, t)        └─► SSE clients (events)
  RTSP/HTTP URL,        one arrives is dropped and counted   → overlay message dict
  camera index)
```

Latency is measured per message from the instant the frame was read to the
instant its WebSocket send returned (`LiveStats.latency_ms`). A slow client
never slows the others: each has its own 2-message queue that drops its
oldest message.

The processing function is injectable: `PipelineProcessor` uses the
pipeline's `Calibrator` on every frame and `FrameTracker`/`StreamingRules` in a
process of their own that takes the newest frame whenever it is idle
(`rulesfromvideo.service.vision_worker`),
`FixedCameraProcessor` publishes a stored camera profile's homography and
the rink lines in image pixels for a fixed camera.
"""

from __future__ import annotations

import asyncio
import json
import logging
import queue
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

log = logging.getLogger("rulesfromvideo.service.live")

ProcessFn = Callable[[np.ndarray, int, float], dict]
LINE_NAMES = ("goal_line_-x", "blue_line_-x", "centre_line", "blue_line_+x", "goal_line_+x")


def rink_line_segments(rink) -> dict[str, np.ndarray]:
    """The centre line of each zone/goal line across the ice, (2, 2) rink metres per name."""
    spec = rink.spec if hasattr(rink, "spec") else rink
    out = {}
    for name in LINE_NAMES:
        if name == "centre_line":
            x = 0.0
        else:
            sign = 1 if name.endswith("+x") else -1
            lo, hi = (rink.goal_line_edges_x(sign) if name.startswith("goal") else rink.blue_line_edges_x(sign))
            x = (lo + hi) / 2
        y = spec.board_y_at(x) if hasattr(spec, "board_y_at") else spec.width_m / 2
        out[name] = np.array([[x, -y], [x, y]], float)
    return out


def _project(image_from_rink: np.ndarray, xy: np.ndarray) -> list | None:
    hom = np.c_[xy, np.ones(len(xy))] @ image_from_rink.T
    if np.any(hom[:, 2] <= 1e-9):
        return None  # behind the camera: not drawable
    return np.round(hom[:, :2] / hom[:, 2:3], 1).tolist()


def overlay_message(frame: int, t: float, rink_from_image, quality: float, puck: dict | None,
                    players: list, lines: dict[str, np.ndarray] | None, extra: dict | None = None) -> dict:
    """One per-frame overlay message: rink-metre state plus what to draw in image pixels.

    Keys: `type` ("frame"), `frame`, `t`, `H_rink_from_image` (3×3 | null),
    `quality`, `puck` (rink m, design tracks format | null), `players`,
    `puck_px` ([u, v] | null), `lines_px` ({name: [[u, v], [u, v]]}).
    """
    msg = {"type": "frame", "frame": frame, "t": round(t, 6), "H_rink_from_image": None, "quality": quality,
           "puck": puck, "players": players, "puck_px": None, "lines_px": {}}
    if rink_from_image is not None:
        H = np.asarray(rink_from_image, float)
        msg["H_rink_from_image"] = np.round(H, 9).tolist()
        try:
            image_from_rink = np.linalg.inv(H)
        except np.linalg.LinAlgError:
            image_from_rink = None
        if image_from_rink is not None:
            for name, seg in (lines or {}).items():
                uv = _project(image_from_rink, seg)
                if uv is not None:
                    msg["lines_px"][name] = uv
            if puck:
                uv = _project(image_from_rink, np.array([[puck["x"], puck["y"]]], float))
                msg["puck_px"] = uv[0] if uv else None
    if extra:
        msg.update(extra)
    return msg


class FixedCameraProcessor:
    """A fixed camera with a stored profile: the same homography every frame, lines in image px.

    Args:
        profile: a truthy `calibration.fixed.CameraProfile`.
        rink: `RinkModel` for the lines (None: no lines).
    """

    def __init__(self, profile, rink=None) -> None:
        if not profile:
            raise ValueError(f"camera profile {getattr(profile, 'name', '?')!r} has no homography")
        self.H = np.asarray(profile.rink_from_image, float)
        self.lines = rink_line_segments(rink) if rink is not None else None
        self._cached = overlay_message(0, 0.0, self.H, 1.0, None, [], self.lines)

    def __call__(self, frame_bgr: np.ndarray, index: int, t: float) -> dict:
        msg = dict(self._cached)
        msg.update(frame=index, t=round(t, 6))
        return msg


class PipelineProcessor:
    """The pipeline's per-frame stages: `Calibrator` → `FrameTracker` → `StreamingRules` (see docs/interfaces.md).

    With ``vision_process`` (the live feed's default) calibration runs on every frame here,
    and the vision and rules stages in a process of their own
    (``vision_worker.VisionWorker``), which takes a frame whenever it is idle: every
    message then has this frame's calibration and lines, and the newest puck and players,
    from the frame named by ``objects_frame`` (``objects_lag_s`` behind; null until the
    first result). Without it all stages run here on every frame, in order (every message's
    objects are its own frame's; far slower than real time on a small machine).

    Args:
        game: ``GameDescriptor``.
        rink: ``RinkModel``.
        fps: the feed's frame rate.
        camera_profile: a fixed camera's stored calibration, or None.
        vision_process: run vision and rules in a second process (see above).

    Raises:
        ImportError: the calibration/vision stages are not installed yet.
    """

    def __init__(self, game, rink, fps: float, camera_profile=None, vision_process: bool = True) -> None:
        from calibration.registration import Calibrator
        from rulesfromvideo.service.vision_worker import VisionStage, VisionWorker
        from vision.tracking import BLADE_SIGMA_M

        self.calibrator = Calibrator(rink, camera_profile=camera_profile, fps=fps)
        self.fps = float(fps)
        self.lines = rink_line_segments(rink)
        self.worker = VisionWorker(game, fps, BLADE_SIGMA_M) if vision_process else None
        self.stage = None if vision_process else VisionStage(game, rink, fps, BLADE_SIGMA_M)

    def __call__(self, frame_bgr: np.ndarray, index: int, t: float) -> dict:
        calib = self.calibrator.update(frame_bgr, index)
        extra: dict = {}
        if self.worker is None:
            puck, players, events = self.stage.step(frame_bgr, index, t, calib)
            extra["objects_frame"] = index
        else:
            self.worker.offer(frame_bgr, index, t, calib)
            latest = self.worker.latest
            puck, players = (latest[1], latest[2]) if latest is not None else (None, [])
            events = self.worker.events()
            extra["objects_frame"] = latest[0] if latest is not None else None
            if latest is not None:
                extra["objects_lag_s"] = round((index - latest[0]) / self.fps, 4)
            if self.worker.error:
                extra["vision_error"] = self.worker.error
        msg = overlay_message(index, t, calib.rink_from_image, round(float(calib.quality), 4), puck, players,
                              self.lines, extra)
        # Rule calls once settled (rulesfromvideo.rules.streaming), sent as server-sent events.
        if events:
            msg["events"] = events
        return msg

    @property
    def rules(self):
        """The in-process ``StreamingRules`` (``vision_process=False``), else None."""
        return self.stage.rules if self.stage is not None else None

    def flush(self) -> list[dict]:
        """At the end of the source: the rule calls still settling (``StreamingRules.flush``)."""
        if self.worker is not None:
            return self.worker.flush()
        return self.stage.flush()

    def close(self) -> None:
        """Stop the vision process (if any)."""
        if self.worker is not None:
            self.worker.close()


@dataclass
class LiveStats:
    """Counters of one feed (all frames since start)."""

    frames_read: int = 0
    frames_processed: int = 0
    frames_dropped: int = 0  # waited in the queue while a newer frame arrived
    messages_sent: int = 0
    client_drops: int = 0  # messages a slow client missed
    process_errors: int = 0
    latency_s: deque = field(default_factory=lambda: deque(maxlen=20000))  # read → WebSocket send done
    started: float = field(default_factory=time.monotonic)

    def summary(self) -> dict:
        lat = np.array(self.latency_s, float) * 1000.0
        pct = (lambda q: round(float(np.percentile(lat, q)), 3)) if lat.size else (lambda q: None)
        return {"frames_read": self.frames_read, "frames_processed": self.frames_processed,
                "frames_dropped": self.frames_dropped, "messages_sent": self.messages_sent,
                "client_drops": self.client_drops, "process_errors": self.process_errors,
                "latency_ms": {"n": int(lat.size), "p50": pct(50), "p99": pct(99), "max": pct(100)},
                "uptime_s": round(time.monotonic() - self.started, 3)}


class _Subscriber:
    def __init__(self, maxsize: int) -> None:
        self.queue: asyncio.Queue = asyncio.Queue(maxsize=maxsize)
        self.dropped = 0


def open_source(source: str | int):
    """Open a file path, an RTSP/HTTP URL or a camera index with OpenCV.

    Returns:
        (capture, is_file, fps).

    Raises:
        ValueError: the source cannot be opened.
    """
    import cv2

    src = int(source) if isinstance(source, int) or str(source).isdigit() else str(source)
    is_file = isinstance(src, str) and "://" not in src
    if is_file and not Path(src).is_file():
        raise ValueError(f"{src}: no such file")
    cap = cv2.VideoCapture(src)
    if not cap.isOpened():
        raise ValueError(f"{source}: cannot be opened as a video source")
    fps = float(cap.get(cv2.CAP_PROP_FPS) or 0.0)
    return cap, is_file, fps if 1.0 <= fps <= 480.0 else 30.0


class LiveFeed:
    """One live source, its reader and processor threads, and its subscribers.

    Args:
        source: file path, URL or camera index.
        process_fn: `(frame_bgr, index, t) -> dict` overlay message (may carry
            `"events": [...]`, published as server-sent events).
        queue_size: frames waiting for the processor (1 or 2).
        realtime: pace a file at its frame rate (live sources are paced by
            the source itself).
        loop: restart a file at its end.
        wait_for_clients: hold the source until this many clients (WebSocket
            or SSE) listen (a file is then not half over before the overlay connects).
    """

    def __init__(self, source: str | int, process_fn: ProcessFn, *, queue_size: int = 1, realtime: bool = True,
                 loop: bool = False, wait_for_clients: int = 0) -> None:
        if queue_size not in (1, 2):
            raise ValueError("queue_size must be 1 or 2")
        self.source, self.process_fn = source, process_fn
        self.realtime, self.loop_file = realtime, loop
        self.wait_for_clients = wait_for_clients
        self.stats = LiveStats()
        self._frames: queue.Queue = queue.Queue(maxsize=queue_size)
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self._loop: asyncio.AbstractEventLoop | None = None
        self._ws: set[_Subscriber] = set()
        self._sse: set[_Subscriber] = set()
        self._sub_lock = threading.Lock()
        self.ended = threading.Event()
        self._end_payload = ""
        self.error: str | None = None
        self.fps = 0.0
        self._cap, self._is_file, self.fps = open_source(source)

    # -- lifecycle ----------------------------------------------------------
    def start(self, loop: asyncio.AbstractEventLoop) -> None:
        """Start reading and processing; messages are delivered on `loop`."""
        self._loop = loop
        for target, name in ((self._read, "rfv-live-reader"), (self._process, "rfv-live-process")):
            th = threading.Thread(target=target, name=name, daemon=True)
            th.start()
            self._threads.append(th)

    def stop(self) -> None:
        self._stop.set()
        for th in self._threads:
            th.join(5.0)
        self._cap.release()
        close = getattr(self.process_fn, "close", None)
        if callable(close):  # also when the feed never started (closing twice is harmless)
            close()

    # -- threads ------------------------------------------------------------
    def _read(self) -> None:
        while not self._stop.is_set():
            with self._sub_lock:
                if len(self._ws) + len(self._sse) >= self.wait_for_clients:
                    break
            time.sleep(0.005)
        index, t_start = 0, time.monotonic()
        try:
            while not self._stop.is_set():
                ok, frame = self._cap.read()
                if not ok:
                    if self._is_file and self.loop_file and index > 0:
                        import cv2

                        self._cap.set(cv2.CAP_PROP_POS_FRAMES, 0)
                        continue
                    break
                t = index / self.fps
                if self._is_file and self.realtime:
                    # Real speed: a file is released no faster than a camera would deliver it.
                    delay = t_start + t - time.monotonic()
                    if delay > 0:
                        time.sleep(delay)
                item = (index, t, time.perf_counter(), frame)
                self.stats.frames_read += 1
                try:
                    self._frames.put_nowait(item)
                except queue.Full:
                    try:
                        self._frames.get_nowait()  # the stale frame goes, the newest stays
                        self.stats.frames_dropped += 1
                    except queue.Empty:
                        pass
                    self._frames.put_nowait(item)
                index += 1
        except Exception as exc:  # a source error ends the feed with a message, never silently
            self.error = f"{type(exc).__name__}: {exc}"
            log.exception("live reader")
        finally:
            self._frames.put(None)

    def _process(self) -> None:
        while True:
            item = self._frames.get()
            if item is None or self._stop.is_set():
                break
            index, t, t_read, frame = item
            try:
                msg = self.process_fn(frame, index, t)
            except Exception as exc:
                self.stats.process_errors += 1
                msg = {"type": "frame", "frame": index, "t": round(t, 6), "error": f"{type(exc).__name__}: {exc}"}
            self.stats.frames_processed += 1
            events = msg.pop("events", None) or []
            msg["t_read_mono"] = t_read
            payload = json.dumps(msg, separators=(",", ":"))
            self._deliver(self._ws, (payload, t_read))
            for ev in events:
                self._deliver(self._sse, ("rule", json.dumps(ev)))
        # Calls still settling when the source ends (a processor with rules may hold some).
        flush = getattr(self.process_fn, "flush", None)
        if callable(flush) and not self._stop.is_set():
            try:
                for ev in flush() or []:
                    self._deliver(self._sse, ("rule", json.dumps(ev)))
            except Exception:
                self.stats.process_errors += 1
        close = getattr(self.process_fn, "close", None)
        if callable(close):
            try:
                close()
            except Exception:
                log.exception("live processor close")
        end = json.dumps({"type": "end", "error": self.error, "stats": self.stats.summary()})
        with self._sub_lock:
            self._end_payload = end
            self.ended.set()
        self._deliver(self._ws, (end, None))
        self._deliver(self._sse, ("end", end))

    def _deliver(self, subs: set, item) -> None:
        if self._loop is None or self._loop.is_closed():
            return
        with self._sub_lock:
            targets = list(subs)
        if targets:
            try:
                self._loop.call_soon_threadsafe(self._fanout, targets, item)
            except RuntimeError:  # loop closed during shutdown
                pass

    def _fanout(self, targets: list[_Subscriber], item) -> None:
        for sub in targets:
            if sub.queue.full():
                sub.queue.get_nowait()
                sub.dropped += 1
                self.stats.client_drops += 1
            sub.queue.put_nowait(item)

    # -- subscriptions ------------------------------------------------------
    def subscribe(self, kind: str) -> _Subscriber:
        """A new subscriber ("ws" or "sse"); call from the event loop. A late one gets the end at once."""
        sub = _Subscriber(2 if kind == "ws" else 100)
        with self._sub_lock:
            if self.ended.is_set():
                sub.queue.put_nowait((self._end_payload, None) if kind == "ws" else ("end", self._end_payload))
            else:
                (self._ws if kind == "ws" else self._sse).add(sub)
        return sub

    def unsubscribe(self, sub: _Subscriber) -> None:
        with self._sub_lock:
            self._ws.discard(sub)
            self._sse.discard(sub)

    def status(self) -> dict:
        with self._sub_lock:
            n_ws, n_sse = len(self._ws), len(self._sse)
        # A file's name only, and nothing of a URL (it may carry camera credentials).
        return {"source": Path(str(self.source)).name if self._is_file else "live", "fps": self.fps,
                "ended": self.ended.is_set(), "error": self.error, "ws_clients": n_ws, "sse_clients": n_sse,
                **self.stats.summary()}
