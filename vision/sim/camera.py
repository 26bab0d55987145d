"""Simulated cameras: a pinhole + OpenCV lens model and rigs that move them.

Frames (see ``docs/interfaces.md``): the rink frame is metres, origin at centre
ice, +x along the length, +y across, z up. The camera frame is OpenCV's: x right,
y down, z forward (metres). Image pixels: x right, y down, pixel centres at
integer coordinates. ``R, t`` map rink to camera: ``X_cam = R @ X_rink + t``.

Side cameras (``broadcast``, ``blueline``) stand on the −y side with +x to their
right, as the design pins the rink frame to them. ``goalcam`` stands behind the
goal of ``end``; ``overhead`` hangs above the rink with +x to the right and the
−y side at the bottom of the image (like ``RinkModel.render_topdown``).

A ``Rig`` turns a preset and a seed into a camera for each instant. Fixed rigs
always return the same camera; the broadcast rig pans and zooms with a
critically damped follower, so its camera is a continuous, deterministic
function of the sequence of ``camera_at`` calls.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Sequence

import cv2
import numpy as np

PRESETS: tuple[str, ...] = ("broadcast", "blueline", "goalcam", "overhead")

_Z_UP = np.array([0.0, 0.0, 1.0])
# The overhead preset's image is turned at most this much from rink +x (``_overhead_roll``): the
# registration's convention puts +x to the right; near 90° nothing in the picture says which end is +x.
OVERHEAD_MAX_TURN_DEG = 30.0


@dataclass
class Camera:
    """A calibrated camera looking at the rink.

    Attributes:
        K: (3, 3) intrinsics, pixels.
        dist: (5,) OpenCV distortion (k1, k2, p1, p2, k3) on normalised coordinates.
        R: (3, 3) rotation camera_from_rink.
        t: (3,) translation camera_from_rink, metres.
        width: image width, pixels.
        height: image height, pixels.
    """

    K: np.ndarray
    dist: np.ndarray
    R: np.ndarray
    t: np.ndarray
    width: int
    height: int

    def __post_init__(self) -> None:
        self.K = np.asarray(self.K, dtype=np.float64).reshape(3, 3)
        self.dist = np.zeros(5) if self.dist is None else np.asarray(self.dist, dtype=np.float64).reshape(5)
        self.R = np.asarray(self.R, dtype=np.float64).reshape(3, 3)
        self.t = np.asarray(self.t, dtype=np.float64).reshape(3)
        self.width = int(self.width)
        self.height = int(self.height)

    # ------------------------------------------------------------------ build
    @classmethod
    def from_look_at(
        cls,
        position_xyz_m: Sequence[float],
        target_xyz_m: Sequence[float],
        fov_deg_horizontal: float,
        width: int,
        height: int,
        dist: Sequence[float] | None = None,
        roll_deg: float = 0.0,
    ) -> "Camera":
        """A camera at ``position_xyz_m`` (rink, m) whose optical axis passes through ``target_xyz_m``.

        Square pixels, principal point at the image centre ``((W-1)/2, (H-1)/2)``,
        focal length from the horizontal field of view. Image "up" is rink +z
        (zero roll); looking straight down, image right is rink +x and image down
        is rink −y. ``roll_deg`` turns the image clockwise about the optical axis
        (positive: the horizon tilts down to the right).
        """
        pos = np.asarray(position_xyz_m, dtype=np.float64).reshape(3)
        tgt = np.asarray(target_xyz_m, dtype=np.float64).reshape(3)
        fwd = tgt - pos
        n = np.linalg.norm(fwd)
        if n < 1e-9:
            raise ValueError("from_look_at: target coincides with position")
        fwd /= n
        right = np.cross(fwd, _Z_UP)
        if np.linalg.norm(right) < 1e-6:  # looking straight up or down
            right = np.array([1.0, 0.0, 0.0]) if fwd[2] < 0 else np.array([-1.0, 0.0, 0.0])
        right /= np.linalg.norm(right)
        down = np.cross(fwd, right)
        if roll_deg:
            a = math.radians(roll_deg)
            right, down = math.cos(a) * right + math.sin(a) * down, -math.sin(a) * right + math.cos(a) * down
        R = np.stack([right, down, fwd])
        t = -R @ pos
        if not 1.0 < fov_deg_horizontal < 179.0:
            raise ValueError(f"from_look_at: fov_deg_horizontal={fov_deg_horizontal} outside (1, 179)")
        f = (width / 2.0) / math.tan(math.radians(fov_deg_horizontal) / 2.0)
        K = np.array([[f, 0.0, (width - 1) / 2.0], [0.0, f, (height - 1) / 2.0], [0.0, 0.0, 1.0]])
        return cls(K=K, dist=np.zeros(5) if dist is None else dist, R=R, t=t, width=width, height=height)

    # ------------------------------------------------------------ properties
    @property
    def position_xyz_m(self) -> np.ndarray:
        """(3,) camera centre in the rink frame, metres."""
        return -self.R.T @ self.t

    @property
    def forward_rink(self) -> np.ndarray:
        """(3,) unit optical axis in the rink frame."""
        return self.R[2].copy()

    @property
    def fov_deg_horizontal(self) -> float:
        """Horizontal field of view of the pinhole part, degrees."""
        return math.degrees(2.0 * math.atan((self.width / 2.0) / self.K[0, 0]))

    @property
    def has_distortion(self) -> bool:
        return bool(np.any(self.dist != 0.0))

    # ------------------------------------------------------------ projection
    def to_camera(self, xyz_rink_m: np.ndarray) -> np.ndarray:
        """(N, 3) rink points, m → (N, 3) camera-frame points, m."""
        xyz = np.asarray(xyz_rink_m, dtype=np.float64).reshape(-1, 3)
        return xyz @ self.R.T + self.t

    def depth(self, xyz_rink_m: np.ndarray) -> np.ndarray:
        """(N,) depth along the optical axis, metres (negative behind the camera)."""
        return self.to_camera(xyz_rink_m)[:, 2]

    def project(self, xyz_rink_m: np.ndarray) -> np.ndarray:
        """(N, 3) rink points, m → (N, 2) distorted image points, px (cv2.projectPoints).

        Points behind the camera give meaningless pixels; check ``depth`` first.
        """
        xyz = np.ascontiguousarray(xyz_rink_m, dtype=np.float64).reshape(-1, 3)
        if len(xyz) == 0:
            return np.zeros((0, 2))
        rvec, _ = cv2.Rodrigues(self.R)
        xy, _ = cv2.projectPoints(xyz, rvec, self.t, self.K, self.dist)
        return xy.reshape(-1, 2)

    def project_camera(self, xyz_cam_m: np.ndarray) -> np.ndarray:
        """(N, 3) camera-frame points (z > 0), m → (N, 2) distorted image points, px."""
        xyz = np.ascontiguousarray(xyz_cam_m, dtype=np.float64).reshape(-1, 3)
        if len(xyz) == 0:
            return np.zeros((0, 2))
        xy, _ = cv2.projectPoints(xyz, np.zeros(3), np.zeros(3), self.K, self.dist)
        return xy.reshape(-1, 2)

    def H_image_from_rink(self) -> np.ndarray:
        """(3, 3) homography rink ice plane (x, y, 1) metres → undistorted image pixels.

        Normalised so that ``H[2, 2] == 1`` when possible.
        """
        H = self.K @ np.column_stack([self.R[:, 0], self.R[:, 1], self.t])
        if abs(H[2, 2]) > 1e-12:
            H = H / H[2, 2]
        return H

    def undistort_image_points(self, xy_image_px: np.ndarray) -> np.ndarray:
        """(N, 2) distorted pixels → (N, 2) pixels of the undistorted pinhole camera."""
        xy = np.asarray(xy_image_px, dtype=np.float64).reshape(-1, 1, 2)
        if not self.has_distortion:
            return xy.reshape(-1, 2).copy()
        crit = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 40, 1e-12)
        return cv2.undistortPoints(xy, self.K, self.dist, R=np.eye(3), P=self.K, criteria=crit).reshape(-1, 2)

    def in_image(self, xy_image_px: np.ndarray, margin_px: float = 0.0) -> np.ndarray:
        """(N,) bool: pixel inside the image (pixel centres 0..W-1, 0..H-1) shrunk by margin."""
        xy = np.asarray(xy_image_px, dtype=np.float64).reshape(-1, 2)
        return (
            (xy[:, 0] >= -0.5 + margin_px)
            & (xy[:, 0] <= self.width - 0.5 - margin_px)
            & (xy[:, 1] >= -0.5 + margin_px)
            & (xy[:, 1] <= self.height - 0.5 - margin_px)
        )

    def sees(self, xyz_rink_m: np.ndarray, margin_px: float = 0.0) -> np.ndarray:
        """(N,) bool: point in front of the camera and inside the image."""
        xyz = np.asarray(xyz_rink_m, dtype=np.float64).reshape(-1, 3)
        return (self.depth(xyz) > 0.05) & self.in_image(self.project(xyz), margin_px)

    # ------------------------------------------------------------ serialise
    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict in the truth.json camera format (plus width/height)."""
        return {
            "K": self.K.tolist(),
            "dist": self.dist.tolist(),
            "R": self.R.tolist(),
            "t": self.t.tolist(),
            "width": self.width,
            "height": self.height,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any], width: int | None = None, height: int | None = None) -> "Camera":
        """Inverse of ``to_dict``; ``width``/``height`` fill in when the dict lacks them."""
        w = d.get("width", width)
        h = d.get("height", height)
        if w is None or h is None:
            raise ValueError("Camera.from_dict: 'width' and 'height' missing")
        return cls(K=d["K"], dist=d.get("dist", [0.0] * 5), R=d["R"], t=d["t"], width=w, height=h)


