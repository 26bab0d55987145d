"""Hand-drawn test frames for the vision tests (independent of the simulator's renderer).

A frame is the rink's top-down rendering warped into a pinhole camera, with
players drawn as a dark sledge footprint, a torso box and a helmet in the team
colour, and the puck as a black cylinder, all projected with the camera.
"""

from __future__ import annotations

from types import SimpleNamespace

import cv2
import numpy as np
import pytest

from calibration.rink import RinkModel, RinkSpec
from vision.sim.camera import Camera

CM_PER_PX = 2.0


def make_rink() -> RinkModel:
    return RinkModel(RinkSpec.for_layout("ipc"))


def make_camera(width: int = 1280, height: int = 720, target=(4.0, 0.0, 0.0), fov: float = 45.0) -> Camera:
    """A broadcast-like side camera on the −y side."""
    return Camera.from_look_at([2.0, -24.0, 9.0], target, fov, width, height)


class Drawer:
    """Draws frames of a rink seen by a camera."""

    def __init__(self, rink: RinkModel, cam: Camera, ice_tint_bgr=(0, 0, 0), gain: float = 1.0):
        self.rink, self.cam = rink, cam
        top = rink.render_topdown(CM_PER_PX, margin_m=1.0).astype(np.float32)
        top = np.clip(top * gain + np.array(ice_tint_bgr, np.float32), 0, 255).astype(np.uint8)
        H = cam.H_image_from_rink() @ rink.rink_from_topdown(CM_PER_PX, margin_m=1.0)
        base = np.empty((cam.height, cam.width, 3), np.uint8)
        base[:] = (60, 50, 45)  # crowd / boards beyond the ice
        self.base = cv2.warpPerspective(top, H, (cam.width, cam.height), dst=base, borderMode=cv2.BORDER_TRANSPARENT)

    def _poly(self, img, xyz, color):
        uv = self.cam.project(np.asarray(xyz, float))
        hull = cv2.convexHull(np.round(uv * 16).astype(np.int32))
        cv2.fillConvexPoly(img, hull, color, lineType=cv2.LINE_AA, shift=4)

    def _box(self, img, centre_xy, fwd, left, half_len, half_wid, z0, z1, color):
        """An upright box on the ground rectangle ±half_len along ``fwd``, ±half_wid along
        ``left`` about ``centre_xy`` (m), from height z0 to z1 (m)."""
        corners = [centre_xy + a * half_len * fwd + b * half_wid * left for a, b in ((1, 1), (1, -1), (-1, -1), (-1, 1))]
        self._poly(img, [[*p, z] for z in (z0, z1) for p in corners], color)

    def _cylinder(self, img, centre_xy, radius, z0, z1, color, n=16):
        """An upright cylinder of ``radius`` (m) about ``centre_xy`` from height z0 to z1 (m)."""
        ang = np.linspace(0, 2 * np.pi, n, endpoint=False)
        self._poly(img, [[centre_xy[0] + radius * np.cos(a), centre_xy[1] + radius * np.sin(a), z]
                         for a in ang for z in (z0, z1)], color)

    @staticmethod
    def _axes(heading):
        c, s = np.cos(heading), np.sin(heading)
        return np.array([c, s]), np.array([-s, c])

    def player(self, img, xy, heading, color_bgr, sled=(45, 45, 45)):
        xy = np.asarray(xy, float)
        fwd, left = self._axes(heading)
        # Sledge 1.1 m × 0.3 m, seat (blades) 0.25 m behind its centre, under the torso.
        self._box(img, xy + 0.25 * fwd, fwd, left, 0.55, 0.15, 0.0, 0.12, sled)
        self._box(img, xy, fwd, left, 0.15, 0.22, 0.12, 0.85, color_bgr)
        self._cylinder(img, xy, 0.12, 0.9, 1.12, tuple(int(v * 0.8) for v in color_bgr))
        return np.array([xy + 0.125 * left, xy - 0.125 * left])

    def standing_player(self, img, xy, heading, color_bgr, trousers=(30, 30, 30)):
        """A standing (sponge) player: two shoes and dark trouser legs up to the waist (0.95 m),
        a jersey to the shoulders (1.45 m), a helmet to 1.8 m; returns the (2, 2) feet centres.
        Each leg is 0.2 m across (trousers over pads), the two nearly as wide as the torso."""
        xy = np.asarray(xy, float)
        fwd, left = self._axes(heading)
        feet = [xy + side * 0.15 * left for side in (1, -1)]
        for f in feet:
            self._box(img, f, fwd, left, 0.14, 0.055, 0.0, 0.1, (25, 25, 25))  # shoe
            self._box(img, f, fwd, left, 0.1, 0.1, 0.05, 0.95, trousers)  # leg
        self._box(img, xy, fwd, left, 0.13, 0.22, 0.9, 1.45, color_bgr)
        self._cylinder(img, xy, 0.12, 1.5, 1.8, (220, 220, 220))
        return np.array(feet)

    def puck(self, img, xyz, color=(15, 15, 15)):
        x, y, z = xyz
        th = 0.0254
        self._cylinder(img, (x, y), 0.0381, z - th / 2, z + th / 2, color, n=32)

    def frame(self, players=(), puck_xyz=None, standing=False):
        img = self.base.copy()
        # Draw far players first (painter's order: larger y is farther from a −y camera).
        blades = {}
        draw = self.standing_player if standing else self.player
        for pid, (xy, heading, color) in sorted(players.items() if isinstance(players, dict) else enumerate(players),
                                                key=lambda kv: -kv[1][0][1]):
            blades[pid] = draw(img, xy, heading, color)
        if puck_xyz is not None:
            self.puck(img, puck_xyz)
        return img, blades


@pytest.fixture(scope="session")
def kit():
    rink = make_rink()
    cam = make_camera()
    return SimpleNamespace(rink=rink, cam=cam, drawer=Drawer(rink, cam), Drawer=Drawer, make_camera=make_camera)


@pytest.fixture(autouse=True)
def _geometric_blades_on_hand_drawn_frames(monkeypatch):
    """The tracker's tests here draw boxes for players, which the blade-keypoint model (trained on
    the simulator's sledges) was never meant to read: they get the geometric blades unless a test
    passes a ``blade_model`` itself. The model's own tests use renders (``test_blade_keypoints.py``),
    and ``analyze`` on renders runs it (``tests/rulesfromvideo``)."""
    monkeypatch.setattr("vision.tracking._default_blade_model", lambda: None)
