"""BackwardFill on a simulator clip whose opening frames the cold search cannot register."""

import json

import numpy as np
import pytest

from calibration.backfill import BackwardFill
from calibration.registration import Calibrator
from calibration.rink import RinkModel, RinkSpec

N_FRAMES = 36


@pytest.fixture(scope="module")
def clip(tmp_path_factory):
    """Fresh broadcast render 806's opening (icing_shorthanded, 720p): the camera starts on a view
    the cold search does not register and registers on frame 23."""
    from vision.sim.synth import synth_clip

    d = tmp_path_factory.mktemp("bf806")
    synth_clip("icing_shorthanded", "broadcast", 806, d, width=1280, height=720, fps=30.0,
               duration_s=N_FRAMES / 30.0)
    return d, json.loads((d / "truth.json").read_text())


def _frames(d):
    from vision.video import iter_frames

    return list(iter_frames(d / "clip.mp4"))


def _median_error_cm(result, truth_frame) -> float:
    """Median rink error (cm) of a 4 m grid of the ice in view, through the truth's camera."""
    H = np.asarray(truth_frame["H_image_from_rink"], float)
    grid = np.array([[x, y] for x in range(-28, 29, 4) for y in range(-13, 14, 4)], float)
    p = np.c_[grid, np.ones(len(grid))] @ H.T
    front = p[:, 2] > 0
    px = p[front, :2] / p[front, 2:]
    inside = (px[:, 0] >= 0) & (px[:, 0] < 1280) & (px[:, 1] >= 0) & (px[:, 1] < 720)
    err = np.linalg.norm(result.image_to_rink(px[inside]) - grid[front][inside], axis=1)
    return float(np.median(err)) * 100.0


def _run(filler, frames):
    out = []
    for i, f in frames:
        out += filler.push(i, f)
    return out + filler.flush()


def test_the_opening_frames_are_tracked_back_from_the_first_registered_one(clip):
    d, truth = clip
    frames = _frames(d)
    rink = RinkModel(RinkSpec.for_layout("ipc"))
    forward = Calibrator(rink)
    first = next(i for i, f in frames if forward.update(f, i).rink_from_image is not None)
    assert first >= 10, "the clip opens on frames the forward calibrator leaves unknown"
    filler = BackwardFill(Calibrator(rink), max_frames=60)
    out = _run(filler, frames)
    assert [i for i, _, _ in out] == list(range(len(frames)))  # every frame once, in order
    assert [r.method for _, _, r in out[:first]] == ["track_back"] * first
    assert filler.filled == first
    errors = [_median_error_cm(r, truth["frames"][i]) for i, _, r in out[:first]]
    assert max(errors) < 5.0, errors
    # The frames are the video's own, not whatever the decoder's buffer held later.
    assert all(np.array_equal(f, frames[i][1]) for i, f, _ in out[:first])


def test_frames_beyond_the_hold_are_released_unknown_in_order(clip):
    d, _ = clip
    frames = _frames(d)
    filler = BackwardFill(Calibrator(RinkModel(RinkSpec.for_layout("ipc"))), max_frames=5)
    released = []
    for i, f in frames:
        got = filler.push(i, f)
        released += got
        if got and got[-1][2].rink_from_image is not None:
            first = got[-1][0]
            break
    assert [i for i, _, _ in released] == list(range(first + 1))
    assert all(r.rink_from_image is None for _, _, r in released[:first - 5])  # released as they aged
    assert [r.method for _, _, r in released[first - 5:first]] == ["track_back"] * 5