# ====================================================================== rigs
def _spec(rink: Any) -> Any:
    """The RinkSpec of a RinkModel (or the spec itself)."""
    return getattr(rink, "spec", rink)


def _random_dist(rng: np.random.Generator, k1_max: float = 0.08) -> np.ndarray:
    """Mild lens distortion: mostly barrel, sometimes none."""
    if rng.random() < 0.15:
        return np.zeros(5)
    k1 = rng.uniform(-k1_max, 0.3 * k1_max)
    k2 = rng.uniform(-0.3, 0.3) * abs(k1)
    p1, p2 = rng.normal(0.0, 3e-4, size=2)
    return np.array([k1, k2, p1, p2, 0.0])


# A lens model must map the whole picture one to one. The radial polynomial r_d = r (1 + k1 r^2 +
# k2 r^4) turns back beyond the radius where its slope is zero: there points farther off the axis
# land nearer the centre. With a wide overhead view (115 degrees across) and strong barrel
# distortion that radius fell inside the picture (renders 1309, 1351, 1357): the picture's
# corners had no true pre-image and the stands beyond the fold were painted over the ice as dark
# wedges. The renderer's frustum reaches 1.15 times the picture's undistorted extent
# (``render._view``), so the slope must stay positive to LENS_ONE_TO_ONE_FACTOR times the corner's
# undistorted radius, plus LENS_ONE_TO_ONE_PAD (normalised units); else k1 and k2 are scaled down.
LENS_ONE_TO_ONE_FACTOR = 1.2
LENS_ONE_TO_ONE_PAD = 0.05


