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

    def player(self, img, xy, heading, color_bgr, sled=(45, 45, 45)):
        x, y = xy
        c, s = np.cos(heading), np.sin(heading)
        fwd, left = np.array([c, s]), np.array([-s, c])
        # Sledge 1.1 m × 0.3 m, seat (blades) 0.25 m behind its centre, under the torso.
        centre = np.array([x, y]) + 0.25 * fwd
        corners = [centre + a * 0.55 * fwd + b * 0.15 * left for a, b in ((1, 1), (1, -1), (-1, -1), (-1, 1))]
        self._poly(img, [[*p, 0.0] for p in corners] + [[*p, 0.12] for p in corners], sled)
        torso = [np.array([x, y]) + a * 0.15 * fwd + b * 0.22 * left for a, b in ((1, 1), (1, -1), (-1, -1), (-1, 1))]
        self._poly(img, [[*p, 0.12] for p in torso] + [[*p, 0.85] for p in torso], color_bgr)
        ang = np.linspace(0, 2 * np.pi, 16, endpoint=False)
        helm = [[x + 0.12 * np.cos(a), y + 0.12 * np.sin(a), 0.9 + dz] for a in ang for dz in (0.0, 0.22)]
        self._poly(img, helm, tuple(int(v * 0.8) for v in color_bgr))
        blades = np.array([np.array([x, y]) + 0.125 * left, np.array([x, y]) - 0.125 * left])
        return blades

    def standing_player(self, img, xy, heading, color_bgr, trousers=(30, 30, 30)):
        """A standing (sponge) player: two shoes and dark trouser legs up to the waist (0.95 m),
        a jersey to the shoulders (1.45 m), a helmet to 1.8 m; returns the (2, 2) feet centres.
        Each leg is 0.2 m across (trousers over pads), the two nearly as wide as the torso."""
        x, y = xy
        c, s = np.cos(heading), np.sin(heading)
        fwd, left = np.array([c, s]), np.array([-s, c])
        feet = [np.array([x, y]) + side * 0.15 * left for side in (1, -1)]
        for f in feet:
            shoe = [f + a * 0.14 * fwd + b * 0.055 * left for a, b in ((1, 1), (1, -1), (-1, -1), (-1, 1))]
            self._poly(img, [[*p, 0.0] for p in shoe] + [[*p, 0.1] for p in shoe], (25, 25, 25))
            leg = [f + a * 0.1 * fwd + b * 0.1 * left for a, b in ((1, 1), (1, -1), (-1, -1), (-1, 1))]
            self._poly(img, [[*p, 0.05] for p in leg] + [[*p, 0.95] for p in leg], trousers)
        torso = [np.array([x, y]) + a * 0.13 * fwd + b * 0.22 * left for a, b in ((1, 1), (1, -1), (-1, -1), (-1, 1))]
        self._poly(img, [[*p, 0.9] for p in torso] + [[*p, 1.45] for p in torso], color_bgr)
        ang = np.linspace(0, 2 * np.pi, 16, endpoint=False)
        helm = [[x + 0.12 * np.cos(a), y + 0.12 * np.sin(a), 1.5 + dz] for a in ang for dz in (0.0, 0.3)]
        self._poly(img, helm, (220, 220, 220))
        return np.array(feet)

    def puck(self, img, xyz, color=(15, 15, 15)):
        x, y, z = xyz
        r, th = 0.0381, 0.0254
        ang = np.linspace(0, 2 * np.pi, 32, endpoint=False)
        pts = [[x + r * np.cos(a), y + r * np.sin(a), z - th / 2 + dz] for a in ang for dz in (0.0, th)]
        self._poly(img, pts, color)

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
