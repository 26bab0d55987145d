"""Evidence images rendered on demand: a frame with overlay layers, a zoomed crop at a point or line.

Inputs are a job's contract files (`tracks.jsonl`, `calibration.jsonl`) and
the clip itself; the drawing is `rulesfromvideo.report.draw_frame_overlay`,
with layers switched off by handing it a rink without markings (lines) or a
record without puck / players (puck / blades).
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from pathlib import Path

import cv2
import numpy as np

LAYERS = ("lines", "puck", "blades")


class FrameIndex:
    """Byte offsets of each frame's line in a JSONL file keyed by `"frame"`, for O(1) look-ups.

    Rebuilt when the file's size or mtime changes (a job still writing it).
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._sig: tuple | None = None
        self._offsets: dict[int, int] = {}
        self._lock = threading.Lock()

    def _refresh(self) -> None:
        try:
            st = self.path.stat()
        except OSError:
            self._sig, self._offsets = None, {}
            return
        sig = (st.st_size, st.st_mtime_ns)
        if sig == self._sig:
            return
        offsets: dict[int, int] = {}
        with open(self.path, "rb") as fh:
            pos = 0
            for line in fh:
                # Cheap parse of the leading {"frame": N ...} without decoding the whole line.
                head = line[:64]
                i = head.find(b'"frame"')
                if i >= 0:
                    j = head.find(b":", i) + 1
                    k = j
                    while k < len(head) and head[k : k + 1] in b" 0123456789-":
                        k += 1
                    try:
                        offsets[int(head[j:k])] = pos
                    except ValueError:
                        pass
                pos += len(line)
        self._sig, self._offsets = sig, offsets

    def get(self, frame: int) -> dict | None:
        with self._lock:
            self._refresh()
            off = self._offsets.get(frame)
            if off is None:
                return None
            with open(self.path, "rb") as fh:
                fh.seek(off)
                line = fh.readline()
        try:
            rec = json.loads(line)
        except ValueError:
            return None
        return rec if isinstance(rec, dict) and rec.get("frame") == frame else None

    def __len__(self) -> int:
        with self._lock:
            self._refresh()
            return len(self._offsets)


_indexes: OrderedDict[str, FrameIndex] = OrderedDict()
_indexes_lock = threading.Lock()


def frame_index(path: Path) -> FrameIndex:
    key = str(path)
    with _indexes_lock:
        idx = _indexes.pop(key, None) or FrameIndex(path)
        _indexes[key] = idx
        while len(_indexes) > 64:
            _indexes.popitem(last=False)
        return idx


_rinks: dict[str, object] = {}


def rink_for_game(game_json: str):
    """The `RinkModel` of a clip's GAME.json, or None when the descriptor or rink module cannot build it."""
    if game_json in _rinks:
        return _rinks[game_json]
    try:
        from calibration.rink import RinkModel
        from rulesfromvideo.game import GameDescriptor

        rink = RinkModel(GameDescriptor.from_dict(json.loads(game_json)).rink_spec())
    except Exception:  # an unusable descriptor just means no lines can be drawn
        rink = None
    if len(_rinks) > 32:
        _rinks.clear()
    _rinks[game_json] = rink
    return rink


class _NoMarkings:
    markings: list = []


def parse_layers(text: str | None) -> set[str]:
    """`"lines,puck"` → {"lines", "puck"}; None → all layers; unknown names raise ValueError."""
    if text is None:
        return set(LAYERS)
    got = {p.strip() for p in text.split(",") if p.strip()}
    bad = got - set(LAYERS) - {"none"}
    if bad:
        raise ValueError(f"unknown overlay layer(s) {sorted(bad)}; known: {', '.join(LAYERS)}, none")
    return got - {"none"}


def overlay_frame(frame_bgr: np.ndarray, rink, calib: dict | None, record: dict | None, layers: set[str]) -> np.ndarray:
    """Draw the chosen layers on one frame (a new image).

    Args:
        frame_bgr: the decoded frame.
        rink: `RinkModel` or None (no lines).
        calib: the frame's calibration.jsonl record or None.
        record: the frame's tracks.jsonl record or None.
        layers: subset of `LAYERS`.
    """
    from rulesfromvideo.report import draw_frame_overlay

    if not layers:
        return frame_bgr.copy()
    H = None if not calib or calib.get("H_rink_from_image") is None else np.asarray(calib["H_rink_from_image"], float)
    rec = None
    if record:
        rec = {"puck": record.get("puck") if "puck" in layers else None,
               "players": record.get("players") if "blades" in layers else []}
    shown_rink = rink if ("lines" in layers and rink is not None) else _NoMarkings()
    from rulesfromvideo.rules.common import K_SIGMA

    # Blades with the 3-sigma band of their error, as the rules judge them.
    return draw_frame_overlay(frame_bgr, shown_rink, H, rec, blade_k_sigma=K_SIGMA if "blades" in layers else None)