def lens_fold_radius(dist: Sequence[float]) -> float:
    """Normalised undistorted radius where the radial model's slope ``1 + 3 k1 r^2 + 5 k2 r^4``
    first reaches zero (inf when it never does)."""
    k1, k2 = float(dist[0]), float(dist[1])
    s = np.roots([5.0 * k2, 3.0 * k1, 1.0]) if k2 != 0.0 else (np.array([-1.0 / (3.0 * k1)]) if k1 != 0.0 else [])
    s = [float(v.real) for v in np.atleast_1d(s) if abs(v.imag) < 1e-12 and v.real > 0]
    return math.sqrt(min(s)) if s else math.inf


def one_to_one_dist(dist: Sequence[float], fov_deg_horizontal: float, width: int, height: int) -> np.ndarray:
    """``dist`` (5,) with k1, k2 scaled down (by steps of 5 %) until the radial model is one to one
    over the picture and the renderer's margin around it (``LENS_ONE_TO_ONE_FACTOR``); unchanged
    when it already is. Tangential terms are kept."""
    d = np.asarray(dist, dtype=np.float64).reshape(5).copy()
    f = (width / 2.0) / math.tan(math.radians(fov_deg_horizontal) / 2.0)
    r_corner = math.hypot(width / 2.0, height / 2.0) / f  # the corner's distorted radius
    radial = d[:2].copy()
    for step in range(40):
        d[:2] = radial * 0.95 ** step
        k1, k2 = d[0], d[1]
        r_fold = lens_fold_radius(d)
        r_top = min(r_fold, 10.0 * r_corner)
        if r_top * (1 + k1 * r_top ** 2 + k2 * r_top ** 4) <= r_corner:
            continue  # the corner is beyond all the model reaches
        lo, hi = 0.0, r_top  # the corner's undistorted radius (r_d rises on [0, r_top])
        for _ in range(60):
            mid = 0.5 * (lo + hi)
            if mid * (1 + k1 * mid ** 2 + k2 * mid ** 4) < r_corner:
                lo = mid
            else:
                hi = mid
        if r_fold >= LENS_ONE_TO_ONE_FACTOR * hi + LENS_ONE_TO_ONE_PAD:
            return d
    d[:2] = 0.0
    return d


