"""Hand-drawn synthetic rink frames with known homography (tests, benchmarks).

Independent of the simulator's renderer on purpose: the palette, lighting,
noise and occluders are drawn here from a seed, so calibration is tested
against truth we construct ourselves and not tuned to one renderer's pixels.

The ice plane is drawn top-down at ``cm_per_px`` and warped into the camera
with ``image_from_rink``; pixels whose ray misses the ice plane (sky) get a
"crowd" texture.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from shapely.geometry import Polygon

__all__ = ["Look", "random_look", "draw_frame", "look_at_homography"]


@dataclass
class Look:
    """Colours and lighting of a synthetic venue (BGR uint8 triples)."""

    ice_bgr: tuple[int, int, int] = (238, 240, 236)
    red_bgr: tuple[int, int, int] = (46, 16, 200)
    blue_bgr: tuple[int, int, int] = (168, 56, 0)
    light_blue_bgr: tuple[int, int, int] = (235, 190, 95)
    board_bgr: tuple[int, int, int] = (40, 200, 230)
    gain: float = 1.0  # global brightness factor
    vignette: float = 0.0  # darkening at the image corners, 0..0.5
    noise_sigma: float = 2.0  # per-pixel Gaussian noise, grey levels
    blur_px: float = 0.0  # Gaussian blur sigma, px


def random_look(rng: np.random.Generator) -> Look:
    """A venue with shifted paint, tinted ice and varied lighting."""

    def jitter(bgr, amount):
        return tuple(int(np.clip(c + rng.integers(-amount, amount + 1), 0, 255)) for c in bgr)

    tint = rng.integers(-12, 13, 3)
    ice = tuple(int(np.clip(228 + t, 0, 255)) for t in tint)
    return Look(
        ice_bgr=ice,
        red_bgr=jitter((50, 30, 190), 30),
        blue_bgr=jitter((150, 60, 20), 30),
        light_blue_bgr=jitter((230, 195, 120), 15),
        board_bgr=jitter((60, 190, 220), 30),
        gain=float(rng.uniform(0.6, 1.05)),
        vignette=float(rng.uniform(0.0, 0.35)),
        noise_sigma=float(rng.uniform(1.0, 4.0)),
        blur_px=float(rng.uniform(0.0, 0.8)),
    )


def look_at_homography(position_xyz_m, target_xyz_m, fov_deg: float, width: int, height: int,
                       roll_deg: float = 0.0) -> np.ndarray:
    """``K [r1 r2 t]`` (3, 3) of a zero-distortion look-at camera, image_from_rink.

    Not normalised: the third row gives each rink point's depth (m), so its
    sign tells which points are in front of the camera.
    """
    pos = np.asarray(position_xyz_m, float)
    fwd = np.asarray(target_xyz_m, float) - pos
    fwd /= np.linalg.norm(fwd)
    right = np.cross(fwd, [0.0, 0.0, 1.0])
    if np.linalg.norm(right) < 1e-6:
        right = np.array([1.0, 0.0, 0.0])
    right /= np.linalg.norm(right)
    down = np.cross(fwd, right)
    a = np.radians(roll_deg)
    right, down = np.cos(a) * right + np.sin(a) * down, -np.sin(a) * right + np.cos(a) * down
    R = np.stack([right, down, fwd])
    f = (width / 2.0) / np.tan(np.radians(fov_deg) / 2.0)
    K = np.array([[f, 0, (width - 1) / 2.0], [0, f, (height - 1) / 2.0], [0, 0, 1.0]])
    return K @ np.c_[R[:, 0], R[:, 1], -R @ pos]


def _fill(img: np.ndarray, geom, to_px: np.ndarray, bgr) -> None:
    polys = [geom] if isinstance(geom, Polygon) else list(getattr(geom, "geoms", []))
    for p in polys:
        if p.is_empty:
            continue
        rings = [np.asarray(p.exterior.coords)[:, :2]] + [np.asarray(i.coords)[:, :2] for i in p.interiors]
        contours = [np.round((r @ to_px[:2, :2].T + to_px[:2, 2]) * 16).astype(np.int32) for r in rings]
        cv2.fillPoly(img, contours, tuple(int(c) for c in bgr), cv2.LINE_AA, 4)


_TOPDOWN_CACHE: dict = {}


def _topdown(rink, look: Look, cm_per_px: float, venue_seed: int, margin: float):
    """Top-down texture (BGR) of the ice, boards band and markings, and top_from_rink (3, 3)."""
    key = (id(rink), repr(look), cm_per_px, venue_seed, margin)
    if key in _TOPDOWN_CACHE:
        return _TOPDOWN_CACHE[key]
    spec = rink.spec
    venue_rng = np.random.default_rng([venue_seed, 7])
    k = 100.0 / cm_per_px
    x0, y0 = -spec.length_m / 2 - margin, spec.width_m / 2 + margin
    top_from_rink = np.array([[k, 0, -x0 * k], [0, -k, y0 * k], [0, 0, 1.0]])
    tw = int(np.ceil((spec.length_m + 2 * margin) * k))
    th = int(np.ceil((spec.width_m + 2 * margin) * k))
    top = np.empty((th, tw, 3), np.uint8)
    top[:] = (235, 235, 232)  # white boards (202) beyond the kick plate
    _fill(top, rink.ice.buffer(0.25), top_from_rink, look.board_bgr)
    _fill(top, rink.ice, top_from_rink, look.ice_bgr)
    for m in rink.markings:
        if m.color == "red":
            bgr = look.red_bgr
        elif m.color == "blue":
            bgr = look.blue_bgr
        elif m.color == "light_blue":
            bgr = look.light_blue_bgr
        else:
            bgr = tuple(int(c) for c in np.array(m.rgb)[::-1])
        _fill(top, m.geometry, top_from_rink, bgr)
    # Faint ice texture so optical flow has something besides markings.
    tex = venue_rng.normal(0, 3.0, (th // 8 + 1, tw // 8 + 1)).astype(np.float32)
    tex = cv2.resize(tex, (tw, th), interpolation=cv2.INTER_CUBIC)[:, :, None]
    top = np.clip(top.astype(np.float32) + tex, 0, 255).astype(np.uint8)
    if len(_TOPDOWN_CACHE) > 8:
        _TOPDOWN_CACHE.clear()
    _TOPDOWN_CACHE[key] = (top, top_from_rink)
    return top, top_from_rink


def draw_frame(
    rink,
    image_from_rink: np.ndarray,
    width: int,
    height: int,
    look: Look | None = None,
    seed: int = 0,
    n_players: int = 0,
    cm_per_px: float = 2.0,
    venue_seed: int = 0,
) -> np.ndarray:
    """Draw the ice, boards band and markings seen through ``image_from_rink``.

    Args:
        rink: ``calibration.rink.RinkModel``.
        image_from_rink: (3, 3) rink m → image px, as from
            :func:`look_at_homography` (third row = depth, positive in front).
        width: image width, px.
        height: image height, px.
        look: palette/lighting (default :class:`Look`).
        seed: sensor noise and player placement (changes per frame).
        n_players: number of occluding "players" (blobs in red/blue/dark
            jersey colours standing on the ice).
        cm_per_px: resolution of the top-down texture, cm.
        venue_seed: ice texture and crowd (fixed for a venue).

    Returns:
        (height, width, 3) uint8 BGR frame.
    """
    look = look or Look()
    rng = np.random.default_rng(seed)
    venue_rng = np.random.default_rng([venue_seed, 7])
    spec = rink.spec
    margin = 3.0
    top, top_from_rink = _topdown(rink, look, cm_per_px, venue_seed, margin)

    H = np.asarray(image_from_rink, float)
    image_from_top = H @ np.linalg.inv(top_from_rink)
    frame = cv2.warpPerspective(top, image_from_top, (width, height), flags=cv2.INTER_AREA,
                                borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0))
    # Sky: pixels whose ray goes above the horizon (or behind the camera).
    rink_from_image = np.linalg.inv(H)
    u, v = np.meshgrid(np.arange(width, dtype=np.float64), np.arange(height, dtype=np.float64))
    w = rink_from_image[2, 0] * u + rink_from_image[2, 1] * v + rink_from_image[2, 2]
    sky = w <= 1e-6
    wd = np.where(np.abs(w) > 1e-9, w, 1e-9)
    xr = (rink_from_image[0, 0] * u + rink_from_image[0, 1] * v + rink_from_image[0, 2]) / wd
    yr = (rink_from_image[1, 0] * u + rink_from_image[1, 1] * v + rink_from_image[1, 2]) / wd
    outside = sky | (np.abs(xr) > spec.length_m / 2 + margin) | (np.abs(yr) > spec.width_m / 2 + margin)
    # Crowd: a texture fixed to the ray (through its plane intersection, also
    # for rays above the horizon), so it moves with the camera like a real one.
    qx = np.floor(np.clip(xr, -1e4, 1e4) / 0.7).astype(np.int64)
    qy = np.floor(np.clip(yr, -1e4, 1e4) / 0.7).astype(np.int64)
    palette = venue_rng.integers(20, 140, (4096, 3)).astype(np.uint8)
    crowd = palette[(qx * 73856093 ^ qy * 19349663) % 4096]
    frame[outside] = crowd[outside]

    # Players: dark/jersey-coloured upright blobs on random ice points in view.
    for _ in range(n_players):
        for _try in range(20):
            xy = np.array([rng.uniform(-spec.length_m / 2 + 2, spec.length_m / 2 - 2),
                           rng.uniform(-spec.width_m / 2 + 2, spec.width_m / 2 - 2)])
            p = H @ np.r_[xy, 1.0]
            if p[2] <= 0:
                continue
            uv = p[:2] / p[2]
            if 0 <= uv[0] < width and 0 <= uv[1] < height:
                break
        else:
            continue
        # Body height ~1 m in the image: scale from the local metre size.
        q = H @ np.r_[xy + [0.5, 0.0], 1.0]
        m_px = np.linalg.norm(q[:2] / q[2] - uv) * 2
        colour = [look.red_bgr, look.blue_bgr, (30, 30, 30)][rng.integers(0, 3)]
        axes = (max(2, int(0.35 * m_px)), max(3, int(0.6 * m_px)))
        cv2.ellipse(frame, (int(uv[0]), int(uv[1] - axes[1])), axes, 0, 0, 360, colour, -1, cv2.LINE_AA)

    img = frame.astype(np.float32) * look.gain
    if look.vignette > 0:
        r2 = ((u - width / 2) / (width / 2)) ** 2 + ((v - height / 2) / (height / 2)) ** 2
        img *= (1.0 - look.vignette * r2 / 2.0)[:, :, None].astype(np.float32)
    if look.blur_px > 0:
        img = cv2.GaussianBlur(img, (0, 0), look.blur_px)
    img += rng.normal(0, look.noise_sigma, img.shape).astype(np.float32)
    return np.clip(img, 0, 255).astype(np.uint8)
