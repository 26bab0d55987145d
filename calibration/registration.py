"""Frame registration: ``rink_from_image`` for every frame of a video.

Method (details and limits in ``docs/calibration.md``):

1. **Segmentation** (:mod:`calibration.markings`): ice region, red and blue
   paint relative to the ice colour (pixels at least half covered by paint);
   the registration target is the signed distance to each paint mask's edge.
2. **Model**: boundary samples of every painted marking of the rink model
   (:class:`MarkingModel`), coloured by the marking's own RGB.
3. **Cold registration** (no usable previous frame): long straight lines
   across the rink are fitted; ordered left to right they must follow the
   rink's colour order along +x (goal red, blue, centre red, blue, goal red),
   which together with the design's convention (side cameras on the −y side,
   +x to their right) removes the half-turn ambiguity. Each order-preserving
   assignment and a small grid of camera distances/heights gives a
   zero-roll pinhole camera fitted to the lines (Levenberg–Marquardt); the
   candidates are scored by chamfer agreement of the projected model with
   the paint, and the best are refined.
4. **Refinement**: Gauss–Newton on the 8 homography parameters (and two
   radial lens coefficients) minimising the robust (truncated, Huber-weighted)
   edge-distance residual of the projected model samples, coarse-to-fine
   truncation radius.
5. **Tracking**: sparse optical flow (Lucas–Kanade on corners anywhere in the
   frame; the rotating/zooming camera moves all of them by one homography)
   predicts the next homography, refinement snaps it to the paint, and the
   verification score decides; a failed verification or a large appearance
   change (camera cut) re-initialises.
6. **Camera profile**: a stored fixed-camera calibration is verified and
   refined for small drift only, then smoothed over time (no search).

Quality in [0, 1] comes from the verification (share of visible model
boundary samples within 2 px of observed paint, and share of observed paint
explained by the model). Frames with no ice or too few markings give
``rink_from_image=None`` and quality 0.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import cv2
import numpy as np
from shapely.geometry import Polygon

from calibration.concurrency import side_pool
from calibration.fixed import CameraProfile, apply_homography, ice_in_front
from calibration.markings import MarkingMasks, fit_ellipses, fit_lines, merge_collinear, segment_markings

__all__ = ["CalibrationResult", "Calibrator", "MarkingModel", "colour_class"]

COLOURS = ("red", "blue")
TRACK_SAMPLES_PER_STEP = 2000  # culled model samples per coarse step of the tracking refinement (see _tracking_steps)
TRACK_FINAL_SAMPLES_PER_STEP = 2000  # the same for its final stage (every 2nd sample at least)
# A view with one line across the rink is searched with a painted circle (``_line_circle_hypotheses``)
# on at most one frame in this many while no frame registers (the search costs ~1.5-2 s a frame).
LINE_CIRCLE_RETRY_FRAMES = 15
# ... also where two or more lines give no camera, with each of the longest this many lines. One
# of those lines is then likely no line across the rink (a circle's arc, a board's edge), and a
# camera placed by it can match the paint of the other end zone's circles well enough for the
# quality: it must also match this share of the paint it puts in view (two hand-drawn far end-zone
# views: wrong cameras, 0.4 m and 40 m off, matched 67 % and 73 % at quality 0.82 and 0.96).
LINE_CIRCLE_MAX_LINES = 2
LINE_CIRCLE_FALLBACK_MIN_RECALL = 0.85
# Lines nearer horizontal in the image than this are not taken for lines across the rink. A side
# camera at centre ice on the far goal sees its goal line at 9° (fresh render 834: 12° left it
# unregistered all clip; hand-drawn views in tests/calibration/test_registration.py).
LINE_MIN_ANGLE_DEG = 5.0
# Spacing of the camera y positions over the ice that the line search tries for a camera looking
# down within 45° of vertical (cos 45° = OVERHEAD_MIN_COS) (m).
OVERHEAD_Y_STEP_M = 1.5
OVERHEAD_MIN_COS = 0.707
# The search from lines lets its first COLD_SETTLE_N hypotheses settle on the paint
# (COLD_SETTLE_ITERS steps at 15 px on every 8th sample) before it ranks them: hypotheses from two
# lines differ in the camera's place along them and its focal, which the lines alone rank
# poorly (one hand-drawn side view had the right one 23rd: 2.8 m off at quality 0.98; 2 of 60
# random side views 1.3-2.8 m off, none once settled; render 890's first frames 3.2 m off).
COLD_SETTLE_N = 16
COLD_SETTLE_ITERS = 2
# Once in this many frames a tracked camera is refined again from wide bands (``_wide_check``).
WIDE_CHECK_FRAMES = 15
WIDE_CHECK_TAUS = (25.0, 15.0, 8.0, 4.0, 2.0)
WIDE_CHECK_MIN_GAIN = 0.05
# ... and its cameras must put the ice in view on the rink: at most this share of it beyond the
# boards by more than this (``Calibrator._ice_within_rink``).
OFF_RINK_ICE_MAX = 0.05
OFF_RINK_TOL_M = 3.0
# ... and must explain the paint well: on hand-drawn one-line views the right registrations scored
# 1.0, the two wrong ones left after the ice test 0.41 and 0.57 (``/tmp/s39/lc_sweep.py``).
LINE_CIRCLE_MIN_QUALITY = 0.7
# The raw 3×3 is fitted on pixels whose undistortion the lens model gives back within this (px).
LENS_ROUND_TRIP_PX = 0.5
# A venue profile's clicks are made on the distorted picture, and its 3×3 is fitted to the RANSAC
# inliers among them: under a goal camera's lens the clicks near the picture's edge do not fit one
# 3×3 (the goal posts 30–78 px off on the three of 63 simulated goal cameras whose profile left the
# calibrator never registered, e.g. tuning render 1399), and the 3×3 of the clustered rest
# extrapolates badly. Where the 3×3 left clicks out, of at least PROFILE_LENS_MIN_CLICKS, the
# profile's camera is taken as a 3×3 and the radial lens fitted to all of them together, where that
# explains every click within PROFILE_LENS_MAX_RESIDUAL_PX processing px (those three: at most 0.8
# px; the 3×3 alone: 15–552).
PROFILE_LENS_MIN_CLICKS = 6
PROFILE_LENS_MAX_RESIDUAL_PX = 2.0
CONVERGED_PX = 0.02  # a refinement stage stops when its update moves the image by less (processing px)


@dataclass
class CalibrationResult:
    """One frame's calibration.

    Attributes:
        rink_from_image: (3, 3) raw image px → rink m on the ice plane, or
            ``None`` when unknown.
        quality: verification score in [0, 1] (0 when unknown).
        method: how it was obtained: "profile", "track", "cold", or
            "none:<reason>".
        n_inliers: model boundary samples agreeing with the paint.
        landmarks: names of the rink markings that were matched.
    """

    rink_from_image: np.ndarray | None
    quality: float
    method: str
    n_inliers: int = 0
    landmarks: list[str] = field(default_factory=list)
    lens: dict | None = None
    rink_from_undistorted: np.ndarray | None = None

    @classmethod
    def unknown(cls, reason: str) -> "CalibrationResult":
        return cls(None, 0.0, f"none:{reason}", 0, [])

    def image_to_rink(self, xy_image_px: np.ndarray) -> np.ndarray:
        """Raw image px (N, 2) → rink m (N, 2), through the lens model when estimated.

        More accurate than ``rink_from_image`` (a best 3×3 fit on raw pixels)
        when the lens distorts: the pixels are undistorted with ``lens``
        (OpenCV ``K``/``dist``) first, then mapped by ``rink_from_undistorted``.
        """
        if self.rink_from_image is None:
            raise ValueError(f"frame not calibrated ({self.method})")
        xy = np.asarray(xy_image_px, np.float64).reshape(-1, 2)
        if self.lens is None or self.rink_from_undistorted is None:
            return apply_homography(self.rink_from_image, xy)
        und = cv2.undistortPoints(xy.reshape(-1, 1, 2), np.asarray(self.lens["K"]), np.asarray(self.lens["dist"]),
                                  P=np.asarray(self.lens["K"])).reshape(-1, 2)
        return apply_homography(self.rink_from_undistorted, und)

    def to_record(self, frame: int) -> dict:
        """The ``calibration.jsonl`` record of this frame.

        ``H_rink_from_image`` is the contract's 3×3 on raw pixels; when a lens
        model was estimated the record also carries ``lens`` (``K``, ``dist``,
        OpenCV convention) and ``H_rink_from_undistorted`` for consumers that
        undistort first (see :meth:`image_to_rink`).
        """
        rec = {
            "frame": int(frame),
            "H_rink_from_image": None if self.rink_from_image is None else self.rink_from_image.tolist(),
            "quality": round(float(self.quality), 4),
            "method": self.method,
        }
        if self.lens is not None and self.rink_from_undistorted is not None:
            rec["lens"] = {"K": np.asarray(self.lens["K"]).tolist(), "dist": list(map(float, self.lens["dist"]))}
            rec["H_rink_from_undistorted"] = self.rink_from_undistorted.tolist()
        return rec


def colour_class(rgb) -> str | None:
    """"red" | "blue" | None for a paint colour, by its Lab hue against white."""
    px = np.array([[list(rgb)[::-1]]], np.uint8)
    _, a, b = cv2.cvtColor(px, cv2.COLOR_BGR2LAB)[0, 0].astype(float) - [0, 128, 128]
    if np.hypot(a, b) < 8:
        return None
    hue = np.degrees(np.arctan2(b, a))
    if -40 < hue < 55:
        return "red"
    if -165 < hue < -30:
        return "blue"
    return None


class MarkingModel:
    """Boundary samples of the rink's painted markings, per colour class.

    Attributes:
        xy_rink_m: colour → (N, 2) boundary sample points, m.
        owner: colour → (N,) index into ``names``.
        names: marking names.
        polygons: colour → list of exterior rings (M, 2) in m (for rendering).
        across_x_m: list of (x_m, colour, name) of the lines across the rink,
            sorted by x.
    """

    def __init__(self, rink, step_m: float = 0.1):
        self.rink = rink
        self.names: list[str] = []
        pts = {c: [] for c in COLOURS}
        own = {c: [] for c in COLOURS}
        self.polygons: dict[str, list[np.ndarray]] = {c: [] for c in COLOURS}
        for m in rink.markings:
            colour = colour_class(m.rgb)
            if colour is None:
                continue
            idx = len(self.names)
            self.names.append(m.name)
            geoms = [m.geometry] if isinstance(m.geometry, Polygon) else list(getattr(m.geometry, "geoms", []))
            for g in geoms:
                for ring in [g.exterior, *g.interiors]:
                    n = max(4, int(np.ceil(ring.length / step_m)))
                    s = np.linspace(0, ring.length, n, endpoint=False)
                    xy = np.array([ring.interpolate(d).coords[0][:2] for d in s])
                    pts[colour].append(xy)
                    own[colour].append(np.full(len(xy), idx))
                self.polygons[colour].append(np.asarray(g.exterior.coords)[:, :2])
        self.xy_rink_m = {c: np.concatenate(pts[c]) if pts[c] else np.zeros((0, 2)) for c in COLOURS}
        self.owner = {c: np.concatenate(own[c]) if own[c] else np.zeros(0, int) for c in COLOURS}
        spec = rink.spec
        g, b = float(spec.goal_line_x_m), float(spec.blue_line_x_m)
        self.across_x_m = [(-g, "red", "goal_line_-x"), (-b, "blue", "blue_line_-x"), (0.0, "red", "centre_line"),
                           (b, "blue", "blue_line_+x"), (g, "red", "goal_line_+x")]
        self.width_m = {"goal_line": float(spec.goal_line_width_m), "blue_line": float(spec.blue_line_width_m),
                        "centre_line": float(spec.centre_line_width_m)}
        # Circles: (centre x, centre y, radius to the middle of the painted ring) m, colour, name.
        self.circles: list[tuple[float, float, float, str, str]] = []
        for m in rink.markings:
            colour = colour_class(m.rgb)
            if m.kind == "circle" and colour is not None:
                x0, y0, x1, y1 = m.geometry.bounds
                r_mid = 0.5 * (x1 - x0) - 0.5 * float(spec.thin_line_width_m)
                self.circles.append((0.5 * (x0 + x1), 0.5 * (y0 + y1), r_mid, colour, m.name))


# --------------------------------------------------------------------------- helpers
def _project(G: np.ndarray, xy: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(N, 2) px and (N,) homogeneous w of rink points through image_from_rink G."""
    hom = xy @ G[:, :2].T + G[:, 2]
    w = hom[:, 2]
    safe = np.where(np.abs(w) > 1e-9, w, 1e-9)
    return hom[:, :2] / safe[:, None], w


