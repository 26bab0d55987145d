"""Frames the calibrator could not register, tracked backwards from the next frame it registers.

A broadcast clip often opens on a view the cold search cannot register (one line, few markings,
a far zone) and registers a second later once the camera shows more; from then on tracking
follows the camera frame to frame. Offline (``analyze``, ``batch``) nothing stops the tracking
from running the other way: ``BackwardFill`` holds the unknown frames (at most ``max_frames``,
oldest released first as unknown), and when a frame registers it tracks a copy of the
calibrator — its state at that frame — backwards over them, newest first, until a frame fails
the same verification (``Calibrator.min_quality``) that forward tracking must pass; the frames
before that one stay unknown. A gap in mid-clip (a fast pan, a cut to a view it cannot register
at once) is held and filled the same way.

Fresh broadcast render ``icing_shorthanded_broadcast_806`` (docs/calibration.md, stop 42): frames
0-22 unknown, 23 cold; tracked backwards from 23, all 23 registered at 0.5-1.8 cm median.

Only for offline runs: holding frames delays every result by up to ``max_frames`` frames, which
a live feed cannot afford.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Iterator

import numpy as np

from calibration.registration import CalibrationResult, Calibrator

# Unknown frames held offline (``analyze``, ``batch``), s: a clip's opening seconds that the cold
# search cannot register (fresh broadcast renders 790, 794, 806: 15-23 frames at 30 frames/s;
# tuning renders 861 and 923: 90 frames, of which 2 s held 60); up to 249 MB of 720p frames
# (560 MB at 1080p) while a gap is held.
BACKFILL_MAX_S = 3.0


class BackwardFill:
    """Calibrate frames in order, filling the unknown ones backwards from the next registered one.

    Args:
        calibrator: the forward calibrator (its state is copied, never rewound).
        max_frames: unknown frames held at most; the oldest beyond it are released unknown.

    ``push(index, frame_bgr)`` returns the frames whose calibration is final, in frame order:
    ``[(index, frame_bgr, CalibrationResult), ...]`` (none while a gap is held); ``flush()`` the
    frames still held, unknown, at the end of the video.
    """

    def __init__(self, calibrator: Calibrator, max_frames: int) -> None:
        self.calibrator = calibrator
        self.max_frames = max(0, int(max_frames))
        self._held: list[tuple[int, np.ndarray, CalibrationResult]] = []
        self.filled = 0  # frames registered by the backward tracking so far

    def push(self, index: int, frame_bgr: np.ndarray) -> list[tuple[int, np.ndarray, CalibrationResult]]:
        result = self.calibrator.update(frame_bgr, index)
        if result.rink_from_image is None:
            if self.max_frames == 0:
                return [(index, frame_bgr, result)]
            # The decoder may reuse its buffer: a held frame is a copy.
            self._held.append((index, frame_bgr.copy(), result))
            out = []
            while len(self._held) > self.max_frames:
                out.append(self._held.pop(0))
            return out
        return self._fill_backwards() + [(index, frame_bgr, result)]

    def flush(self) -> list[tuple[int, np.ndarray, CalibrationResult]]:
        out, self._held = self._held, []
        return out

    def _fill_backwards(self) -> list[tuple[int, np.ndarray, CalibrationResult]]:
        """The held frames, the newest of them tracked backwards from the calibrator's current
        (registered) state until one fails; in frame order."""
        held, self._held = self._held, []
        if not held:
            return []
        back: Calibrator = copy.deepcopy(self.calibrator)
        for k in range(len(held) - 1, -1, -1):
            index, frame, _ = held[k]
            result = back.update(frame, index)
            if result.rink_from_image is None:
                break
            result.method = "track_back"
            held[k] = (index, frame, result)
            self.filled += 1
        return held


def calibrated_in_order(frames: Iterable[tuple[int, np.ndarray]], calibrator: Calibrator,
                        max_frames: int | None = None) -> Iterator[tuple[int, np.ndarray, CalibrationResult]]:
    """(index, frame_bgr, CalibrationResult) for each (index, frame_bgr) of ``frames``, in frame
    order, the unknown ones filled backwards (``BackwardFill``, ``BACKFILL_MAX_S`` held).

    Args:
        frames: the video's (index, (H, W, 3) uint8 BGR) frames in order.
        calibrator: the forward calibrator (its ``fps`` sets how many frames are held).
        max_frames: stop before this frame index (None: all frames).
    """
    filler = BackwardFill(calibrator, max_frames=int(round(BACKFILL_MAX_S * calibrator.fps)))
    for index, frame_bgr in frames:
        if max_frames is not None and index >= max_frames:
            break
        yield from filler.push(index, frame_bgr)
    yield from filler.flush()
