"""Reading and writing video files (H.264 mp4 via the ffmpeg binary of imageio-ffmpeg).

Writing pipes raw BGR frames into ``ffmpeg`` (libx264, yuv420p). Reading uses
``cv2.VideoCapture`` and falls back to an ffmpeg pipe when OpenCV cannot open the
file. Unreadable, empty or truncated files raise ``VideoError`` with the path and
the reason, never a bare OpenCV/ffmpeg failure.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from typing import Iterable, Iterator

import cv2
import numpy as np


class VideoError(RuntimeError):
    """A video file cannot be written, opened or decoded."""


def ffmpeg_exe() -> str:
    """Path of the ffmpeg binary bundled with imageio-ffmpeg."""
    try:
        import imageio_ffmpeg
    except ImportError as exc:  # pragma: no cover - a declared dependency
        raise VideoError("imageio-ffmpeg is not installed; it provides the ffmpeg binary") from exc
    return imageio_ffmpeg.get_ffmpeg_exe()


class VideoWriter:
    """Write BGR frames to an H.264 mp4 (yuv420p, even sizes required by the codec).

    Args:
        path: output file (parent folders are created).
        fps: frames per second.
        width, height: frame size, pixels (even numbers).
        crf: x264 constant rate factor (lower = better quality, 23 default).
        preset: x264 speed preset ("veryfast" keeps encoding well ahead of rendering).

    Use as a context manager; ``write(frame_bgr)`` takes (height, width, 3) uint8.
    """

    def __init__(self, path: str | Path, fps: float, width: int, height: int, crf: int = 23,
                 preset: str = "veryfast"):
        self.path = Path(path)
        self.fps, self.width, self.height = float(fps), int(width), int(height)
        if self.width % 2 or self.height % 2 or self.width <= 0 or self.height <= 0:
            raise VideoError(f"{self.path}: H.264 yuv420p needs positive even sizes, got {width}x{height}")
        if not self.fps > 0:
            raise VideoError(f"{self.path}: fps must be positive, got {fps}")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        cmd = [
            ffmpeg_exe(), "-y", "-loglevel", "error",
            "-f", "rawvideo", "-pix_fmt", "bgr24", "-s", f"{self.width}x{self.height}", "-r", f"{self.fps:g}",
            "-i", "-",
            "-an", "-c:v", "libx264", "-preset", preset, "-crf", str(int(crf)), "-pix_fmt", "yuv420p",
            "-movflags", "+faststart", str(self.path),
        ]
        self._proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stderr=subprocess.PIPE)
        self.n_frames = 0

    def write(self, frame_bgr: np.ndarray) -> None:
        """Append one (height, width, 3) uint8 BGR frame."""
        f = np.asarray(frame_bgr)
        if f.shape != (self.height, self.width, 3) or f.dtype != np.uint8:
            raise VideoError(f"{self.path}: frame must be ({self.height}, {self.width}, 3) uint8, "
                             f"got {f.shape} {f.dtype}")
        try:
            self._proc.stdin.write(np.ascontiguousarray(f).tobytes())
        except (BrokenPipeError, OSError) as exc:
            err = self._proc.stderr.read().decode(errors="replace") if self._proc.stderr else ""
            raise VideoError(f"{self.path}: ffmpeg stopped accepting frames: {err.strip()}") from exc
        self.n_frames += 1

    def close(self) -> None:
        """Finish the file (waits for ffmpeg)."""
        if self._proc.stdin and not self._proc.stdin.closed:
            try:
                self._proc.stdin.close()
            except OSError:
                pass
        rc = self._proc.wait()
        err = self._proc.stderr.read().decode(errors="replace") if self._proc.stderr else ""
        if rc != 0:
            raise VideoError(f"{self.path}: ffmpeg failed (exit {rc}): {err.strip()}")

    def __enter__(self) -> "VideoWriter":
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is None:
            self.close()
        else:  # do not mask the original error
            try:
                self.close()
            except VideoError:
                pass


def _ffprobe_like(path: Path) -> tuple[float, int, int, int]:
    """fps, width, height, n_frames by decoding with ffmpeg (no ffprobe binary is bundled)."""
    cmd = [ffmpeg_exe(), "-hide_banner", "-i", str(path), "-map", "0:v:0", "-f", "null", "-"]
    res = subprocess.run(cmd, capture_output=True, text=True)
    err = res.stderr
    m = re.search(r"Video: .*?(\d{2,5})x(\d{2,5})", err)
    if res.returncode != 0 or not m:
        raise VideoError(f"{path}: not a readable video ({_last_line(err)})")
    w, h = int(m.group(1)), int(m.group(2))
    fm = re.search(r"([\d.]+) fps", err)
    fps = float(fm.group(1)) if fm else 0.0
    frames = re.findall(r"frame=\s*(\d+)", err)
    n = int(frames[-1]) if frames else 0
    return fps, w, h, n


def _last_line(text: str) -> str:
    lines = [ln for ln in text.strip().splitlines() if ln.strip()]
    return lines[-1] if lines else "no output"


def probe(path: str | Path) -> tuple[float, int, int, int]:
    """(fps, width, height, n_frames) of a video file.

    Raises:
        VideoError: missing, unreadable or empty file.
    """
    p = Path(path)
    if not p.is_file():
        raise VideoError(f"{p}: no such file")
    if p.stat().st_size == 0:
        raise VideoError(f"{p}: empty file")
    cap = cv2.VideoCapture(str(p))
    try:
        if cap.isOpened():
            fps = float(cap.get(cv2.CAP_PROP_FPS))
            w = int(cap.get(cv2.CAP_PROP_FRAME_WIDTH))
            h = int(cap.get(cv2.CAP_PROP_FRAME_HEIGHT))
            n = int(cap.get(cv2.CAP_PROP_FRAME_COUNT))
            if w > 0 and h > 0 and n > 0 and fps > 0:
                return fps, w, h, n
    finally:
        cap.release()
    fps, w, h, n = _ffprobe_like(p)
    if n <= 0:
        raise VideoError(f"{p}: no decodable frames")
    return fps, w, h, n


def iter_frames(path: str | Path) -> Iterator[tuple[int, np.ndarray]]:
    """Yield (index, frame_bgr (H, W, 3) uint8) for every frame, from index 0.

    Raises:
        VideoError: the file cannot be opened, has no frames, or stops decoding
            before the frame count its header announces (truncated).
    """
    p = Path(path)
    fps, w, h, n_expected = probe(p)
    cap = cv2.VideoCapture(str(p))
    if cap.isOpened():
        i = 0
        try:
            while True:
                ok, frame = cap.read()
                if not ok:
                    break
                yield i, frame
                i += 1
        finally:
            cap.release()
        if i == 0:
            raise VideoError(f"{p}: corrupt or truncated: no decodable frames of {n_expected} announced")
        if i < n_expected - 1:  # containers may over-count by one
            raise VideoError(f"{p}: truncated: decoded {i} of {n_expected} frames")
        return
    yield from _iter_ffmpeg(p, w, h, n_expected)


def iter_frames_at(path: str | Path, wanted: Iterable[int]) -> Iterator[tuple[int, np.ndarray]]:
    """Yield (index, frame_bgr (H, W, 3) uint8) for the frame indices in ``wanted``, in order.

    The frames in between are decoded but not converted to BGR (``cv2.VideoCapture.grab``,
    about half the cost of a ``read`` at 720p), and decoding stops at the last one wanted.
    Indices beyond the clip's end, or after the point where a truncated file stops
    decoding, are not yielded.

    Raises:
        VideoError: the file cannot be opened or has no frames.
    """
    want = sorted({int(i) for i in wanted if int(i) >= 0})
    if not want:
        return
    p = Path(path)
    _, w, h, n_expected = probe(p)
    cap = cv2.VideoCapture(str(p))
    if not cap.isOpened():
        cap.release()
        wanted_set, last = set(want), want[-1]
        try:
            for i, frame in _iter_ffmpeg(p, w, h, n_expected):
                if i in wanted_set:
                    yield i, frame
                if i >= last:
                    return
        except VideoError:  # a truncated file: the frames before its end were yielded
            return
        return
    try:
        i, k = 0, 0
        while k < len(want) and cap.grab():
            if i == want[k]:
                ok, frame = cap.retrieve()
                if not ok:
                    return
                yield i, frame
                k += 1
            i += 1
    finally:
        cap.release()


def _iter_ffmpeg(p: Path, w: int, h: int, n_expected: int) -> Iterator[tuple[int, np.ndarray]]:
    cmd = [ffmpeg_exe(), "-loglevel", "error", "-i", str(p), "-map", "0:v:0", "-f", "rawvideo",
           "-pix_fmt", "bgr24", "-"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    size = w * h * 3
    i = 0
    try:
        while True:
            buf = proc.stdout.read(size)
            if len(buf) < size:
                break
            yield i, np.frombuffer(buf, np.uint8).reshape(h, w, 3).copy()
            i += 1
    finally:
        proc.stdout.close()
        err = proc.stderr.read().decode(errors="replace")
        proc.wait()
    if i == 0:
        raise VideoError(f"{p}: no decodable frames ({_last_line(err)})")
    if i < n_expected - 1:
        raise VideoError(f"{p}: truncated: decoded {i} of {n_expected} frames")

