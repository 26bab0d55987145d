"""The ice model (vision.ice) on simulator renders: the rink's markings where the lens puts them."""

from __future__ import annotations

import cv2
import numpy as np

from calibration.rink import RinkModel, RinkSpec
from vision.evaluation import truth_calibration
from vision.frame_scene import SceneBuilder
from vision.ice import LensProjection
from vision.sim.camera import Camera
from vision.sim.looks import Look
from vision.sim.render import Renderer
from vision.sim.scene import SceneState

# Paint and geometry only: no noise, texture, reflections, logos, glass or graphics.
CLEAN = Look(ice_mottle=0.0, scratch_count=0, snow_amount=0.0, paint_fade=0.0, logos=[], reflection_strength=0.0,
             glass=False, vignetting=0.0, pan_blur=False, puck_blur=False, noise_sigma=0.0, score_bug=False)


def _overhead(rink: RinkModel) -> tuple[Camera, np.ndarray, object]:
    """An overhead camera with barrel distortion (k1 -0.07, as tuning render 471) over the whole
    rink, its render of the empty rink, and its calibration as registration gives it (the best
    3x3 on raw pixels, plus the lens and the undistorted plane: ``truth_calibration``)."""
    cam = Camera.from_look_at([0.0, -4.0, 38.0], [0.0, 0.0, 0.0], 85.0, 1280, 720,
                              dist=[-0.07, -0.006, 0.0, 0.0, 0.0], roll_deg=0.0)
    frame, _ = Renderer(rink, seed=1, look=CLEAN, texture_cm_per_px=3.0).render(SceneState(0.0, None, []), cam)
    truth = {"width": cam.width, "height": cam.height, "rink": {"length_m": 60.0, "width_m": 30.0},
             "frames": [{"H_image_from_rink": cam.H_image_from_rink().tolist(),
                         "camera": {"K": cam.K.tolist(), "dist": cam.dist.tolist(), "R": cam.R.tolist(),
                                    "t": cam.t.tolist()}}]}
    return cam, frame, truth_calibration(truth)[0]


def _blue_lines_px(rink: RinkModel, cam: Camera) -> np.ndarray:
    """(H, W) bool: the blue lines' paint in the picture, through the lens (densely sampled outlines)."""
    out = np.zeros((cam.height, cam.width), np.uint8)
    for m in rink.markings:
        if m.name.startswith("blue_line"):
            x0, y0, x1, y1 = m.geometry.bounds
            ys = np.linspace(y0, y1, 200)
            ring = np.concatenate([np.column_stack([np.full_like(ys, x0), ys]),
                                   np.column_stack([np.full_like(ys, x1), ys[::-1]])])
            uv = cam.project(np.column_stack([ring, np.zeros(len(ring))]))
            cv2.fillPoly(out, [np.round(uv).astype(np.int32)], 255)
    return out > 0


def test_a_distorting_lens_s_lines_are_paint_not_foreground():
    """Under barrel distortion the blue lines bow away from where the raw-pixel 3x3 puts them
    (up to ~10 px at the picture's edge); drawn through the lens, the masks cover them and the
    lines are paint. Drawn through the 3x3 alone (a bare homography) most of their pixels were
    foreground, which the tracker followed as players along the lines."""
    rink = RinkModel(RinkSpec.for_layout("ipc"))
    cam, frame, calib = _overhead(rink)
    lines = _blue_lines_px(rink, cam)

    def foreground_on_lines(c) -> float:
        scene = SceneBuilder(rink).build(frame, c).scene
        fg = cv2.resize(scene.foreground, (cam.width, cam.height), interpolation=cv2.INTER_NEAREST) > 0
        return np.count_nonzero(fg & lines) / np.count_nonzero(lines)

    assert foreground_on_lines(calib) < 0.01
    assert foreground_on_lines(calib.rink_from_image) > 0.2  # the plane alone misses them


def test_the_lens_projection_matches_opencv_inside_the_picture():
    """``LensProjection`` (rink m -> raw px, the radial factor held beyond r_max) agrees with
    OpenCV's projection of the same camera to a hundredth of a pixel over the visible ice, at the
    work scale too."""
    rink = RinkModel(RinkSpec.for_layout("ipc"))
    cam, _, calib = _overhead(rink)
    gx, gy = np.meshgrid(np.linspace(-28.0, 28.0, 29), np.linspace(-14.0, 14.0, 15))
    xy = np.column_stack([gx.ravel(), gy.ravel()])
    want = cam.project(np.column_stack([xy, np.zeros(len(xy))]))
    inside = (want[:, 0] >= 0) & (want[:, 0] < cam.width) & (want[:, 1] >= 0) & (want[:, 1] < cam.height)
    assert inside.sum() > 200
    for scale in (1.0, 0.5):
        got, w = LensProjection.of(calib, cam.width, cam.height, scale).image_from_rink(xy)
        assert np.all(w > 0)
        assert np.abs(got[inside] - ((want[inside] + 0.5) * scale - 0.5)).max() < 0.01
