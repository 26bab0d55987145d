"""The venue profile a simulated operator clicks for a goal camera (vision.sim.profiles)."""

from __future__ import annotations

import numpy as np
import pytest

from calibration.rink import RinkModel, RinkSpec
from vision.sim.camera import make_rig
from vision.sim.profiles import clicked_camera_profile


@pytest.mark.parametrize("seed,end", [(3, +1), (8, -1), (11, +1)])
def test_goal_camera_profile_from_clicked_landmarks(seed, end):
    rink = RinkModel(RinkSpec.for_layout("ipc"))
    rig = make_rig("goalcam", rink, seed, end=end)
    cam = rig.camera_at(0.0)
    truth = {"camera": "goalcam", "width": cam.width, "height": cam.height, "frames": [{"camera": cam.to_dict()}]}
    prof = clicked_camera_profile(truth, rink)
    assert prof, prof.reason
    assert prof.goal_end == end  # the goal this end camera films pins the rink's half turn (design)
    assert int(prof.inliers.sum()) >= 4
    # Held-out ice points near the goal mouth (the crease, the goal line between the posts):
    # where the goal judge needs centimetres, the clicked profile agrees with the true camera.
    gx = end * float(rink.spec.goal_line_x_m)
    pts = np.array([[gx - end * d, y, 0.0] for d in (0.0, 0.5, 1.0, 1.5) for y in (-0.9, -0.3, 0.3, 0.9)])
    uv = cam.project(pts)
    inside = (uv[:, 0] > 0) & (uv[:, 0] < cam.width) & (uv[:, 1] > 0) & (uv[:, 1] < cam.height)
    assert inside.sum() >= 8
    err_m = np.linalg.norm(prof(uv[inside]) - pts[inside, :2], axis=1)
    assert err_m.max() < 0.05, f"max {err_m.max():.3f} m"
