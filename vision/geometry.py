"""Image ↔ rink geometry for the vision stages.

Calibration hands vision only ``rink_from_image`` (a 3×3 homography of the ice
plane). Vision also needs heights: how tall a seated player looks at a given
spot, where a puck whose centre is 1.27 cm above the ice projects, how large
the puck is in pixels. ``PlaneCamera.from_homography`` recovers a full pinhole
camera from the homography under the usual broadcast assumptions — square
pixels, principal point at the image centre, no skew (Zhang's constraints with
one view: the first two columns of ``K⁻¹ H`` are orthogonal and of equal
norm). When that is degenerate (a camera looking straight down, noise) it
falls back to treating heights like ground distances, which is what a top-down
camera sees anyway.

Lens distortion is ignored: the homography maps raw pixels, so geometry is
approximate at the image corners of a distorted lens.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from shapely.geometry import Polygon, box
from shapely.geometry.base import BaseGeometry

from calibration.fixed import ice_in_front

_EPS_W = 1e-9


def apply_homography(H: np.ndarray, xy: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Map points through a homography.

    Args:
        H: (3, 3) destination_from_source.
        xy: (N, 2) source points.

    Returns:
        ((N, 2) destination points, (N,) homogeneous w). Points with w <= 0 lie
        beyond the horizon (behind the camera) and their coordinates are meaningless.
    """
    p = np.asarray(xy, dtype=np.float64).reshape(-1, 2)
    q = p @ H[:, :2].T + H[:, 2]
    w = q[:, 2]
    safe = np.where(np.abs(w) < _EPS_W, _EPS_W, w)
    return q[:, :2] / safe[:, None], w


# Focal length assumed (in image widths: 0.5 is a 90° horizontal field of view) for a camera whose
# homography cannot tell it (one looking straight down), and how far from orthonormal the ice
# plane's axes may then be (|cos| between them, relative difference of their lengths).
FRONTO_PARALLEL_FOCAL_WIDTHS = 0.5
FRONTO_PARALLEL_MAX_SKEW = 0.03


def _pose_from_focal(H_image_from_rink: np.ndarray, f: float, cx: float, cy: float,
                     max_skew: float | None = None):
    """(K, R, t) of the ice-plane homography for focal length ``f`` px, or (None, None, None).

    Args:
        max_skew: when given, refuse a pose whose ice-plane axes r1, r2 (the first two columns
            of K⁻¹ H before orthonormalising) are further from orthonormal than this.
    """
    K = np.array([[f, 0.0, cx], [0.0, f, cy], [0.0, 0.0, 1.0]])
    M = np.linalg.inv(K) @ H_image_from_rink
    lam = np.linalg.norm(M[:, 0])
    if M[2, 2] / lam < 0:  # the rink origin must lie in front of the camera
        lam = -lam
    r1, r2, tt = M[:, 0] / lam, M[:, 1] / lam, M[:, 2] / lam
    if max_skew is not None:
        n2 = np.linalg.norm(r2)
        if abs(float(r1 @ r2)) / n2 > max_skew or abs(n2 - 1.0) > max_skew:
            return None, None, None
    Rm = np.stack([r1, r2, np.cross(r1, r2)], axis=1)
    U, _, Vt = np.linalg.svd(Rm)
    Rm = U @ Vt
    if np.linalg.det(Rm) < 0 or (-Rm.T @ tt)[2] <= 0:  # mirrored, or the camera below the ice
        return None, None, None
    return K, Rm, tt


def _closed_form_pose(H_image_from_rink: np.ndarray, width: int, cx: float, cy: float):
    """(K, R, t) of a tilted camera's ice-plane homography, its focal length solved from the
    rotation's first two columns being orthonormal, or (None, None, None)."""
    A = np.array([[1.0, 0.0, -cx], [0.0, 1.0, -cy], [0.0, 0.0, 1.0]]) @ H_image_from_rink
    a1, a2 = A[:, 0], A[:, 1]
    # Two linear equations in 1/f²: orthogonality and equal norm of r1, r2.
    rows = np.array(
        [
            [a1[0] * a2[0] + a1[1] * a2[1], a1[2] * a2[2]],
            [a1[0] ** 2 + a1[1] ** 2 - a2[0] ** 2 - a2[1] ** 2, a1[2] ** 2 - a2[2] ** 2],
        ]
    )
    # rows @ [1/f², 1] = 0 → least squares for u = 1/f².
    num = -(rows[:, 0] * rows[:, 1]).sum()
    den = (rows[:, 0] ** 2).sum()
    if den > 0:
        u = num / den
        if u > 0:
            f = 1.0 / np.sqrt(u)
            if 0.1 * width < f < 50.0 * width:
                return _pose_from_focal(H_image_from_rink, f, cx, cy)
    return None, None, None


