"""Fixed-camera calibration per venue from image–rink point pairs.

A :class:`CameraProfile` is what an operator stores once per fixed camera
(overhead, blue-line, goal camera): four or more pixels clicked on known rink
points (line/board intersections, faceoff spots, crease corners) and the
homography they define on the ice plane. It is modelled on scikit-image's
``ProjectiveTransform``: a failed estimate is a falsy object carrying a
``reason`` instead of an exception in the middle of a pipeline.

Frames follow ``docs/interfaces.md``: rink metres (origin centre ice, +x along
the length, +y across), image pixels (x right, y down, pixel centres at
integer coordinates).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

__all__ = ["CameraProfile", "apply_homography", "degeneracy_reason", "ice_in_front"]


def ice_in_front(rink_from_image: np.ndarray, width: int, height: int) -> np.ndarray:
    """``rink_from_image`` with the sign that puts the ice in front of the camera at w > 0.

    A homography holds up to scale, but its sign tells the ice in front of the camera (w > 0)
    from the plane behind it, which rays above the horizon meet: the vision masks the ice and
    clips the rink to the visible ground by it. Normalising by ``H[2, 2]`` (the w of pixel
    (0, 0)) flips every sign when that pixel looks above the horizon, as a low camera's top
    corner does (three blue-line renders, seeds 1445, 1526 and 1572, were calibrated to 1-3 cm
    and their vision saw no ice at all). An upright camera sees the ice in front of it along
    its picture's bottom row: the sign is chosen so that w is positive there.

    Args:
        rink_from_image: (3, 3) homography, image px → rink m.
        width, height: image size, px.

    Returns:
        (3, 3) ``rink_from_image`` or its negative (the same mapping).
    """
    H = np.asarray(rink_from_image, dtype=np.float64)
    u = np.linspace(0.0, width - 1.0, 5)
    w = H[2, 0] * u + H[2, 1] * (height - 1.0) + H[2, 2]
    return -H if float(np.median(w)) < 0 else H


def apply_homography(dst_from_src: np.ndarray, xy_src: np.ndarray) -> np.ndarray:
    """Map 2-D points through a 3×3 homography.

    Args:
        dst_from_src: (3, 3) homography.
        xy_src: (N, 2) or (2,) points in the source frame.

    Returns:
        (N, 2) (or (2,)) points in the destination frame; points mapped to the
        line at infinity come back as ``inf``.
    """
    pts = np.asarray(xy_src, dtype=np.float64)
    single = pts.ndim == 1
    pts = pts.reshape(-1, 2)
    hom = np.c_[pts, np.ones(len(pts))] @ np.asarray(dst_from_src, np.float64).T
    w = hom[:, 2:3]
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(np.abs(w) > 1e-12, hom[:, :2] / w, np.inf)
    return out[0] if single else out


def degeneracy_reason(xy: np.ndarray, frame: str, rel_tol: float = 1e-3) -> str:
    """Say why a point set cannot define a homography, or return "".

    Args:
        xy: (N, 2) points.
        frame: name used in the message ("image" or "rink").
        rel_tol: smallest allowed ratio of the point cloud's minor to major
            spread (singular values of the centred points).

    Returns:
        An empty string when usable, else a one-line reason.
    """
    xy = np.asarray(xy, dtype=np.float64)
    if xy.ndim != 2 or xy.shape[1] != 2:
        return f"{frame} points must have shape (N, 2), got {xy.shape}"
    if len(xy) < 4:
        return f"need at least 4 point pairs, got {len(xy)}"
    if not np.all(np.isfinite(xy)):
        return f"{frame} points contain NaN or inf"
    centred = xy - xy.mean(axis=0)
    s = np.linalg.svd(centred, compute_uv=False)
    if s[0] <= 0 or s[1] / s[0] < rel_tol:
        return f"{frame} points are collinear (or coincident)"
    if len(xy) == 4:
        # A minimal set also fails when any three of the four are collinear.
        for drop in range(4):
            tri = np.delete(xy, drop, axis=0)
            (ax, ay), (bx, by) = tri[1] - tri[0], tri[2] - tri[0]
            area2 = abs(ax * by - ay * bx)
            scale = max(np.ptp(xy[:, 0]), np.ptp(xy[:, 1])) ** 2
            if area2 < rel_tol * scale:
                return f"three of the four {frame} points are collinear"
    return ""


@dataclass
class CameraProfile:
    """A stored fixed-camera calibration on the ice plane.

    Attributes:
        name: camera/venue name, e.g. ``"westridge_goalcam_+x"``.
        width: image width in px the pairs were clicked on.
        height: image height in px.
        rink_from_image: (3, 3) raw image px → rink m, or ``None`` when the
            estimate failed (the profile is then falsy).
        xy_image_px: (N, 2) clicked image points.
        xy_rink_m: (N, 2) their rink positions.
        inliers: (N,) bool, pairs kept by RANSAC.
        reason: "" on success, else why the estimate failed.
        goal_end: for an end (goal) camera, which goal it films (+1 / −1),
            pinning the rink's half-turn symmetry (design: "the goal that the
            venue's camera profile names"); ``None`` for side cameras.
    """

    name: str
    width: int
    height: int
    rink_from_image: np.ndarray | None
    xy_image_px: np.ndarray = field(default_factory=lambda: np.zeros((0, 2)))
    xy_rink_m: np.ndarray = field(default_factory=lambda: np.zeros((0, 2)))
    inliers: np.ndarray = field(default_factory=lambda: np.zeros(0, bool))
    reason: str = ""
    goal_end: int | None = None

    # -- construction -----------------------------------------------------
    @classmethod
    def from_point_pairs(
        cls,
        xy_image_px: np.ndarray,
        xy_rink_m: np.ndarray,
        name: str = "camera",
        width: int = 0,
        height: int = 0,
        ransac_threshold_px: float = 3.0,
        goal_end: int | None = None,
    ) -> "CameraProfile":
        """Estimate the profile from ≥ 4 image–rink point pairs.

        Uses ``cv2.findHomography`` (plain least squares for exactly 4 pairs,
        RANSAC with ``ransac_threshold_px`` then a refit on inliers above 4).

        Args:
            xy_image_px: (N, 2) image points, px.
            xy_rink_m: (N, 2) rink points on the ice plane, m.
            name: profile name.
            width: image width, px.
            height: image height, px.
            ransac_threshold_px: RANSAC reprojection threshold, px.
            goal_end: +1/−1 for an end camera, else ``None``.

        Returns:
            A truthy profile, or a falsy one whose ``reason`` says what was
            wrong (fewer than 4 pairs, collinear points, mismatched shapes,
            a homography that folds the ice plane).
        """
        img = np.asarray(xy_image_px, dtype=np.float64)
        rnk = np.asarray(xy_rink_m, dtype=np.float64)

        def as_pairs(a: np.ndarray) -> np.ndarray:
            return a.reshape(-1, 2) if a.size % 2 == 0 else np.zeros((0, 2))

        def failed(reason: str) -> "CameraProfile":
            return cls(name, int(width), int(height), None, as_pairs(img), as_pairs(rnk),
                       np.zeros(0, bool), reason, goal_end)

        if img.shape != rnk.shape:
            return failed(f"image points {img.shape} and rink points {rnk.shape} differ in shape")
        for pts, frame in ((img, "image"), (rnk, "rink")):
            reason = degeneracy_reason(pts, frame)
            if reason:
                return failed(reason)
        method = 0 if len(img) == 4 else cv2.RANSAC
        image_from_rink, mask = cv2.findHomography(
            rnk, img, method, ransacReprojThreshold=ransac_threshold_px
        )
        if image_from_rink is None or not np.all(np.isfinite(image_from_rink)):
            return failed("cv2.findHomography found no consistent homography")
        inliers = mask.ravel().astype(bool) if mask is not None else np.ones(len(img), bool)
        if inliers.sum() < 4:
            return failed(f"only {int(inliers.sum())} RANSAC inliers (need 4)")
        if abs(np.linalg.det(image_from_rink)) < 1e-12 or np.linalg.cond(image_from_rink) > 1e12:
            return failed("estimated homography is singular")
        # All clicked points must lie on the same side of the horizon, else the
        # "homography" folds the plane through infinity (mirrored / nonsense).
        w = (np.c_[rnk, np.ones(len(rnk))] @ image_from_rink.T)[:, 2]
        if not (np.all(w[inliers] > 0) or np.all(w[inliers] < 0)):
            return failed("point pairs straddle the horizon (inconsistent pairs)")
        rink_from_image = np.linalg.inv(image_from_rink)
        rink_from_image /= rink_from_image[2, 2] if abs(rink_from_image[2, 2]) > 1e-12 else 1.0
        rink_from_image = ice_in_front(rink_from_image, width, height)
        return cls(name, int(width), int(height), rink_from_image, img, rnk, inliers, "", goal_end)

    from_estimate = from_point_pairs

    # -- protocol ---------------------------------------------------------
    def __bool__(self) -> bool:
        return self.rink_from_image is not None

    @property
    def image_from_rink(self) -> np.ndarray | None:
        """(3, 3) rink m → image px, or ``None`` when failed."""
        if self.rink_from_image is None:
            return None
        h = np.linalg.inv(self.rink_from_image)
        return h / h[2, 2]

    def __call__(self, xy_image_px: np.ndarray) -> np.ndarray:
        """Map image px (N, 2) to rink m (N, 2) on the ice plane."""
        if self.rink_from_image is None:
            raise ValueError(f"camera profile {self.name!r} failed: {self.reason}")
        return apply_homography(self.rink_from_image, xy_image_px)

    def inverse(self, xy_rink_m: np.ndarray) -> np.ndarray:
        """Map rink m (N, 2) to image px (N, 2)."""
        if self.rink_from_image is None:
            raise ValueError(f"camera profile {self.name!r} failed: {self.reason}")
        return apply_homography(self.image_from_rink, xy_rink_m)

    @property
    def residuals_px(self) -> np.ndarray:
        """(N,) reprojection error of each pair in the image, px."""
        if not self:
            return np.full(len(self.xy_image_px), np.nan)
        return np.linalg.norm(self.inverse(self.xy_rink_m) - self.xy_image_px, axis=1)

    @property
    def residuals_m(self) -> np.ndarray:
        """(N,) error of each pair back-projected onto the rink, m."""
        if not self:
            return np.full(len(self.xy_image_px), np.nan)
        return np.linalg.norm(self(self.xy_image_px) - self.xy_rink_m, axis=1)

    def residuals(self, xy_image_px: np.ndarray, xy_rink_m: np.ndarray) -> np.ndarray:
        """(N,) image-space distance, px, between pixels and projected rink points."""
        return np.linalg.norm(self.inverse(xy_rink_m) - np.asarray(xy_image_px, float), axis=1)

    # -- persistence ------------------------------------------------------
    def to_dict(self) -> dict:
        """JSON-ready dict (arrays as nested lists)."""
        return {
            "version": 1,
            "name": self.name,
            "width": self.width,
            "height": self.height,
            "H_rink_from_image": None if self.rink_from_image is None else self.rink_from_image.tolist(),
            "xy_image_px": np.asarray(self.xy_image_px).tolist(),
            "xy_rink_m": np.asarray(self.xy_rink_m).tolist(),
            "inliers": np.asarray(self.inliers, bool).tolist(),
            "reason": self.reason,
            "goal_end": self.goal_end,
            "residuals_px": [float(r) for r in self.residuals_px],
            "residuals_m": [float(r) for r in self.residuals_m],
        }

    @classmethod
    def from_dict(cls, data: dict) -> "CameraProfile":
        """Inverse of :meth:`to_dict`; ``ValueError`` names a bad field."""
        try:
            h = data["H_rink_from_image"]
            rink_from_image = None if h is None else np.asarray(h, dtype=np.float64)
            if rink_from_image is not None and rink_from_image.shape != (3, 3):
                raise ValueError("H_rink_from_image must be 3×3")
            width, height = int(data.get("width", 0)), int(data.get("height", 0))
            if rink_from_image is not None and width > 0 and height > 0:
                rink_from_image = ice_in_front(rink_from_image, width, height)  # a profile saved flipped
            return cls(
                name=str(data.get("name", "camera")),
                width=width,
                height=height,
                rink_from_image=rink_from_image,
                xy_image_px=np.asarray(data.get("xy_image_px", []), np.float64).reshape(-1, 2),
                xy_rink_m=np.asarray(data.get("xy_rink_m", []), np.float64).reshape(-1, 2),
                inliers=np.asarray(data.get("inliers", []), bool),
                reason=str(data.get("reason", "")),
                goal_end=data.get("goal_end"),
            )
        except KeyError as exc:
            raise ValueError(f"camera profile is missing field {exc.args[0]!r}") from None

    def save(self, path: str | Path) -> None:
        """Write the profile as JSON."""
        Path(path).write_text(json.dumps(self.to_dict(), indent=2))

    @classmethod
    def load(cls, path: str | Path) -> "CameraProfile":
        """Read a profile written by :meth:`save`."""
        return cls.from_dict(json.loads(Path(path).read_text()))

    def scaled_to(self, width: int, height: int) -> np.ndarray | None:
        """``rink_from_image`` for frames resized to (width, height) px.

        Returns ``None`` when the profile failed or has no stored size.
        """
        if self.rink_from_image is None:
            return None
        if not self.width or not self.height or (width, height) == (self.width, self.height):
            return self.rink_from_image.copy()
        # Pixel centres at integers: x_old = (x_new + 0.5) * s - 0.5.
        sx, sy = self.width / width, self.height / height
        old_from_new = np.array([[sx, 0, 0.5 * sx - 0.5], [0, sy, 0.5 * sy - 0.5], [0, 0, 1.0]])
        return self.rink_from_image @ old_from_new
