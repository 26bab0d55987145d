"""Video files: is it a video (magic bytes + probe), safe paths under the media root, frame access.

Uploads and registered paths are checked here before the database ever sees
them: the first bytes must carry a known container signature and the file
must open and decode a first frame. `vision.video.probe` is used when it is
available (the project's own video IO), else OpenCV directly.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

import numpy as np


class NotAVideo(ValueError):
    """The bytes carry no known video container signature."""


class UnreadableVideo(ValueError):
    """A video container signature, but the file does not decode."""


class UnsafePath(ValueError):
    """A path that tries to leave the media root (`..`, absolute, symlink escape)."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


def sniff_container(head: bytes) -> str | None:
    """Name the container from the first bytes (≥ 16; 376 to confirm MPEG-TS), or None.

    Args:
        head: the first bytes of the file.

    Returns:
        "mp4/mov", "matroska/webm", "avi", "mpeg-ts", "mpeg-ps", "flv", "asf",
        "ogg", "y4m", or None.
    """
    if len(head) >= 12 and head[4:8] in (b"ftyp", b"moov", b"mdat", b"free", b"wide", b"skip"):
        return "mp4/mov"
    if head[:4] == b"\x1a\x45\xdf\xa3":
        return "matroska/webm"
    if head[:4] == b"RIFF" and head[8:12] == b"AVI ":
        return "avi"
    if len(head) >= 377 and head[0] == 0x47 and head[188] == 0x47 and head[376] == 0x47:
        return "mpeg-ts"
    if head[:4] == b"\x00\x00\x01\xba":
        return "mpeg-ps"
    if head[:3] == b"FLV":
        return "flv"
    if head[:16] == bytes.fromhex("3026b2758e66cf11a6d900aa0062ce6c"):
        return "asf"
    if head[:4] == b"OggS":
        return "ogg"
    if head[:10] == b"YUV4MPEG2 ":
        return "y4m"
    return None


@dataclass(frozen=True)
class VideoInfo:
    container: str
    fps: float
    width: int
    height: int
    n_frames: int


def probe_video(path: str | Path, display_name: str | None = None) -> VideoInfo:
    """Check that `path` is a decodable video and describe it.

    Args:
        path: the file.
        display_name: the name used in error messages (default: the file name);
            server paths never appear in them.

    Raises:
        NotAVideo: no container signature (e.g. a text or PNG file).
        UnreadableVideo: signature present but no frame decodes, or no frame rate.
    """
    path = Path(path)
    name = display_name or path.name
    with open(path, "rb") as fh:
        head = fh.read(512)
    container = sniff_container(head)
    if container is None:
        raise NotAVideo(f"{name}: not a video file (no known container signature)")
    try:
        from vision.video import VideoError, probe
    except ImportError:
        probe, VideoError = None, None
    if probe is not None:
        try:
            fps, width, height, n_frames = probe(path)
        except VideoError as exc:
            detail = str(exc).replace(f"{path}: ", "").replace(str(path), name)
            raise UnreadableVideo(f"{name}: {detail}") from None
    else:
        fps, width, height, n_frames = _cv2_probe(path, name)
    if not fps or fps <= 0 or width <= 0 or height <= 0:
        raise UnreadableVideo(f"{name}: {container} container but no video stream with a frame rate")
    # A header alone is not enough: one frame must decode (a truncated upload fails here).
    if read_frame(path, 0) is None:
        raise UnreadableVideo(f"{name}: {container} container but the first frame does not decode")
    return VideoInfo(container, float(fps), int(width), int(height), int(n_frames))


def _cv2_probe(path: Path, name: str) -> tuple[float, int, int, int]:
    import cv2

    cap = cv2.VideoCapture(str(path))
    try:
        if not cap.isOpened():
            raise UnreadableVideo(f"{name}: cannot be opened as a video")
        return (
            float(cap.get(cv2.CAP_PROP_FPS) or 0.0),
            int(cap.get(cv2.CAP_PROP_FRAME_WIDTH) or 0),
            int(cap.get(cv2.CAP_PROP_FRAME_HEIGHT) or 0),
            max(0, int(cap.get(cv2.CAP_PROP_FRAME_COUNT) or 0)),
        )
    finally:
        cap.release()


