"""The venue camera profile an operator would click for a simulated fixed camera.

A goal camera is fixed and looks down at one crease: the design gives it a stored
venue profile (``calibration.fixed.CameraProfile``: ≥ 4 clicked image–rink point
pairs, the goal it films), made once per venue — in the review UI's point-click
calibration screen. For simulated clips the "operator" clicks the named ice
landmarks of the rink model that show in the first frame, spread over the view,
each on the whole pixel under it (a click lands on a pixel: up to ±0.5 px), on the
distorted image as a person sees it. Nothing else of the truth is used.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from calibration.fixed import CameraProfile
from vision.sim.camera import Camera

PROFILE_NAME = "camera_profile.json"  # beside a clip: the venue profile of its camera (rulesfromvideo batch)


def clicked_camera_profile(truth: dict[str, Any], rink: Any, n_points: int = 8, margin_px: float = 20.0,
                           name: str | None = None) -> CameraProfile:
    """Fit a venue profile from landmark clicks on the clip's first frame.

    Args:
        truth: a ``truth.json`` dict of a fixed camera (its frame 0 camera is used).
        rink: the clip's ``calibration.rink.RinkModel``.
        n_points: how many landmarks the operator clicks (farthest-point spread).
        margin_px: landmarks closer than this to the image border are not clicked.
        name: profile name (default: ``"<camera> sim"``).

    Returns:
        The fitted profile (falsy, with its reason, when too few landmarks show); its
        ``goal_end`` is the end whose goal the camera films when it stands beyond a goal line.
    """
    cam = Camera.from_dict(truth["frames"][0]["camera"], truth["width"], truth["height"])
    W, H = int(truth["width"]), int(truth["height"])
    names = sorted(k for k, v in rink.landmarks.items() if abs(float(v[2])) < 1e-9)
    xyz = np.array([rink.landmarks[k] for k in names], dtype=np.float64)
    uv = cam.project(xyz)
    depth = (xyz @ np.asarray(cam.R).T + np.asarray(cam.t))[:, 2]
    ok = (depth > 0) & (uv[:, 0] >= margin_px) & (uv[:, 0] <= W - 1 - margin_px) \
        & (uv[:, 1] >= margin_px) & (uv[:, 1] <= H - 1 - margin_px)
    idx = np.nonzero(ok)[0]
    chosen: list[int] = []
    if len(idx):
        # Farthest-point spread in the image, from the landmark nearest the image centre.
        chosen.append(int(idx[np.argmin(np.linalg.norm(uv[idx] - [W / 2, H / 2], axis=1))]))
        while len(chosen) < min(n_points, len(idx)):
            d = np.min(np.linalg.norm(uv[idx, None, :] - uv[None, chosen, :], axis=2), axis=1)
            chosen.append(int(idx[np.argmax(d)]))
    clicks = np.floor(uv[chosen]) + 0.5 if chosen else np.zeros((0, 2))  # the centre of the pixel clicked
    centre = -np.asarray(cam.R).T @ np.asarray(cam.t)
    goal_x = float(rink.spec.goal_line_x_m)
    goal_end = int(np.sign(centre[0])) if abs(centre[0]) > goal_x else None
    return CameraProfile.from_point_pairs(clicks, xyz[chosen, :2] if chosen else np.zeros((0, 2)),
                                          name=name or f"{truth.get('camera', 'camera')} sim", width=W, height=H,
                                          goal_end=goal_end)