def _distort(p_u: np.ndarray, kappa: np.ndarray | None, c: np.ndarray, s: float) -> np.ndarray:
    """Radial lens distortion about the image centre: c + (p − c)(1 + k1 r² + k2 r⁴), r = |p − c| / s."""
    if kappa is None or not np.any(kappa):
        return p_u
    q = p_u - c
    r2 = np.einsum("ij,ij->i", q, q) / (s * s)
    return c + q * (1.0 + kappa[0] * r2 + kappa[1] * r2 * r2)[:, None]


def _undistort(p_d: np.ndarray, kappa: np.ndarray | None, c: np.ndarray, s: float) -> np.ndarray:
    """Inverse of :func:`_distort` by fixed-point iteration."""
    if kappa is None or not np.any(kappa):
        return p_d
    q_d = p_d - c
    q = q_d.copy()
    for _ in range(8):
        r2 = np.einsum("ij,ij->i", q, q) / (s * s)
        q = q_d / (1.0 + kappa[0] * r2 + kappa[1] * r2 * r2)[:, None]
    return c + q


def _profile_cameras(profile: CameraProfile, raw_size: tuple[int, int], A: np.ndarray, pw: int,
                     ph: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """The (G, kappa) a venue profile may start from, in processing px: where its 3×3 left clicks
    out, the 3×3 and lens fitted to all of them (``_profile_lens_fit``) first, then its 3×3 with no
    lens; else the 3×3 alone. The calibrator keeps whichever explains the first frame's paint
    best: a lens fitted to eight clicks on a goal camera's picture can also miss (held-out render
    1606: every click within 2 px, no frame registered from it; every frame from the 3×3)."""
    plain = (_front_sign(A @ np.linalg.inv(profile.scaled_to(*raw_size)), pw, ph), np.zeros(2))
    fitted = _profile_lens_fit(profile, raw_size, A, pw, ph, plain[0])
    return [plain] if fitted is None else [fitted, plain]


def _profile_lens_fit(profile: CameraProfile, raw_size: tuple[int, int], A: np.ndarray, pw: int, ph: int,
                      G_h: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """(G, kappa) in processing px of a venue profile whose 3×3 (``G_h``, ``image_from_rink``) left
    clicks out (RANSAC outliers) of at least ``PROFILE_LENS_MIN_CLICKS``: a 3×3 and radial lens
    (``_distort``) fitted to all of them, where that explains each within
    ``PROFILE_LENS_MAX_RESIDUAL_PX``; else None.

    Args:
        profile: the venue profile (its clicks in its own ``width`` × ``height`` px).
        raw_size: (W, H) of the video's frames, px.
        A: (3, 3) processing px from raw px.
        pw, ph: processing size, px.
        G_h: (3, 3) the profile's 3×3 in processing px (the fit's start).
    """
    from scipy.optimize import least_squares

    xy_rink = np.asarray(profile.xy_rink_m, dtype=np.float64).reshape(-1, 2)
    inliers = np.asarray(profile.inliers, dtype=bool).reshape(-1)
    if len(xy_rink) < PROFILE_LENS_MIN_CLICKS or not profile.width or not profile.height \
            or len(inliers) != len(xy_rink) or inliers.all():
        # Every click on one 3×3: the profile is kept as it is (a lens fitted to a few clicks
        # that one 3×3 explains extrapolates worse than the 3×3 beyond them: tuning renders 1302,
        # 1288 p95 1.5 → 21.5, 1.4 → 9.9 cm when tried on every profile).
        return None
    # The clicks in processing px (pixel centres at integers in every frame).
    sx, sy = raw_size[0] / profile.width, raw_size[1] / profile.height
    clicks = np.asarray(profile.xy_image_px, dtype=np.float64).reshape(-1, 2)
    raw = np.c_[(clicks[:, 0] + 0.5) * sx - 0.5, (clicks[:, 1] + 0.5) * sy - 0.5, np.ones(len(clicks))]
    p = (raw @ A.T)[:, :2]
    c, s = np.array([(pw - 1) / 2.0, (ph - 1) / 2.0]), np.hypot(pw, ph) / 2.0
    g0 = (G_h / G_h[2, 2]).ravel()[:8]

    def residuals(q: np.ndarray) -> np.ndarray:
        uv, _ = _project(np.append(q[:8], 1.0).reshape(3, 3), xy_rink)
        return (_distort(uv, q[8:], c, s) - p).ravel()

    fit = least_squares(residuals, np.r_[g0, 0.0, 0.0], x_scale="jac")
    worst = float(np.max(np.linalg.norm(residuals(fit.x).reshape(-1, 2), axis=1)))
    if not fit.success or worst > PROFILE_LENS_MAX_RESIDUAL_PX or np.abs(fit.x[8:]).max() > 0.5:
        return None
    G = _front_sign(np.append(fit.x[:8], 1.0).reshape(3, 3), pw, ph)
    return G, fit.x[8:].copy()


def _front_sign(G: np.ndarray, width: int, height: int) -> np.ndarray:
    """Scale G so that rink points seen in the image have positive w."""
    Ginv = np.linalg.inv(G)
    c = Ginv @ np.array([(width - 1) / 2.0, (height - 1) / 2.0, 1.0])
    return G if c[2] > 0 else -G


_REMAP_MAX_COLS = 32767  # cv2.remap's limit on a map's width (SHRT_MAX)
_REMAP_ROW = 8192


_KERNEL_3 = np.ones((3, 3), np.uint8)


class _FrameTargets:
    """Distance transforms of the paint boundaries of one processed frame."""

    def __init__(self, masks: MarkingMasks):
        self.masks = masks
        self.h, self.w = masks.red.shape
        self.fields: dict[str, np.ndarray] = {}
        self.n_target: dict[str, int] = {}
        self.targets: dict[str, np.ndarray] = {}
        # The second colour on the side thread (the distance transforms are this stage's main cost).
        later = [side_pool().submit(self._build, c, getattr(masks, c)) for c in COLOURS[1:]]
        self._build(COLOURS[0], getattr(masks, COLOURS[0]))
        for f in later:
            f.result()
        self.ice = masks.ice

    def _build(self, c: str, m: np.ndarray) -> None:
        """Boundary pixels and signed edge-distance field of one colour's (H, W) uint8 mask."""
        target = cv2.subtract(m, cv2.erode(m, _KERNEL_3))  # inner boundary pixels
        self.targets[c] = target
        self.n_target[c] = int(np.count_nonzero(target))
        # Signed distance to the paint edge, zero on the pixel boundary between
        # paint and ice (distances are between pixel centres, hence −0.5): an
        # unsigned transform of boundary pixels would pull every marking half
        # a pixel inwards, a scale bias of the whole homography.
        # One of dt_out / dt_in is 0 at every pixel, so
        # sdf = dt_out − dt_in − 0.5 + [inside] (cv2 ops: this runs per frame).
        dt_out = cv2.distanceTransform(cv2.bitwise_not(m), cv2.DIST_L2, cv2.DIST_MASK_5)
        dt_in = cv2.distanceTransform(m, cv2.DIST_L2, cv2.DIST_MASK_5)
        inside = m.astype(np.float32)
        sdf = cv2.subtract(dt_out, dt_in)
        self.fields[c] = cv2.scaleAdd(inside, 1.0 / 255.0, sdf) - np.float32(0.5)

    def _field_at(self, colour: str, xy: np.ndarray) -> np.ndarray:
        """(N,) signed edge distance (px) of ``colour``'s field, bilinear at points (N, 2)."""
        return self._field_values(colour, xy[:, 0].astype(np.float32), xy[:, 1].astype(np.float32))

    def _field_values(self, colour: str, mx: np.ndarray, my: np.ndarray) -> np.ndarray:
        """:meth:`_field_at` of points given as (N,) float32 x and y arrays."""
        n = len(mx)
        if n < _REMAP_MAX_COLS:
            shape = (1, n)
        else:  # remap's maps are images under 32767 columns wide: many points go in rows
            rows = -(-n // _REMAP_ROW)
            mx, my = (np.pad(a, (0, rows * _REMAP_ROW - n)) for a in (mx, my))
            shape = (rows, _REMAP_ROW)
        v = cv2.remap(self.fields[colour], mx.reshape(shape), my.reshape(shape), cv2.INTER_LINEAR,
                      borderMode=cv2.BORDER_CONSTANT, borderValue=50.0)
        return v.ravel()[:n]

    def distance(self, colour: str, xy: np.ndarray) -> np.ndarray:
        """(N,) unsigned edge distance (px) at sub-pixel points (N, 2)."""
        return np.abs(self._field_at(colour, xy))

    def sample_split(self, xy: np.ndarray, n_first: int) -> np.ndarray:
        """:meth:`sample` of (N, 2) points whose first ``n_first`` are red and the rest blue."""
        parts = [self.sample(c, q) for c, q in zip(COLOURS, (xy[:n_first], xy[n_first:])) if len(q)]
        return np.concatenate(parts) if parts else np.zeros((0, 3), np.float32)

    def sample(self, colour: str, xy: np.ndarray) -> np.ndarray:
        """(N, 3) unsigned edge distance (px) and its gradient at sub-pixel points (N, 2)."""
        # Value and central differences (±0.5 px): five bilinear look-ups a point.
        n = len(xy)
        if n == 0:
            return np.zeros((0, 3), np.float32)
        x, y = xy[:, 0].astype(np.float32), xy[:, 1].astype(np.float32)
        h = np.float32(0.5)
        v0, vxp, vxm = (self._field_values(colour, x + dx, y) for dx in (0, h, -h))
        vyp, vym = (self._field_values(colour, x, y + dy) for dy in (h, -h))
        out = np.empty((n, 3), np.float32)
        out[:, 0], out[:, 1], out[:, 2] = v0, vxp - vxm, vyp - vym
        # |f| and its gradient sign(f)·∇f from the signed field.
        return np.where(v0[:, None] < 0, -out, out)


@dataclass
class _Score:
    recall: float
    precision: float
    n_visible: int
    n_inliers: int
    landmarks: list[str]

    @property
    def quality(self) -> float:
        if self.n_visible < 60:
            return 0.0
        q = np.clip((self.recall - 0.3) / 0.45, 0, 1) * np.clip((self.precision - 0.15) / 0.45, 0, 1)
        return float(q)


# --------------------------------------------------------------------------- calibrator
class Calibrator:
    """Per-frame rink calibration with tracking (see module docstring).

    Args:
        rink: ``calibration.rink.RinkModel``.
        camera_profile: stored fixed-camera calibration; when given, frames
            are verified/refined against it instead of searched.
        fps: frame rate (used to scale the temporal smoothing of fixed cameras).
        proc_width: frames are analysed at this width (px), keeping aspect.
        min_quality: below this a frame is reported unknown.
        max_carry_s: after a registered frame, how long the camera may be carried by the
            optical flow alone through frames that fail verification (they are reported
            unknown); meanwhile a search result that disagrees with the carried camera by more
            than 2 m is refused (no cut was seen, so the camera cannot have jumped).
    """

    def __init__(self, rink, camera_profile: CameraProfile | None = None, fps: float = 30.0,
                 proc_width: int = 640, min_quality: float = 0.35, max_carry_s: float = 1.0):
        self.rink = rink
        self.model = MarkingModel(rink)
        self.profile = camera_profile if camera_profile else None
        self.fps = float(fps)
        self.proc_width = int(proc_width)
        self.min_quality = float(min_quality)
        self.max_carry_s = float(max_carry_s)
        self._carried = 0  # frames the camera has been carried by the flow alone since the last registration
        self._G: np.ndarray | None = None  # proc image_from_rink of the last good frame
        self._gray: np.ndarray | None = None
        self._hist: np.ndarray | None = None
        self._G_smooth: np.ndarray | None = None
        self._kappa = np.zeros(2)  # radial distortion (k1, k2) on half-diagonal-normalised radius
        self._ice: tuple[np.ndarray, float] | None = None
        self._size: tuple[int, int] | None = None
        self._subset: dict | None = None  # per-frame culled model samples (see _cull)
        self._full_samples: dict = {}  # the whole model's samples of all colours, by step
        self._frame_index = 0
        self._circle_search_after = -1  # frame index before which no line-and-circle search runs again
        self._profile_camera: tuple[np.ndarray, np.ndarray] | None = None  # (G, kappa) of the profile

    # ------------------------------------------------------------------ public
    def reset(self) -> None:
        """Forget the temporal state (next frame is registered cold)."""
        self._G = self._gray = self._hist = self._G_smooth = None
        self._kappa = np.zeros(2)
        self._ice = None
        self._circle_search_after = -1
        self._profile_camera = None

    def update(self, frame_bgr: np.ndarray, frame_index: int) -> CalibrationResult:
        """Calibrate one frame.

        Args:
            frame_bgr: (H, W, 3) uint8 BGR frame.
            frame_index: index of the frame in the video.

        Returns:
            :class:`CalibrationResult` with ``rink_from_image`` in raw image px.
        """
        if frame_bgr is None or frame_bgr.ndim != 3 or frame_bgr.shape[2] != 3 or frame_bgr.size == 0:
            return CalibrationResult.unknown("bad_frame")
        self._frame_index = int(frame_index)
        H0, W0 = frame_bgr.shape[:2]
        s = min(1.0, self.proc_width / W0)
        pw, ph = int(round(W0 * s)), int(round(H0 * s))
        if (pw, ph) != self._size:
            self.reset()
            self._size = (pw, ph)
        self._raw_size = (W0, H0)
        proc = frame_bgr if s == 1.0 else cv2.resize(frame_bgr, (pw, ph), interpolation=cv2.INTER_AREA)
        # proc px = A · raw px (pixel centres at integers).
        A = np.array([[pw / W0, 0, 0.5 * pw / W0 - 0.5], [0, ph / H0, 0.5 * ph / H0 - 0.5], [0, 0, 1.0]])
        gray = cv2.cvtColor(proc, cv2.COLOR_BGR2GRAY)
        hist = cv2.calcHist([cv2.resize(proc, (64, 36))], [0, 1, 2], None, [8, 8, 8], [0, 256] * 3)
        hist = cv2.normalize(hist, None).ravel()
        cut = self._hist is not None and cv2.compareHist(self._hist, hist, cv2.HISTCMP_CORREL) < 0.7

        # Where the camera went since the last frame (also when this frame's lines are covered),
        # on the side thread while this thread segments the frame; used only if there is ice.
        flow_job = None
        if self.profile is None and self._G is not None and not cut:
            flow_job = side_pool().submit(self._flow_predict, self._gray, gray, self._G)
        # The ice colour is re-estimated every 10th frame and after a cut.
        hint = self._ice if (self._ice is not None and not cut and frame_index % 10) else None
        masks = segment_markings(proc, ice_hint=hint)
        self._ice = (masks.ice_lab, masks.chroma_spread) if masks.has_ice else None
        targets = _FrameTargets(masks)
        n_paint = targets.n_target["red"] + targets.n_target["blue"]
        G_flow = flow_job.result() if flow_job is not None else None
        G_pred = G_flow if masks.has_ice else None
        if not masks.has_ice or n_paint < 40:
            self._carry(G_pred)
            self._gray, self._hist = gray, hist
            return CalibrationResult.unknown("no_ice" if not masks.has_ice else "no_markings")

        result: tuple[np.ndarray, np.ndarray, _Score, str] | None = None
        if cut:
            self._carried = 0
        if self.profile is not None:
            result = self._from_profile(targets, A, pw, ph)
        else:
            if G_pred is not None:
                G, kappa, sc = self._fine(G_pred, targets, lambda G0: self._refine(
                    G0, targets, taus=(5.0, 2.5, 1.5), iters_per_tau=2, kappa=self._kappa, fit_kappa=True,
                    kappa_weight=3e4, step=self._tracking_steps()), score=True)
                if sc.quality >= self.min_quality:
                    result = (G, kappa, sc, "track")
                    if frame_index % WIDE_CHECK_FRAMES == 0:
                        result = self._wide_check(result, targets)
            if result is None:
                result = self._cold(targets, pw, ph)
                if result is not None and G_pred is not None and self._carried > 0 \
                        and not self._agrees(result[0], G_pred, pw, ph):
                    # No cut, yet the search lands elsewhere than where the flow carried the
                    # camera: with few markings in view a search can pick the mirror image of
                    # the view (the other end zone); unknown is the honest answer.
                    result = None
        self._gray, self._hist = gray, hist
        if result is None or result[2].quality < self.min_quality:
            self._carry(G_pred)
            return CalibrationResult.unknown("not_registered")
        G, kappa, sc, method = result
        self._G, self._kappa, self._carried = G, kappa, 0
        return self._result(G, kappa, A, sc, method, pw, ph)

    def _wide_check(self, result, targets: _FrameTargets):
        """A tracked camera refined again from wide bands (``WIDE_CHECK_TAUS``): a pose that
        tracking carried in a wrong basin (a far circle 5 px off, a blue line and a centre circle
        matched) moves to the markings it missed. Kept only when it matches clearly more of the
        paint (``WIDE_CHECK_MIN_GAIN``) at no lower quality.

        Returns:
            ``result`` or the re-refined (G, kappa, _Score, "track").
        """
        G, kappa, sc, method = result
        G2, kappa2, sc2 = self._fine(G, targets, lambda G0: self._refine(
            G0, targets, taus=WIDE_CHECK_TAUS, iters_per_tau=4, kappa=kappa, fit_kappa=True,
            kappa_weight=3e4), score=True)
        if sc2.recall >= sc.recall + WIDE_CHECK_MIN_GAIN and sc2.quality >= sc.quality:
            return G2, kappa2, sc2, method
        return result

    def _carry(self, G_pred: np.ndarray | None) -> None:
        """Carry the camera through a frame that cannot be verified (players over the few
        markings in view) by the flow alone, for at most ``max_carry_s``: the next frames
        track from it, and a search that disagrees with it is refused. Never reported."""
        if G_pred is not None and self._carried < int(round(self.max_carry_s * self.fps)):
            self._G, self._carried = G_pred, self._carried + 1
        else:
            self._G, self._carried = None, 0

    def _agrees(self, G_a: np.ndarray, G_b: np.ndarray, pw: int, ph: int, tol_m: float = 2.0) -> bool:
        """Whether two proc image_from_rink homographies put the ice under the image's lower half
        within ``tol_m`` of each other (median over a grid of pixels)."""
        gu, gv = np.meshgrid(np.linspace(0.1 * pw, 0.9 * pw, 5), np.linspace(0.5 * ph, 0.95 * ph, 4))
        px = np.c_[gu.ravel(), gv.ravel()]
        a, wa = _project(np.linalg.inv(G_a), px)
        b, wb = _project(np.linalg.inv(G_b), px)
        ok = (wa > 0) & (wb > 0)
        return bool(ok.sum() >= 4 and np.median(np.linalg.norm(a[ok] - b[ok], axis=1)) <= tol_m)

    def _result(self, G, kappa, A, sc: "_Score", method: str, pw: int, ph: int) -> CalibrationResult:
        """Raw-pixel outputs: the lens model and the best 3×3 on raw pixels."""
        A_inv = np.linalg.inv(A)
        undistorted_from_rink = A_inv @ G
        rink_from_undistorted = np.linalg.inv(undistorted_from_rink)
        rink_from_undistorted /= rink_from_undistorted[2, 2]
        W0, H0 = self._raw_size
        rink_from_undistorted = ice_in_front(rink_from_undistorted, W0, H0)
        c = np.array([(pw - 1) / 2.0, (ph - 1) / 2.0])
        s = np.hypot(pw, ph) / 2.0
        if not np.any(kappa):
            return CalibrationResult(rink_from_undistorted, sc.quality, method, sc.n_inliers, sc.landmarks)
        # Least-squares 3×3 through the distorted mapping on a grid of ice pixels.
        # Only pixels that see the ice count: the distortion is largest in the
        # image corners, which often show boards and crowd.
        gu, gv = np.meshgrid(np.linspace(0, pw - 1, 32), np.linspace(0, ph - 1, 18))
        grid_d = np.c_[gu.ravel(), gv.ravel()]
        grid_u = _undistort(grid_d, kappa, c, s)
        rink_xy, w = _project(np.linalg.inv(G), grid_u)
        # A strong barrel lens folds before the image corners: no undistorted point maps there,
        # and the iteration returns far-off points (px 1e2-1e4 away) that pulled the fit metres
        # off (render 859, overhead, k1 -0.13: 6.9 m median over the rink). Only pixels the
        # lens model gives back count.
        round_trip = np.linalg.norm(_distort(grid_u, kappa, c, s) - grid_d, axis=1)
        ok = ((w > 0) & (round_trip < LENS_ROUND_TRIP_PX) & (np.abs(rink_xy[:, 0]) <= self.rink.spec.length_m / 2)
              & (np.abs(rink_xy[:, 1]) <= self.rink.spec.width_m / 2))
        raw_d = apply_homography(A_inv, grid_d[ok])
        if ok.sum() >= 8:
            H_raw, _ = cv2.findHomography(raw_d, rink_xy[ok], 0)
        else:
            H_raw = None
        if H_raw is None:
            H_raw = rink_from_undistorted
        H_raw = ice_in_front(H_raw / H_raw[2, 2], W0, H0)
        s_raw = np.hypot(W0, H0) / 2.0
        K = np.array([[s_raw, 0, (W0 - 1) / 2.0], [0, s_raw, (H0 - 1) / 2.0], [0, 0, 1.0]])
        lens = {"K": K, "dist": np.array([kappa[0], kappa[1], 0.0, 0.0, 0.0])}
        return CalibrationResult(H_raw, sc.quality, method, sc.n_inliers, sc.landmarks, lens, rink_from_undistorted)

    # ------------------------------------------------------------------ modes
    def _from_profile(self, targets: _FrameTargets, A: np.ndarray, pw: int, ph: int):
        if self._profile_camera is None:
            # The first frame with ice picks the profile's camera (``_profile_cameras``).
            tried = []
            for G_prof, k_prof in _profile_cameras(self.profile, self._raw_size, A, pw, ph):
                tried.append(((G_prof, k_prof), self._profile_pose(targets, G_prof, k_prof, G_prof, k_prof, pw, ph)))
            self._profile_camera, (G, kappa, sc) = max(tried, key=lambda t: t[1][2].quality)
        else:
            G_prof, k_prof = self._profile_camera
            start, k_start = (self._G, self._kappa) if self._G is not None else (G_prof, k_prof)
            G, kappa, sc = self._profile_pose(targets, G_prof, k_prof, start, k_start, pw, ph)
        # Temporal smoothing of a static camera: exponential average of the
        # normalised homography and lens (time constant ~1 s) keeps jitter down.
        alpha = min(1.0, 1.0 / max(1.0, self.fps))
        Gn = G / G[2, 2]
        if self._G_smooth is None:
            self._G_smooth, self._k_smooth = Gn, kappa
        else:
            self._G_smooth = (1 - alpha) * self._G_smooth + alpha * Gn
            self._k_smooth = (1 - alpha) * self._k_smooth + alpha * kappa
        return self._G_smooth.copy(), self._k_smooth.copy(), sc, "profile"

    def _profile_pose(self, targets: _FrameTargets, G_prof: np.ndarray, k_prof: np.ndarray, start: np.ndarray,
                      k_start: np.ndarray, pw: int, ph: int) -> tuple[np.ndarray, np.ndarray, "_Score"]:
        """(G, kappa, score) of a fixed camera refined from ``start`` and anchored at the profile's
        (``G_prof``, ``k_prof``)."""
        G, kappa = self._refine(start, targets, taus=(4.0, 2.0, 1.5), iters_per_tau=3, kappa=k_start,
                                fit_kappa=True, kappa_weight=1e4)
        # A fixed camera only drifts a little: a refinement that walks far from
        # the profile is a failure (occlusion, wrong paint), not a new pose.
        if _max_corner_shift(G, G_prof, pw, ph) > 0.03 * np.hypot(pw, ph) or np.abs(kappa).max() > 0.5:
            G, kappa = G_prof, k_prof
        sc = self._score(G, targets, kappa=kappa)
        sc_prof = self._score(G_prof, targets, kappa=k_prof)
        if sc_prof.quality > sc.quality:
            G, kappa, sc = G_prof, k_prof, sc_prof
        return G, kappa, sc

    def _cold(self, targets: _FrameTargets, pw: int, ph: int):
        """The best camera from the lines across the rink in view; where two or more lines give
        none that explains the paint (or only one line is seen), from one line and a painted
        circle (at most once in ``LINE_CIRCLE_RETRY_FRAMES`` frames, the longest lines first).

        Returns:
            (G, kappa, _Score, "cold") or None.
        """
        lines, x_at = self._across_lines(targets, pw, ph)
        best = None
        if len(lines) >= 2:
            best = self._best_camera(self._line_hypotheses(lines, x_at, pw, ph), targets, from_circle=False)
        if (best is not None and best[2].quality >= self.min_quality) or not lines \
                or self._frame_index < self._circle_search_after:
            return best
        # Some 0.5-5 s of CPU: while it finds nothing, once every LINE_CIRCLE_RETRY_FRAMES frames.
        self._circle_search_after = self._frame_index + LINE_CIRCLE_RETRY_FRAMES
        for line in sorted(lines, key=lambda ln: -ln.length_px)[:LINE_CIRCLE_MAX_LINES]:
            found = self._best_camera(self._line_circle_hypotheses(targets, line, x_at, pw, ph), targets,
                                      from_circle=True)
            if found is None or (len(lines) >= 2 and found[2].recall < LINE_CIRCLE_FALLBACK_MIN_RECALL):
                continue
            if best is None or found[2].quality > best[2].quality:
                best = found
            if best[2].quality >= LINE_CIRCLE_MIN_QUALITY:
                break
        return best

    def _best_camera(self, cands: list[np.ndarray], targets: _FrameTargets, from_circle: bool):
        """Rank hypotheses by the paint they match, refine the top three and keep the best;
        hypotheses from lines alone are ranked once the first ``COLD_SETTLE_N`` settled on the
        paint; hypotheses from one line and a circle must also put the ice on the rink and score
        at least ``LINE_CIRCLE_MIN_QUALITY``.

        Returns:
            (G, kappa, _Score, "cold") or None.
        """
        if not cands:
            return None
        scored = sorted(zip(self._rank_keys(cands, targets).tolist(), cands), key=lambda t: -t[0])
        if from_circle:  # the best by the paint that also put the ice in view on the rink
            top = [G for _, G in scored[:64]]
            scored = [(0.0, G) for G in self._ice_within_rink(top, targets)]
        else:
            top = [self._refine(G, targets, taus=(15.0,), iters_per_tau=COLD_SETTLE_ITERS, step=8)[0]
                   for _, G in scored[:COLD_SETTLE_N]]
            scored = sorted(zip(self._rank_keys(top, targets).tolist(), top), key=lambda t: -t[0]) \
                + scored[COLD_SETTLE_N:]
        best = None
        for _, G in scored[:3]:
            G, _ = self._refine(G, targets, taus=(15.0, 8.0), iters_per_tau=4, step=3)
            # Past the coarse stage the pose moves by a few px: the fine stages
            # and the verification work on the model culled around it.
            G = self._fine(G, targets, lambda G0: self._refine(G0, targets, taus=(4.0, 2.0), iters_per_tau=3))[0]
            sc = self._score(G, targets)
            if best is None or sc.quality > best[2].quality:
                best = (G, np.zeros(2), sc, "cold")
        if best is not None and best[2].quality > 0:
            # Lens distortion last, once the homography is in the basin.
            G, kappa, sc = self._fine(best[0], targets, lambda G0: self._refine(
                G0, targets, taus=(3.0, 2.0, 1.5), iters_per_tau=4, kappa=np.zeros(2), fit_kappa=True,
                kappa_weight=1e4), score=True)
            if sc.quality >= best[2].quality - 0.02:
                best = (G, kappa, sc, "cold")
        if best is not None and from_circle and best[2].quality < LINE_CIRCLE_MIN_QUALITY:
            return None  # one line and a circle: only a camera that explains the paint well
        return best

    def _rank_keys(self, cands: list[np.ndarray], targets: _FrameTargets) -> np.ndarray:
        """(K,) ranking keys of K hypotheses: model samples within 4 px of their paint (every 8th)
        times their share of those in view. Matched samples, not the matched share alone: a
        hypothesis that zooms onto the detected lines matches a large share of very little."""
        n_vis, n_in = self._count_inliers(np.stack(cands), targets, tau=4.0, step=8)
        return np.where(n_vis > 0, n_in * (n_in / np.maximum(n_vis, 1)), 0.0)

    def _fine(self, G0: np.ndarray, targets: _FrameTargets, refine, score: bool = False):
        """Run ``refine(G0) -> (G, kappa)`` (and the verification) on the model culled around ``G0``.

        The culled set holds every sample within 15 % of the image around the
        start pose; if the refinement moved the image by more than 5 % of its
        size, the verification runs on the whole model instead.

        Returns:
            (G, kappa, _Score or None).
        """
        self._cull(G0, targets)
        try:
            G, kappa = refine(G0)
            if _max_corner_shift(G, G0, targets.w, targets.h) > 0.05 * min(targets.w, targets.h):
                self._subset = None
            sc = self._score(G, targets, kappa=kappa) if score else None
        finally:
            self._subset = None
        return G, kappa, sc

    # ------------------------------------------------------------------ pieces
    def _flow_predict(self, prev_gray: np.ndarray, gray: np.ndarray, G: np.ndarray) -> np.ndarray | None:
        """Predict G in the new frame from sparse flow at half the processing size.

        Returns ``G`` unchanged when there is nothing to track (blank ice: the
        refinement then starts from the previous pose), ``None`` when the flow
        is inconsistent (a cut, or mostly independent motion).
        """
        a = cv2.pyrDown(prev_gray)
        b = cv2.pyrDown(gray)
        pts = cv2.goodFeaturesToTrack(a, maxCorners=150, qualityLevel=0.01, minDistance=6, blockSize=5)
        if pts is None or len(pts) < 12:
            return G
        nxt, st, _ = cv2.calcOpticalFlowPyrLK(a, b, pts, None, winSize=(15, 15), maxLevel=3)
        ok = st.ravel() == 1
        if ok.sum() < 12:
            return None
        M, inl = cv2.findHomography(pts[ok], nxt[ok], cv2.RANSAC, 1.5)
        if M is None or inl.sum() < max(10, 0.3 * ok.sum()):
            return None
        # Flow was measured at half size: conjugate back to processing pixels
        # (pyrDown: x_half = (x + 0.5) / 2 - 0.5).
        D = np.array([[0.5, 0, -0.25], [0, 0.5, -0.25], [0, 0, 1.0]])
        return np.linalg.inv(D) @ M @ D @ G

    def _across_lines(self, targets: _FrameTargets, pw: int, ph: int):
        """The painted lines in view that may run across the rink (at most five, left to right
        at the image's bottom), and the function giving a line's x there (px).

        Returns:
            (lines, x_at): list of ``FittedLine``; ``x_at(line) -> float``.
        """
        masks = targets.masks
        min_len = 0.25 * min(pw, ph)
        # Lines from the strict masks, plus those only the faint masks (before
        # the half-coverage test) hold: far, sub-pixel lines such as a goal line
        # across the zone in a broadcast view. Duplicates are merged.
        lines = []
        for colour in COLOURS:
            found = fit_lines(getattr(masks, colour), colour, min_len, 6)
            found += fit_lines(getattr(masks, colour + "_faint"), colour, min_len, 6)
            lines += _drop_near_duplicates(merge_collinear(found))
        y_ref = float(ph)

        def x_at(ln):
            a, b, c = ln.abc
            return -(b * y_ref + c) / a if abs(a) > 1e-6 else np.inf

        # Lines across the rink are seldom near horizontal in the image (those run along the
        # boards: arcs, the kick plate), down to LINE_MIN_ANGLE_DEG for a far goal line.
        lines = [ln for ln in lines if np.isfinite(x_at(ln)) and abs(ln.abc[0]) > np.sin(np.radians(LINE_MIN_ANGLE_DEG))]
        lines.sort(key=x_at)
        return lines[:5], x_at

    def _line_hypotheses(self, lines, x_at, pw: int, ph: int) -> list[np.ndarray]:
        """Cold camera hypotheses (proc image_from_rink) from two or more lines across the rink
        (``_across_lines``), each assigned in order to the model's lines of its colour."""
        blue_w = [ln.width_px for ln in lines if ln.colour == "blue"]
        model = self.model.across_x_m
        spec = self.rink.spec
        half_w = float(spec.width_m) / 2.0
        cx, cy = (pw - 1) / 2.0, (ph - 1) / 2.0
        cands = []
        for k in range(len(lines), 1, -1):
            for subset in itertools.combinations(range(len(lines)), k):
                det = [lines[i] for i in subset]
                for assign in itertools.combinations(range(len(model)), k):
                    if any(model[j][1] != ln.colour for j, ln in zip(assign, det)):
                        continue
                    if not self._widths_plausible(det, [model[j][2] for j in assign], blue_w):
                        continue
                    cands.extend(self._fit_cameras(det, [model[j][0] for j in assign], half_w, cx, cy, pw,
                                                   over_ice_y=True))
            # Three or more lines fitted exactly by a wrong assignment is rare;
            # two lines always fit, so their assignments are all kept for scoring.
            if cands and k >= 3:
                break
        return cands

    def _line_circle_hypotheses(self, targets: _FrameTargets, line, x_at, pw: int, ph: int) -> list[np.ndarray]:
        """Cameras from one line across the rink and a painted circle's ellipse (a view with
        a single line: a blue line and the end-zone circles beyond it, say).

        Lines across the rink meet at the image of their common direction (rink +y), a point
        ``v`` on the one line seen. From ``v`` the two tangents to the circle's ellipse are the
        images of the lines ``x = cx ± r`` that touch the circle: three lines across the rink,
        which fix a camera as three seen ones do (``_fit_cameras``). ``v`` is sampled along the
        line (and at infinity), each model circle of the ellipse's colour and each model line of
        the line's colour tried; the chamfer score chooses among the cameras.
        """
        ellipses = [e for c in COLOURS for e in fit_ellipses(getattr(targets.masks, c), c, min_axis_px=8.0)]
        ellipses = [e for e in ellipses if e.axes.max() >= 0.15 * min(pw, ph)][:3]
        if not ellipses:
            return []
        p0, p1 = np.asarray(line.p0, float), np.asarray(line.p1, float)
        d = (p1 - p0) / max(np.linalg.norm(p1 - p0), 1e-9)
        mid = 0.5 * (p0 + p1)
        size = float(max(pw, ph))
        vs = [np.array([d[0], d[1], 0.0])]  # lines parallel in the image
        vs += [np.r_[mid + sgn * k * size * d, 1.0] for k in (0.6, 1.0, 1.5, 2.5, 4.0, 7.0, 12.0, 25.0, 60.0)
               for sgn in (1.0, -1.0)]
        half_w = float(self.rink.spec.width_m) / 2.0
        cx_img, cy_img = (pw - 1) / 2.0, (ph - 1) / 2.0
        cands = []
        for e in ellipses:
            C = _ellipse_conic(e.centre, e.axes, e.angle_deg)
            for v in vs:
                tangents = _tangents_through(C, v)
                if tangents is None:
                    continue
                det = sorted([line, *tangents], key=x_at)
                if not all(np.isfinite(x_at(t)) for t in det):
                    continue
                k_line = det.index(line)
                for x_m, colour, _ in self.model.across_x_m:
                    if colour != line.colour:
                        continue
                    for cx, cy, r, c_col, _ in self.model.circles:
                        if c_col != e.colour:
                            continue
                        xs = sorted([x_m, cx - r, cx + r])
                        if xs.index(x_m) != k_line or len(set(xs)) < 3:
                            continue  # the image's left-to-right order must be the rink's along +x
                        cands.extend(self._fit_cameras(det, xs, half_w, cx_img, cy_img, pw))
        return cands

    def _ice_within_rink(self, cands: list[np.ndarray], targets: _FrameTargets) -> list[np.ndarray]:
        """The hypotheses that put the ice in view on the rink: at most ``OFF_RINK_ICE_MAX`` of a
        grid of ice pixels beyond the boards by more than ``OFF_RINK_TOL_M``.

        One line and one circle leave the circle's twin across the rink (the end zone's other
        face-off circle, 14 m away in y) as plausible to the paint as the true one: the line is
        the same, the hash marks and spot alike. Mostly the ice does not agree: shifted 14 m, the
        far side of the ice in view lands beyond the boards (hand-drawn one-line views,
        ``/tmp/s39/lc_sweep.py``: 2 of 40 such shifts had scored 1.0 on the paint; a view of a
        small patch of ice keeps its twin on the rink, docs/calibration.md).
        """
        if not cands:
            return cands
        ys, xs = np.nonzero(targets.ice[::12, ::12])
        if len(xs) < 20:
            return cands
        px = np.c_[xs * 12.0, ys * 12.0, np.ones(len(xs))]
        spec = self.rink.spec
        lim = np.array([spec.length_m / 2 + OFF_RINK_TOL_M, spec.width_m / 2 + OFF_RINK_TOL_M])
        Gs = np.stack(cands)
        rink = np.einsum("kij,nj->kni", np.linalg.inv(Gs), px)  # (K, N, 3) rink_from_image of each
        w = rink[..., 2]
        xy = rink[..., :2] / np.where(np.abs(w) > 1e-12, w, 1e-12)[..., None]
        off = (w <= 0) | np.any(np.abs(xy) > lim, axis=2)
        keep = off.mean(axis=1) <= OFF_RINK_ICE_MAX
        return [G for G, k in zip(cands, keep) if k]

    @staticmethod
    def _widths_plausible(det, names, blue_w) -> bool:
        # The centre line is as wide as a blue line; goal lines are ~6× thinner.
        if not blue_w:
            return True
        ref = float(np.median(blue_w))
        for ln, name in zip(det, names):
            # Loose bounds: a far line looks thinner than a near one (perspective).
            if name == "centre_line" and ln.width_px < 0.25 * ref:
                return False
            if name.startswith("goal_line") and ln.width_px > 0.8 * ref and ref > 3:
                return False
        return True

    def _fit_cameras(self, det, xs_m, half_w, cx, cy, pw, over_ice_y: bool = False) -> list[np.ndarray]:
        """Zero-roll pinhole cameras whose images of the lines x = xs_m match ``det``.

        Closed form per focal length f: the lines' normalised images are all
        orthogonal to the rink's y axis in camera coordinates (their vanishing
        direction), zero roll fixes the x axis, and the line offsets give the
        translation linearly. Two lines leave the camera's y position free
        (lines across the rink do not change when the camera slides along
        them): it is sampled, and the chamfer score chooses; ``over_ice_y`` samples it densely
        over the ice for cameras looking down steeply (the search from lines alone, whose
        hypotheses are few: the one-line-and-circle search makes many times more).
        """
        xs = np.asarray(xs_m, float)
        seg = [np.array([ln.p0, (ln.p0 + ln.p1) / 2, ln.p1]) for ln in det]
        lines_px = [ln.abc for ln in det]
        out = []
        best_by_f = []
        for f in pw * np.exp(np.linspace(np.log(0.35), np.log(5.0), 22)):
            K = np.array([[f, 0, cx], [0, f, cy], [0, 0, 1.0]])
            ln_n = np.array([K.T @ l for l in lines_px])
            ln_n /= np.linalg.norm(ln_n, axis=1, keepdims=True)
            r2 = np.linalg.svd(ln_n)[2][-1]
            if r2[2] - r2[1] < 0:  # rink +y runs away from / up the image
                r2 = -r2
            a = np.cross(r2, [1.0, 0, 0]) if abs(r2[0]) < 0.9 else np.cross(r2, [0, 1.0, 0])
            a /= np.linalg.norm(a)
            b = np.cross(r2, a)
            ca, cb = np.cross(a, r2)[0], np.cross(b, r2)[0]
            phi = np.arctan2(-ca, cb)
            r1 = np.cos(phi) * a + np.sin(phi) * b
            if r1[0] < 0:  # +x to the image right (design convention)
                r1 = -r1
            r3 = np.cross(r1, r2)
            if r3[2] >= 0:  # the camera must look down at the ice
                continue
            t0 = np.linalg.lstsq(ln_n, -xs * (ln_n @ r1), rcond=None)[0]
            G0 = K @ np.c_[r1, r2, t0]
            # Line residuals in px: they constrain f when 3+ lines are seen.
            Ginv_T = np.linalg.inv(G0).T
            res = []
            for x_m, q in zip(xs, seg):
                lm = Ginv_T @ np.array([1.0, 0.0, -x_m])
                lm /= max(np.hypot(lm[0], lm[1]), 1e-12)
                res.append(q @ lm[:2] + lm[2])
            rms = float(np.sqrt(np.mean(np.concatenate(res) ** 2)))
            best_by_f.append((rms, K, np.c_[r1, r2, r3], t0))
        if not best_by_f:
            return out
        if len(det) >= 3:
            rms_min = min(b[0] for b in best_by_f)
            keep = [b for b in best_by_f if b[0] < 6.0 and b[0] <= 1.5 * rms_min + 0.5]
        else:
            keep = [b for b in best_by_f if b[0] < 3.0]
        # Lines across the rink do not move when the camera slides along y: sample the camera's
        # y position (behind the near boards, or over the ice). A camera looking down steeply
        # sees the ice under itself, whose paint is the only thing that fixes its y: it is
        # sampled every OVERHEAD_Y_STEP_M across the rink (the refinement reaches the circles
        # from within some 1 m; fresh render 1143 seen from 38 m up, 2.6 m off, settled 4.6 m off).
        y_cams = [-half_w - d for d in (1.0, 3.0, 5.0, 7.5, 10.0, 13.0, 17.0, 22.0, 30.0)] + [-half_w / 2, 0.0]
        y_over = ([y for y in np.arange(-half_w, half_w + 1e-9, OVERHEAD_Y_STEP_M) if y not in y_cams]
                  if over_ice_y else [])
        for rms, K, R, t0 in keep:
            r2 = R[:, 1]
            # R[2, 2]: the world's up axis along the optical axis (-1 looking straight down).
            for yc in y_cams + (y_over if -R[2, 2] >= OVERHEAD_MIN_COS else []):
                t = t0 + (-yc - r2 @ t0) * r2
                C = -R.T @ t
                if C[2] < 0.5 or (C[1] > -half_w and C[2] < 15.0):
                    continue
                out.append(K @ np.c_[R[:, 0], r2, t])
        return out

    def _cull(self, G: np.ndarray, targets: _FrameTargets, margin_frac: float = 0.15) -> None:
        """Restrict this frame's model samples to those near the image under ``G``.

        While tracking, the refined pose stays within a few pixels of the
        prediction, so samples projecting more than ``margin_frac`` of the
        image size outside the frame can never become visible: dropping them
        once per frame leaves every later projection/visibility test with a
        fraction of the model (identical results, a fraction of the work).
        """
        mx, my = margin_frac * targets.w, margin_frac * targets.h
        self._subset = {}
        for c in COLOURS:
            xy = self.model.xy_rink_m[c]
            p, w = _project(G, xy)
            ok = (w > 0) & (p[:, 0] > -mx) & (p[:, 0] < targets.w + mx) & (p[:, 1] > -my) & (p[:, 1] < targets.h + my)
            sel = np.flatnonzero(ok)
            self._subset[c] = {1: (sel, xy[sel])}

    def _samples(self, colour: str, step: int) -> tuple[np.ndarray, np.ndarray]:
        """(indices into the full model, (N, 2) rink m) of every ``step``-th sample, culled when set."""
        sub = self._subset.get(colour) if self._subset else None
        if sub is None:
            xy = self.model.xy_rink_m[colour]
            return None, (xy[::step] if step > 1 else xy)
        if step not in sub:
            sel = sub[1][0]
            sel = sel[sel % step == 0]
            sub[step] = (sel, self.model.xy_rink_m[colour][sel])
        return sub[step]

    def _tracking_steps(self) -> tuple[int, int, int]:
        """Model sample steps of the tracking refinement's three truncation radii: every 2nd sample,
        sparser when the culled model is large. An overhead view sees the whole rink, thousands of
        samples about a pixel apart: ``TRACK_SAMPLES_PER_STEP`` per step bring the pose into the
        final stage's basin as well, and ``TRACK_FINAL_SAMPLES_PER_STEP``, still a few pixels apart
        along every line in view, fix it as well, at a fraction of the cost."""
        n = sum(len(self._subset[c][1][0]) for c in COLOURS) if self._subset else 0
        coarse = max(2, -(-n // TRACK_SAMPLES_PER_STEP))
        return coarse, coarse, max(2, -(-n // TRACK_FINAL_SAMPLES_PER_STEP))

    def _samples_all(self, step: int) -> tuple[np.ndarray, int]:
        """(N, 2) rink m of every ``step``-th sample of all colours, red first, and the red count."""
        cache = self._subset if self._subset else self._full_samples
        key = ("all", step)
        if key not in cache:
            parts = [self._samples(c, step)[1] for c in COLOURS]
            cache[key] = (np.concatenate(parts), len(parts[0]))
        return cache[key]

    def _visible(self, G: np.ndarray, targets: _FrameTargets, colour: str, step: int = 1, kappa=None):
        """Model samples of ``colour`` projecting onto the ice: (full-model indices, (N, 2) px)."""
        sel, xy = self._samples(colour, step)
        if len(xy) == 0:
            return np.zeros(0, int), np.zeros((0, 2))
        p_u, w = _project(G, xy)
        c = np.array([(targets.w - 1) / 2.0, (targets.h - 1) / 2.0])
        p = _distort(p_u, kappa, c, np.hypot(targets.w, targets.h) / 2.0)
        m = 1.0
        ok = (w > 0) & (p[:, 0] >= m) & (p[:, 0] <= targets.w - 1 - m) & (p[:, 1] >= m) & (p[:, 1] <= targets.h - 1 - m)
        idx = np.flatnonzero(ok)
        if len(idx):
            pi = np.round(p[idx]).astype(int)
            on_ice = targets.ice[pi[:, 1], pi[:, 0]] > 0
            idx = idx[on_ice]
        p = p[idx]
        idx = idx * step if sel is None else sel[idx]
        return idx, p

    def _refine(self, G: np.ndarray, targets: _FrameTargets, taus=(8.0, 4.0, 2.0), iters_per_tau: int = 3,
                kappa: np.ndarray | None = None, fit_kappa: bool = False,
                kappa_weight: float = 1e4, step: int | tuple[int, ...] = 1) -> tuple[np.ndarray, np.ndarray]:
        """Gauss–Newton on the truncated distance-transform residual.

        Optimises the 8 homography parameters (and, with ``fit_kappa``, the two
        radial distortion coefficients under a Gaussian prior of weight
        ``kappa_weight`` towards their start value). ``step`` takes every
        step-th model sample, one step for all ``taus`` or one per tau.

        Returns:
            (G (3, 3), kappa (2,)).
        """
        w, h = targets.w, targets.h
        sn = max(w, h) / 2.0
        sd = np.hypot(w, h) / 2.0
        c = np.array([(w - 1) / 2.0, (h - 1) / 2.0])
        T = np.array([[1 / sn, 0, -(w - 1) / 2 / sn], [0, 1 / sn, -(h - 1) / 2 / sn], [0, 0, 1.0]])
        Tinv = np.linalg.inv(T)
        G = G.copy()
        kappa = np.zeros(2) if kappa is None else np.asarray(kappa, float).copy()
        kappa0 = kappa.copy()
        n_par = 10 if fit_kappa else 8
        steps = step if isinstance(step, tuple) else (step,) * len(taus)
        lo, hi = np.array([1.0, 1.0]), np.array([w - 2.0, h - 2.0])
        ice_flat = targets.ice.ravel()
        for tau, tau_step in zip(taus, steps):
            xy, n_first = self._samples_all(tau_step)
            for _ in range(iters_per_tau):
                # Both colours in one pass (the model's red samples come first, then blue);
                # per-colour only the field look-up.
                p_u, wh = _project(G, xy)
                p = _distort(p_u, kappa, c, sd)
                idx = np.flatnonzero((wh > 0) & (p >= lo).all(axis=1) & (p <= hi).all(axis=1))
                pi = np.round(p[idx]).astype(np.intp)
                idx = idx[ice_flat[pi[:, 1] * w + pi[:, 0]] > 0]
                k = int(np.searchsorted(idx, n_first))
                p, pu = p[idx], p_u[idx]
                f = targets.sample_split(p, k)
                d = f[:, 0]
                use = d < tau
                # A colour with under 5 samples near its paint adds nothing (as if unseen).
                if k and np.count_nonzero(use[:k]) < 5:
                    use[:k] = False
                if len(d) - k and np.count_nonzero(use[k:]) < 5:
                    use[k:] = False
                n_used = int(np.count_nonzero(use))
                if n_used >= 12:
                    d, gx, gy, pu = d[use], f[use, 1], f[use, 2], pu[use]
                    # Chain through the distortion: gradient w.r.t. the undistorted point.
                    q = pu - c
                    r2 = np.einsum("ij,ij->i", q, q) / (sd * sd)
                    fr = 1.0 + kappa[0] * r2 + kappa[1] * r2 * r2
                    dfr = kappa[0] + 2.0 * kappa[1] * r2
                    qg = q[:, 0] * gx + q[:, 1] * gy
                    gux = fr * gx + 2.0 * dfr * q[:, 0] * qg / (sd * sd)
                    guy = fr * gy + 2.0 * dfr * q[:, 1] * qg / (sd * sd)
                    pn = q / sn
                    u, v = pn[:, 0], pn[:, 1]
                    gxs, gys = gux * sn, guy * sn
                    cols = [gxs * u, gxs * v, gxs, gys * u, gys * v, gys,
                            -gxs * u * u - gys * u * v, -gxs * u * v - gys * v * v]
                    if fit_kappa:
                        cols += [qg * r2, qg * r2 * r2]
                    J = np.stack(cols, axis=1)
                    wt = np.where(d < 1.0, 1.0, 1.0 / np.maximum(d, 1e-9))  # Huber, 1 px
                    Jw = J * wt[:, None]
                    JtJ = Jw.T @ J
                    Jtr = Jw.T @ d
                if n_used < 12:
                    return G, kappa
                if fit_kappa:
                    JtJ[8:, 8:] += kappa_weight * np.eye(2)
                    Jtr[8:] += kappa_weight * (kappa - kappa0)
                lam = 1e-6 * np.trace(JtJ) + 1e-12
                try:
                    delta = -np.linalg.solve(JtJ + lam * np.eye(n_par), Jtr)
                except np.linalg.LinAlgError:
                    return G, kappa
                D = np.eye(3) + np.array([[delta[0], delta[1], delta[2]], [delta[3], delta[4], delta[5]],
                                          [delta[6], delta[7], 0.0]])
                G = Tinv @ D @ T @ G
                if fit_kappa:
                    kappa = np.clip(kappa + delta[8:], -0.6, 0.6)
                # Converged: the update moves points by under CONVERGED_PX (the parameters act on
                # coordinates normalised by sn; the lens terms on radii normalised by sd).
                if np.abs(delta[:8]).max() * sn < CONVERGED_PX and (not fit_kappa or np.abs(delta[8:]).max() * sd < CONVERGED_PX):
                    break
        return G, kappa

    def _count_inliers(self, Gs: np.ndarray, targets: _FrameTargets, tau: float, step: int) -> tuple[np.ndarray, np.ndarray]:
        """Visible and inlier model samples of K pose hypotheses at once, as ``_score(G, targets,
        tau, step, precision=False)`` counts them one by one (no lens, the whole model).

        Args:
            Gs: (K, 3, 3) proc image_from_rink hypotheses.

        Returns:
            ((K,) visible sample counts, (K,) counts of those within ``tau`` px of their paint edge).
        """
        K = len(Gs)
        if K > 48:  # in chunks: the (K, N) temporaries of a few dozen poses stay in cache (2x faster)
            parts = [self._count_inliers(Gs[k:k + 48], targets, tau, step) for k in range(0, K, 48)]
            return np.concatenate([a for a, _ in parts]), np.concatenate([b for _, b in parts])
        n_vis, n_in = np.zeros(K), np.zeros(K)
        m = 1.0
        for c in COLOURS:
            _, xy = self._samples(c, step)
            if len(xy) == 0:
                continue
            x, y = xy[:, 0], xy[:, 1]
            # (K, N) homogeneous coordinates, as ``_project`` computes them one pose at a time.
            hx, hy, w = (Gs[:, r, 0, None] * x + Gs[:, r, 1, None] * y + Gs[:, r, 2, None] for r in range(3))
            safe = np.where(np.abs(w) > 1e-9, w, 1e-9)
            px, py = hx / safe, hy / safe
            ok = (w > 0) & (px >= m) & (px <= targets.w - 1 - m) & (py >= m) & (py <= targets.h - 1 - m)
            k_idx = np.nonzero(ok)[0]
            pv = np.stack([px[ok], py[ok]], axis=1)
            pi = np.round(pv).astype(int)
            on_ice = targets.ice[pi[:, 1], pi[:, 0]] > 0
            k_idx, pv = k_idx[on_ice], pv[on_ice]
            if not len(pv):
                continue
            inl = targets.distance(c, pv) < tau
            n_vis += np.bincount(k_idx, minlength=K)
            n_in += np.bincount(k_idx[inl], minlength=K)
        return n_vis, n_in

    def _score(self, G: np.ndarray, targets: _FrameTargets, tau: float = 2.0, step: int = 1,
               precision: bool = True, kappa: np.ndarray | None = None) -> _Score:
        n_vis = n_in = 0
        n_names = len(self.model.names)
        hit_in, hit_vis = np.zeros(n_names, np.int64), np.zeros(n_names, np.int64)  # per marking
        drawn = np.zeros((targets.h, targets.w), np.uint8)
        for c in COLOURS:
            idx, p = self._visible(G, targets, c, step, kappa=kappa)
            if len(idx) == 0:
                continue
            d = targets.distance(c, p)
            inl = d < tau
            n_vis += len(idx)
            n_in += int(inl.sum())
            if not precision:
                continue
            owners = self.model.owner[c][idx]
            hit_vis += np.bincount(owners, minlength=n_names)
            hit_in += np.bincount(owners[inl], minlength=n_names)
            pi = np.round(p).astype(int)
            drawn[pi[:, 1], pi[:, 0]] = 255
        if n_vis == 0:
            return _Score(0.0, 0.0, 0, 0, [])
        if not precision:
            return _Score(n_in / n_vis, 1.0, n_vis, n_in, [])
        # Precision: observed paint boundary near any projected model sample.
        near = cv2.dilate(drawn, np.ones((5, 5), np.uint8))
        tgt = cv2.bitwise_or(targets.targets["red"], targets.targets["blue"])
        tgt = cv2.bitwise_and(tgt, targets.ice)
        n_t = int(np.count_nonzero(tgt))
        precision = float(np.count_nonzero(cv2.bitwise_and(tgt, near))) / max(n_t, 1)
        landmarks = sorted(self.model.names[o] for o in np.flatnonzero((hit_in >= 10) & (hit_in >= 0.3 * hit_vis)))
        return _Score(n_in / n_vis, precision, n_vis, n_in, landmarks)


def _ellipse_conic(centre: np.ndarray, axes: np.ndarray, angle_deg: float) -> np.ndarray:
    """3×3 symmetric conic ``pᵀ C p = 0`` (homogeneous px) of an OpenCV ellipse (full axes, degrees)."""
    a, b = 0.5 * float(axes[0]), 0.5 * float(axes[1])
    t = np.radians(angle_deg)
    R = np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]])
    M = R @ np.diag([1.0 / a ** 2, 1.0 / b ** 2]) @ R.T
    c = np.asarray(centre, float)
    C = np.zeros((3, 3))
    C[:2, :2] = M
    C[:2, 2] = C[2, :2] = -M @ c
    C[2, 2] = c @ M @ c - 1.0
    return C


@dataclass
class _Tangent:
    """A tangent to an ellipse, as ``_fit_cameras`` reads a detected line: ``abc`` (a² + b² = 1)
    and two points on it (the tangent point and one 40 px along the line)."""

    abc: np.ndarray
    p0: np.ndarray
    p1: np.ndarray


def _tangents_through(C: np.ndarray, v: np.ndarray) -> list[_Tangent] | None:
    """The two tangents from the homogeneous point ``v`` to the conic ``C`` (None: ``v`` inside).

    The lines through ``v`` are ``l = α u1 + β u2``; a line touches the conic where
    ``lᵀ C⁻¹ l = 0`` (the dual conic), a quadratic in (α, β)."""
    v = np.asarray(v, float)
    u1 = np.cross(v, [1.0, 0.0, 0.0]) if abs(v[0]) < 0.9 * np.linalg.norm(v) else np.cross(v, [0.0, 1.0, 0.0])
    u2 = np.cross(v, u1)
    u1, u2 = u1 / np.linalg.norm(u1), u2 / np.linalg.norm(u2)
    D = np.linalg.inv(C)
    qa, qb, qc = u1 @ D @ u1, 2.0 * (u1 @ D @ u2), u2 @ D @ u2
    disc = qb * qb - 4.0 * qa * qc
    if disc <= 0 or abs(qa) < 1e-15:
        return None
    out = []
    for root in ((-qb + np.sqrt(disc)) / (2 * qa), (-qb - np.sqrt(disc)) / (2 * qa)):
        ln = root * u1 + u2
        n = np.hypot(ln[0], ln[1])
        if n < 1e-12:
            return None
        ln = ln / n
        # The tangent point: the pole of the line, D l (on the conic for a tangent).
        t = D @ ln
        if abs(t[2]) < 1e-12:
            return None
        tp = t[:2] / t[2]
        along = np.array([-ln[1], ln[0]])
        out.append(_Tangent(ln, tp, tp + 40.0 * along))
    return out


def _drop_near_duplicates(lines, min_gap_px: float = 12.0):
    """Keep the best supported of lines lying within ``min_gap_px`` of each other.

    Two rink lines across are metres apart; two fits that close are one
    marking (its edges, or a player of the same colour straddling it).
    """
    kept = []
    for ln in sorted(lines, key=lambda l: -l.support):
        gap = max(min_gap_px, 2.0 * ln.width_px)
        if any(max(abs(k.abc[:2] @ ln.p0 + k.abc[2]), abs(k.abc[:2] @ ln.p1 + k.abc[2])) < gap for k in kept):
            continue
        kept.append(ln)
    return kept


def _max_corner_shift(G1: np.ndarray, G2: np.ndarray, w: int, h: int) -> float:
    """Largest image displacement, px, of the image corners' rink points between two homographies."""
    corners = np.array([[0, 0], [w - 1, 0], [0, h - 1], [w - 1, h - 1]], float)
    rink = _project(np.linalg.inv(G2), corners)[0]
    return float(np.max(np.linalg.norm(_project(G1, rink)[0] - corners, axis=1)))