def image_from_rink_xy(calib: dict | None, xy_rink_m) -> tuple[float, float] | None:
    """Project a rink point to image pixels with the frame's homography (None when uncalibrated/behind)."""
    if not calib or calib.get("H_rink_from_image") is None:
        return None
    H = np.linalg.inv(np.asarray(calib["H_rink_from_image"], float))
    u, v, w = H @ np.array([float(xy_rink_m[0]), float(xy_rink_m[1]), 1.0])
    if w <= 1e-12:
        return None
    return float(u / w), float(v / w)


def line_point_rink(rink, line: str, end: str | None, near_xy: tuple[float, float] | None) -> tuple[float, float]:
    """The point of a goal/blue line nearest to `near_xy` (the puck), in rink metres.

    Args:
        rink: `RinkModel`.
        line: "goal_line" | "blue_line" | "centre_line".
        end: "+x" | "-x" (None: the end on the puck's side, else +x).
        near_xy: the point to approach, or None (the line's centre, y = 0).

    Raises:
        ValueError: an unknown line or end.
    """
    if line not in ("goal_line", "blue_line", "centre_line"):
        raise ValueError("line must be goal_line, blue_line or centre_line")
    if line == "centre_line":
        x = 0.0
    else:
        if end is None:
            end = "-x" if near_xy is not None and near_xy[0] < 0 else "+x"
        if end not in ("+x", "-x"):
            raise ValueError("end must be +x or -x")
        sign = 1 if end == "+x" else -1
        lo, hi = rink.goal_line_edges_x(sign) if line == "goal_line" else rink.blue_line_edges_x(sign)
        x = (lo + hi) / 2
    y = 0.0 if near_xy is None else float(near_xy[1])
    return x, y


def crop_zoom(img: np.ndarray, center_px: tuple[float, float], half: int, zoom: int) -> np.ndarray:
    """A (2·half·zoom)² crop centred on `center_px`, padded black past the image edge, nearest-neighbour scaled."""
    h, w = img.shape[:2]
    cx, cy = int(round(center_px[0])), int(round(center_px[1]))
    out = np.zeros((2 * half, 2 * half, 3), np.uint8)
    x0, y0, x1, y1 = cx - half, cy - half, cx + half, cy + half
    sx0, sy0, sx1, sy1 = max(0, x0), max(0, y0), min(w, x1), min(h, y1)
    if sx1 > sx0 and sy1 > sy0:
        out[sy0 - y0 : sy1 - y0, sx0 - x0 : sx1 - x0] = img[sy0:sy1, sx0:sx1]
    out = cv2.resize(out, None, fx=zoom, fy=zoom, interpolation=cv2.INTER_NEAREST)
    c = half * zoom
    cv2.drawMarker(out, (c, c), (255, 0, 255), cv2.MARKER_CROSS, 2 * zoom * 4, 1)
    return out


class PngCache:
    """Rendered PNGs by key, bounded in total bytes (a judge stepping back and forth re-uses them)."""

    def __init__(self, max_bytes: int = 96 * 1024 * 1024) -> None:
        self._items: OrderedDict[tuple, bytes] = OrderedDict()
        self._bytes, self.max_bytes = 0, max_bytes
        self._lock = threading.Lock()

    def get(self, key: tuple) -> bytes | None:
        with self._lock:
            data = self._items.get(key)
            if data is not None:
                self._items.move_to_end(key)
            return data

    def put(self, key: tuple, data: bytes) -> None:
        with self._lock:
            if key in self._items:
                return
            self._items[key] = data
            self._bytes += len(data)
            while self._bytes > self.max_bytes and self._items:
                _, old = self._items.popitem(last=False)
                self._bytes -= len(old)


PNGS = PngCache()


def file_sig(path: Path) -> tuple:
    """(size, mtime) of a file, or () when absent: part of a cache key for files still being written."""
    try:
        st = path.stat()
    except OSError:
        return ()
    return (st.st_size, st.st_mtime_ns)


def png_bytes(img: np.ndarray) -> bytes:
    ok, buf = cv2.imencode(".png", img)
    if not ok:
        raise RuntimeError("PNG encoding failed")
    return buf.tobytes()


def placeholder(width: int, height: int, text: str) -> np.ndarray:
    """A grey frame saying why there is no picture (frame past the end, undecodable)."""
    img = np.full((max(1, height), max(1, width), 3), 60, np.uint8)
    cv2.putText(img, text, (20, 40), cv2.FONT_HERSHEY_SIMPLEX, 0.9, (0, 0, 255), 2)
    return img