def read_frame(path: str | Path, index: int) -> np.ndarray | None:
    """Decode frame `index` of `path` (BGR uint8), or None when it does not exist/decode."""
    return FRAMES.get(Path(path), index)


class FrameCache:
    """Decoded frames by (path, index), with one open decoder per clip for stepping.

    Stepping forward one frame (the review UI's "next") reuses the open
    decoder instead of seeking; a recent-frames LRU makes "previous" free.
    """

    def __init__(self, max_frames: int = 24, max_decoders: int = 4) -> None:
        self._frames: OrderedDict[tuple[str, int, float], np.ndarray] = OrderedDict()
        self._decoders: OrderedDict[tuple[str, float], list] = OrderedDict()  # key → [cap, next_index]
        self._lock = threading.Lock()
        self.max_frames, self.max_decoders = max_frames, max_decoders

    def get(self, path: Path, index: int) -> np.ndarray | None:
        import cv2

        if index < 0:
            return None
        try:
            mtime = path.stat().st_mtime
        except OSError:
            return None
        key = (str(path), index, mtime)
        with self._lock:
            if key in self._frames:
                self._frames.move_to_end(key)
                return self._frames[key]
            dkey = (str(path), mtime)
            dec = self._decoders.pop(dkey, None)
            if dec is None:
                cap = cv2.VideoCapture(str(path))
                if not cap.isOpened():
                    return None
                dec = [cap, 0]
            cap = dec[0]
            if dec[1] != index:
                # Short hops forward decode through; longer jumps seek (OpenCV seeks to the
                # previous key frame and decodes forward, so the frame is exact).
                if index < dec[1] or index - dec[1] > 30:
                    cap.set(cv2.CAP_PROP_POS_FRAMES, index)
                    dec[1] = index
                while dec[1] < index:
                    if not cap.grab():
                        break
                    dec[1] += 1
            ok, frame = cap.read() if dec[1] == index else (False, None)
            if ok:
                dec[1] = index + 1
                self._frames[key] = frame
                while len(self._frames) > self.max_frames:
                    self._frames.popitem(last=False)
            self._decoders[dkey] = dec
            while len(self._decoders) > self.max_decoders:
                _, (old, _) = self._decoders.popitem(last=False)
                old.release()
            return frame if ok else None


FRAMES = FrameCache()


def safe_media_path(root: Path, requested: str) -> Path:
    """Resolve a client-given path inside `root`, refusing every way out.

    Args:
        root: the configured media root.
        requested: a path relative to the root (POSIX separators).

    Returns:
        The resolved absolute path of an existing regular file inside the root.

    Raises:
        UnsafePath: status 400 for `..`, absolute paths, NUL or backslashes;
            403 when the resolved file (after symlinks) lies outside the root;
            404 when it does not exist; 400 when it is not a regular file.
    """
    if not requested or "\x00" in requested or "\\" in requested:
        raise UnsafePath("path must be a non-empty relative POSIX path", 400)
    pure = PurePosixPath(requested)
    if pure.is_absolute() or requested.startswith("~"):
        raise UnsafePath("path must be relative to the media root", 400)
    if any(part == ".." for part in pure.parts):
        raise UnsafePath("path may not contain '..'", 400)
    root_real = Path(os.path.realpath(root))
    target = Path(os.path.realpath(root_real / pure))
    if not target.is_relative_to(root_real):
        raise UnsafePath("path resolves outside the media root", 403)
    if not target.exists():
        raise UnsafePath("no such file under the media root", 404)
    if not target.is_file():
        raise UnsafePath("not a regular file", 400)
    return target