def _fit_fov(
    position: np.ndarray,
    target: np.ndarray,
    pts_rink_m: np.ndarray,
    width: int,
    height: int,
    roll_deg: float,
    fill: float,
) -> float:
    """Horizontal FOV (deg) at which all ``pts_rink_m`` fit in ``fill`` of the image half-extents."""
    cam = Camera.from_look_at(position, target, 60.0, width, height, roll_deg=roll_deg)
    pc = cam.to_camera(pts_rink_m)
    pc = pc[pc[:, 2] > 0.1]
    nx = np.max(np.abs(pc[:, 0] / pc[:, 2]))
    ny = np.max(np.abs(pc[:, 1] / pc[:, 2]))
    f = min(fill * width / 2.0 / max(nx, 1e-9), fill * height / 2.0 / max(ny, 1e-9))
    return math.degrees(2.0 * math.atan((width / 2.0) / f))


def _image_turn_deg(cam: "Camera") -> float:
    """Angle of the image's +x axis on the ice from rink +x, degrees (counter-clockwise from above)."""
    return math.degrees(math.atan2(cam.R[0, 1], cam.R[0, 0]))


def _overhead_roll(position: np.ndarray, target: np.ndarray, roll_deg: float, width: int, height: int) -> float:
    """The overhead rig's roll, with the image turned at most ``OVERHEAD_MAX_TURN_DEG`` from +x.

    Looking nearly straight down, ``Camera.from_look_at`` turns the image with the direction of
    the camera's small offset from above its target: a camera 0.18 m off in x and 0.04 m in y
    (seed 746) saw the rink turned 79°, long axis up the picture, against the preset's "+x to the
    right". The excess is taken back by the roll; a view within the limit keeps its roll.
    """
    turn = _image_turn_deg(Camera.from_look_at(position, target, 60.0, width, height, roll_deg=roll_deg))
    excess = turn - float(np.clip(turn, -OVERHEAD_MAX_TURN_DEG, OVERHEAD_MAX_TURN_DEG))
    # A positive roll turns the picture clockwise, the ice's +x counter-clockwise in it: one
    # degree of roll takes one of turn (to a hundredth of a degree this near vertical).
    return roll_deg + excess


def _damped_step(x: float, v: float, target: float, omega: float, dt: float) -> tuple[float, float]:
    """Exact critically damped spring step towards a target held constant over dt."""
    c1 = x - target
    c2 = v + omega * c1
    e = math.exp(-omega * dt)
    x_new = target + (c1 + c2 * dt) * e
    v_new = (c2 - omega * (c1 + c2 * dt)) * e
    return x_new, v_new


