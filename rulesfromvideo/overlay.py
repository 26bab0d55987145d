"""`overlay.mp4`: the clip with the registered rink lines, puck and blades drawn."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from rulesfromvideo.report import draw_frame_overlay


class OverlayWriter:
    """Streams overlay frames into an H.264 file.

    Args:
        path: output .mp4 path.
        rink: `calibration.rink.RinkModel`.
        fps: frame rate of the clip.
        width, height: frame size in pixels.
    """

    def __init__(self, path: Path, rink, fps: float, width: int, height: int):
        from vision.video import VideoWriter

        self.rink = rink
        self._writer = VideoWriter(path, fps, width, height)

    def write(self, frame_bgr: np.ndarray, calib, record: dict) -> None:
        """Draw one frame (`calib.rink_from_image` may be None) and append it."""
        self._writer.write(draw_frame_overlay(frame_bgr, self.rink, calib.rink_from_image, record))

    def close(self) -> None:
        self._writer.close()
