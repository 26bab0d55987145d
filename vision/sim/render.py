"""Render a ``SceneState`` through a ``Camera`` into a broadcast-like BGR frame.

Pipeline per frame (all geometry in rink metres, see ``docs/interfaces.md``):

1. Ice: one ``cv2.remap`` from a high-resolution top-down texture. For every
   (distorted) output pixel the map holds its undistorted pixel (a coarse
   ``undistortPoints`` grid, bilinearly upsampled, cached per intrinsics), sent
   through the exact ice-plane homography ``topdown_from_rink @ inv(H_image_from_rink)``.
   One resampling, exact geometry: a painted landmark lands where ``Camera.project``
   puts it. Reflections of the ceiling lights are added where the mirrored lights
   project.
2. Everything above the ice (boards with kick plate and ads, glass, stands with a
   crowd, goal frames and nets, players, puck) is a list of 3D primitives: filled
   polygons, textured quads, tubes (thick lines) and spheres. They are clipped to
   the view frustum, projected with the full lens model (``Camera.project``) and
   painted far to near by camera depth (painter's algorithm). The same painting
   writes an owner label per pixel, from which the visibility of each player and
   the puck is measured.
3. Camera effects: pan blur from the previous camera, puck blur along its velocity,
   global gain / white balance / vignetting, sensor noise, then the broadcast score
   bug (graphics are keyed in after the camera).

The renderer knows nothing about rules. All appearance comes from a ``Look``.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from functools import lru_cache
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from vision.sim.camera import Camera
from vision.sim.looks import Look
from vision.sim.scene import PlayerState, SceneState

LABEL_NONE = 0  # ice or nothing
LABEL_SCENERY = 253  # boards, stands, goal posts
LABEL_PUCK = 255
_MAX_PLAYERS = 250

_NEAR_M = 0.05
_SHIFT = 3  # fixed-point bits for sub-pixel polygon vertices
_SCALE = float(1 << _SHIFT)


def _bgr(c: Any) -> tuple[int, int, int]:
    return tuple(int(v) for v in np.clip(np.round(np.asarray(c, dtype=np.float64)), 0, 255))


def _mix(a: Any, b: Any, w: float) -> tuple[int, int, int]:
    """(1 - w)·a + w·b, BGR."""
    return _bgr((1.0 - w) * np.asarray(a, float) + w * np.asarray(b, float))


@lru_cache(maxsize=4096)
def _shade_cached(c: tuple, k: float) -> tuple[int, int, int]:
    return tuple(int(min(255.0, max(0.0, round(float(v) * k)))) for v in c)


def _shade(c: Any, k: float) -> tuple[int, int, int]:
    return _shade_cached(tuple(int(v) for v in c), float(k))


# =============================================================== primitives
@dataclass
class _Prim:
    """One 3D primitive.

    kind: "poly" (pts (N,3), filled), "tex" (pts (4,3) + tex + uv (4,2)), "line"
    (pts (2,3), width_m), "sphere" (pts (1,3), radius_m).
    """

    kind: str
    pts: np.ndarray
    color: tuple[int, int, int] = (0, 0, 0)
    owner: int = LABEL_SCENERY
    alpha: float = 1.0
    width_m: float = 0.0
    tex: np.ndarray | None = None
    uv: np.ndarray | None = None
    text: str | None = None
    text_color: tuple[int, int, int] = (255, 255, 255)
    depth: float = 0.0
    back: "_Prim | None" = None  # drawn instead when seen from behind (normal test)
    normal: np.ndarray | None = None  # (3,) outward normal in rink frame (for ``back``)
    sweep: np.ndarray | None = None  # (3,) puck travel during the exposure, rink m (motion blur)
    centre: np.ndarray | None = None


@dataclass
class _View:
    """Per-frame camera quantities."""

    cam: Camera
    f_px: float
    ax: float  # extended frustum half-width, normalised units
    ay: float
    position: np.ndarray

    def clip_planes(self) -> np.ndarray:
        """(5, 3) plane normals n with n·X ≥ 0 inside (plus near plane offset)."""
        return np.array(
            [[0.0, 0.0, 1.0], [-1.0, 0.0, self.ax], [1.0, 0.0, self.ax], [0.0, -1.0, self.ay], [0.0, 1.0, self.ay]]
        )


def _clip_poly(P: np.ndarray, planes: np.ndarray, near: float) -> np.ndarray:
    """Sutherland–Hodgman clip of a polygon (N, D), columns 0..2 camera xyz, to planes."""
    offs = np.array([-near, 0.0, 0.0, 0.0, 0.0])
    for n, o in zip(planes, offs):
        if len(P) == 0:
            break
        d = P[:, :3] @ n + o
        if np.all(d >= 0):
            continue
        out = []
        m = len(P)
        for i in range(m):
            a, b = P[i], P[(i + 1) % m]
            da, db = d[i], d[(i + 1) % m]
            if da >= 0:
                out.append(a)
            if (da >= 0) != (db >= 0):
                s = da / (da - db)
                out.append(a + s * (b - a))
        P = np.array(out) if out else np.zeros((0, P.shape[1]))
    return P


def _clip_segment(a: np.ndarray, b: np.ndarray, planes: np.ndarray, near: float):
    offs = np.array([-near, 0.0, 0.0, 0.0, 0.0])
    t0, t1 = 0.0, 1.0
    for n, o in zip(planes, offs):
        da, db = a @ n + o, b @ n + o
        if da < 0 and db < 0:
            return None
        if da < 0:
            t0 = max(t0, da / (da - db))
        elif db < 0:
            t1 = min(t1, da / (da - db))
    if t0 >= t1:
        return None
    return a + t0 * (b - a), a + t1 * (b - a)


# =============================================================== renderer
class Renderer:
    """Renders scene states of one venue.

    Args:
        rink: a ``calibration.rink.RinkModel``.
        seed: seeds the venue's textures (ice scratches, crowd, ads, logos) and the
            per-frame noise; the same seed, look and inputs give identical bytes.
        look: appearance; ``Look.from_seed(seed)`` when None.
        texture_cm_per_px: resolution of the finest ice texture level.
    """

    def __init__(self, rink: Any, seed: int = 0, look: Look | None = None, texture_cm_per_px: float = 2.0):
        self.rink = rink
        self.spec = rink.spec
        self.seed = int(seed)
        self.look = look if look is not None else Look.from_seed(seed, rink.spec.length_m, rink.spec.width_m)
        self._rng = np.random.default_rng([self.seed, 1])
        self._margin_m = 1.0
        self._build_ice_texture(float(texture_cm_per_px))
        self._static: list[_Prim] = []
        self._build_boards_and_glass()
        self._build_stands()
        self._build_goals()
        self._grid_cache: OrderedDict = OrderedDict()
        self._post_cache: dict = {}
        self._frustum_cache: dict = {}
        self._static_batch = None
        self._player_kit: dict[int, dict[str, Any]] = {}
        self._sprite = self._gaussian_sprite(64)

    # ----------------------------------------------------------------- ice
    def _build_ice_texture(self, cm: float) -> None:
        rink, L = self.rink, self.look
        rng = np.random.default_rng([self.seed, 2])
        base = rink.render_topdown(cm, margin_m=self._margin_m)
        T = rink.topdown_from_rink(cm, margin_m=self._margin_m)
        h, w = base.shape[:2]
        k = 100.0 / cm  # px per metre

        def to_px(coords) -> list[np.ndarray]:
            a = np.asarray(coords, dtype=np.float64)[:, :2]
            return np.round((a @ T[:2, :2].T + T[:2, 2]) * 16).astype(np.int32)

        def polys(geom):
            return [geom] if geom.geom_type == "Polygon" else list(getattr(geom, "geoms", []))

        def fill(img, geom, color, aa=True):
            for p in polys(geom):
                if p.is_empty:
                    continue
                cnt = [to_px(p.exterior.coords)] + [to_px(i.coords) for i in p.interiors]
                cv2.fillPoly(img, cnt, color, cv2.LINE_AA if aa else cv2.LINE_8, 4)

        ice_mask = np.zeros((h, w), np.uint8)
        fill(ice_mask, rink.ice, 255, aa=False)
        # Ice: base colour, low-frequency mottle (uneven flooding and lighting).
        mottle = rng.normal(0.0, 1.0, (max(2, h // 80), max(2, w // 80))).astype(np.float32)
        mottle = cv2.resize(mottle, (w, h), interpolation=cv2.INTER_CUBIC) * L.ice_mottle
        ice8 = np.empty((h, w, 3), np.uint8)
        ice8[:] = L.ice_bgr
        ice8 = cv2.add(ice8, cv2.merge([mottle, mottle, mottle]), dtype=cv2.CV_8U)
        # Logos painted in the ice, under the lines.
        for logo in L.logos:
            self._paint_logo(ice8, logo, T, k)
        # Markings in the look's paint shades, faded towards the ice.
        ice_col = np.asarray(L.ice_bgr, float)
        for m in rink.markings:
            col = {"red": L.red_paint_bgr, "blue": L.blue_paint_bgr, "light_blue": L.crease_fill_bgr}.get(
                m.color, tuple(m.rgb[::-1])
            )
            fill(ice8, m.geometry, _mix(col, ice_col, L.paint_fade))
        tex = base.copy()
        np.copyto(tex, ice8, where=ice_mask[:, :, None] > 0)
        # Scratches: short curved blade tracks, lighter or darker.
        delta = np.zeros((h, w), np.float32)
        for _ in range(L.scratch_count):
            x0, y0 = rng.uniform(0, w), rng.uniform(0, h)
            n = int(rng.integers(3, 8))
            ang = rng.uniform(0, 2 * np.pi)
            step = rng.uniform(0.1, 0.5) * k
            curv = rng.normal(0, 0.15)
            pts = []
            for _j in range(n):
                pts.append((x0, y0))
                x0 += step * math.cos(ang)
                y0 += step * math.sin(ang)
                ang += curv
            val = float(rng.choice([-0.6, 1.0]) * rng.uniform(0.3, 1.0) * L.scratch_strength)
            cv2.polylines(delta, [np.round(np.array(pts) * 4).astype(np.int32)], False, val, 1, cv2.LINE_AA, 2)
        delta = cv2.GaussianBlur(delta, (3, 3), 0)
        # Snow: shaved ice piles up along the boards and in front of the nets
        # (computed at 1/8 resolution: it is smooth).
        if L.snow_amount > 0:
            hs, ws = max(2, h // 8), max(2, w // 8)
            small_ice = cv2.resize(ice_mask, (ws, hs), interpolation=cv2.INTER_AREA)
            ks = k / 8.0
            snow = rng.normal(0, 1, (max(2, h // 12), max(2, w // 12))).astype(np.float32)
            snow = cv2.resize(snow, (ws, hs), interpolation=cv2.INTER_CUBIC)
            dist_px = cv2.distanceTransform((small_ice > 127).astype(np.uint8), cv2.DIST_L2, 3)
            near_board = np.exp(-dist_px / (1.5 * ks))
            crease_zone = np.zeros((hs, ws), np.float32)
            for e in (1, -1):
                cx, cy = (T @ np.array([e * (self.spec.goal_line_x_m - 2.5), 0.0, 1.0]))[:2] / 8.0
                cv2.ellipse(crease_zone, (int(cx), int(cy)), (int(3.5 * ks), int(4.0 * ks)), 0, 0, 360, 1.0, -1)
            crease_zone = cv2.GaussianBlur(crease_zone, (0, 0), 0.8 * ks)
            weight = np.clip(0.35 * near_board + 0.5 * crease_zone + 0.08, 0, 1)
            alpha = np.clip((snow - 0.3) * 0.6, 0, 1) * weight * L.snow_amount * 0.6
            alpha = cv2.resize(alpha, (w, h), interpolation=cv2.INTER_LINEAR) * (ice_mask > 0)
        else:
            alpha = np.zeros((h, w), np.float32)
        # tex·(1 − a) + 252·a + scratches·(1 − a), per channel, one float pass.
        keep = (1.0 - alpha).astype(np.float32)
        add = (252.0 * alpha + delta * (ice_mask > 0) * keep).astype(np.float32)
        texf = tex.astype(np.float32)
        texf *= keep[:, :, None]
        texf += add[:, :, None]
        np.clip(texf, 0, 255, out=texf)
        tex = texf.astype(np.uint8)
        # Mip levels: pick per frame the one matching the ground sampling.
        self._ice_levels: list[tuple[float, np.ndarray, np.ndarray]] = [(cm, tex, T)]
        img, Tl, c = tex, T, cm
        for _ in range(2):
            h2, w2 = img.shape[0] // 2, img.shape[1] // 2
            img = cv2.resize(img[: 2 * h2, : 2 * w2], (w2, h2), interpolation=cv2.INTER_AREA)
            # 2×2 box average: pixel centre u → (u + 0.5)/2 − 0.5.
            S = np.array([[0.5, 0, -0.25], [0, 0.5, -0.25], [0, 0, 1.0]])
            Tl, c = S @ Tl, c * 2
            self._ice_levels.append((c, img, Tl))

    def _paint_logo(self, img: np.ndarray, logo, T: np.ndarray, k: float) -> None:
        size_px = max(8, int(logo.size_m * k))
        patch = np.zeros((size_px, size_px, 3), np.uint8)
        mask = np.zeros((size_px, size_px), np.uint8)
        c = size_px // 2
        col, col2 = logo.color_bgr, logo.color2_bgr
        if logo.kind == "text":
            font = cv2.FONT_HERSHEY_DUPLEX
            (tw, th), _ = cv2.getTextSize(logo.text, font, 1.0, 2)
            scale = 0.9 * size_px / max(tw, 1)
            thick = max(1, int(scale * 2.5))
            (tw, th), _ = cv2.getTextSize(logo.text, font, scale, thick)
            org = (c - tw // 2, c + th // 2)
            for tgt, v in ((patch, col), (mask, 255)):
                cv2.putText(tgt, logo.text, org, font, scale, v, thick, cv2.LINE_AA)
        elif logo.kind in ("circle", "ring"):
            r = int(0.45 * size_px)
            cv2.circle(patch, (c, c), r, col, -1, cv2.LINE_AA)
            cv2.circle(mask, (c, c), r, 255, -1, cv2.LINE_AA)
            cv2.circle(patch, (c, c), int(r * 0.7), col2, -1 if logo.kind == "circle" else max(2, r // 8), cv2.LINE_AA)
        elif logo.kind == "box":
            a, b = int(0.05 * size_px), int(0.95 * size_px)
            q = int(0.3 * size_px)
            cv2.rectangle(patch, (a, q), (b, size_px - q), col, -1)
            cv2.rectangle(mask, (a, q), (b, size_px - q), 255, -1)
            cv2.rectangle(patch, (a + q // 4, q + q // 4), (b - q // 4, size_px - q - q // 4), col2, -1)
        else:  # diamond
            pts = np.array([[c, 0], [size_px - 1, c], [c, size_px - 1], [0, c]], np.int32)
            cv2.fillConvexPoly(patch, pts, col, cv2.LINE_AA)
            cv2.fillConvexPoly(mask, pts, 255, cv2.LINE_AA)
            cv2.fillConvexPoly(patch, ((pts - c) * 0.6 + c).astype(np.int32), col2, cv2.LINE_AA)
        cx, cy = (T @ np.array([logo.xy_rink_m[0], logo.xy_rink_m[1], 1.0]))[:2]
        # Rotate about the patch centre and place at (cx, cy); +y up in the texture.
        A = cv2.getRotationMatrix2D((c, c), logo.angle_deg, 1.0)
        A[:, 2] += (cx - c, cy - c)
        h, w = img.shape[:2]
        corners = np.array([[0, 0, 1], [size_px, 0, 1], [0, size_px, 1], [size_px, size_px, 1.0]]) @ A.T
        x0, y0 = np.maximum(np.floor(corners.min(0)).astype(int) - 1, 0)
        x1, y1 = np.minimum(np.ceil(corners.max(0)).astype(int) + 2, [w, h])
        if x1 <= x0 or y1 <= y0:
            return
        A[:, 2] -= (x0, y0)
        warped = cv2.warpAffine(patch, A, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR)
        wmask = cv2.warpAffine(mask, A, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR)
        a = (wmask.astype(np.float32) / 255.0 * logo.alpha)[:, :, None]
        roi = img[y0:y1, x0:x1].astype(np.float32)
        img[y0:y1, x0:x1] = np.clip(roi * (1 - a) + warped * a, 0, 255).astype(np.uint8)

    def _undistorted_grid(self, cam: Camera) -> np.ndarray:
        """(H, W, 2) float32: the undistorted pinhole pixel of every distorted pixel (cached)."""
        key = (cam.K.tobytes(), cam.dist.tobytes(), cam.width, cam.height)
        hit = self._grid_cache.get(key)
        if hit is not None:
            self._grid_cache.move_to_end(key)
            return hit
        W, H = cam.width, cam.height
        if not cam.has_distortion:
            xs, ys = np.meshgrid(np.arange(W, dtype=np.float32), np.arange(H, dtype=np.float32))
            grid = np.dstack([xs, ys])
        else:
            # Coarse grid on cv2.resize's sample positions (centre of each step×step
            # cell) over the image padded by one cell, so that resizing it back
            # interpolates bilinearly at exactly every pixel, edges included.
            step, pad = 8, 8
            nx, ny = -(-(W + 2 * pad) // step), -(-(H + 2 * pad) // step)
            gx = (np.arange(nx) + 0.5) * step - 0.5 - pad
            gy = (np.arange(ny) + 0.5) * step - 0.5 - pad
            pts = np.stack(np.meshgrid(gx, gy), -1).reshape(-1, 1, 2)
            crit = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 40, 1e-12)
            und = cv2.undistortPoints(pts, cam.K, cam.dist, R=np.eye(3), P=cam.K, criteria=crit)
            coarse = und.reshape(ny, nx, 2).astype(np.float32)
            grid = cv2.resize(coarse, (nx * step, ny * step), interpolation=cv2.INTER_LINEAR)
            grid = np.ascontiguousarray(grid[pad:pad + H, pad:pad + W])
        self._grid_cache[key] = grid
        while len(self._grid_cache) > 4:
            self._grid_cache.popitem(last=False)
        return grid

    def _render_ice(self, cam: Camera) -> np.ndarray:
        grid = self._undistorted_grid(cam)
        H_img = cam.H_image_from_rink()
        # Ground sampling at the image centre picks the texture level.
        cx, cy = cam.K[0, 2], cam.K[1, 2]
        Hinv = np.linalg.inv(H_img)
        p = np.array([[cx, cy, 1.0], [cx + 1, cy, 1.0], [cx, cy + 1, 1.0]]) @ Hinv.T
        level = self._ice_levels[0]
        if np.all(p[:, 2] * p[0, 2] > 0):
            q = p[:, :2] / p[:, 2:3]
            a_, b_ = q[1] - q[0], q[2] - q[0]
            gsd_cm = 100.0 * math.sqrt(abs(a_[0] * b_[1] - a_[1] * b_[0]))
            for lv in self._ice_levels:
                if lv[0] <= gsd_cm * 1.25:
                    level = lv
        _, tex, T = level
        M = T @ Hinv
        tex_xy = cv2.perspectiveTransform(grid, M)
        # Rays at or above the horizon do not meet the ice: send them off the texture.
        g = (cam.R.T @ np.linalg.inv(cam.K))[2]
        border = np.concatenate([grid[0], grid[-1], grid[:, 0], grid[:, -1]])
        if np.max(border @ g[:2] + g[2]) > -1e-9:
            up = (grid[:, :, 0] * g[0] + grid[:, :, 1] * g[1] + g[2]) > -1e-9
            tex_xy[up] = -1e4
        return cv2.remap(tex, tex_xy, None, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                         borderValue=self.look.stands_bgr)

    @staticmethod
    def _gaussian_sprite(n: int) -> np.ndarray:
        r = (np.arange(n) - (n - 1) / 2) / (n / 2)
        xx, yy = np.meshgrid(r, r)
        return np.exp(-3.0 * (xx**2 + yy**2)).astype(np.float32)

    def _add_reflections(self, frame: np.ndarray, view: _View) -> None:
        L, s = self.look, self.spec
        if L.reflection_strength <= 0:
            return
        xs = np.linspace(-s.length_m / 2 + 6, s.length_m / 2 - 6, L.light_cols)
        ys = np.linspace(-s.width_m / 2 + 5, s.width_m / 2 - 5, L.light_rows)
        mirrored = np.array([[x, y, -L.light_height_m] for x in xs for y in ys])
        cam = view.cam
        d = cam.depth(mirrored)
        ok = d > 1.0
        if not ok.any():
            return
        uv = cam.project(mirrored[ok])
        Hh, Ww = frame.shape[:2]
        for (u, v), dep in zip(uv, d[ok]):
            rx = view.f_px * L.reflection_size_m / dep
            ry = rx * 1.6  # glossy reflections stretch towards the camera
            if rx < 1.0 or u + rx < 0 or u - rx >= Ww or v + ry < 0 or v - ry >= Hh:
                continue
            x0, x1 = int(max(0, u - rx)), int(min(Ww, u + rx + 1))
            y0, y1 = int(max(0, v - ry)), int(min(Hh, v + ry + 1))
            if x1 <= x0 or y1 <= y0:
                continue
            # Sample the sprite for this ROI.
            mx = ((np.arange(x0, x1) - (u - rx)) / (2 * rx) * 63).astype(np.float32)
            my = ((np.arange(y0, y1) - (v - ry)) / (2 * ry) * 63).astype(np.float32)
            MX, MY = np.meshgrid(mx, my)
            blob = cv2.remap(self._sprite, MX, MY, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0)
            add = (blob * L.reflection_strength)[:, :, None]
            roi = frame[y0:y1, x0:x1]
            roi[:] = np.clip(roi.astype(np.float32) + add, 0, 255).astype(np.uint8)

    # ----------------------------------------------------------------- scenery
    def _build_boards_and_glass(self) -> None:
        L, s = self.look, self.spec
        rng = np.random.default_rng([self.seed, 3])
        perim_m = 2 * (s.length_m + s.width_m) - (8 - 2 * math.pi) * s.corner_radius_m
        n = max(60, int(round(perim_m / 1.0)))
        # Clockwise, so that the strip's u runs left to right seen from the ice.
        P = self.rink.boards_outline_xy(n)[::-1].copy()
        self._boards_xy = P
        seg_m = perim_m / n
        bh, kp = L.board_height_m, L.kick_plate_height_m
        px_m = 100.0  # strip resolution, px per metre
        sw, sh = int(round(seg_m * px_m)), int(round(bh * px_m))
        strip = np.empty((sh, sw * n, 3), np.uint8)
        strip[:] = L.board_bgr
        # Kick plate, cap rail.
        strip[sh - int(round(kp * px_m)):] = L.kick_plate_bgr
        strip[: max(2, int(0.05 * px_m))] = L.cap_rail_bgr
        # Ads: panels along the boards.
        total_px = sw * n
        panel_px = int(L.ad_panel_m * px_m)
        x = int(rng.integers(0, panel_px))
        top, bot = int(0.08 * px_m), sh - int(round((kp + 0.04) * px_m))
        font = cv2.FONT_HERSHEY_DUPLEX
        while x + panel_px < total_px:
            if rng.random() < L.ad_fraction:
                bg = L.ad_colors[int(rng.integers(len(L.ad_colors)))]
                word = L.ad_words[int(rng.integers(len(L.ad_words)))]
                cv2.rectangle(strip, (x + 3, top), (x + panel_px - 3, bot), bg, -1)
                lum = 0.114 * bg[0] + 0.587 * bg[1] + 0.299 * bg[2]
                fg = (20, 20, 20) if lum > 140 else (245, 245, 245)
                if rng.random() < 0.3:
                    fg = L.ad_colors[int(rng.integers(len(L.ad_colors)))]
                    if fg == bg:
                        fg = (245, 245, 245)
                (tw, th), _ = cv2.getTextSize(word, font, 1.0, 2)
                scale = min(0.8 * panel_px / tw, 0.6 * (bot - top) / th)
                thick = max(1, int(scale * 2))
                (tw, th), _ = cv2.getTextSize(word, font, scale, thick)
                cv2.putText(strip, word, (x + (panel_px - tw) // 2, (top + bot + th) // 2), font, scale, fg, thick,
                            cv2.LINE_AA)
            x += panel_px
        self._board_strip = strip
        back_col = _shade(L.board_bgr, 0.75)
        half_l_straight = s.length_m / 2 - s.corner_radius_m
        for i in range(n):
            a, b = P[i], P[(i + 1) % n]
            mid = (a + b) / 2
            d = b - a
            nrm = np.array([-d[1], d[0], 0.0])
            nrm /= np.linalg.norm(nrm)
            if nrm[:2] @ mid < 0:
                nrm = -nrm
            quad = np.array([[a[0], a[1], bh], [b[0], b[1], bh], [b[0], b[1], 0.0], [a[0], a[1], 0.0]])
            tex = strip[:, i * sw:(i + 1) * sw]
            uv = np.array([[0, 0], [sw, 0], [sw, sh], [0, sh]], np.float64) - 0.5
            back = _Prim("poly", quad, color=back_col)
            self._static.append(_Prim("tex", quad, tex=tex, uv=uv, back=back, normal=nrm, centre=np.r_[mid, bh / 2]))
        # Glass: panes of two board segments, stanchions between them.
        if L.glass:
            for i in range(0, n, 2):
                a, b = P[i], P[(i + 2) % n]
                mid = (a + b) / 2
                gh = L.glass_height_end_m if abs(mid[0]) > half_l_straight + 0.5 else L.glass_height_side_m
                z0, z1 = bh + 0.02, bh + gh
                pane = np.array([[a[0], a[1], z0], [b[0], b[1], z0], [b[0], b[1], z1], [a[0], a[1], z1]])
                self._static.append(_Prim("poly", pane, color=L.glass_tint_bgr, alpha=L.glass_alpha, owner=-1))
                if rng.random() < 0.5 and L.glass_reflection > 0:
                    t0 = rng.uniform(0.0, 0.6)
                    wdt = rng.uniform(0.1, 0.3)
                    sl = rng.uniform(0.2, 0.5)
                    pa = lambda t, z: np.r_[a + (b - a) * t, z]  # noqa: E731
                    streak = np.array([pa(t0, z0), pa(t0 + wdt, z0), pa(min(1, t0 + wdt + sl), z1),
                                       pa(min(1, t0 + sl), z1)])
                    self._static.append(_Prim("poly", streak, color=(255, 255, 255),
                                              alpha=L.glass_reflection * 0.35, owner=-1))
                if (i // 2) % max(1, int(round(L.stanchion_spacing_m / (2 * seg_m)))) == 0:
                    self._static.append(_Prim("line", np.array([[a[0], a[1], z0], [a[0], a[1], z1]]),
                                              color=(150, 150, 150), width_m=0.04, owner=-1))

    def _build_stands(self) -> None:
        L, s = self.look, self.spec
        rng = np.random.default_rng([self.seed, 4])
        perim_m = 2 * (s.length_m + s.width_m) - (8 - 2 * math.pi) * s.corner_radius_m
        n = max(24, int(round(perim_m / 4.0)))
        P = self.rink.boards_outline_xy(n)[::-1].copy()
        cen = P / np.linalg.norm(P, axis=1, keepdims=True)
        # Outward normals of a rounded rectangle: along the axis on straight parts.
        a_, b_ = s.length_m / 2 - s.corner_radius_m, s.width_m / 2 - s.corner_radius_m
        core = np.column_stack([np.clip(P[:, 0], -a_, a_), np.clip(P[:, 1], -b_, b_)])
        nrm = P - core
        nrm /= np.maximum(np.linalg.norm(nrm, axis=1, keepdims=True), 1e-9)
        nrm[np.linalg.norm(P - core, axis=1) < 1e-6] = cen[np.linalg.norm(P - core, axis=1) < 1e-6]
        gap, depth, rise = 1.2, L.stands_depth_m, L.stands_rise_m
        z_low = L.board_height_m + 0.3
        # Crowd texture: rows of people (head + torso blobs) on the stands colour.
        px_m = 20.0
        seg_len = perim_m * (1 + 0.0) / n
        outer_len = (perim_m + 2 * math.pi * (gap + depth)) / n
        tw = int(max(seg_len, outer_len) * px_m)
        slope = math.hypot(depth, rise - z_low)
        th = int(slope * px_m)
        crowd = np.empty((th, tw * n, 3), np.uint8)
        crowd[:] = L.stands_bgr
        row_px = 0.85 / slope * th
        seat_px = 0.55 * px_m
        # Clothes: mostly muted, some team colours and whites.
        palette = rng.uniform(0, 255, (12, 3))
        palette = (0.45 * palette + 0.55 * palette.mean(1, keepdims=True)) * L.crowd_brightness
        y = th - row_px * 0.5
        while y > 0:
            cv2.line(crowd, (0, int(y + row_px * 0.35)), (tw * n - 1, int(y + row_px * 0.35)),
                     _shade(L.stands_bgr, 0.7), max(1, int(row_px * 0.15)))
            xs = np.arange(rng.uniform(0, seat_px), tw * n, seat_px)
            occ = rng.random(len(xs)) < L.crowd_density
            xs = xs[occ]
            m = len(xs)
            xj = (xs + rng.normal(0, 0.08 * px_m, m)).astype(int)
            shirts = np.minimum(palette[rng.integers(len(palette), size=m)] * rng.uniform(0.6, 1.1, (m, 1)), 255.0)
            skins = np.minimum(np.outer(rng.uniform(0.35, 1.0, m) * L.crowd_brightness * 1.3, [120, 160, 210]), 255.0)
            ax = (int(0.2 * px_m), int(0.26 * px_m))
            rh, yi, yh = int(0.1 * px_m), int(y), int(y - 0.3 * px_m)
            for x, sh, sk in zip(xj.tolist(), shirts.tolist(), skins.tolist()):
                cv2.ellipse(crowd, (x, yi), ax, 0, 0, 360, sh, -1)
                cv2.circle(crowd, (x, yh), rh, sk, -1)
            y -= row_px
        crowd = cv2.GaussianBlur(crowd, (3, 3), 0)
        self._crowd_strip = crowd
        wall_col = _shade(L.stands_bgr, 0.6)
        for i in range(n):
            j = (i + 1) % n
            ai, aj = P[i] + nrm[i] * gap, P[j] + nrm[j] * gap
            bi, bj = P[i] + nrm[i] * (gap + depth), P[j] + nrm[j] * (gap + depth)
            quad = np.array([[bi[0], bi[1], rise], [bj[0], bj[1], rise], [aj[0], aj[1], z_low], [ai[0], ai[1], z_low]])
            tex = crowd[:, i * tw:(i + 1) * tw]
            uv = np.array([[0, 0], [tw, 0], [tw, th], [0, th]], np.float64) - 0.5
            mid_n = (nrm[i] + nrm[j]) / 2
            self._static.append(_Prim("tex", quad, tex=tex, uv=uv, normal=np.r_[mid_n, 0.0],
                                      centre=np.r_[(ai + aj) / 2, z_low], text="stands", owner=-1))
            wall = np.array([[bi[0], bi[1], rise + 12.0], [bj[0], bj[1], rise + 12.0], [bj[0], bj[1], rise],
                             [bi[0], bi[1], rise]])
            self._static.append(_Prim("poly", wall, color=wall_col, normal=np.r_[mid_n, 0.0],
                                      centre=np.r_[(ai + aj) / 2, z_low], text="stands", owner=-1))
            # Front fascia under the first row (behind the glass).
            fascia = np.array([[ai[0], ai[1], z_low], [aj[0], aj[1], z_low], [aj[0], aj[1], 0.0],
                               [ai[0], ai[1], 0.0]])
            self._static.append(_Prim("poly", fascia, color=_shade(L.stands_bgr, 0.5), normal=np.r_[mid_n, 0.0],
                                      centre=np.r_[(ai + aj) / 2, z_low], text="stands", owner=-1))

    def _build_goals(self) -> None:
        s = self.spec
        red = self.look.red_paint_bgr
        for e in (1, -1):
            segs = self.rink.goal_frame_segments(e)
            for k, (p0, p1) in enumerate(segs):
                if k < 3:  # posts and crossbar
                    self._static.append(_Prim("line", np.array([p0, p1]), color=_shade(red, 1.1),
                                              width_m=s.goal_post_diameter_m))
                else:
                    # 218: everything but posts and crossbar is white.
                    self._static.append(_Prim("line", np.array([p0, p1]), color=(235, 235, 235), width_m=0.03))
            # Net: translucent faces between the frame tubes.
            x0 = e * s.goal_line_x_m
            yp = s.goal_post_gap_m / 2 + s.goal_post_diameter_m / 2
            zb = s.goal_height_m + s.goal_post_diameter_m / 2
            shelf = 0.4 * s.goal_depth_m
            th = np.linspace(0.0, math.pi, 25)
            arc = np.c_[self.rink.goal_base_xy(e, n_arc=len(th) - 1), np.zeros(len(th))]
            tl, tr = np.array([x0 + e * shelf, -0.9 * yp, zb]), np.array([x0 + e * shelf, 0.9 * yp, zb])
            t_l = math.acos(0.9)
            il = int(np.searchsorted(th, t_l))
            ir = int(np.searchsorted(th, math.pi - t_l))
            faces = [
                np.array([[x0, -yp, zb], [x0, yp, zb], tr, tl]),
                np.vstack([[[x0, -yp, zb]], [tl], arc[il::-1]]),
                np.vstack([[[x0, yp, zb]], [tr], arc[ir:]]),
                np.vstack([[tl], [tr], arc[ir:il - 1:-1] if il > 0 else arc[ir::-1]]),
            ]
            for fpts in faces:
                self._static.append(_Prim("poly", fpts, color=(245, 245, 245), alpha=0.18, owner=-1))

    # ----------------------------------------------------------------- players
    def _kit(self, p: PlayerState) -> dict[str, Any]:
        kit = self._player_kit.get(p.id)
        if kit is None:
            r = np.random.default_rng([self.seed, 5, int(p.id)])
            L = self.look
            kit = {
                "blade_m": float(r.uniform(0.16, 0.32)),
                "torso_m": float(r.uniform(0.42, 0.55)),
                "width_m": float(r.uniform(0.36, 0.46)),
                "skin": _bgr(np.array([125, 165, 215]) * r.uniform(0.45, 1.05)),
                "helmet": None if L.helmet_same_as_jersey or r.random() < 0.5 else
                (_bgr((30, 30, 30)) if r.random() < 0.5 else _bgr((235, 235, 235))),
                "stick_m": float(r.uniform(0.7, 0.85)),
                "lean": float(r.uniform(0.0, 0.12)),
            }
            self._player_kit[p.id] = kit
        return kit

    def _player_prims(self, p: PlayerState, owner: int) -> tuple[list[_Prim], np.ndarray, np.ndarray]:
        """Primitives of one player, its shadow polygon (M, 3) and key points (K, 3) for in-frame tests."""
        L = self.look
        kit = self._kit(p)
        h = float(p.heading_rad)
        f = np.array([math.cos(h), math.sin(h), 0.0])
        lft = np.array([-math.sin(h), math.cos(h), 0.0])
        S = np.array([p.xy_rink_m[0], p.xy_rink_m[1], 0.0])
        jersey = _bgr(p.color_bgr)
        helmet = kit["helmet"] or jersey
        lum = 0.114 * jersey[0] + 0.587 * jersey[1] + 0.299 * jersey[2]
        num_col = (25, 25, 25) if lum > 150 else (245, 245, 245)
        metal = (200, 200, 205)
        dark = _shade(L.sledge_bgr, 0.45)
        out: list[_Prim] = []

        def Z(v, z):
            return np.array([v[0], v[1], z])

        def line(a, b, w, col):
            out.append(_Prim("line", np.array([a, b], float), color=col, width_m=w, owner=owner))

        def sph(c, r, col):
            out.append(_Prim("sphere", np.array([c], float), color=col, width_m=r, owner=owner))

        def box(c, ax1, ax2, h1, h2, d1, d2, z0, z1, col):
            pts = []
            for u in (h1, h2):
                for v in (d1, d2):
                    for z in (z0, z1):
                        q = c + ax1 * u + ax2 * v
                        pts.append([q[0], q[1], z])
            out.append(_Prim("poly", np.array(pts), color=col, owner=owner, text="hull"))

        blades = np.asarray(p.blades_rink_m, float).reshape(2, 2)
        stick = np.asarray(p.stick_blade_rink_m, float).reshape(-1)
        stick3 = np.array([stick[0], stick[1], stick[2] if len(stick) > 2 else 0.02])
        goalie = p.role == "goalkeeper"
        keys = [Z(blades[0], 0.0), Z(blades[1], 0.0), stick3]
        if p.kind == "standing":
            hip = S + Z(f * 0.0, 0.9)
            for b, side in ((blades[0], 1), (blades[1], -1)):
                B = Z(b, 0.0)
                box(B, f, lft, -0.1, 0.18, -0.055, 0.055, 0.0, 0.09, (30, 30, 30))
                line(B + np.array([0, 0, 0.1]), S + lft * side * 0.11 + np.array([0, 0, 0.9]), 0.15, L.pants_bgr)
            sh_z = 1.45
            line(hip, hip + np.array([0, 0, 0.5]), kit["width_m"], jersey)
            out[-1].text, out[-1].text_color = str(p.number), num_col
            head = S + np.array([0, 0, 1.66])
            sph(head, 0.115, helmet)
            shoulder = [S + lft * 0.21 + np.array([0, 0, sh_z]), S - lft * 0.21 + np.array([0, 0, sh_z])]
            stick_len = 1.35
            keys += [head]
            shadow_c, shadow_a, shadow_b = S, 0.45, 0.35
        else:
            scale = 1.15 if goalie else 1.0
            # Sledge: blades, struts, bucket seat, frame tube to the front skid.
            for b in blades:
                B = Z(b, 0.0)
                fb = kit["blade_m"] / 2
                out.append(_Prim("poly", np.array([B - f * fb, B + f * fb, B + f * fb + [0, 0, 0.05],
                                                   B - f * fb + [0, 0, 0.05]]), color=metal, owner=owner))
                line(B + [0, 0, 0.05], S + (B - S) * 0.7 + [0, 0, 0.12], 0.025, metal)
            box(S, f, lft, -0.22, 0.16, -0.19, 0.19, 0.1, 0.3, dark)
            tip = S + f * 0.95
            line(S + f * 0.15 + [0, 0, 0.14], tip + [0, 0, 0.06], 0.035, L.sledge_bgr)
            line(tip - lft * 0.08 + [0, 0, 0.03], tip + lft * 0.08 + [0, 0, 0.03], 0.03, L.sledge_bgr)
            # Legs strapped to the sledge, feet at the front.
            line(S + f * 0.12 + [0, 0, 0.32], S + f * 0.8 + [0, 0, 0.17], 0.21 * scale, L.pants_bgr)
            sph(S + f * 0.86 + [0, 0, 0.16], 0.09, (25, 25, 25))
            if goalie:
                for sd in (1, -1):
                    line(S + f * 0.2 + lft * sd * 0.15 + [0, 0, 0.3], S + f * 0.8 + lft * sd * 0.15 + [0, 0, 0.2],
                         0.26, (240, 240, 240))
            lean = kit["lean"]
            hipz, shz = 0.33, 0.33 + kit["torso_m"] * scale
            line(S + [0, 0, hipz], S + f * lean + [0, 0, shz], kit["width_m"] * scale * (1.25 if goalie else 1.0),
                 jersey)
            out[-1].text, out[-1].text_color = str(p.number), num_col
            head = S + f * (lean + 0.04) + [0, 0, shz + 0.2]
            sph(head, 0.125 * scale, (235, 235, 235) if goalie else helmet)
            sph(head + f * 0.06 - [0, 0, 0.03], 0.085, kit["skin"])
            sz = shz - 0.03
            shoulder = [S + f * lean + lft * 0.2 * scale + [0, 0, sz], S + f * lean - lft * 0.2 * scale + [0, 0, sz]]
            stick_len = kit["stick_m"]
            keys += [head, S + [0, 0, 0.2], tip]
            shadow_c, shadow_a, shadow_b = S + f * 0.3, 0.75, 0.38
        # Sticks: the puck-handling one reaches stick_blade_rink_m; the other rests.
        side = 0 if (stick3[:2] - S[:2]) @ lft[:2] >= 0 else 1
        other = 1 - side
        rest = S + f * 0.55 + (lft if other == 0 else -lft) * 0.45 + [0, 0, 0.02]
        blades_to_draw = [(shoulder[side], stick3)]
        if p.kind != "standing":
            blades_to_draw.append((shoulder[other], rest))
        for sh, tip3 in blades_to_draw:
            u = sh - tip3
            dist = np.linalg.norm(u)
            u = u / max(dist, 1e-6)
            hand = tip3 + u * min(stick_len, max(0.2, dist - 0.15))
            butt = hand + u * 0.09
            line(sh, hand, 0.1, jersey)
            sph(hand, 0.065 if not goalie else 0.11, (30, 30, 30) if not goalie else (235, 235, 235))
            hdir = tip3[:2] - hand[:2]
            hdir = np.r_[hdir / max(np.linalg.norm(hdir), 1e-6), 0.0]
            # The blade is an upright plate whose face touches the puck at ``tip3``: the
            # puck sits in front of it, not under it (a blade drawn over the contact point
            # hid a carried puck from every camera for the whole carry).
            across = np.array([-hdir[1], hdir[0], 0.0])
            if across @ f > 0:
                across = -across  # the blade trails the puck (the carry pushes it forwards)
            thick, tall = (0.03, 0.09) if goalie else (0.015, 0.055)
            heel = tip3 + across * (self.spec.puck_diameter_m / 2 + thick / 2)
            heel[2] = 0.0
            line(heel + [0, 0, tall * 0.6], butt, 0.028, L.stick_bgr)
            box(heel, hdir, across, -0.06, 0.22 if goalie else 0.14, -thick / 2, thick / 2, 0.0, tall, L.stick_bgr)
            if p.kind != "standing":
                line(butt, butt + u * 0.045, 0.018, metal)  # picks at the butt end
            else:  # two hands on the one stick
                low = hand - u * 0.4
                line(shoulder[other], low, 0.1, jersey)
                sph(low, 0.06, (30, 30, 30))
        ca, sa = f[:2], lft[:2]
        ang = np.linspace(0, 2 * np.pi, 16, endpoint=False)
        shadow = np.array([[*(shadow_c[:2] + ca * shadow_a * math.cos(t) + sa * shadow_b * math.sin(t)), 0.0]
                           for t in ang])
        return out, shadow, np.array(keys)

    def _puck_prim(self, xyz: np.ndarray) -> _Prim:
        r = self.spec.puck_diameter_m / 2
        hz = self.spec.puck_thickness_m / 2
        ang = np.linspace(0, 2 * np.pi, 16, endpoint=False)
        ring = np.column_stack([r * np.cos(ang), r * np.sin(ang), np.zeros(16)])
        pts = np.vstack([ring + [0, 0, -hz], ring + [0, 0, hz]]) + xyz
        return _Prim("poly", pts, color=(22, 22, 24), owner=LABEL_PUCK, text="hull")

    # ----------------------------------------------------------------- drawing
    def _view(self, cam: Camera) -> _View:
        key = (cam.K.tobytes(), cam.dist.tobytes(), cam.width, cam.height)
        ext = self._frustum_cache.get(key)
        if ext is None:
            W, H = cam.width, cam.height
            border = np.concatenate([
                np.column_stack([np.linspace(0, W - 1, 17), np.zeros(17)]),
                np.column_stack([np.linspace(0, W - 1, 17), np.full(17, H - 1.0)]),
                np.column_stack([np.zeros(9), np.linspace(0, H - 1, 9)]),
                np.column_stack([np.full(9, W - 1.0), np.linspace(0, H - 1, 9)]),
            ])
            und = cam.undistort_image_points(border)
            nx = np.abs((und[:, 0] - cam.K[0, 2]) / cam.K[0, 0]).max()
            ny = np.abs((und[:, 1] - cam.K[1, 2]) / cam.K[1, 1]).max()
            ext = (nx * 1.15 + 0.02, ny * 1.15 + 0.02)
            if len(self._frustum_cache) > 64:
                self._frustum_cache.clear()
            self._frustum_cache[key] = ext
        return _View(cam=cam, f_px=float(cam.K[0, 0]), ax=ext[0], ay=ext[1], position=cam.position_xyz_m)

    def _project_prim(self, pr: _Prim, view: _View, planes: np.ndarray):
        """Clip and project; returns image points (N,2) (and uv for textures) or None."""
        cam = view.cam
        Pc = pr.pts @ cam.R.T + cam.t
        # Reject when all vertices are outside one plane.
        offs = np.array([-_NEAR_M, 0, 0, 0, 0])
        d = Pc @ planes.T + offs
        if pr.kind == "sphere":
            rad = pr.width_m
            if np.any(d[0] < -rad * 1.5) or Pc[0, 2] < _NEAR_M:
                return None
            return cam.project_camera(Pc), None, Pc
        if np.any(np.all(d < 0, axis=0)):
            return None
        if np.all(d >= 0):
            return cam.project_camera(Pc), pr.uv, Pc
        if pr.kind == "line":
            seg = _clip_segment(Pc[0], Pc[1], planes, _NEAR_M)
            if seg is None:
                return None
            Pc2 = np.array(seg)
            return cam.project_camera(Pc2), None, Pc2
        attrs = Pc if pr.uv is None else np.hstack([Pc, pr.uv])
        C = _clip_poly(attrs, planes, _NEAR_M)
        if len(C) < 3:
            return None
        return cam.project_camera(C[:, :3]), (None if pr.uv is None else C[:, 3:5]), C[:, :3]

    @staticmethod
    def _stack(prims: list[_Prim]):
        """(counts (P,), vertices (N,3), sphere margins (N,), is_sphere (P,)) of primitives."""
        counts = np.fromiter((len(q.pts) for q in prims), int, len(prims))
        V = np.concatenate([q.pts for q in prims])
        margin = np.concatenate([np.full(len(q.pts), 1.5 * q.width_m if q.kind == "sphere" else 0.0)
                                 for q in prims])
        sph = np.fromiter((q.kind == "sphere" for q in prims), bool, len(prims))
        return counts, V, margin, sph

    def _batch(self, prims: list[_Prim], view: _View, planes: np.ndarray):
        """``prims`` must start with ``self._static`` (cached vertex arrays)."""
        """Cull and project many primitives at once.

        Returns:
            depth: (P,) mean camera depth of each primitive's vertices, m.
            res: list, per primitive: None (culled), "clip" (crosses the frustum:
                clip it alone) or (xy_px (N,2), uv, xyz_cam (N,3)).
        """
        cam = view.cam
        n_static = len(self._static)
        if self._static_batch is None:
            self._static_batch = self._stack(self._static)
        dyn = self._stack(prims[n_static:]) if len(prims) > n_static else None
        parts = [self._static_batch] + ([dyn] if dyn is not None else [])
        counts = np.concatenate([b[0] for b in parts])
        V = np.concatenate([b[1] for b in parts])
        margin = np.concatenate([b[2] for b in parts])
        sph = np.concatenate([b[3] for b in parts])
        starts = np.r_[0, np.cumsum(counts)[:-1]]
        Pc = V @ cam.R.T + cam.t
        d = Pc @ planes.T + np.array([-_NEAR_M, 0, 0, 0, 0])
        d[:, 1:] += margin[:, None]
        dmax = np.maximum.reduceat(d, starts, axis=0)
        dmin = np.minimum.reduceat(d, starts, axis=0)
        culled = (dmax < 0).any(1)
        inside = (dmin >= 0).all(1)
        culled |= sph & (Pc[starts, 2] < _NEAR_M)
        inside |= sph & ~culled
        depth = np.add.reduceat(Pc[:, 2], starts) / counts
        vmask = np.repeat(inside & ~culled, counts)
        xy = np.full((len(V), 2), np.nan)
        if vmask.any():
            xy[vmask] = cam.project_camera(Pc[vmask])
        res: list[Any] = []
        for i, q in enumerate(prims):
            if culled[i]:
                res.append(None)
            elif inside[i]:
                a, b = starts[i], starts[i] + counts[i]
                res.append((xy[a:b], q.uv, Pc[a:b]))
            else:
                res.append("clip")
        return depth, res

    def _draw(self, pr: _Prim, view: _View, planes: np.ndarray, frame: np.ndarray, label: np.ndarray,
              masks: dict[int, np.ndarray], res: Any = "clip") -> None:
        if pr.back is not None and pr.normal is not None:
            if pr.normal @ (view.position - pr.centre) > 0:  # seen from outside: back face
                pr.back.owner = pr.owner
                pr = pr.back
        if res == "clip":
            res = self._project_prim(pr, view, planes)
            if res is None or not np.isfinite(res[0]).all():
                return
        if res is None:
            return
        xy, uv, Pc = res
        Hh, Ww = frame.shape[:2]
        lab = pr.owner if pr.owner >= 0 else None
        targets = []
        if lab is not None:
            targets.append((label, lab, cv2.LINE_8))
            if 0 < lab <= _MAX_PLAYERS or lab == LABEL_PUCK:
                targets.append((masks[lab], 255, cv2.LINE_8))
        if pr.kind == "line":
            a, b = xy
            z = 0.5 * float(Pc[0, 2] + Pc[-1, 2])
            th = view.f_px * pr.width_m / max(z, _NEAR_M)
            if th < 0.4:
                return
            thick = max(1, int(round(th)))
            ia = tuple(int(v) for v in np.round(a * _SCALE))
            ib = tuple(int(v) for v in np.round(b * _SCALE))
            if pr.alpha < 1.0:
                x0, y0 = np.floor(np.minimum(a, b) - thick).astype(int)
                x1, y1 = np.ceil(np.maximum(a, b) + thick).astype(int) + 1
                x0, y0, x1, y1 = max(0, x0), max(0, y0), min(Ww, x1), min(Hh, y1)
                if x1 <= x0 or y1 <= y0:
                    return
                roi = frame[y0:y1, x0:x1]
                ov = roi.copy()
                off = (int(-x0 * _SCALE), int(-y0 * _SCALE))
                cv2.line(ov, (ia[0] + off[0], ia[1] + off[1]), (ib[0] + off[0], ib[1] + off[1]), pr.color, thick,
                         cv2.LINE_AA, _SHIFT)
                cv2.addWeighted(ov, pr.alpha, roi, 1 - pr.alpha, 0, dst=roi)
                return
            cv2.line(frame, ia, ib, _shade(pr.color, 0.8) if thick >= 5 else pr.color, thick, cv2.LINE_AA, _SHIFT)
            if thick >= 5:
                # Rounded look: a lighter core lit from above.
                off = int(-0.12 * thick * _SCALE)
                cv2.line(frame, (ia[0], ia[1] + off), (ib[0], ib[1] + off), _shade(pr.color, 1.08),
                         max(1, int(thick * 0.6)), cv2.LINE_AA, _SHIFT)
            for img, v, lt in targets:
                cv2.line(img, ia, ib, v, thick, lt, _SHIFT)
            self._maybe_number(pr, xy, th, frame)
            return
        if pr.kind == "sphere":
            r = view.f_px * pr.width_m / max(Pc[0, 2], _NEAR_M)
            if r < 0.3:
                return
            c = tuple(int(v) for v in np.round(xy[0] * _SCALE))
            ri = max(1, int(round(r * _SCALE)))
            cv2.circle(frame, c, ri, _shade(pr.color, 0.82) if r >= 3 else pr.color, -1, cv2.LINE_AA, _SHIFT)
            if r >= 3:
                cv2.circle(frame, (c[0] - ri // 5, c[1] - ri // 4), int(ri * 0.62), _shade(pr.color, 1.1), -1,
                           cv2.LINE_AA, _SHIFT)
            for img, v, lt in targets:
                cv2.circle(img, c, ri, v, -1, lt, _SHIFT)
            return
        if pr.sweep is not None and self._draw_puck_blurred(pr, view, planes, frame):
            xy = cv2.convexHull(xy.astype(np.float32)).reshape(-1, 2)
            gpts = np.round(xy * _SCALE).astype(np.int32)
            for img, v, lt in targets:
                cv2.fillPoly(img, [gpts], v, lt, _SHIFT)
            return
        if pr.text == "hull":
            xy = cv2.convexHull(xy.astype(np.float32)).reshape(-1, 2)
        ipts = np.round(xy * _SCALE).astype(np.int32)
        if pr.kind == "tex":
            self._draw_tex(pr, xy, uv, frame, targets)
            return
        if pr.alpha < 1.0:
            x0, y0 = np.floor(xy.min(0)).astype(int) - 1
            x1, y1 = np.ceil(xy.max(0)).astype(int) + 2
            x0, y0, x1, y1 = max(0, x0), max(0, y0), min(Ww, x1), min(Hh, y1)
            if x1 <= x0 or y1 <= y0:
                return
            roi = frame[y0:y1, x0:x1]
            ov = roi.copy()
            cv2.fillPoly(ov, [ipts - np.array([x0, y0]) * int(_SCALE)], pr.color, cv2.LINE_AA, _SHIFT)
            cv2.addWeighted(ov, pr.alpha, roi, 1 - pr.alpha, 0, dst=roi)
            return
        cv2.fillPoly(frame, [ipts], pr.color, cv2.LINE_AA, _SHIFT)
        for img, v, lt in targets:
            cv2.fillPoly(img, [ipts], v, lt, _SHIFT)

    def _maybe_number(self, pr: _Prim, xy: np.ndarray, th: float, frame: np.ndarray) -> None:
        if not pr.text or th < 9:
            return
        c = (xy[0] * 0.45 + xy[1] * 0.55)
        font = cv2.FONT_HERSHEY_DUPLEX
        (tw, tth), _ = cv2.getTextSize(pr.text, font, 1.0, 2)
        scale = 0.55 * th / max(tw, 1)
        thick = max(1, int(round(scale * 2.2)))
        (tw, tth), _ = cv2.getTextSize(pr.text, font, scale, thick)
        org = (int(c[0] - tw / 2), int(c[1] + tth / 2))
        cv2.putText(frame, pr.text, org, font, scale, pr.text_color, thick, cv2.LINE_AA)

    def _draw_tex(self, pr: _Prim, xy: np.ndarray, uv: np.ndarray, frame: np.ndarray, targets) -> None:
        Hh, Ww = frame.shape[:2]
        x0, y0 = np.floor(xy.min(0)).astype(int)
        x1, y1 = np.ceil(xy.max(0)).astype(int) + 1
        x0, y0, x1, y1 = max(0, x0), max(0, y0), min(Ww, x1), min(Hh, y1)
        if x1 <= x0 or y1 <= y0:
            return
        # Homography texture → image from the (clipped) polygon's projected vertices,
        # so the texture follows the lens distortion at the vertices.
        if len(xy) == 4:
            Hm = cv2.getPerspectiveTransform(uv.astype(np.float32), xy.astype(np.float32))
        elif len(xy) == 3:
            Hm = np.vstack([cv2.getAffineTransform(uv.astype(np.float32), xy.astype(np.float32)), [0, 0, 1.0]])
        else:
            Hm, _ = cv2.findHomography(uv, xy, 0)
            if Hm is None:
                return
        Hm = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1.0]]) @ Hm
        patch = cv2.warpPerspective(pr.tex, Hm, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR,
                                    borderMode=cv2.BORDER_REPLICATE)
        mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
        ipts = np.round((xy - [x0, y0]) * _SCALE).astype(np.int32)
        cv2.fillPoly(mask, [ipts], 255, cv2.LINE_8, _SHIFT)
        cv2.copyTo(patch, mask, frame[y0:y1, x0:x1])
        gpts = np.round(xy * _SCALE).astype(np.int32)
        for img, v, lt in targets:
            cv2.fillPoly(img, [gpts], v, lt, _SHIFT)

    def _draw_shadow(self, poly_rink: np.ndarray, view: _View, planes: np.ndarray, frame: np.ndarray) -> None:
        pr = _Prim("poly", poly_rink, color=(0, 0, 0), alpha=0.28, owner=-1)
        res = self._project_prim(pr, view, planes)
        if res is None:
            return
        xy = res[0]
        Hh, Ww = frame.shape[:2]
        ext = xy.max(0) - xy.min(0)
        if ext.max() > 4 * max(Ww, Hh):
            return
        k = max(3, int(min(ext) * 0.25) | 1)  # soft edge, pixels
        x0, y0 = np.floor(xy.min(0)).astype(int) - k
        x1, y1 = np.ceil(xy.max(0)).astype(int) + k + 1
        x0, y0, x1, y1 = max(0, x0), max(0, y0), min(Ww, x1), min(Hh, y1)
        if x1 <= x0 or y1 <= y0:
            return
        m = np.zeros((y1 - y0, x1 - x0), np.uint8)
        cv2.fillPoly(m, [np.round((xy - [x0, y0]) * _SCALE).astype(np.int32)], 255, cv2.LINE_AA, _SHIFT)
        m = cv2.GaussianBlur(m, (k, k), 0, borderType=cv2.BORDER_CONSTANT)
        roi = frame[y0:y1, x0:x1]
        a = m.astype(np.float32)[:, :, None] * (0.32 / 255.0)
        roi[:] = (roi * (1 - a)).astype(np.uint8)

    # ----------------------------------------------------------------- effects
    def _draw_puck_blurred(self, pr: _Prim, view: _View, planes: np.ndarray, frame: np.ndarray) -> bool:
        """Paint the puck as the average of its hull swept over the exposure (True if drawn)."""
        cam = view.cam
        sweep = pr.sweep
        pts = [pr.pts + sweep * s for s in np.linspace(-0.5, 0.5, 2)]
        if min(cam.depth(q).min() for q in pts) < 0.2:
            return False
        xy_a, xy_b = cam.project(pts[0]), cam.project(pts[1])
        length = float(np.linalg.norm(xy_b.mean(0) - xy_a.mean(0)))
        if length < 1.0:
            return False
        allxy = np.vstack([xy_a, xy_b])
        Hh, Ww = frame.shape[:2]
        x0, y0 = np.floor(allxy.min(0)).astype(int) - 2
        x1, y1 = np.ceil(allxy.max(0)).astype(int) + 3
        x0, y0, x1, y1 = max(0, x0), max(0, y0), min(Ww, x1), min(Hh, y1)
        if x1 - x0 < 1 or y1 - y0 < 1 or x1 - x0 > 2000:
            return False
        n = int(min(32, max(3, math.ceil(length / 1.0))))
        cov = np.zeros((y1 - y0, x1 - x0), np.float32)
        one = np.zeros_like(cov)
        for s in np.linspace(0.0, 1.0, n):
            xy = xy_a + (xy_b - xy_a) * s
            hull = cv2.convexHull(xy.astype(np.float32)).reshape(-1, 2)
            one[:] = 0
            cv2.fillPoly(one, [np.round((hull - [x0, y0]) * _SCALE).astype(np.int32)], 1.0, cv2.LINE_AA, _SHIFT)
            cov += one
        a = (cov / n)[:, :, None]
        roi = frame[y0:y1, x0:x1]
        roi[:] = np.clip(roi * (1 - a) + np.asarray(pr.color, np.float32) * a, 0, 255).astype(np.uint8)
        return True

    def _pan_blur(self, frame: np.ndarray, cam: Camera, prev_cam: Camera, dt_frac: float) -> np.ndarray:
        c = np.array([[cam.K[0, 2], cam.K[1, 2]], [cam.K[0, 2] + 200, cam.K[1, 2]]])
        out = []
        for px in c:
            ray = cam.R.T @ np.linalg.solve(cam.K, np.r_[px, 1.0])
            C = cam.position_xyz_m
            lam = -C[2] / ray[2] if ray[2] < -1e-6 else 40.0
            lam = min(lam, 200.0)
            X = C + lam * ray
            if prev_cam.depth(X[None])[0] <= 0.1:
                return frame
            out.append(px - prev_cam.project(X[None])[0])
        d = np.mean(out, axis=0) * dt_frac
        kx, ky = int(round(abs(d[0]))), int(round(abs(d[1])))
        if max(kx, ky) < 2:
            return frame
        return cv2.blur(frame, (max(1, kx), max(1, ky)))

    def _finish(self, frame: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        L = self.look
        Hh, Ww = frame.shape[:2]
        key = ("gain", Ww, Hh)
        gain = self._post_cache.get(key)
        if gain is None:
            xs = (np.arange(Ww) - (Ww - 1) / 2) / (Ww / 2)
            ys = (np.arange(Hh) - (Hh - 1) / 2) / (Ww / 2)
            r2 = xs[None, :] ** 2 + ys[:, None] ** 2
            r2max = 1.0 + ((Hh / 2) / (Ww / 2)) ** 2
            vig = 1.0 - L.vignetting * (r2 / r2max) ** 1.2
            gain = (vig[:, :, None] * np.array(L.white_balance)[None, None, :] * L.gain).astype(np.float32)
            self._post_cache[key] = gain
        nkey = ("noise", Ww, Hh)
        bank = self._post_cache.get(nkey)
        if bank is None:
            nr = np.random.default_rng([self.seed, 6])
            bank = [(nr.standard_normal((Hh + 16, Ww + 16, 3)) * L.noise_sigma).astype(np.float32) for _ in range(3)]
            self._post_cache[nkey] = bank
        f = cv2.multiply(frame, gain, dtype=cv2.CV_32F)
        if L.noise_sigma > 0:
            k = int(rng.integers(3))
            dy, dx = int(rng.integers(16)), int(rng.integers(16))
            return cv2.add(f, bank[k][dy:dy + Hh, dx:dx + Ww], dtype=cv2.CV_8U)  # saturating
        return np.clip(f, 0, 255).astype(np.uint8)

    def _score_bug(self, frame: np.ndarray, t: float) -> None:
        L = self.look
        Hh, Ww = frame.shape[:2]
        s = Hh / 720.0
        clock = max(0.0, L.clock_s - t)
        txt = [L.home_abbr, str(L.home_score), L.away_abbr, str(L.away_score),
               f"P{L.period}", f"{int(clock // 60)}:{int(clock % 60):02d}"]
        font = cv2.FONT_HERSHEY_DUPLEX
        fs = 0.6 * s
        th = max(1, int(round(1.3 * s)))
        widths = [cv2.getTextSize(x, font, fs, th)[0][0] for x in txt]
        pad = int(10 * s)
        w = sum(widths) + pad * (len(txt) + 1) + int(12 * s)
        h = int(30 * s)
        m = int(24 * s)
        x0 = m if L.score_bug_corner in ("tl", "bl") else Ww - m - w
        y0 = m if L.score_bug_corner in ("tl", "tr") else Hh - m - h
        cv2.rectangle(frame, (x0, y0), (x0 + w, y0 + h), L.score_bug_bgr, -1)
        cv2.rectangle(frame, (x0, y0 + h - max(2, int(3 * s))), (x0 + w, y0 + h), (40, 160, 230), -1)
        x = x0 + pad
        for i, (t_, tw) in enumerate(zip(txt, widths)):
            col = (255, 255, 255) if i % 2 == 0 or i >= 4 else (90, 220, 255)
            cv2.putText(frame, t_, (x, y0 + int(h * 0.68)), font, fs, col, th, cv2.LINE_AA)
            x += tw + pad + (int(6 * s) if i in (1, 3) else 0)

    # ----------------------------------------------------------------- public
    def render(
        self,
        state: SceneState,
        cam: Camera,
        prev_state: SceneState | None = None,
        prev_cam: Camera | None = None,
        puck_velocity_mps: np.ndarray | None = None,
        frame_interval_s: float | None = None,
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Render one frame.

        Args:
            state: the scene at ``state.t`` (s).
            cam: the camera (any size; K, dist, R, t as in ``Camera``).
            prev_state: the scene one frame earlier: gives the puck velocity for its blur.
            prev_cam: the camera one frame earlier: gives the pan blur.
            puck_velocity_mps: (3,) rink m/s; overrides the velocity from ``prev_state``.
            frame_interval_s: the frame interval (s); defaults to ``state.t - prev_state.t``
                or 1/30.

        Returns:
            frame_bgr: (H, W, 3) uint8.
            info: ``{"players": {id: {...}}, "puck": {...} | None}`` where each entry
            has ``in_frame`` (bool, any pixel drawn), ``in_frame_fraction`` (share of
            its key points — blades, seat, head, stick blade; for the puck its centre —
            inside the image), ``unoccluded_fraction`` (its pixels left visible after
            everything nearer was painted, over its own drawn pixels), ``visible_fraction``
            (product of the two), ``pixels`` (visible pixel count), ``bbox_px``
            ([x0, y0, x1, y1] of its drawn pixels, or None); players also carry
            ``blades_visible`` ([bool, bool]: the blade's contact pixel is in the image and
            not covered by another object or the boards).
        """
        W, H = cam.width, cam.height
        L = self.look
        if frame_interval_s is None:
            frame_interval_s = (state.t - prev_state.t) if prev_state is not None and state.t > prev_state.t else 1 / 30
        rng = np.random.default_rng([self.seed, 7, int(round(state.t * 1e4)) & 0x7FFFFFFF])
        view = self._view(cam)
        planes = view.clip_planes()
        frame = self._render_ice(cam)
        self._add_reflections(frame, view)
        label = np.zeros((H, W), np.uint8)
        players = list(state.players)[:_MAX_PLAYERS]
        masks = {i + 1: np.zeros((H, W), np.uint8) for i in range(len(players))}
        prims: list[_Prim] = []
        keypoints: dict[int, np.ndarray] = {}
        for i, p in enumerate(players):
            pp, shadow, keys = self._player_prims(p, i + 1)
            self._draw_shadow(shadow, view, planes, frame)
            pc = np.mean(np.vstack([q.pts for q in pp]), axis=0)
            dep = float(cam.depth(pc[None])[0])
            for q in pp:
                q.depth = dep
            prims += pp
            keypoints[i + 1] = keys
        puck_xyz = None
        if state.puck is not None:
            puck_xyz = np.asarray(state.puck.xyz_rink_m, float).reshape(3)
            masks[LABEL_PUCK] = np.zeros((H, W), np.uint8)
            pk = self._puck_prim(puck_xyz)
            pk.depth = float(cam.depth(puck_xyz[None])[0])
            exposure = L.shutter_frac * frame_interval_s
            vel = None
            if puck_velocity_mps is not None:
                vel = np.asarray(puck_velocity_mps, float).reshape(3)
            elif prev_state is not None and prev_state.puck is not None and state.t > prev_state.t:
                vel = (puck_xyz - np.asarray(prev_state.puck.xyz_rink_m, float)) / (state.t - prev_state.t)
            if L.puck_blur and vel is not None and np.linalg.norm(vel) > 0.5:
                pk.sweep = vel * exposure
            prims.append(pk)
            shadow_r = self.spec.puck_diameter_m * 0.6
            ang = np.linspace(0, 2 * np.pi, 12, endpoint=False)
            self._draw_shadow(np.column_stack([puck_xyz[0] + shadow_r * np.cos(ang),
                                               puck_xyz[1] + shadow_r * np.sin(ang), np.zeros(12)]),
                              view, planes, frame)
        cen = view.position
        prims = self._static + prims
        depth, res = self._batch(prims, view, planes)
        order = []
        for i, q in enumerate(prims):
            if res[i] is None:
                continue
            if q.text == "stands" and q.normal @ (cen - q.centre) > 0:
                continue  # stands on the camera's own side: it stands among them
            if q.owner in masks or q.owner == LABEL_PUCK:
                # A player's parts are painted as a group at the player's depth,
                # ordered among themselves by their own depth.
                dep = q.depth + 1e-3 * (float(depth[i]) - q.depth)
            else:
                dep = float(depth[i]) + (1e4 if q.text == "stands" else 0.0)  # stands behind the boards
            order.append((-dep, i))
        order.sort()
        for _, i in order:
            self._draw(prims[i], view, planes, frame, label, masks, res[i])
        # Visibility from the label image.
        counts = np.bincount(label.ravel(), minlength=256)
        info: dict[str, Any] = {"players": {}, "puck": None}

        def entry(owner: int, keys: np.ndarray) -> dict[str, Any]:
            m = masks[owner]
            alone = int(cv2.countNonZero(m))
            vis = int(counts[owner])
            inside = cam.sees(keys) if len(keys) else np.zeros(0, bool)
            frac_in = float(inside.mean()) if len(keys) else 0.0
            unocc = vis / alone if alone else 0.0
            bbox = None
            if alone:
                x, y, w, h = cv2.boundingRect(m)
                bbox = [int(x), int(y), int(x + w), int(y + h)]
            return {"in_frame": alone > 0, "in_frame_fraction": frac_in, "unoccluded_fraction": float(unocc),
                    "visible_fraction": float(unocc * frac_in), "pixels": vis, "bbox_px": bbox}

        for i, p in enumerate(players):
            e = entry(i + 1, keypoints[i + 1])
            bl = []
            for b in np.asarray(p.blades_rink_m, float).reshape(2, 2):
                X = np.array([[b[0], b[1], 0.0]])
                ok = bool(cam.sees(X)[0])
                if ok:
                    u, v = np.round(cam.project(X)[0]).astype(int)
                    u, v = min(max(u, 0), W - 1), min(max(v, 0), H - 1)
                    ok = int(label[v, u]) in (LABEL_NONE, i + 1)
                bl.append(ok)
            e["blades_visible"] = bl
            info["players"][p.id] = e
        if puck_xyz is not None:
            info["puck"] = entry(LABEL_PUCK, puck_xyz[None])
        # Camera pan blur over the whole frame (the puck's own blur is painted above).
        if L.pan_blur and prev_cam is not None:
            frame = self._pan_blur(frame, cam, prev_cam, L.shutter_frac)
        frame = self._finish(frame, rng)
        if L.score_bug:
            self._score_bug(frame, state.t)
        return frame, info