@dataclass
class Rig:
    """A camera preset instantiated with seeded parameters.

    Attributes:
        preset: one of ``PRESETS``.
        width, height: image size, pixels.
        end: +1 | −1, the end a goal camera looks at (and the blue line a blue-line
            camera films).
        seed: the seed the parameters were drawn from.
        params: the drawn parameters (positions in rink metres, FOV in degrees,
            follower rates in rad/s, ``dist``), JSON-ready.
    """

    preset: str
    width: int
    height: int
    end: int
    seed: int
    params: dict[str, Any]
    _fixed: Camera | None = field(default=None, repr=False)
    _state: dict[str, float] | None = field(default=None, repr=False)
    _last: Camera | None = field(default=None, repr=False)

    def reset(self) -> None:
        """Forget the follower state (the next ``camera_at`` starts settled on its focus)."""
        self._state = None
        self._last = None

    def camera_at(self, t: float, focus_xy_rink_m: Sequence[float] | None = None) -> Camera:
        """The camera at time ``t`` (s) following ``focus_xy_rink_m`` (2,), metres.

        Fixed presets ignore the focus. The broadcast rig integrates a critically
        damped follower between successive calls (exact solution with the focus
        held over the step), so calls must come in increasing ``t``. A call at the
        previous ``t`` returns the same camera; a call with an earlier ``t`` restarts
        the follower settled on the focus.
        """
        if self._fixed is not None:
            return self._fixed
        p = self.params
        fx, fy = (0.0, 0.0) if focus_xy_rink_m is None else (float(focus_xy_rink_m[0]), float(focus_xy_rink_m[1]))
        fx = float(np.clip(fx, -p["x_limit_m"], p["x_limit_m"]))
        aim_y_goal = p["y_follow"] * fy + p["y_aim_offset_m"]
        s = self._state
        if s is not None and float(t) == s["t"] and self._last is not None:
            return self._last  # the same instant again (another consumer of this frame)
        if s is None or t < s["t"]:
            s = {"t": float(t), "x": fx, "vx": 0.0, "y": aim_y_goal, "vy": 0.0, "w": 0.0, "vw": 0.0}
            s["w"] = self._view_width_goal(0.0)
        else:
            dt = float(t) - s["t"]
            s["x"], s["vx"] = _damped_step(s["x"], s["vx"], fx, p["omega_pan"], dt)
            s["y"], s["vy"] = _damped_step(s["y"], s["vy"], aim_y_goal, p["omega_pan"], dt)
            s["w"], s["vw"] = _damped_step(s["w"], s["vw"], self._view_width_goal(s["vx"]), p["omega_zoom"], dt)
            s["t"] = float(t)
        self._state = s
        pos = np.array(p["position_m"])
        aim = np.array([s["x"], s["y"], 0.0])
        dist_m = float(np.linalg.norm(aim - pos))
        fov = math.degrees(2.0 * math.atan(s["w"] / 2.0 / dist_m))
        fov = float(np.clip(fov, p["fov_min_deg"], p["fov_max_deg"]))
        self._last = Camera.from_look_at(pos, aim, fov, self.width, self.height, dist=p["dist"],
                                         roll_deg=p["roll_deg"])
        return self._last

    def _view_width_goal(self, pan_speed_mps: float) -> float:
        """Width of ice (m) the operator wants across the frame: wider when the play moves fast."""
        p = self.params
        return p["view_width_m"] + p["zoom_out_s"] * abs(pan_speed_mps)


