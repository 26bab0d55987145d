"""`overlay.mp4`: the clip with the registered rink lines, puck, blades and a live call banner.

The calls are only known once the rule detectors have read the whole track, so
`analyze --overlay` renders the overlay in a second pass after `events.json`
is written: `write_overlay` decodes the clip again and streams
`tracks.jsonl` and `calibration.jsonl` beside it (memory stays flat in video
length). The banner shows the last call so far — e.g. "OFFSIDE (away) +38 cm" —
for `BANNER_S` seconds after each event.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Iterator

import cv2
import numpy as np

from rulesfromvideo.report import draw_frame_overlay

BANNER_S = 3.0  # how long a call stays on screen after its decisive instant, s
_BANNER_BGR = {"decisive": (40, 40, 200), "clear": (50, 130, 40), "inconclusive": (110, 110, 110)}
_CLEAR = {"onside", "waved_off", "no_goal", "clear"}


def call_text(ev: dict) -> str:
    """Banner text of one event: verdict, team and margin, e.g. "OFFSIDE (away) +38 cm"."""
    verdict = str(ev.get("verdict", "?")).replace("_", " ").upper()
    team = ev.get("team")
    margin = ev.get("margin_m")
    text = f"{str(ev.get('type', '')).replace('_', ' ')}: {verdict}"
    if team:
        text += f" ({team})"
    if margin is not None:
        text += f" {100 * float(margin):+.0f} cm"
    return text


def banner_event(events: list[dict], t: float, hold_s: float = BANNER_S) -> dict | None:
    """The last event with ``t_event <= t < t_event + hold_s``, or None (events in any order)."""
    best = None
    for ev in events:
        te = float(ev.get("t", -1e9))
        if te <= t < te + hold_s and (best is None or te >= float(best["t"])):
            best = ev
    return best


def draw_banner(img: np.ndarray, ev: dict | None) -> np.ndarray:
    """Draw the call banner across the top of `img` in place (nothing when `ev` is None)."""
    if ev is None:
        return img
    h, w = img.shape[:2]
    scale = max(0.4, h / 720.0)
    text = call_text(ev)
    verdict = ev.get("verdict")
    color = _BANNER_BGR["inconclusive" if verdict == "inconclusive" else "clear" if verdict in _CLEAR
                        else "decisive"]
    (tw, th), base = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, max(1, int(2 * scale)))
    pad = int(10 * scale)
    x0 = max(0, (w - tw) // 2 - pad)
    cv2.rectangle(img, (x0, 0), (min(w - 1, x0 + tw + 2 * pad), th + base + 2 * pad), color, -1)
    cv2.putText(img, text, (x0 + pad, th + pad), cv2.FONT_HERSHEY_SIMPLEX, scale, (255, 255, 255),
                max(1, int(2 * scale)), cv2.LINE_AA)
    return img


class OverlayWriter:
    """Streams overlay frames into an H.264 file.

    Args:
        path: output .mp4 path.
        rink: `calibration.rink.RinkModel`.
        fps: frame rate of the clip.
        width, height: frame size in pixels.
        events: the calls shown in the banner (events.json); empty for no banner.
    """

    def __init__(self, path: Path, rink, fps: float, width: int, height: int, events: list[dict] | None = None):
        from vision.video import VideoWriter

        self.rink = rink
        self.fps = float(fps)
        self.events = list(events or [])
        self._writer = VideoWriter(path, fps, width, height)

    def write(self, frame_bgr: np.ndarray, rink_from_image, record: dict | None, t: float | None = None) -> None:
        """Draw one frame (`rink_from_image` may be None) with the banner for time `t` and append it."""
        img = draw_frame_overlay(frame_bgr, self.rink, rink_from_image, record)
        if t is None:
            t = (record or {}).get("t", 0.0)
        self._writer.write(draw_banner(img, banner_event(self.events, float(t))))

    def close(self) -> None:
        self._writer.close()


def _jsonl_by_frame(path: Path) -> Iterator[dict]:
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            line = line.strip()
            if line:
                yield json.loads(line)


def write_overlay(video_path: str | Path, out_path: str | Path, rink, fps: float, width: int, height: int,
                  tracks_path: str | Path, calibration_path: str | Path, events: list[dict],
                  max_frames: int | None = None) -> int:
    """Second pass of `analyze --overlay`: decode the clip again and write the overlay video.

    Args:
        video_path: the analysed clip.
        out_path: overlay.mp4 to write.
        rink: `RinkModel`.
        fps, width, height: of the clip.
        tracks_path, calibration_path: the run's contract files (one record per processed frame).
        events: the calls of events.json, shown in the banner.
        max_frames: stop after this many frames (the frames the first pass processed).

    Returns:
        Frames written.
    """
    from vision.video import iter_frames

    tracks = _jsonl_by_frame(Path(tracks_path))
    calib = _jsonl_by_frame(Path(calibration_path))
    rec = next(tracks, None)
    cal = next(calib, None)
    writer = OverlayWriter(Path(out_path), rink, fps, width, height, events)
    n = 0
    try:
        for index, frame in iter_frames(video_path):
            if max_frames is not None and index >= max_frames:
                break
            # Both files hold one record per frame in order; advance each to this frame.
            while rec is not None and rec["frame"] < index:
                rec = next(tracks, None)
            while cal is not None and cal["frame"] < index:
                cal = next(calib, None)
            r = rec if rec is not None and rec["frame"] == index else None
            c = cal if cal is not None and cal["frame"] == index else None
            H = None if c is None or c.get("H_rink_from_image") is None else np.asarray(c["H_rink_from_image"], float)
            writer.write(frame, H, r, index / fps)
            n += 1
    finally:
        writer.close()
    return n
