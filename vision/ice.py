"""Per-frame ice model: where the ice and its markings are, and what ice looks like.

Shared by the puck and player detectors. Given the frame and the ice-plane
homography it builds:

- ``ice_mask``: pixels whose ground point lies on the rink's ice surface;
- ``marking_masks``: pixels painted with each marking colour group (red lines,
  blue lines, light-blue crease), drawn from the rink model's geometry — the
  home/away jerseys may share the line colours exactly, so markings are found by
  *where* they are, never by colour alone;
- the ice colour of *this* frame (median YCrCb of unmarked ice) and a smooth map of
  local ice lightness, so that every threshold downstream is relative to the
  scene (ice tint, lighting gradients, exposure);
- ``ice_like``: pixels that look like ice or like the marking painted there
  (background), whose complement on the ice is the foreground (players, sticks,
  the puck).

The colour work runs at half resolution (players are tens of pixels tall); the
puck detector works on the full-resolution frame.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np
from shapely.geometry import LineString, Point, Polygon
from shapely.ops import unary_union

from vision.geometry import PlaneCamera, apply_homography, fill_rings


@dataclass
class IceConfig:
    """Relative thresholds of the ice model (YCrCb, 8-bit: Y, Cr, Cb in 0..255).

    Attributes:
        scale: work resolution for colour masks relative to the frame (0.5 = half).
        chroma_tol: minimum chroma (Cr, Cb) distance from the ice colour that counts as
            not-ice (L1 in Cr, Cb × 1.41); widened by 3 × the ice's own chroma spread.
        dark_frac: a pixel darker than (1 - dark_frac) × local ice luma is not ice
            (luma is linear: 0.5 is ~20 % in perceptual lightness; soft shadows stay background).
        bright_tol: pixels brighter than local ice by more than this (Y units) are not ice.
        marking_tol: per-channel YCrCb slack around the marking–ice colour range that still counts
            as the marking (inside that group's painted area only).
        marking_dilate_px: slack around projected markings for calibration error, work px.
    """

    scale: float = 0.5
    chroma_tol: float = 10.0
    dark_frac: float = 0.5
    bright_tol: float = 40.0
    marking_tol: float = 28.0
    marking_dilate_px: int = 2


# A lens bends a rink edge by under a pixel between vertices this far apart (k1 -0.07, 1280 px).
LENS_RING_STEP_M = 0.5


class RinkGeometryCache:
    """Rink polygons grouped for drawing: the ice and one union per marking colour."""

    def __init__(self, rink) -> None:
        self.ice: Polygon = rink.ice.simplify(0.01)
        groups: dict[tuple[int, int, int], list] = {}
        kinds: dict[tuple[int, int, int], set] = {}
        for m in rink.markings:
            groups.setdefault(tuple(m.rgb), []).append(m.geometry)
            kinds.setdefault(tuple(m.rgb), set()).add(m.kind)
        # Keep the painter's order: later groups (lines) are drawn over earlier ones (crease fill).
        self.marking_groups: list[tuple[tuple[int, int, int], object]] = [
            (rgb, unary_union(geoms).simplify(0.01)) for rgb, geoms in groups.items()
        ]
        # Colours painted only as the creases' fill: areas metres wide whose inside is all paint.
        self.fill_rgbs = {rgb for rgb, k in kinds.items() if k == {"crease_fill"}}
        # The face-off and centre spots and the L marks lie in their circle's hole, which the
        # group fill paints with 0 after the exteriors: they are missing from the group masks.
        self.in_holes = unary_union([m.geometry for m in rink.markings if m.kind in ("spot", "faceoff_l")])
        # Every ring's vertices, for projecting without clipping (``RingSet.project``).
        self.ice_rings = RingSet.of(self.ice)
        self.in_hole_rings = RingSet.of(self.in_holes)
        self.goal_nets_rink_m = goal_nets_rink_m(rink)
        self.goal_posts_rink_m = np.concatenate([rink.goal_post_centres_xy(e) for e in (1, -1)])
        self.goal_post_radius_m = float(rink.spec.goal_post_diameter_m) / 2.0
        self.goal_height_m = float(rink.spec.goal_height_m)
        self.group_rings = [RingSet.of(g) for _, g in self.marking_groups]
        self._dense: dict[int, RingSet] = {}
        # The projected masks of the last homography (reused while the camera stands still;
        # callers must not modify them).
        self.last_key: tuple | None = None
        self.last_masks: tuple | None = None

    def dense(self, rings: RingSet) -> RingSet:
        """``rings`` (one of this cache's) densified to ``LENS_RING_STEP_M``, once, for projecting
        through a lens."""
        if id(rings) not in self._dense:
            self._dense[id(rings)] = rings.densified(LENS_RING_STEP_M)
        return self._dense[id(rings)]


# A player's seat found this far behind the goal line, within the goal's base (plus the margin),
# is the goal frame and net seen standing up, not a player (no sledge fits in the net).
NET_BEHIND_LINE_M = 0.2
NET_MARGIN_M = 0.2


def goal_nets_rink_m(rink) -> Polygon:
    """Where the goals stand on the ice, m: each frame's base (``RinkModel.goal_base_xy``, 218 c)
    widened by ``NET_MARGIN_M`` and cut ``NET_BEHIND_LINE_M`` behind the goal line, so a
    goalkeeper on the line stays outside."""
    nets = []
    for e in (1, -1):
        base = Polygon(rink.goal_base_xy(e, n_arc=24)).buffer(NET_MARGIN_M)
        x_cut = e * (rink.spec.goal_line_x_m + NET_BEHIND_LINE_M)
        behind = Polygon([(x_cut, -50.0), (x_cut + e * 50.0, -50.0), (x_cut + e * 50.0, 50.0), (x_cut, 50.0)])
        nets.append(base.intersection(behind))
    return unary_union(nets)


def puck_ice_rink_m(rink, puck_radius_m: float):
    """Where a puck sliding on the ice can have its centre: the ice moved in by the puck's radius
    (a shapely polygon, rink m); its outline is the boards of ``puck_walls_rink_m``."""
    return rink.ice.buffer(-float(puck_radius_m))


def puck_walls_rink_m(rink, puck_radius_m: float):
    """What a puck sliding on the ice cannot pass through, for its centre, m: the boards (the
    ice's edge moved in by the puck's radius) and each goal frame's posts and base arc behind
    the goal line (218 b, c), thickened by the radius. Only the goal mouth between the posts
    is open.

    Returns:
        A shapely geometry; a path of the puck's centre that intersects it went through a wall.
    """
    r = float(puck_radius_m)
    parts = [puck_ice_rink_m(rink, r).exterior]
    post_r = float(rink.spec.goal_post_diameter_m) / 2.0
    for e in (1, -1):
        parts.append(LineString(rink.goal_base_xy(e, n_arc=24)).buffer(r))
        parts += [Point(*c).buffer(post_r + r) for c in rink.goal_post_centres_xy(e)]
    return unary_union(parts)


@dataclass(frozen=True)
class LensProjection:
    """Rink m → raw image px of a camera whose lens distorts (OpenCV's model), at a work scale.

    A frame's ``rink_from_image`` is a best 3×3 on raw pixels; where the lens bends the picture
    its lines sit several pixels off that plane's (an overhead camera's blue lines: 6–11 px at
    the picture's edges on renders with k1 −0.04 to −0.07), and the ice model's marking masks
    missed the paint they stand for: a line off its mask is foreground (overhead tuning render
    471 tracked both blue lines as 32 players).

    Attributes:
        image_from_rink_undistorted: (3, 3) rink m → undistorted px (the inverse of
            ``CalibrationResult.rink_from_undistorted``).
        K: (3, 3) intrinsics, px.
        dist: (k1, k2, p1, p2[, k3]) OpenCV distortion coefficients.
        scale: output px per raw px (the ice model's work resolution; 1: raw px).
        r_max: normalised radius beyond which the radial factor is held (the polynomial folds
            back far outside the picture; rings reach beyond it).
    """

    image_from_rink_undistorted: np.ndarray
    K: np.ndarray
    dist: np.ndarray
    scale: float = 1.0
    r_max: float = 1.5

    @classmethod
    def of(cls, calib: Any, width: int, height: int, scale: float = 1.0) -> LensProjection | None:
        """From a ``CalibrationResult`` with ``lens`` and ``rink_from_undistorted``; None without
        them or when the lens does not distort. ``r_max``: 1.3 × the picture's corner radius."""
        lens, H_ru = getattr(calib, "lens", None), getattr(calib, "rink_from_undistorted", None)
        if lens is None or H_ru is None:
            return None
        dist = lens.get("dist")
        dist = np.zeros(0) if dist is None else np.asarray(dist, np.float64).ravel()
        if not np.any(dist != 0):
            return None
        K = np.asarray(lens["K"], np.float64).reshape(3, 3)
        corners = np.array([[0.0, 0.0], [width - 1.0, 0.0], [0.0, height - 1.0], [width - 1.0, height - 1.0]])
        r_corner = float(np.max(np.hypot((corners[:, 0] - K[0, 2]) / K[0, 0], (corners[:, 1] - K[1, 2]) / K[1, 1])))
        return cls(np.linalg.inv(np.asarray(H_ru, np.float64).reshape(3, 3)), K, dist, float(scale), 1.3 * r_corner)

    def key(self) -> bytes:
        """The projection's parameters as bytes (part of the masks' cache key)."""
        return (self.image_from_rink_undistorted.tobytes() + self.K.tobytes() + self.dist.tobytes()
                + np.float64(self.scale).tobytes())

    def image_from_rink(self, xy_rink_m: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """((N, 2) px at ``scale``, (N,) the homogeneous w: ≤ 0 behind the camera) of (N, 2)
        rink points. OpenCV's distortion model written out, since ``cv2.projectPoints`` cannot
        hold the radial factor beyond ``r_max`` (``tests/vision/test_ice.py`` compares the two)."""
        uv, w = apply_homography(self.image_from_rink_undistorted, xy_rink_m)
        K, d = self.K, np.zeros(5)
        d[: min(5, self.dist.size)] = self.dist[:5]
        k1, k2, p1, p2, k3 = d
        x = (uv[:, 0] - K[0, 2]) / K[0, 0]
        y = (uv[:, 1] - K[1, 2]) / K[1, 1]
        r2 = np.minimum(x * x + y * y, self.r_max ** 2)
        radial = 1.0 + k1 * r2 + k2 * r2 ** 2 + k3 * r2 ** 3
        xd = x * radial + 2 * p1 * x * y + p2 * (r2 + 2 * x * x)
        yd = y * radial + p1 * (r2 + 2 * y * y) + 2 * p2 * x * y
        raw = np.stack([K[0, 0] * xd + K[0, 2], K[1, 1] * yd + K[1, 2]], axis=1)
        return (raw + 0.5) * self.scale - 0.5, w


@dataclass
class RingSet:
    """The rings of a rink polygon (or multipolygon) as one vertex array, in metres.

    Attributes:
        xy_rink_m: (P, 2) the vertices of all rings, one ring after another.
        starts: (R + 1,) where each ring starts in ``xy_rink_m`` (and the end).
        is_hole: (R,) whether each ring is a hole.
    """

    xy_rink_m: np.ndarray
    starts: np.ndarray
    is_hole: np.ndarray

    @classmethod
    def of(cls, geometry) -> RingSet:
        rings, holes = [], []
        for p in getattr(geometry, "geoms", [geometry]):
            if p.is_empty or p.geom_type != "Polygon":
                continue
            rings.append(np.asarray(p.exterior.coords, np.float64))
            holes.append(False)
            for r in p.interiors:
                rings.append(np.asarray(r.coords, np.float64))
                holes.append(True)
        sizes = [len(r) for r in rings]
        xy = np.concatenate(rings) if rings else np.zeros((0, 2))
        return cls(xy, np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64), np.asarray(holes, bool))

    def densified(self, max_step_m: float) -> RingSet:
        """The same rings with vertices added so that no edge is longer than ``max_step_m``: a
        lens bends straight edges (``project`` with a ``LensProjection``)."""
        out, starts = [], [0]
        for k in range(len(self.is_hole)):
            ring = self.xy_rink_m[self.starts[k]:self.starts[k + 1]]
            pts = [ring[:1]]
            for a, b in zip(ring[:-1], ring[1:]):
                n = max(1, int(np.ceil(np.linalg.norm(b - a) / max_step_m)))
                pts.append(a + (b - a) * (np.arange(1, n + 1) / n)[:, None])
            dense = np.concatenate(pts) if len(ring) else ring
            out.append(dense)
            starts.append(starts[-1] + len(dense))
        xy = np.concatenate(out) if out else np.zeros((0, 2))
        return RingSet(xy, np.asarray(starts, np.int64), self.is_hole.copy())

    def project(self, H_image_from_rink: np.ndarray, max_abs_px: float = 1e5,
                lens: LensProjection | None = None) -> tuple[list[np.ndarray], list[np.ndarray]] | None:
        """(exterior rings, hole rings) as (M, 2) int32 image px, like ``PlaneCamera.image_rings``
        but unclipped (``cv2.fillPoly`` clips to the image), or None when a vertex lies behind the
        camera or projects farther than ``max_abs_px`` (near the horizon): then clip in the rink.
        With ``lens`` the vertices go through it instead (``H_image_from_rink`` unused; densify
        the rings first) and land on the raw pixels of a distorting lens.
        """
        if lens is None:
            uv, w = apply_homography(H_image_from_rink, self.xy_rink_m)
        else:
            uv, w = lens.image_from_rink(self.xy_rink_m)
        if len(w) and (np.any(w <= 0) or not np.all(np.abs(uv) < max_abs_px)):
            return None
        uv = np.round(uv).astype(np.int32)
        ext, holes = [], []
        for k in range(len(self.is_hole)):
            (holes if self.is_hole[k] else ext).append(uv[self.starts[k] : self.starts[k + 1]])
        return ext, holes


@dataclass
class IceScene:
    """The ice model of one frame (see module doc). Work-resolution arrays unless named ``_full``.

    Attributes:
        cam: the plane camera of this frame.
        scale: work resolution / frame resolution.
        ice_mask: (h, w) uint8 0/255, ice surface.
        marking_mask: (h, w) uint8 0/255, any marking (dilated by the slack).
        ycc: (h, w, 3) uint8 YCrCb image (Y stands in for lightness, Cr/Cb for chroma).
        ice_ycc: (3,) float median YCrCb of unmarked ice.
        ice_L_local: (h, w) float32 local ice luma, Y units.
        ice_like: (h, w) uint8 0/255, background (ice or its painted marking).
        not_plain_ice: (h, w) uint8 0/255, pixels not of the plain ice colour (markings included).
        ice_mask_full: (H, W) uint8 0/255, ``ice_mask`` at the frame's resolution.
        small_bgr: (h, w, 3) uint8 the frame at work resolution.
        foreground: (h, w) uint8 0/255, ice_mask & ~ice_like.
        ice_v_full: median HSV value (max channel) of unmarked ice at full resolution, 0..255.
        marking_ycc: observed YCrCb colour per marking group (rgb key → (3,) or None).
        any_marking_mask: (h, w) uint8 0/255, ``marking_mask`` plus markings thinner than a
            work pixel (drawn as outlines), dilated by the slack; None where not built.
        goal_nets_rink_m: the goals' bases on the ice (``goal_nets_rink_m``), rink m; None: unknown.
        goal_posts_rink_m: (4, 2) the goal posts' centres (218 b), two per goal, the +x goal's
            first, rink m; None: unknown.
        goal_post_radius_m: the posts' radius, m.
        goal_height_m: the posts' height, the crossbar's underside (218 b), m.
        in_hole_mask: (h, w) uint8 0/255, the markings inside a circle's hole, missing from
            ``marking_mask`` (face-off and centre spots, L marks; dilated by the slack); None
            where not built.
        crease_unpainted: (h, w) uint8 0/255, pixels deep inside a painted crease that are not
            its paint (``_fill_core_unpainted``); not in ``foreground`` (the goal frame stands
            over the crease: the player detector adds them off it); None: none in view.
    """

    cam: PlaneCamera
    scale: float
    ice_mask: np.ndarray
    marking_mask: np.ndarray
    ycc: np.ndarray
    ice_ycc: np.ndarray
    ice_L_local: np.ndarray
    ice_like: np.ndarray
    foreground: np.ndarray
    ice_v_full: float
    not_plain_ice: np.ndarray
    ice_mask_full: np.ndarray
    small_bgr: np.ndarray
    any_marking_mask: np.ndarray | None = None
    marking_ycc: dict = field(default_factory=dict)
    in_hole_mask: np.ndarray | None = None
    crease_unpainted: np.ndarray | None = None
    goal_nets_rink_m: Polygon | None = None
    goal_posts_rink_m: np.ndarray | None = None
    goal_post_radius_m: float = 0.0
    goal_height_m: float = 0.0
    _off_local_luma: np.ndarray | None = field(default=None, repr=False, compare=False)

    def off_local_luma(self) -> np.ndarray:
        """(h, w) bool: unmarked ice pixels whose luma is more than ``OFF_LOCAL_LUMA_DY`` off the
        local ice luma (``ice_L_local``): a white jersey lit and shaded, which the ice model
        counts as plain ice (cached: computed once per frame, where a game has a white kit)."""
        if self._off_local_luma is None:
            y = self.ycc[..., 0].astype(np.float32)
            off = cv2.absdiff(y, self.ice_L_local.astype(np.float32)) > OFF_LOCAL_LUMA_DY
            self._off_local_luma = off & (self.ice_mask > 0) & (self.marking_mask == 0)
        return self._off_local_luma

    @property
    def ok(self) -> bool:
        """Whether the frame shows enough ice to model (else detectors return nothing)."""
        return bool(np.count_nonzero(self.ice_mask) > 500 * self.scale * self.scale)

    def to_work(self, xy_full_px: np.ndarray) -> np.ndarray:
        """(N, 2) full-resolution px → (N, 2) work px (pixel centres preserved)."""
        return (np.asarray(xy_full_px, dtype=np.float64) + 0.5) * self.scale - 0.5

    def marking_mask_full(self, x0: int, y0: int, x1: int, y1: int) -> np.ndarray:
        """(y1 − y0, x1 − x0) bool: every marking, thin ones too (dilated by the slack), in a full-resolution window."""
        mm = self.marking_mask if self.any_marking_mask is None else self.any_marking_mask
        h, w = mm.shape
        xs = np.clip(((np.arange(x0, x1) + 0.5) * self.scale).astype(np.int64), 0, w - 1)
        ys = np.clip(((np.arange(y0, y1) + 0.5) * self.scale).astype(np.int64), 0, h - 1)
        return mm[np.ix_(ys, xs)] > 0

    def to_full(self, xy_work_px: np.ndarray) -> np.ndarray:
        """(N, 2) work px → (N, 2) full-resolution px."""
        return (np.asarray(xy_work_px, dtype=np.float64) + 0.5) / self.scale - 0.5


# A white (or silver) jersey is plain ice to the ice model but not flat like the ice: lit and shaded
# it departs from the local ice luma by more than this (Y units) over most of its torso, where plain
# ice beside it does not (measured in ``vision.players``: ``WHITE_BODY_MIN_SHARE``).
OFF_LOCAL_LUMA_DY = 15

_KERNEL_3 = np.ones((3, 3), np.uint8)
_KERNEL_WIDE_SLACK = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (7, 7))  # back to the edge (1 px) + slack (2 px)


def _paint_ranges(ref: np.ndarray, ice_ycc: np.ndarray, tol: float) -> list[tuple[np.ndarray, np.ndarray]]:
    """YCrCb (lo, hi) boxes of a paint of observed colour ``ref`` (3,) on ice ``ice_ycc`` (3,).

    Paint and its blends with ice: luma from a little below the paint up to the ice, chroma
    anywhere between the two. Shaded paint: darker, but with the paint's chroma.
    """
    lo1 = np.clip([ref[0] - tol / 2, min(ref[1], ice_ycc[1]) - tol, min(ref[2], ice_ycc[2]) - tol], 0, 255)
    hi1 = np.clip([255, max(ref[1], ice_ycc[1]) + tol, max(ref[2], ice_ycc[2]) + tol], 0, 255)
    lo2 = np.clip([ref[0] - 2 * tol, ref[1] - tol, ref[2] - tol], 0, 255)
    hi2 = np.clip([ref[0], ref[1] + tol, ref[2] + tol], 0, 255)
    return [(lo1, hi1), (lo2, hi2)]


def _mark_paint_range(ice_like: np.ndarray, ycc: np.ndarray, region: np.ndarray, ranges) -> None:
    """Set ``ice_like`` (in place) where ``region`` holds a YCrCb colour within any (lo, hi) range."""
    x, y, bw, bh = cv2.boundingRect(region)
    if bw == 0 or bh == 0:
        return
    sub_ycc = ycc[y : y + bh, x : x + bw]
    inr = cv2.inRange(sub_ycc, ranges[0][0], ranges[0][1])
    for lo, hi in ranges[1:]:
        inr = cv2.bitwise_or(inr, cv2.inRange(sub_ycc, lo, hi))
    view = ice_like[y : y + bh, x : x + bw]
    cv2.bitwise_or(view, cv2.bitwise_and(inr, region[y : y + bh, x : x + bw]), dst=view)


# Deep inside a crease fill (farther than the calibration slack plus this from its edge and from
# other paint, work px), a pixel of the ice's colour is no paint but something on it: a goalkeeper's
# white pads on the blue crease, seen from above (overhead tuning renders: goalkeepers detected in
# 43 % of frames, docs/vision.md stop 47).
FILL_CORE_MARGIN_PX = 0
# A crease whose core shows its paint on fewer of its pixels than this is not where the rink
# model puts it (a calibration off by more than the slack) or not painted: left as it was.
FILL_MIN_PAINT_FRAC = 0.5
# The crease paint's box: this many robust spreads (1.4826 MAD) of the core's pixels a side, at
# least FILL_MIN_TOL (YCrCb units; noise and compression on a clean paint), at most marking_tol.
FILL_SPREAD_K = 3.0
FILL_MIN_TOL = 8.0
# Fewer core pixels than this measure no paint colour (a crease at the picture's edge).
FILL_MIN_CORE_PX = 20


def _fill_core_unpainted(ycc: np.ndarray, fill_mask: np.ndarray, others: list, ice_ycc: np.ndarray, tol: float,
                         slack_px: int) -> np.ndarray | None:
    """(h, w) uint8 0/255: pixels deep inside a crease fill that are not its paint, or None.

    A marking's area counts the ice colour and its blends with the paint as background (its
    mask may sit a few pixels off the paint); metres inside a painted fill, the ice colour is
    something on the paint. The paint's colour and spread are measured on the fill's core.

    Args:
        ycc: (h, w, 3) uint8 YCrCb frame at work resolution.
        fill_mask: (h, w) uint8 0/255, the fill's painted area (both creases).
        others: (h, w) uint8 0/255 masks of the other marking groups (their edges are blends).
        ice_ycc: (3,) YCrCb of the ice.
        tol: the widest per-channel YCrCb slack around the paint.
        slack_px: the markings' slack for calibration error, work px.

    Returns:
        None where no crease's core is in view, the paint is too close to the ice to tell (an
        unpainted crease), or no crease shows its paint on ``FILL_MIN_PAINT_FRAC`` of its core.
    """
    pad = slack_px + FILL_CORE_MARGIN_PX
    x, y, bw, bh = cv2.boundingRect(fill_mask)
    if bw <= 2 * pad or bh <= 2 * pad:
        return None
    sub = (slice(y, y + bh), slice(x, x + bw))
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * pad + 1,) * 2)
    # borderValue 0: where the picture's edge cuts the fill, the core stops short of the edge.
    core = cv2.erode(fill_mask[sub], kernel, borderType=cv2.BORDER_CONSTANT, borderValue=0)
    for g in others:
        core = cv2.bitwise_and(core, cv2.bitwise_not(cv2.dilate(g[sub], kernel)))
    px = ycc[sub][core > 0].astype(np.float64)
    if len(px) < FILL_MIN_CORE_PX:
        return None
    # The paint's colour and its spread (robust to a goalkeeper over part of it): a box of
    # FILL_SPREAD_K spreads, between FILL_MIN_TOL and ``tol``, luma down to twice that (shade).
    ref = np.median(px, axis=0)
    half = np.clip(FILL_SPREAD_K * 1.4826 * np.median(np.abs(px - ref), axis=0), FILL_MIN_TOL, tol)
    # The ice must lie beyond the box by another box: pads the ice's colour, shaded or noisy,
    # fall outside it. Chroma either way; luma above (a paint lighter than the ice keeps it).
    apart = np.array([ice_ycc[0] - ref[0], abs(ice_ycc[1] - ref[1]), abs(ice_ycc[2] - ref[2])])
    if not np.any(apart > 2.0 * half):
        return None
    lo = np.clip(ref - half * np.array([2.0, 1.0, 1.0]), 0, 255)
    hi = np.clip(ref + half, 0, 255)
    paint = cv2.inRange(ycc[sub], lo, hi) > 0
    n, labels = cv2.connectedComponents(core)
    out_sub = np.zeros(core.shape, np.uint8)
    for i in range(1, n):
        crease = labels == i
        if np.count_nonzero(paint & crease) >= FILL_MIN_PAINT_FRAC * np.count_nonzero(crease):
            out_sub[crease & ~paint] = 255
    if not out_sub.any():
        return None
    out = np.zeros(fill_mask.shape, np.uint8)
    out[sub] = out_sub
    return out


def _every_kth_masked(img: np.ndarray, mask: np.ndarray, n_target: int) -> np.ndarray:
    """(K, C) pixels of ``img`` (h, w, C) under ``mask`` (h, w) uint8, every k-th of them in row-major
    order with k = max(1, count // ``n_target``): ``img[mask > 0][::k]``, without indexing the
    whole image (``cv2.findNonZero`` lists the mask's pixels in the same order)."""
    pts = cv2.findNonZero(mask)
    if pts is None:
        return np.zeros((0, img.shape[2]), img.dtype)
    pts = pts.reshape(-1, 2)[:: max(1, len(pts) // n_target)]
    return img[pts[:, 1], pts[:, 0]]


def _scaled_camera_H(cam: PlaneCamera, scale: float) -> np.ndarray:
    """image_from_rink of the work-resolution image."""
    S = np.array([[scale, 0.0, 0.5 * scale - 0.5], [0.0, scale, 0.5 * scale - 0.5], [0.0, 0.0, 1.0]])
    return S @ cam.H_image_from_rink


def build_ice_scene(
    frame_bgr: np.ndarray,
    cam: PlaneCamera,
    geom: RinkGeometryCache,
    config: IceConfig | None = None,
    lens: LensProjection | None = None,
) -> IceScene:
    """Build the ice model of one frame.

    Args:
        frame_bgr: (H, W, 3) uint8 frame.
        cam: plane camera from this frame's ``rink_from_image``.
        geom: rink polygons (built once per rink).
        config: thresholds.
        lens: the frame's lens at the work scale (``LensProjection.of(calib, W, H, config.scale)``)
            where it distorts: the rink's masks are drawn through it; None: through ``cam``.
    """
    cfg = config or IceConfig()
    Hf, Wf = frame_bgr.shape[:2]
    s = cfg.scale
    w, h = max(1, int(round(Wf * s))), max(1, int(round(Hf * s)))
    small = cv2.resize(frame_bgr, (w, h), interpolation=cv2.INTER_AREA) if s != 1.0 else frame_bgr
    # YCrCb: a linear transform, several times cheaper than Lab; luma Y stands in for
    # lightness and (Cr, Cb) for chroma. Team colours are compared in Lab (on few pixels).
    ycc = cv2.cvtColor(small, cv2.COLOR_BGR2YCrCb)

    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * cfg.marking_dilate_px + 1,) * 2)
    key = (cam.H_image_from_rink.tobytes(), w, h, Wf, Hf, cfg.marking_dilate_px, None if lens is None else lens.key())
    if geom.last_key == key:  # a fixed camera: the projected rink is the same as last frame
        ice_mask, group_masks, marking_dil, ice_mask_full, any_marking, in_hole = geom.last_masks
    else:
        work_cam = PlaneCamera(_scaled_camera_H(cam, s), np.linalg.inv(_scaled_camera_H(cam, s)), None, None, None,
                               w, h)
        # The rings projected as they are when the whole rink lies in front of the camera (the
        # image clips them); clipped to the visible ground in the rink when it does not.
        visible = None

        def rings_in_image(ring_set: RingSet, g):
            nonlocal visible
            r = None if lens is None else geom.dense(ring_set).project(None, lens=lens)
            if r is None:
                r = ring_set.project(work_cam.H_image_from_rink)
            if r is None:
                visible = work_cam.visible_ground(margin_px=4.0) if visible is None else visible
                r = work_cam.image_rings(g, visible)
            return r

        ice_mask = np.zeros((h, w), np.uint8)
        fill_rings(ice_mask, rings_in_image(geom.ice_rings, geom.ice), 255)
        group_masks = []
        marking_mask = np.zeros((h, w), np.uint8)
        # Each group's rings once: filled here, outlined for the thin markings below.
        group_rings = [(rgb, rings_in_image(rs, g)) for (rgb, g), rs in zip(geom.marking_groups, geom.group_rings)]
        for rgb, rings in group_rings:
            m = np.zeros((h, w), np.uint8)
            fill_rings(m, rings, 255)
            m &= ice_mask
            group_masks.append((rgb, m))
            marking_mask |= m
        marking_dil = cv2.dilate(marking_mask, kernel)
        # Markings thinner than a work pixel (a far hash mark) vanish from the filled masks;
        # their outlines keep them for the tests that must not miss any paint.
        any_marking = marking_mask.copy()
        for _, rings in group_rings:
            fill_rings(any_marking, rings, 255, outline=True)
        any_marking = cv2.dilate(any_marking & ice_mask, kernel)
        in_hole = fill_rings(np.zeros((h, w), np.uint8), rings_in_image(geom.in_hole_rings, geom.in_holes), 255)
        in_hole = cv2.dilate(in_hole & ice_mask, kernel)
        ice_mask_full = cv2.resize(ice_mask, (Wf, Hf), interpolation=cv2.INTER_NEAREST) if s != 1.0 else ice_mask
        geom.last_key, geom.last_masks = key, (ice_mask, group_masks, marking_dil, ice_mask_full, any_marking,
                                                in_hole)

    # Ice colour of this frame from unmarked ice (subsampled for speed). Masks are uint8 0/255
    # and combined with OpenCV's bitwise ops, which are much cheaper than numpy booleans here.
    clean = cv2.bitwise_and(ice_mask, cv2.bitwise_not(marking_dil))
    pix = _every_kth_masked(ycc[::3, ::3], np.ascontiguousarray(clean[::3, ::3]), 4000)
    if len(pix) < 30:
        pix = ycc[ice_mask > 0] if np.count_nonzero(ice_mask) else ycc.reshape(-1, 3)
    ice_ycc = np.median(pix.reshape(-1, 3), axis=0).astype(np.float64)
    ab_spread = np.median(np.abs(pix[:, 1:].astype(np.float64) - ice_ycc[1:]), axis=0) * 1.4826
    chroma_tol = max(cfg.chroma_tol, 3.0 * float(np.max(ab_spread)))

    Lc, ac, bc = cv2.split(ycc)
    # Chroma distance (L1, integer ops) to the ice colour.
    dchroma = cv2.add(cv2.absdiff(ac, int(round(ice_ycc[1]))), cv2.absdiff(bc, int(round(ice_ycc[2]))))
    chroma_ok = cv2.compare(dchroma, int(round(1.41 * chroma_tol)), cv2.CMP_LT)
    # Local ice lightness: normalised blur of L over pixels that already look like ice.
    near_ice_L = cv2.compare(cv2.absdiff(Lc, int(ice_ycc[0])), float(0.35 * ice_ycc[0] + 10), cv2.CMP_LT)
    seed = cv2.bitwise_and(cv2.bitwise_and(chroma_ok, clean), near_ice_L)
    coarse = 8
    cw, chh = max(1, w // coarse), max(1, h // coarse)
    Ls = cv2.resize(cv2.bitwise_and(Lc, seed), (cw, chh), interpolation=cv2.INTER_AREA).astype(np.float32)
    Ms = cv2.resize(seed, (cw, chh), interpolation=cv2.INTER_AREA).astype(np.float32) / 255.0
    kc = max(3, int(round(min(cw, chh) / 6)) | 1)
    Lb = cv2.GaussianBlur(Ls, (kc, kc), 0)
    Mb = cv2.GaussianBlur(Ms, (kc, kc), 0)
    L_local_small = np.where(Mb > 1e-3, Lb / np.maximum(Mb, 1e-3), ice_ycc[0]).astype(np.float32)
    ice_L_local = cv2.resize(L_local_small, (w, h), interpolation=cv2.INTER_LINEAR)
    lo_L = cv2.resize(np.clip((1.0 - cfg.dark_frac) * L_local_small, 0, 255).astype(np.uint8), (w, h),
                      interpolation=cv2.INTER_LINEAR)
    hi_L = cv2.resize(np.clip(L_local_small + cfg.bright_tol, 0, 255).astype(np.uint8), (w, h),
                      interpolation=cv2.INTER_LINEAR)

    ice_like = cv2.bitwise_and(chroma_ok, cv2.bitwise_and(cv2.compare(Lc, lo_L, cv2.CMP_GT),
                                                          cv2.compare(Lc, hi_L, cv2.CMP_LE)))
    not_plain_ice = cv2.bitwise_not(ice_like)
    # Inside a marking's painted area (plus slack), anything between the marking's observed
    # colour and the ice colour is background: the paint itself and its anti-aliased edges.
    marking_ycc: dict = {}
    tol = cfg.marking_tol
    for rgb, m in group_masks:
        x, y, bw, bh = cv2.boundingRect(m)
        if bw == 0 or bh == 0:
            marking_ycc[rgb] = None
            continue
        core = cv2.erode(m, kernel)
        sel = core if cv2.countNonZero(core) >= 20 else m
        ref = np.median(_every_kth_masked(ycc, sel, 2000), axis=0)
        marking_ycc[rgb] = ref.astype(np.float32)
        region = cv2.dilate(m, kernel)
        _mark_paint_range(ice_like, ycc, region, _paint_ranges(ref, ice_ycc, tol))
        # A group's median is a blend with the ice where thin markings dominate it (an overhead
        # view of a whole rink: circles under a pixel wide beside a 4 px centre line): the
        # wide markings' full-strength paint would fall outside the range above. Their own
        # colour, over their own area only (thin markings keep the blend's narrower range).
        wide = cv2.erode(m, _KERNEL_3)
        if cv2.countNonZero(wide) >= 20:
            ref_w = np.median(_every_kth_masked(ycc, wide, 2000), axis=0)
            region_w = cv2.bitwise_and(cv2.dilate(wide, _KERNEL_WIDE_SLACK), region)
            _mark_paint_range(ice_like, ycc, region_w, _paint_ranges(ref_w, ice_ycc, tol))

    crease_unpainted = None
    for rgb, m in group_masks:
        if rgb in geom.fill_rgbs:
            others = [g for c, g in group_masks if c != rgb]
            found = _fill_core_unpainted(ycc, m, others, ice_ycc, tol, cfg.marking_dilate_px)
            if found is not None:
                crease_unpainted = found if crease_unpainted is None else cv2.bitwise_or(crease_unpainted, found)
    ice_like_u8 = ice_like
    foreground = cv2.bitwise_and(ice_mask, cv2.bitwise_not(ice_like_u8))

    fs = frame_bgr[::4, ::4]
    v_full = cv2.max(cv2.max(fs[:, :, 0], fs[:, :, 1]), fs[:, :, 2])
    clean_full = cv2.resize(clean, (v_full.shape[1], v_full.shape[0]), interpolation=cv2.INTER_NEAREST)
    vv = v_full[clean_full > 0]
    ice_v_full = float(np.median(vv)) if len(vv) else float(np.median(v_full))

    return IceScene(
        cam=cam,
        scale=s,
        ice_mask=ice_mask,
        marking_mask=marking_dil,
        any_marking_mask=any_marking,
        ycc=ycc,
        ice_ycc=ice_ycc,
        ice_L_local=ice_L_local,
        ice_like=ice_like_u8,
        not_plain_ice=not_plain_ice,
        ice_mask_full=ice_mask_full,
        small_bgr=small,
        foreground=foreground,
        ice_v_full=ice_v_full,
        marking_ycc=marking_ycc,
        in_hole_mask=in_hole,
        crease_unpainted=crease_unpainted,
        goal_nets_rink_m=geom.goal_nets_rink_m,
        goal_posts_rink_m=geom.goal_posts_rink_m,
        goal_post_radius_m=geom.goal_post_radius_m,
        goal_height_m=geom.goal_height_m,
    )