@dataclass
class PlaneCamera:
    """A pinhole camera consistent with an ice-plane homography.

    Attributes:
        H_image_from_rink: (3, 3) ice plane (x, y, 1) m → image px.
        H_rink_from_image: (3, 3) its inverse.
        K: (3, 3) intrinsics, px (None when the decomposition failed).
        R: (3, 3) camera_from_rink rotation (None when it failed).
        t: (3,) camera_from_rink translation, m (None when it failed).
        width, height: image size, px.
    """

    H_image_from_rink: np.ndarray
    H_rink_from_image: np.ndarray
    K: np.ndarray | None
    R: np.ndarray | None
    t: np.ndarray | None
    width: int
    height: int

    @classmethod
    def from_homography(cls, H_rink_from_image: np.ndarray, width: int, height: int) -> "PlaneCamera":
        """Recover K, R, t from ``rink_from_image`` (square pixels, centred principal point).

        The homography's sign is first set so that the ice in front of the camera has w > 0
        (``calibration.fixed.ice_in_front``): a calibration from elsewhere may be normalised by
        the w of a pixel above the horizon, which flips it and hides the whole ice.
        """
        H_ri = ice_in_front(np.asarray(H_rink_from_image, dtype=np.float64).reshape(3, 3), width, height)
        H_ir = np.linalg.inv(H_ri)
        cx, cy = (width - 1) / 2.0, (height - 1) / 2.0
        # A camera looking (nearly) straight down sees the ice fronto-parallel: every focal length
        # fits the homography (height and focal trade off) and the closed form is noise (overhead
        # tuning renders: 193 px for 815, 9343 for 400, the camera 10 m or 680 m up instead of
        # ~40). Where the assumed focal fits (the ice plane's axes come out orthonormal, as they
        # do for any focal in such a view: skew <= 0.013 over 58 overhead renders, >= 0.038 over
        # the tilted cameras of 122 others; docs/vision.md stop 47), it is taken.
        K, R, t = _pose_from_focal(H_ir, FRONTO_PARALLEL_FOCAL_WIDTHS * width, cx, cy,
                                   max_skew=FRONTO_PARALLEL_MAX_SKEW)
        if R is None:
            K, R, t = _closed_form_pose(H_ir, width, cx, cy)
        return cls(H_ir, H_ri, K, R, t, int(width), int(height))

    @property
    def has_pose(self) -> bool:
        return self.R is not None

    @property
    def position_xyz_m(self) -> np.ndarray | None:
        """(3,) camera centre in the rink frame, m (None without a pose)."""
        return None if self.R is None else -self.R.T @ self.t

    def image_from_rink(self, xyz_rink_m: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(N, 3) rink points, m → ((N, 2) image px, (N,) depth > 0 when in front).

        Without a pose, heights are drawn as ground distances towards image up
        (a top-down-like approximation): z shifts the point by z metres of the
        local ground scale upwards in the image.
        """
        xyz = np.asarray(xyz_rink_m, dtype=np.float64).reshape(-1, 3)
        if self.R is not None:
            cam = xyz @ self.R.T + self.t
            z = cam[:, 2]
            uv = cam @ self.K.T
            return uv[:, :2] / np.where(np.abs(uv[:, 2:3]) < _EPS_W, _EPS_W, uv[:, 2:3]), z
        xy, w = apply_homography(self.H_image_from_rink, xyz[:, :2])
        scale = self.ground_scale_px_per_m(xyz[:, :2])
        return xy - np.stack([np.zeros(len(xy)), xyz[:, 2] * scale], axis=1), w

    def rink_from_image(self, xy_image_px: np.ndarray, z_m: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
        """(N, 2) image px → ((N, 2) rink xy on the plane z = ``z_m``, (N,) valid).

        The ray through each pixel meets the horizontal plane at height ``z_m``
        (0: the ice). Without a pose, ``z_m`` is ignored.
        """
        xy = np.asarray(xy_image_px, dtype=np.float64).reshape(-1, 2)
        if self.R is None or z_m == 0.0:
            out, w = apply_homography(self.H_rink_from_image, xy)
            return out, w > 0
        # Homography of the plane z = z_m: image_from_rink = K [r1 r2 (r3 z + t)].
        H_plane = self.K @ np.stack([self.R[:, 0], self.R[:, 1], self.R[:, 2] * z_m + self.t], axis=1)
        out, w = apply_homography(np.linalg.inv(H_plane), xy)
        return out, w > 0

    def ground_scale_px_per_m(self, xy_rink_m: np.ndarray) -> np.ndarray:
        """(N, 2) rink points → (N,) geometric-mean image scale of the ice plane there, px/m."""
        xy = np.asarray(xy_rink_m, dtype=np.float64).reshape(-1, 2)
        J = self.jacobian_image_from_rink(xy)
        return np.sqrt(np.abs(np.linalg.det(J)))

    def jacobian_image_from_rink(self, xy_rink_m: np.ndarray) -> np.ndarray:
        """(N, 2) rink points → (N, 2, 2) d(image px)/d(rink m) of the ice-plane homography."""
        xy = np.asarray(xy_rink_m, dtype=np.float64).reshape(-1, 2)
        H = self.H_image_from_rink
        q = xy @ H[:, :2].T + H[:, 2]
        w = q[:, 2:3]
        w = np.where(np.abs(w) < _EPS_W, _EPS_W, w)
        # d(u/w)/dx = (H[0,0] w - u H[2,0]) / w²
        J = (H[None, :2, :2] * w[:, :, None] - q[:, :2, None] * H[None, 2:3, :2]) / (w[:, :, None] ** 2)
        return J

    def vertical_px_per_m(self, xy_rink_m: np.ndarray, height_m: float = 1.0) -> np.ndarray:
        """(N, 2) ground points → (N,) image length of a vertical stick ``height_m`` tall there, px per m."""
        xy = np.asarray(xy_rink_m, dtype=np.float64).reshape(-1, 2)
        base, _ = self.image_from_rink(np.column_stack([xy, np.zeros(len(xy))]))
        top, _ = self.image_from_rink(np.column_stack([xy, np.full(len(xy), height_m)]))
        return np.linalg.norm(top - base, axis=1) / height_m

    def away_direction_rink(self, xy_rink_m: np.ndarray) -> np.ndarray:
        """(N, 2) ground points → (N, 2) unit ground directions pointing away from the camera.

        Without a pose: the rink direction of image "up" at that point.
        """
        xy = np.asarray(xy_rink_m, dtype=np.float64).reshape(-1, 2)
        if self.R is not None:
            d = xy - self.position_xyz_m[:2]
        else:
            J = self.jacobian_image_from_rink(xy)
            d = np.linalg.solve(J, np.tile(np.array([0.0, -1.0]), (len(xy), 1))[..., None])[..., 0]
        n = np.linalg.norm(d, axis=1, keepdims=True)
        return d / np.where(n < 1e-9, 1.0, n)

    # --------------------------------------------------------- region masks
    def visible_ground(self, margin_px: float = 2.0) -> Polygon:
        """The part of the ice plane the image sees, as a rink polygon (m).

        The image rectangle is clipped to the side of the horizon where the plane
        lies in front of the camera, and to a ±500 m box so that a view grazing
        the horizon stays finite.
        """
        H = self.H_rink_from_image
        W, Hh = self.width, self.height
        rect = np.array([[-margin_px, -margin_px], [W - 1 + margin_px, -margin_px],
                         [W - 1 + margin_px, Hh - 1 + margin_px], [-margin_px, Hh - 1 + margin_px]])
        # Clip the rectangle by the half plane w(x, y) = H[2] · (x, y, 1) >= w_min.
        _, w_corners = apply_homography(H, rect)
        w_min = 1e-3 * np.max(np.abs(w_corners)) if np.any(w_corners > 0) else 0.0
        poly = _clip_halfplane(rect, H[2], w_min)
        if len(poly) < 3:
            return Polygon()
        xy, _ = apply_homography(H, poly)
        g = Polygon(xy)
        if not g.is_valid:
            g = g.buffer(0)
        return g.intersection(box(-500.0, -500.0, 500.0, 500.0))

    def polygon_to_image(self, geometry_rink_m: BaseGeometry, visible: Polygon | None = None) -> list[np.ndarray]:
        """Rink polygon(s), m → list of (M, 2) int32 image px rings for ``cv2.fillPoly``.

        Args:
            geometry_rink_m: shapely Polygon or MultiPolygon on the ice plane.
            visible: the visible ground (``visible_ground()``), to clip geometry
                that crosses the horizon; computed when None.

        Holes are returned as separate rings; fill the exteriors and then the
        holes with 0 (see ``fill_geometry``).
        """
        exteriors, _ = self.image_rings(geometry_rink_m, visible)
        return exteriors

    def image_rings(self, geometry_rink_m: BaseGeometry,
                    visible: Polygon | None = None) -> tuple[list[np.ndarray], list[np.ndarray]]:
        """Rink polygon(s), m → (exterior rings, hole rings), each a list of (M, 2) int32 image px,
        clipped to the visible ground (computed when ``visible`` is None); see ``fill_rings``."""
        if visible is None:
            visible = self.visible_ground()
        g = geometry_rink_m
        if g.is_empty or visible.is_empty:
            return [], []
        # Clip only when the geometry leaves the visible ground (costly for many markings).
        if not visible.contains(g):
            g = g.intersection(visible)
        ext, holes = [], []
        for p in getattr(g, "geoms", [g]):
            if p.is_empty or p.geom_type != "Polygon":
                continue
            xy, _ = apply_homography(self.H_image_from_rink, np.asarray(p.exterior.coords))
            ext.append(np.round(xy).astype(np.int32))
            for r in p.interiors:
                xy, _ = apply_homography(self.H_image_from_rink, np.asarray(r.coords))
                holes.append(np.round(xy).astype(np.int32))
        return ext, holes

    def fill_geometry(self, mask: np.ndarray, geometry_rink_m: BaseGeometry, value: int = 255,
                      visible: Polygon | None = None, outline: bool = False) -> np.ndarray:
        """Draw a rink polygon (with holes) into a uint8 image mask in place; returns the mask.

        ``outline``: also draw the outer rings one pixel wide, so that a marking thinner than
        a pixel in this view (a 5 cm hash mark far away) is still in the mask.
        """
        return fill_rings(mask, self.image_rings(geometry_rink_m, visible), value, outline)


def fill_rings(mask: np.ndarray, rings: tuple[list[np.ndarray], list[np.ndarray]], value: int = 255,
               outline: bool = False) -> np.ndarray:
    """Draw ``PlaneCamera.image_rings``' (exteriors, holes) into a uint8 mask in place (exteriors
    filled with ``value``, then holes with 0; ``outline``: the exteriors also drawn one pixel wide,
    see ``PlaneCamera.fill_geometry``); returns the mask."""
    import cv2

    ext, holes = rings
    if ext:
        cv2.fillPoly(mask, ext, value)
    if holes:
        cv2.fillPoly(mask, holes, 0)
    if outline and ext:
        cv2.polylines(mask, ext, True, value, 1)
    return mask


def _clip_halfplane(poly: np.ndarray, coeff: np.ndarray, c_min: float) -> np.ndarray:
    """Sutherland–Hodgman clip of a polygon (N, 2) to coeff · (x, y, 1) >= c_min."""
    out = []
    n = len(poly)
    vals = poly @ coeff[:2] + coeff[2] - c_min
    for i in range(n):
        p, q = poly[i], poly[(i + 1) % n]
        vp, vq = vals[i], vals[(i + 1) % n]
        if vp >= 0:
            out.append(p)
        if (vp >= 0) != (vq >= 0):
            s = vp / (vp - vq)
            out.append(p + s * (q - p))
    return np.asarray(out).reshape(-1, 2)