def make_rig(
    preset: str,
    rink: Any,
    seed: int,
    width: int = 1280,
    height: int = 720,
    end: int = +1,
) -> Rig:
    """A seeded camera rig.

    Args:
        preset: "broadcast" | "blueline" | "goalcam" | "overhead".
        rink: a ``calibration.rink.RinkModel`` (or its ``RinkSpec``).
        seed: parameters are drawn from ``np.random.default_rng([seed, preset index])``.
        width, height: image size, pixels.
        end: +1 | −1: the goal a goal camera looks at, the blue line a blue-line
            camera films (broadcast/overhead ignore it).

    Returns:
        A ``Rig``; ``rig.camera_at(t, focus_xy_rink_m)`` gives the camera.
    """
    if preset not in PRESETS:
        raise ValueError(f"make_rig: unknown preset {preset!r}; expected one of {PRESETS}")
    if end not in (1, -1):
        raise ValueError(f"make_rig: end must be +1 or -1, got {end!r}")
    spec = _spec(rink)
    L, W = float(spec.length_m), float(spec.width_m)
    rng = np.random.default_rng([int(seed), PRESETS.index(preset)])
    roll = float(rng.normal(0.0, 0.6))
    dist = _random_dist(rng)
    params: dict[str, Any] = {"roll_deg": roll, "dist": dist.tolist()}
    fixed: Camera | None = None
    if preset == "broadcast":
        pos = np.array([rng.uniform(-3.0, 3.0), -(W / 2.0 + rng.uniform(3.0, 8.0)), rng.uniform(8.0, 10.0)])
        params.update(
            position_m=pos.tolist(),
            omega_pan=float(rng.uniform(1.6, 3.0)),
            omega_zoom=float(rng.uniform(0.8, 1.5)),
            y_follow=float(rng.uniform(0.3, 0.6)),
            y_aim_offset_m=float(rng.uniform(1.0, 4.0)),
            view_width_m=float(rng.uniform(16.0, 26.0)),
            zoom_out_s=float(rng.uniform(0.5, 1.2)),
            fov_min_deg=20.0,
            fov_max_deg=55.0,
            x_limit_m=L / 2.0 - 4.0,
        )
    elif preset == "blueline":
        xb = end * float(spec.blue_line_x_m)
        pos = np.array([xb, -(W / 2.0 + rng.uniform(2.5, 6.0)), rng.uniform(5.0, 8.0)])
        # Aim at a point on the line so the line runs up the image centre, then fit
        # the FOV so the line from the near to the far boards is in view.
        line_pts = np.array([[xb, y, 0.0] for y in np.linspace(-W / 2.0 + 4.0, W / 2.0, 9)])
        # Tilt half way between the depressions of the near and far ends of the line.
        line_pts = np.vstack([line_pts, [[xb, W / 2.0 + 1.0, 3.5]]])  # and the far glass above it
        dep = [math.atan2(pos[2] - line_pts[i, 2], line_pts[i, 1] - pos[1]) for i in (0, -1)]
        mid = 0.5 * (dep[0] + dep[1]) + math.radians(rng.uniform(-1.5, 1.5))
        aim = np.array([xb, pos[1] + pos[2] / math.tan(mid), 0.0])
        fov = _fit_fov(pos, aim, line_pts, width, height, roll, fill=rng.uniform(0.9, 0.98))
        fov = float(np.clip(fov * rng.uniform(0.98, 1.05), 35.0, 95.0))
        dist = one_to_one_dist(dist, fov, width, height)
        params["dist"] = dist.tolist()
        params.update(position_m=pos.tolist(), target_m=aim.tolist(), fov_deg=fov)
        fixed = Camera.from_look_at(pos, aim, fov, width, height, dist=dist, roll_deg=roll)
    elif preset == "goalcam":
        gx = end * float(spec.goal_line_x_m)
        # Off the goal's axis (|y| ≥ 0.5 m): from dead behind, the net's side struts
        # line up with the posts and hide them.
        pos = np.array([end * (abs(gx) + rng.uniform(3.0, 5.0)), rng.choice([-1.0, 1.0]) * rng.uniform(0.5, 1.6),
                        rng.uniform(4.5, 7.0)])
        aim = np.array([gx - end * rng.uniform(1.0, 2.5), rng.uniform(-0.5, 0.5), 0.0])
        # Everything a goal judge needs: the goal line between the boards near the
        # net, the crease, both post tops.
        cr = float(spec.crease_radius_m)
        gap = float(spec.goal_post_gap_m) / 2.0
        key = np.array(
            [
                [gx, -gap - 1.5, 0.0],
                [gx, gap + 1.5, 0.0],
                [gx - end * (cr + 1.0), -cr - 0.5, 0.0],
                [gx - end * (cr + 1.0), cr + 0.5, 0.0],
                [gx, -gap, float(spec.goal_height_m)],
                [gx, gap, float(spec.goal_height_m)],
                [gx + end * float(spec.goal_depth_m), 0.0, 0.0],
            ]
        )
        fov = _fit_fov(pos, aim, key, width, height, roll, fill=rng.uniform(0.8, 0.92))
        fov = float(np.clip(fov, 30.0, 80.0))
        dist = one_to_one_dist(dist, fov, width, height)
        params["dist"] = dist.tolist()
        params.update(position_m=pos.tolist(), target_m=aim.tolist(), fov_deg=fov)
        fixed = Camera.from_look_at(pos, aim, fov, width, height, dist=dist, roll_deg=roll)
    else:  # overhead
        pos = np.array([rng.uniform(-1.0, 1.0), -rng.uniform(0.0, 6.0), rng.uniform(34.0, 45.0)])
        aim = np.array([0.0, 0.0, 0.0])
        roll = _overhead_roll(pos, aim, roll, width, height)
        params["roll_deg"] = roll
        corners = np.array([[sx * L / 2.0, sy * W / 2.0, 0.0] for sx in (-1, 1) for sy in (-1, 1)])
        fov = _fit_fov(pos, aim, corners, width, height, roll, fill=rng.uniform(0.88, 0.96))
        dist = one_to_one_dist(dist, fov, width, height)
        params["dist"] = dist.tolist()
        params.update(position_m=pos.tolist(), target_m=aim.tolist(), fov_deg=fov)
        fixed = Camera.from_look_at(pos, aim, fov, width, height, dist=dist, roll_deg=roll)
    return Rig(preset=preset, width=width, height=height, end=end, seed=int(seed), params=params, _fixed=fixed)


def make_rigs(
    presets: Sequence[str],
    rink: Any,
    seed: int,
    width: int = 1280,
    height: int = 720,
    end: int = +1,
) -> dict[str, Rig]:
    """Several synchronised rigs (same clock), one per preset, keyed by preset name.

    Each rig draws its own parameters from ``(seed, preset)``, so adding a camera
    does not change the others.
    """
    if len(set(presets)) != len(presets):
        raise ValueError(f"make_rigs: duplicate presets in {list(presets)}")
    return {p: make_rig(p, rink, seed, width=width, height=height, end=end) for p in presets}
