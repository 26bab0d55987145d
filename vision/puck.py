"""Classical puck detector: a small dark blob on bright ice.

Method (all thresholds relative to the scene):

1. ``V = max(B, G, R)`` per pixel. The puck is black in every channel, while the
   red and blue markings and the team colours are bright in at least one, so V
   separates the puck from the paint far better than grey levels do.
2. Local background by a morphological closing of V with a square a little
   larger than the largest expected puck in the search region: the closing
   removes dark features smaller than the square, so ``dark = closing − V``
   (a black-hat) is large on small dark spots only. ``dark / closing`` is the
   darkness relative to the local ice, robust to ice tint, exposure and
   lighting gradients.
3. Connected components of ``dark / closing > dark_ratio_min`` on the ice are
   candidates. The expected puck size at each candidate comes from the camera
   recovered from ``rink_from_image`` (a 7.62 cm × 2.54 cm cylinder), so a blob
   far off that size (stick, skate blade line, jersey digit) scores low.
4. Each candidate is scored by contrast (local and against the ice), neutral
   colour (black rubber, not a tinted stick blade), size match, compactness, isolation
   (how much of a ring around it looks like ice — a digit on a jersey is not
   surrounded by ice) and motion: the darkness at the same rink spot in the
   previous frame (mapped through both frames' homographies, so a panning
   camera is handled) — a puck that arrived there scores a bonus, a static dark
   mark does not.
5. The centre is the darkness-weighted centroid (sub-pixel), mapped to the rink
   on the plane of the puck's centre (z = thickness / 2) rather than the ice, which
   removes the parallax bias of ~1.3 cm × cot(elevation).

``detect`` searches a region of interest (the tracker passes one around its
prediction) or the whole ice.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.detections import PUCK, Detections
from vision.geometry import PlaneCamera, apply_homography
from vision.ice import IceScene

PUCK_DIAMETER_M = 0.0762  # 501
PUCK_THICKNESS_M = 0.0254  # 501


#: 1-sigma of a reported puck position, in pixels of a 1280-px-wide frame (its calibration is found
#: at 640 px whatever the frame), along the worst ground direction: the calibration and the
#: detector's centroid together, which the tracks' own noise does not show (a calibration a pixel
#: off is off on every frame alike). Measured on fresh renders (seeds 730-889, 160 clips, 720p;
#: measured frames within 0.5 m of the truth, ``/tmp/s43/puckz.py``): with the tracks' sigma alone
#: (1.5 cm median) 6.8 % of the x errors on broadcast views, 8.8 % from above, 1.5 % on blue-line
#: and 1.3 % on goal cameras lay beyond 3 sigma (y: 8.4, 5.0, 3.4, 6.6 %); with this term 0.5,
#: 0.8, 0 and 0.9 % (y: 0.3, 0.1, 0, 2.4 %: a puck half hidden by a post is off by pixels).
PUCK_PX_SIGMA = 1.0
PUCK_PX_SIGMA_WIDTH = 1280


def puck_sigma_rink_m(H_rink_from_image: np.ndarray, width: int, height: int, xy_rink_m: np.ndarray) -> np.ndarray:
    """Ground size of ``PUCK_PX_SIGMA`` at puck positions of a frame, m.

    Args:
        H_rink_from_image: (3, 3) the frame's homography, image px → rink m.
        width, height: image size, px.
        xy_rink_m: (N, 2) puck positions, m (NaN rows: none).

    Returns:
        (N,) 1-sigma in metres along the worst ground direction there (a scalar serves every
        rule: lines across the rink and the goal posts alike); NaN where there is no position
        or no camera.
    """
    xy = np.asarray(xy_rink_m, dtype=np.float64).reshape(-1, 2)
    out = np.full(len(xy), np.nan)
    ok = np.isfinite(xy).all(axis=1)
    if not ok.any():
        return out
    try:
        # The plane's Jacobian needs only the homography, not the camera's pose.
        H = np.asarray(H_rink_from_image, dtype=np.float64)
        cam = PlaneCamera(np.linalg.inv(H), H, None, None, None, int(width), int(height))
        J_image = cam.jacobian_image_from_rink(xy[ok])
        good = np.abs(np.linalg.det(J_image)) > 1e-12
        J = np.full_like(J_image, np.nan)
        J[good] = np.linalg.inv(J_image[good])  # rink m per image px
    except (np.linalg.LinAlgError, ValueError):  # a degenerate homography: no camera
        return out
    px = PUCK_PX_SIGMA * width / PUCK_PX_SIGMA_WIDTH
    worst = np.full(len(J), np.nan)
    fin = np.isfinite(J).all(axis=(1, 2))
    if fin.any():
        worst[fin] = np.linalg.svd(J[fin], compute_uv=False)[:, 0]
    out[ok] = px * worst
    return out


@dataclass
class PuckDetectorConfig:
    """Thresholds of the classical puck detector.

    Attributes:
        dark_ratio_min: a pixel belongs to a candidate when it is darker than the local
            ice by at least this fraction (black on white ice is ~0.8; shadows ~0.2–0.3).
        area_ratio_range: accepted blob area / expected puck area.
        min_area_px: smallest blob, px (a far puck may be 2–3 px).
        isolation_ring: inner and outer radius of the isolation ring, in expected puck radii.
        min_score: candidates below this score are dropped.
        max_candidates: at most this many candidates, best first.
        joined_factor: score factor of a blob joined to a bigger dark object (a stick blade
            and its shaft; a puck touching a stick), see ``dark_object_around``.
        joined_dark_ratio: least relative darkness of a pixel of that object.
        white_kits: a team wears white (or silver): its jerseys are plain ice to the ice model,
            so a dark glove, stick grip or number on one looks like a puck alone on the ice. The
            isolation ring then counts as ice only what is also flat like the ice
            (``IceScene.off_local_luma``).
    """

    dark_ratio_min: float = 0.35
    area_ratio_range: tuple[float, float] = (0.2, 5.0)
    min_area_px: int = 1
    isolation_ring: tuple[float, float] = (2.0, 3.5)
    min_score: float = 0.05
    max_candidates: int = 8
    joined_factor: float = 0.3
    joined_dark_ratio: float = 0.2
    white_kits: bool = False


class PuckDetector:
    """Find puck candidates in a frame.

    Args:
        puck_diameter_m: the puck's diameter (501: 7.62 cm).
        puck_thickness_m: its thickness (501: 2.54 cm).
        config: thresholds.
    """

    def __init__(
        self,
        puck_diameter_m: float = PUCK_DIAMETER_M,
        puck_thickness_m: float = PUCK_THICKNESS_M,
        config: PuckDetectorConfig | None = None,
    ) -> None:
        self.diameter_m = float(puck_diameter_m)
        self.thickness_m = float(puck_thickness_m)
        self.config = config or PuckDetectorConfig()

    # ------------------------------------------------------------------ size
    def expected_size_px(self, cam: PlaneCamera, xy_rink_m: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Expected puck image size at ground points.

        Args:
            cam: plane camera of the frame.
            xy_rink_m: (N, 2) puck positions, m.

        Returns:
            ((N,) expected area px², (N,) expected largest extent px).
        """
        xy = np.asarray(xy_rink_m, dtype=np.float64).reshape(-1, 2)
        J = cam.jacobian_image_from_rink(xy)
        r = self.diameter_m / 2.0
        top_area = np.pi * r * r * np.abs(np.linalg.det(J))
        # Side of the cylinder: width ≈ diameter along image x, height = thickness × vertical scale.
        width_px = self.diameter_m * np.linalg.norm(J[:, 0, :], axis=1).clip(min=1e-9)
        width_px = np.maximum(width_px, self.diameter_m * np.linalg.norm(J[:, 1, :], axis=1))
        side_px = self.thickness_m * cam.vertical_px_per_m(xy)
        area = top_area + width_px * side_px
        return area, np.maximum(width_px, 1.0)

    # ---------------------------------------------------------------- detect
    def detect(
        self,
        frame_bgr: np.ndarray,
        scene: IceScene,
        roi_xyxy_px: tuple[int, int, int, int] | None = None,
        prev_v: np.ndarray | None = None,
        prev_cam: PlaneCamera | None = None,
        v_full: np.ndarray | None = None,
    ) -> Detections:
        """Puck candidates, best first.

        Args:
            frame_bgr: (H, W, 3) uint8 full-resolution frame.
            scene: the frame's ice model.
            roi_xyxy_px: search window (x0, y0, x1, y1), full-res px; None = whole frame.
            prev_v: (H, W) uint8 max-channel image of the previous frame (motion cue), or None.
            prev_cam: the previous frame's plane camera (maps this frame's pixels there).
            v_full: (H, W) uint8 ``max_channel(frame_bgr)`` if the caller has it already.

        Returns:
            Detections of class ``PUCK`` with ``data``: ``centre_xy_px`` (N, 2),
            ``xy_rink_m`` (N, 2) on the plane of the puck's centre, ``area_px`` (N,),
            ``expected_area_px`` (N,), ``contrast`` (N,), ``isolation`` (N,), ``motion`` (N,).
        """
        cfg = self.config
        cam = scene.cam
        Hf, Wf = frame_bgr.shape[:2]
        if roi_xyxy_px is None:
            x0, y0, x1, y1 = 0, 0, Wf, Hf
        else:
            x0, y0, x1, y1 = (int(v) for v in roi_xyxy_px)
            x0, y0, x1, y1 = max(0, x0), max(0, y0), min(Wf, x1), min(Hf, y1)
        if x1 - x0 < 3 or y1 - y0 < 3 or not scene.ok:
            return empty_candidates()
        crop = frame_bgr[y0:y1, x0:x1]
        v = max_channel(crop) if v_full is None else v_full[y0:y1, x0:x1]

        # Ice mask of the crop (work resolution → full resolution, nearest).
        ice = _mask_crop(scene, x0, y0, x1, y1)
        if not np.any(ice):
            return empty_candidates()

        # Kernel: larger than the biggest puck seen in this crop (its lowest ice row is nearest).
        rows = np.nonzero(ice.any(axis=1))[0]
        probe = np.array([[0.5 * (x0 + x1), y0 + rows[-1]], [0.5 * (x0 + x1), y0 + rows[0]]], dtype=np.float64)
        probe_rink, ok = cam.rink_from_image(probe)
        if not np.all(ok):
            probe_rink = probe_rink[ok] if np.any(ok) else np.zeros((1, 2))
        _, ext = self.expected_size_px(cam, probe_rink)
        k = int(np.clip(np.ceil(2.2 * ext.max()) + 2, 5, 61)) | 1
        bg = cv2.morphologyEx(v, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_RECT, (k, k)))
        dark = cv2.subtract(bg, v)
        # Relative darkness dark / bg (integer ops over the whole crop; floats only per blob).
        # The background is floored at half the ice brightness so that dark non-ice regions
        # (boards, jerseys) do not make small differences look contrasty.
        floor = int(max(20.0, 0.5 * scene.ice_v_full))
        lut = np.clip(np.maximum(np.arange(256), floor) * cfg.dark_ratio_min, 0, 255).astype(np.uint8)
        thr = cv2.LUT(bg, lut)  # dark_ratio_min × max(bg, floor), one table look-up per pixel
        cand = cv2.compare(dark, thr, cv2.CMP_GT)
        cand &= ice
        rows_out = self._candidates(cand, crop, v, bg, dark, floor, scene, x0, y0, Wf, Hf, k, prev_v, prev_cam)
        if not rows_out:
            return empty_candidates()
        arr = np.asarray(rows_out, dtype=np.float64)
        order = np.argsort(-arr[:, 2], kind="stable")
        keep_rows: list[int] = []
        for i in order:
            if all(np.hypot(*(arr[i, :2] - arr[j, :2])) > 2.0 for j in keep_rows):
                keep_rows.append(i)
            if len(keep_rows) >= cfg.max_candidates:
                break
        arr = arr[keep_rows]
        return Detections.from_centers(
            arr[:, 0:2],
            arr[:, 8:10],
            np.clip(arr[:, 2], 0.0, 1.0),
            class_id=PUCK,
            xy_rink_m=arr[:, 10:12],
            area_px=arr[:, 3],
            expected_area_px=arr[:, 4],
            contrast=arr[:, 5],
            isolation=arr[:, 6],
            motion=arr[:, 7],
        )

    @staticmethod
    def _cut_core(labels, stats, cents, v, i) -> bool:
        """Shrink blob ``i`` (in place) to its darkest piece; False when nothing is left."""
        return _cut_core_impl(labels, stats, cents, v, i)

    def _candidates(self, cand, crop, v, bg, dark, floor, scene, x0, y0, Wf, Hf, k, prev_v, prev_cam) -> list[tuple]:
        """Score the blobs of one candidate mask; rows (cx, cy, score, area, expected area,
        contrast, isolation, motion, w, h, x_rink, y_rink)."""
        cfg = self.config
        cam = scene.cam
        n, labels, stats, cents = connected_components(cand)
        if n <= 1:
            return []
        # Vectorised pre-filter on all blobs (a textured ice or a busy frame gives hundreds):
        # plausible size for a puck at the blob's spot, compact, and really dark somewhere.
        idx = np.arange(1, n)
        area = stats[idx, cv2.CC_STAT_AREA].astype(np.float64)
        bw = stats[idx, cv2.CC_STAT_WIDTH].astype(np.float64)
        bh = stats[idx, cv2.CC_STAT_HEIGHT].astype(np.float64)
        keep = (area >= cfg.min_area_px) & (np.maximum(bw, bh) <= 4.0 * k)
        # Blobs cut by the image border: the closing is unreliable there and the puck incomplete.
        sx, sy = stats[idx, cv2.CC_STAT_LEFT] + x0, stats[idx, cv2.CC_STAT_TOP] + y0
        keep &= (sx > 1) & (sy > 1) & (sx + bw < Wf - 1) & (sy + bh < Hf - 1)
        idx, area, bw, bh = idx[keep], area[keep], bw[keep], bh[keep]
        if len(idx) == 0:
            return []
        pts = cv2.findNonZero(cand).reshape(-1, 2)  # the blobs' pixels (faster than cand > 0 indexing)
        min_v_all = np.full(n, 255, dtype=np.uint8)
        np.minimum.at(min_v_all, labels[pts[:, 1], pts[:, 0]], v[pts[:, 1], pts[:, 0]])
        c_rink, okc = cam.rink_from_image(cents[idx] + np.array([x0, y0]), z_m=self.thickness_m / 2.0)
        a_exp_v, ext_v = self.expected_size_px(cam, c_rink)
        lo, hi = cfg.area_ratio_range
        keep = okc & (area >= lo * a_exp_v - 1.0) & (area <= hi * a_exp_v + 2.0)
        keep &= np.maximum(bw, bh) <= 2.0 * (1.6 * ext_v + 2.0)
        # A puck touching a dark stick blade (or pants) merges with it into one oversized
        # blob. The puck is the blackest part: cut each such blob at the midpoint between
        # its darkest and its median value and keep the piece around the darkest pixel.
        over = okc & ~keep & (area <= 10.0 * a_exp_v + 10.0) & (np.maximum(bw, bh) <= 5.0 * (1.6 * ext_v + 2.0))
        over &= min_v_all[idx] < 0.35 * scene.ice_v_full  # only blobs with a really black part
        over_idx = idx[over]
        over_idx = over_idx[np.argsort(min_v_all[over_idx], kind="stable")][:12]
        cores = [i for i in over_idx if self._cut_core(labels, stats, cents, v, int(i))]
        idx = np.concatenate([idx[keep], np.asarray(cores, dtype=idx.dtype)])
        if len(cores):
            c2, ok2 = cam.rink_from_image(cents[idx] + np.array([x0, y0]), z_m=self.thickness_m / 2.0)
            a2, e2 = self.expected_size_px(cam, c2)
            ar = stats[idx, cv2.CC_STAT_AREA]
            ext2 = np.maximum(stats[idx, cv2.CC_STAT_WIDTH], stats[idx, cv2.CC_STAT_HEIGHT])
            idx = idx[ok2 & (ar >= lo * a2 - 1.0) & (ar <= hi * a2 + 2.0) & (ext2 <= 2.0 * (1.6 * e2 + 2.0))]
        if len(idx) == 0:
            return []
        min_v = min_v_all[idx].astype(np.float64)
        dark_enough = min_v < (1.0 - 0.45) * scene.ice_v_full
        idx, min_v = idx[dark_enough], min_v[dark_enough]
        if len(idx) == 0:
            return []
        idx = idx[np.argsort(min_v, kind="stable")][: 4 * cfg.max_candidates]  # the blackest few
        # Expected size at each survivor's (unweighted) centre, all at once: it varies
        # slowly over a few pixels, so the weighted centre below does not need its own.
        c_rink_i, _ = cam.rink_from_image(cents[idx] + np.array([x0, y0]), z_m=self.thickness_m / 2.0)
        a_exp_i, ext_i_all = self.expected_size_px(cam, c_rink_i)

        rows_out: list[tuple] = []
        pending: list[tuple] = []  # blobs past the score bound, for the position-dependent factors
        lo, hi = cfg.area_ratio_range
        for n_i, i in enumerate(idx):
            x, y, w, h, a = stats[i]
            a_exp, ext_i = float(a_exp_i[n_i]), float(ext_i_all[n_i])
            if not (lo * a_exp - 1.0 <= a <= hi * a_exp + 2.0):
                continue
            size_score = float(np.exp(-0.5 * (np.log(max(a, 0.5) / max(a_exp, 0.5)) / np.log(3.0)) ** 2))
            # Compactness: the blob should fit in a box a little larger than the puck.
            extent = max(w, h)
            lim = 1.6 * ext_i + 2.0
            compact = float(np.clip(1.0 - (extent - lim) / lim, 0.0, 1.0))
            xa, ya, xb, yb = max(0, x - 1), max(0, y - 1), min(v.shape[1], x + w + 1), min(v.shape[0], y + h + 1)
            r = dark[ya:yb, xa:xb].astype(np.float32) / np.maximum(bg[ya:yb, xa:xb].astype(np.float32), floor)
            lab_i = labels[ya:yb, xa:xb] == i
            peak = float(r[lab_i].max())
            contrast = float(np.clip((peak - cfg.dark_ratio_min) / (0.75 - cfg.dark_ratio_min), 0.0, 1.0))
            # Darkness against the ice itself: the puck is black, while two markings meeting
            # (a blue spot on a red line) blend into dark-looking but far lighter pixels.
            min_v = float(v[ya:yb, xa:xb][lab_i].min())
            absdark = float(np.clip((1.0 - min_v / max(scene.ice_v_full, 1.0) - 0.45) / 0.35, 0.0, 1.0))
            # A blob under the minimum score even if perfectly neutral is not worth the colour test.
            bound = (0.35 + 0.65 * contrast) * absdark * size_score * compact
            if bound < cfg.min_score:
                continue
            # Black rubber is neutral: the channel spread of the blob's darkest pixels is small,
            # unlike a tinted stick blade or dark jersey trim.
            px = crop[ya:yb, xa:xb][lab_i].astype(np.int16) if crop.ndim == 3 else None
            neutral = 1.0
            if px is not None and len(px):
                dark_half = px[np.argsort(px.max(axis=1))[: max(1, len(px) // 2)]]
                spread = float(np.median(dark_half.max(axis=1) - dark_half.min(axis=1)))
                neutral = float(np.clip(1.0 - (spread - 12.0) / 40.0, 0.0, 1.0))
            # The factors still to come (marking, isolation, motion, joined) are all <= 1: a
            # blob already under the minimum score is dropped before the costlier ones.
            if bound * (0.4 + 0.6 * neutral) < cfg.min_score:
                continue
            # Darkness-weighted centroid over the blob and a one-pixel margin.
            near = cv2.dilate(lab_i.astype(np.uint8), np.ones((3, 3), np.uint8)) > 0
            wgt = np.where(near, np.clip(r - 0.5 * cfg.dark_ratio_min, 0.0, None), 0.0)
            sw = float(wgt.sum())
            if sw <= 0:
                continue
            gy, gx = np.mgrid[ya:yb, xa:xb]
            cx = float((wgt * gx).sum() / sw) + x0
            cy = float((wgt * gy).sum() / sw) + y0
            pending.append((i, cx, cy, a, a_exp, ext_i, contrast, absdark, neutral, size_score, compact,
                            (xa, ya, xb, yb), lab_i))
        if not pending:
            return rows_out
        # The position-dependent factors of all survivors at once.
        c_px = np.array([[p[1], p[2]] for p in pending])
        ext_all = np.array([p[5] for p in pending])
        xy_rink_all, okr_all = cam.rink_from_image(c_px, z_m=self.thickness_m / 2.0)
        on_marking = _on_marking(scene, c_px)
        iso_all = _isolation(scene, c_px, ext_all / 2.0, cfg.isolation_ring, cfg.white_kits)
        mot_all = np.zeros(len(pending))
        if prev_v is not None:
            mot_all = _motion(v, prev_v, prev_cam, cam, c_px, x0, y0, ext_all)
        for k, (i, cx, cy, a, a_exp, ext_i, contrast, absdark, neutral, size_score, compact, box, lab_i) in enumerate(pending):
            if not okr_all[k]:
                continue
            if on_marking[k]:
                absdark *= absdark
            iso, mot = float(iso_all[k]), float(mot_all[k])
            score = (0.35 + 0.65 * contrast) * absdark * (0.4 + 0.6 * neutral) * size_score * compact * (0.15 + 0.85 * iso) * (0.8 + 0.2 * mot)
            if score < cfg.min_score:
                continue
            # A stick blade lying on the ice is a puck-sized black blob joined to its shaft.
            xa, ya = box[0], box[1]
            whole, _ = dark_object_around(v, lab_i, xa, ya, ext_i, 1.6 * ext_i + 4.0, floor, cfg.joined_dark_ratio,
                                          scene, (x0, y0))
            if not whole:
                score *= cfg.joined_factor
                if score < cfg.min_score:
                    continue
            w, h = stats[i, cv2.CC_STAT_WIDTH], stats[i, cv2.CC_STAT_HEIGHT]
            rows_out.append((cx, cy, score, a, a_exp, contrast, iso, mot, w, h, xy_rink_all[k, 0], xy_rink_all[k, 1]))
        return rows_out


def _cut_core_impl(labels, stats, cents, v, i) -> bool:
    x, y, w, h, _ = stats[i]
    sub_l = labels[y : y + h, x : x + w]
    mine = sub_l == i
    vals = v[y : y + h, x : x + w]
    vm = vals[mine]
    thr = 0.5 * (float(vm.min()) + float(np.median(vm)))
    core = (mine & (vals <= thr)).astype(np.uint8)
    n, lab, st, cen = cv2.connectedComponentsWithStats(core, connectivity=8)
    if n <= 1:
        return False
    darkest = np.unravel_index(np.argmin(np.where(mine, vals, 255)), vals.shape)
    keep = lab[darkest]
    if keep == 0:
        return False
    sub_l[mine & (lab != keep)] = 0  # the rest of the blob is no longer part of the candidate
    cx, cy, cw, ch, ca = st[keep]
    stats[i] = (x + cx, y + cy, cw, ch, ca)
    cents[i] = (cen[keep][0] + x, cen[keep][1] + y)
    return True


def connected_components(mask: np.ndarray):
    """``cv2.connectedComponentsWithStats`` (8-connectivity) with 16-bit labels when they fit.

    16-bit labels run several times faster here than the default 32-bit ones.
    """
    ltype = cv2.CV_16U if cv2.countNonZero(mask) < 65000 else cv2.CV_32S
    n, labels, stats, cents = cv2.connectedComponentsWithStats(mask, connectivity=8, ltype=ltype)
    return n, labels, stats, cents


_KERNEL_1X3 = np.ones((1, 3), np.uint8)


#: Smallest footprint (diameter, px) over which a puck's darkness is expected (``ink_area_px``).
MIN_INK_DIAMETER_PX = 2.5


def ink_area_px(area_px: np.ndarray) -> np.ndarray:
    """The area over which a puck's darkness ("ink") is expected, px²: its own image area (N,),
    but at least that of a disc ``MIN_INK_DIAMETER_PX`` across. A puck under two pixels across
    is smeared over whole pixels by resampling, sharpening and compression, and its measured ink
    is far above its geometric area's (a 1.4 px puck seen from 45 m up: 3.6×)."""
    return np.maximum(area_px, 0.25 * np.pi * MIN_INK_DIAMETER_PX ** 2)


def max_channel(img_bgr: np.ndarray) -> np.ndarray:
    """(H, W, 3) uint8 → (H, W) uint8 max(B, G, R) (HSV value); grey images pass through."""
    if img_bgr.ndim == 2:
        return img_bgr
    h, w = img_bgr.shape[:2]
    if not img_bgr.flags.c_contiguous or h == 0 or w == 0:
        return cv2.max(cv2.max(img_bgr[:, :, 0], img_bgr[:, :, 1]), img_bgr[:, :, 2])
    # Each row as one interleaved B, G, R, B, ... line: a 1×3 dilation anchored at its left
    # end gives max(B, G, R) at every third element (twice as fast as two cv2.max calls,
    # which first copy each channel out of the interleaved image).
    row_max = cv2.dilate(img_bgr.reshape(h, 3 * w), _KERNEL_1X3, anchor=(0, 0))
    return np.ascontiguousarray(row_max[:, 0::3])


def empty_candidates() -> Detections:
    """No puck candidates, with every data key of ``PuckDetector.detect``."""
    d = Detections.empty()
    for key, shape in (("centre_xy_px", (0, 2)), ("xy_rink_m", (0, 2)), ("area_px", (0,)),
                       ("expected_area_px", (0,)), ("contrast", (0,)), ("isolation", (0,)), ("motion", (0,))):
        d.data[key] = np.zeros(shape)
    return d


def _mask_crop(scene: IceScene, x0: int, y0: int, x1: int, y1: int) -> np.ndarray:
    """Full-resolution crop of the ice mask."""
    return scene.ice_mask_full[y0:y1, x0:x1]


def _on_marking(scene: IceScene, c_px: np.ndarray) -> np.ndarray:
    """Whether each of (N, 2) full-res points lies on a painted marking (dilated by the slack): (N,) bool."""
    p = scene.to_work(c_px)
    xi, yi = np.round(p[:, 0]).astype(np.int64), np.round(p[:, 1]).astype(np.int64)
    h, w = scene.marking_mask.shape
    inside = (xi >= 0) & (xi < w) & (yi >= 0) & (yi < h)
    out = np.zeros(len(p), bool)
    out[inside] = scene.marking_mask[yi[inside], xi[inside]] > 0
    return out


def _isolation(scene: IceScene, c_px: np.ndarray, radius_px: np.ndarray, ring: tuple[float, float],
               white_kits: bool = False) -> np.ndarray:
    """Fraction of a ring around each of (N, 2) full-res centres (radii (N,) px, ring in radii) that
    looks like ice (or its marking), and with ``white_kits`` is as flat as the ice too
    (``PuckDetectorConfig.white_kits``): (N,) in [0, 1]."""
    r_in = np.maximum(radius_px * ring[0], 2.0)
    r_out = np.maximum(radius_px * ring[1], r_in + 2.0)
    ang = np.linspace(0.0, 2 * np.pi, 24, endpoint=False)
    rr = np.stack([r_in, 0.5 * (r_in + r_out), r_out], axis=1)  # (N, 3)
    # (N, 3, 24) points on three circles between the ring's radii.
    px = c_px[:, 0, None, None] + rr[:, :, None] * np.cos(ang)
    py = c_px[:, 1, None, None] + rr[:, :, None] * np.sin(ang)
    p = scene.to_work(np.stack([px.reshape(-1), py.reshape(-1)], axis=1))
    h, w = scene.ice_like.shape
    xi, yi = np.round(p[:, 0]).astype(np.int64), np.round(p[:, 1]).astype(np.int64)
    inside = (xi >= 0) & (xi < w) & (yi >= 0) & (yi < h)
    vals = np.zeros(len(p), bool)
    vals[inside] = scene.ice_like[yi[inside], xi[inside]] > 0
    if white_kits:
        vals[inside] &= ~scene.off_local_luma()[yi[inside], xi[inside]]
    n_per = rr.shape[1] * len(ang)
    return vals.reshape(len(c_px), n_per).sum(axis=1) / float(n_per)


def _motion(v, prev_v, prev_cam, cam, c_px, x0, y0, ext) -> np.ndarray:
    """How much darker each candidate is now than the same rink spot was in the previous frame, (N,) in [0, 1].

    Args:
        c_px: (N, 2) full-res centres; ``v`` is the crop at (x0, y0), ``prev_v`` the whole previous frame.
        ext: (N,) expected puck extents, px (the compared patches' size).

    With both frames' cameras the spot is mapped through the ice plane (so camera pans
    cancel); without ``prev_cam`` the same pixel is compared.
    """
    xy_prev = np.asarray(c_px, np.float64)
    front = np.ones(len(xy_prev), bool)
    if prev_cam is not None:
        xy_rink, _ = cam.rink_from_image(xy_prev)
        xy_prev, w = apply_homography(prev_cam.H_image_from_rink, xy_rink)
        front = w > 0
    out = np.zeros(len(xy_prev))
    for k in range(len(xy_prev)):
        px, py = float(xy_prev[k, 0]), float(xy_prev[k, 1])
        if not front[k] or not (0 <= px < prev_v.shape[1] and 0 <= py < prev_v.shape[0]):
            continue
        size = max(3, int(np.ceil(ext[k])) | 1)
        patch_prev = cv2.getRectSubPix(prev_v, (size, size), (px, py)).astype(np.float32)
        patch_now = cv2.getRectSubPix(v, (size, size), (float(c_px[k, 0]) - x0, float(c_px[k, 1]) - y0)).astype(np.float32)
        diff = float(patch_prev.mean() - patch_now.mean())
        out[k] = float(np.clip(diff / (0.5 * max(20.0, float(patch_prev.max()))), 0.0, 1.0))
    return out


# ---------------------------------------------------------------- streaks
@dataclass
class StreakConfig:
    """Thresholds of the motion-blur streak search (see :meth:`StreakDetector.detect`).

    Attributes:
        dark_ratio_min: a pixel belongs to a streak when it is darker than the local ice by
            at least this fraction. A puck swept over L diameters during the exposure
            keeps its total "ink" but spreads it, so its darkness is ~0.85 / L: 0.08
            reaches streaks of up to ~10 diameters.
        max_shutter_frac: longest exposure considered, in frame intervals (a shutter open
            for the whole frame interval: 360°).
        length_slack_px: tolerance on the streak length, px.
        angle_max_deg: largest angle between the streak's axis and the predicted image
            motion (for streaks clearly longer than a puck).
        ink_range: accepted integrated darkness / the expected ink of a puck at that spot.
        width_range: accepted streak width (across its axis) / the expected puck extent.
        min_isolation: least fraction of a band around the streak that must look like ice
            (a stick blade is attached to its player's blob).
        min_score: streaks below this score are dropped.
    """

    dark_ratio_min: float = 0.08
    max_shutter_frac: float = 1.0
    length_slack_px: float = 3.0
    angle_max_deg: float = 20.0
    ink_range: tuple[float, float] = (0.35, 2.5)
    width_range: tuple[float, float] = (0.35, 1.9)
    min_isolation: float = 0.8
    min_score: float = 0.2


class StreakDetector:
    """Motion-blurred puck search in a gated window around the tracker's prediction.

    Physics: while the shutter is open for ``τ`` (unknown, at most one frame interval
    ``Δt``) a puck moving at image velocity ``u`` px/s sweeps a streak of length
    ``d + |u|·τ`` along ``u`` (``d`` the puck's image extent). Every point of the
    path gets the same dwell time, so the streak keeps the puck's total darkness
    ("ink": area × contrast) and its darkness-weighted centroid is the puck's
    position at **mid-exposure**, whatever ``τ`` is. Frame timestamps are taken as
    the mid-exposure time (a frame is stamped at the centre of its integration; a
    rolling shutter or end-of-exposure stamps would shift it by ``u·τ/2``), so the
    centroid is reported as the position at the frame's time.

    A streak is accepted when its axis is aligned with the predicted motion, its
    length is at most ``d + |u|·Δt·max_shutter_frac`` (plus slack), its width is
    about a puck's, its ink matches a 7.62 cm puck at that spot and a band around it
    looks like ice (stick blades are attached to a player blob; they are also
    thinner and, for a slow predicted puck, longer than a puck).

    Args:
        puck: the puck detector (expected sizes).
        config: thresholds.
    """

    def __init__(self, puck: PuckDetector, config: StreakConfig | None = None) -> None:
        self.puck = puck
        self.config = config or StreakConfig()

    def detect(
        self,
        frame_bgr: np.ndarray,
        scene: IceScene,
        roi_xyxy_px: tuple[int, int, int, int],
        velocity_px_per_frame: np.ndarray | None,
        v_full: np.ndarray | None = None,
        max_speed_mps: float = 45.0,
    ) -> Detections:
        """Streak candidates in a window, best first.

        Args:
            frame_bgr: (H, W, 3) uint8 full-resolution frame.
            scene: the frame's ice model.
            roi_xyxy_px: gated search window (x0, y0, x1, y1), full-res px.
            velocity_px_per_frame: (2,) predicted image motion of the puck over one frame
                interval, px; None when no track predicts it (acquisition: any direction,
                length bounded by ``max_speed_mps``).
            max_speed_mps: fastest puck considered without a prediction, m/s.
            v_full: (H, W) uint8 ``max_channel(frame_bgr)`` if the caller has it already.

        Returns:
            Detections of class ``PUCK`` with the data of :meth:`PuckDetector.detect`
            (``area_px`` is the ink-equivalent puck area, so a long streak is not taken
            for an airborne puck) plus ``streak_length_px`` (N,) and ``streak_dir`` (N, 2).
        """
        cfg = self.config
        cam = scene.cam
        Hf, Wf = frame_bgr.shape[:2]
        x0, y0, x1, y1 = (int(v) for v in roi_xyxy_px)
        x0, y0, x1, y1 = max(0, x0), max(0, y0), min(Wf, x1), min(Hf, y1)
        if x1 - x0 < 5 or y1 - y0 < 5 or not scene.ok:
            return _empty_streaks()
        free = velocity_px_per_frame is None
        u = np.zeros(2) if free else np.asarray(velocity_px_per_frame, dtype=np.float64).reshape(2)
        speed = float(np.hypot(*u))
        v = max_channel(frame_bgr[y0:y1, x0:x1]) if v_full is None else v_full[y0:y1, x0:x1]
        ice = _mask_crop(scene, x0, y0, x1, y1)
        if not np.any(ice):
            return _empty_streaks()
        c = np.array([[0.5 * (x0 + x1), 0.5 * (y0 + y1)]])
        c_rink, ok = cam.rink_from_image(c, z_m=self.puck.thickness_m / 2.0)
        if not ok[0]:
            return _empty_streaks()
        _, ext0 = self.puck.expected_size_px(cam, c_rink)
        if free:
            # Image motion of the fastest puck over one frame at the window's largest scale.
            rows = np.nonzero(ice.any(axis=1))[0]
            low = np.array([[0.5 * (x0 + x1), y0 + rows[-1]]])
            low_rink, okl = cam.rink_from_image(low)
            scale = float(cam.ground_scale_px_per_m(low_rink)[0]) if okl[0] else float(ext0[0]) / self.puck.diameter_m
            speed = max_speed_mps * scale / 30.0
            ext0 = np.maximum(ext0, self.puck.diameter_m * scale)
        # The closing must bridge the streak's width (≈ a puck), not its length.
        k = int(np.clip(np.ceil(2.2 * ext0[0]) + 2, 5, 61)) | 1
        bg = cv2.morphologyEx(v, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_RECT, (k, k)))
        floor = float(max(20.0, 0.5 * scene.ice_v_full))
        ratio = cv2.subtract(bg, v).astype(np.float32) / np.maximum(bg.astype(np.float32), floor)
        mask = ((ratio > cfg.dark_ratio_min) & (ice > 0)).astype(np.uint8)
        n, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
        rows: list[tuple] = []
        # Vectorised pre-filter (a whole frame has hundreds of faint blobs): a streak fits in a
        # box of its length and holds at least a puck's area of pixels darker than the threshold.
        bmax = np.maximum(stats[:, cv2.CC_STAT_WIDTH], stats[:, cv2.CC_STAT_HEIGHT])
        cand_ids = np.nonzero((stats[:, cv2.CC_STAT_AREA] >= 3)
                              & (bmax <= 1.2 * (ext0[0] + speed * cfg.max_shutter_frac) + cfg.length_slack_px + 2))[0]
        for i in cand_ids[cand_ids > 0]:
            bx, by, bw, bh, area = stats[i]
            if area < 3 or bx <= 0 or by <= 0 or bx + bw >= x1 - x0 or by + bh >= y1 - y0:
                continue  # cut by the window: length and ink unreliable
            sub = labels[by : by + bh, bx : bx + bw] == i
            w = np.where(sub, ratio[by : by + bh, bx : bx + bw], 0.0).astype(np.float64)
            cx, cy, ink, length, width, axis = blob_moments(w, bx, by)
            xy_r, okr = cam.rink_from_image(np.array([[cx + x0, cy + y0]]), z_m=self.puck.thickness_m / 2.0)
            if not okr[0]:
                continue
            a_exp, ext = (float(q[0]) for q in self.puck.expected_size_px(cam, xy_r))
            # Ink of a black puck at that spot: its area × its darkness against ice (~0.85).
            ink_exp = 0.85 * a_exp
            ink_ratio = ink / max(ink_exp, 1.0)
            if not (cfg.ink_range[0] <= ink_ratio <= cfg.ink_range[1]):
                continue
            # A disc of diameter d has variance d²/16 along any axis: its "bar length" is ≈ 0.87 d.
            len_max = 0.87 * ext + speed * cfg.max_shutter_frac + cfg.length_slack_px
            if length > len_max:
                continue
            if not (cfg.width_range[0] * ext - 1.0 <= width <= cfg.width_range[1] * ext + 1.0):
                continue
            blur = length - 0.87 * ext  # the part of the length due to motion
            align = 1.0
            if free:
                # Acquisition: only a clearly elongated streak (compact blobs are the compact
                # detector's), well isolated; direction unknown, so the tracker's three-frame
                # motion check decides.
                if blur <= max(2.0, 0.5 * ext):
                    continue
                align = 0.5
            elif blur > max(2.0, 0.5 * ext):
                if speed < 1.0:
                    continue  # a streak where the puck is predicted still: a stick, not a puck
                cosang = abs(float(axis @ u)) / speed
                if cosang < np.cos(np.radians(cfg.angle_max_deg)):
                    continue
                align = float(np.clip((cosang - np.cos(np.radians(cfg.angle_max_deg)))
                                      / (1.0 - np.cos(np.radians(cfg.angle_max_deg))), 0.0, 1.0))
            iso = _band_isolation(scene, labels[by : by + bh, bx : bx + bw] == i, bx + x0, by + y0, ext)
            if iso < (max(cfg.min_isolation, 0.9) if free else cfg.min_isolation):
                continue
            # Black rubber: the darkest pixel is neutral and darker than any ice texture.
            ink_score = float(np.exp(-0.5 * (np.log(ink_ratio) / np.log(2.0)) ** 2))
            score = ink_score * (0.5 + 0.5 * align) * iso
            if score < cfg.min_score:
                continue
            d = axis if float(axis @ u) >= 0 else -axis
            rows.append((cx + x0, cy + y0, score, ink_ratio * a_exp, a_exp, float(ratio[by : by + bh, bx : bx + bw][sub].max()),
                         iso, 0.0, bw, bh, xy_r[0, 0], xy_r[0, 1], length, d[0], d[1]))
        if not rows:
            return _empty_streaks()
        arr = np.asarray(rows, dtype=np.float64)
        arr = arr[np.argsort(-arr[:, 2], kind="stable")][: self.puck.config.max_candidates]
        return Detections.from_centers(
            arr[:, 0:2], arr[:, 8:10], np.clip(arr[:, 2], 0.0, 1.0), class_id=PUCK,
            xy_rink_m=arr[:, 10:12], area_px=arr[:, 3], expected_area_px=arr[:, 4], contrast=arr[:, 5],
            isolation=arr[:, 6], motion=arr[:, 7], streak_length_px=arr[:, 12], streak_dir=arr[:, 13:15],
        )


def blob_moments(weight: np.ndarray, x0: float, y0: float) -> tuple[float, float, float, float, float, np.ndarray]:
    """Darkness-weighted centre, ink, length, width and axis of a blob.

    Args:
        weight: (h, w) float ≥ 0, the blob's relative darkness (0 outside it), at image
            offset (x0, y0) px.

    Returns:
        (cx, cy) px centre, ink (sum of the weights), length and width px (a uniform bar of
        length L has variance L²/12 along it, + 1/12 for the pixel; a disc of diameter d
        gives ≈ 0.87 d), and the (2,) unit axis along the length.
    """
    ink = float(weight.sum())
    gy, gx = np.mgrid[0 : weight.shape[0], 0 : weight.shape[1]]
    mx, my = float((weight * gx).sum() / ink), float((weight * gy).sum() / ink)
    dx, dy = gx - mx, gy - my
    cov = np.array([[(weight * dx * dx).sum(), (weight * dx * dy).sum()],
                    [(weight * dx * dy).sum(), (weight * dy * dy).sum()]]) / ink
    evals, evecs = np.linalg.eigh(cov)
    length = float(np.sqrt(max(12.0 * evals[1] - 1.0, 0.0)))
    width = float(np.sqrt(max(12.0 * evals[0] - 1.0, 0.0)))
    return mx + x0, my + y0, ink, length, width, evecs[:, 1]


def blob_moments_all(lab: np.ndarray, xs: np.ndarray, ys: np.ndarray, weight: np.ndarray, stats: np.ndarray,
                     ids: np.ndarray, x0: float = 0.0, y0: float = 0.0) -> dict[str, np.ndarray]:
    """``blob_moments`` of many labelled blobs at once, from their pixels listed once.

    Args:
        lab: (P,) the label of each listed pixel (e.g. ``labels[labels > 0]``).
        xs, ys: (P,) its column and row, px (``np.nonzero(labels > 0)`` in the same order).
        weight: (P,) its weight ≥ 0 (relative darkness).
        stats: (n, 5) ``connectedComponentsWithStats``'s stats of the labels.
        ids: (K,) the labels wanted.
        x0, y0: image offset of the labelled image, px.

    Returns:
        ``{"cx", "cy", "ink", "length", "width"}`` (K,) arrays and ``"axis"`` (K, 2), as
        ``blob_moments`` gives them for each blob (nan centre where a blob has no weight).
    """
    n = len(stats)
    want = np.zeros(n, bool)
    want[ids] = True
    sel = want[lab]
    lab = lab[sel].astype(np.int64)
    w = weight[sel].astype(np.float64)
    # Coordinates from each blob's own box corner, as blob_moments has them (small numbers).
    left, top = stats[:, cv2.CC_STAT_LEFT].astype(np.float64), stats[:, cv2.CC_STAT_TOP].astype(np.float64)
    xs, ys = xs[sel] - left[lab], ys[sel] - top[lab]

    def s(v):
        return np.bincount(lab, weights=v, minlength=n)[ids]

    ink = s(w)
    with np.errstate(invalid="ignore", divide="ignore"):
        mx, my = s(w * xs) / ink, s(w * ys) / ink
        # Central second moments about each blob's own centre (same as blob_moments').
        cxx = s(w * xs * xs) / ink - mx * mx
        cyy = s(w * ys * ys) / ink - my * my
        cxy = s(w * xs * ys) / ink - mx * my
    cov = np.stack([np.stack([cxx, cxy], -1), np.stack([cxy, cyy], -1)], -2)
    cov = np.where(np.isfinite(cov), cov, 0.0)
    evals, evecs = np.linalg.eigh(cov)
    return {"cx": mx + left[ids] + x0, "cy": my + top[ids] + y0, "ink": ink,
            "length": np.sqrt(np.maximum(12.0 * evals[:, 1] - 1.0, 0.0)),
            "width": np.sqrt(np.maximum(12.0 * evals[:, 0] - 1.0, 0.0)),
            "axis": evecs[:, :, 1]}


def blob_band(blob: np.ndarray, bx: int, by: int, ext_px: float) -> tuple[np.ndarray, int, int]:
    """A band 1–2.5 puck extents around a blob.

    Args:
        blob: (h, w) bool, at image offset (bx, by) px.
        ext_px: the expected puck extent there, px.

    Returns:
        ((hb, wb) bool band, ox, oy): the band and its image offset (it may reach outside the image).
    """
    r_out = int(np.ceil(max(2.5 * ext_px, 4.0)))
    r_in = int(np.ceil(max(1.0 * ext_px, 2.0)))
    h, w = blob.shape
    pad = np.zeros((h + 2 * r_out, w + 2 * r_out), np.uint8)
    pad[r_out : r_out + h, r_out : r_out + w] = blob
    outer = cv2.dilate(pad, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r_out + 1, 2 * r_out + 1)))
    inner = cv2.dilate(pad, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r_in + 1, 2 * r_in + 1)))
    return (outer > 0) & (inner == 0), bx - r_out, by - r_out


def dark_object_around(v_full: np.ndarray, blob: np.ndarray, bx: int, by: int,
                       ext_px: float, max_len_px: float, floor: float, dark_ratio: float = 0.10,
                       scene: IceScene | None = None, origin_px: tuple[int, int] = (0, 0)) -> tuple[bool, float]:
    """The dark object a blob belongs to in this frame: does it fit a puck (streak)?

    A stick blade is a puck-sized black blob joined to its shaft, the shaft to the glove and
    the player; a puck is alone (or merged with what it touches). Pixels count when they are
    darker than their surroundings by ``dark_ratio``, against a closing that removes thin
    dark things (shafts, blades, the puck) from the background. Colour is not used: the
    coloured glove and jersey are what join a shaft to its player.

    Args:
        v_full: (H, W) uint8 the frame's max channel (or a crop of it).
        blob: (h, w) bool the candidate, at image offset (bx, by) px.
        ext_px: the expected puck extent there, px.
        max_len_px: the longest the object may be and still be a puck (streak), px.
        floor: the brightness floor of the relative darkness.
        dark_ratio: least relative darkness of an object pixel.
        scene: the frame's ice model, or None. When given, the painted markings projected
            from the rink model are left out: a puck touching a line or a hash mark (darker
            than the ice in V) stays alone, while a stick lying across a line is still joined
            through its other parts. Geometry, not colour: a jersey joins a shaft to its player.
        origin_px: full-resolution offset of ``v_full`` (when it is a crop), px.

    Returns:
        (fits, ink): whether the object is no longer than ``max_len_px`` and does not reach
        beyond a window of that margin around the blob, and its total relative darkness
        (0 when the blob's pixels are not dark against their surroundings, and when it does
        not fit: no caller needs the darkness of an object that is not a puck).
    """
    h, w = blob.shape
    m = int(np.ceil(max_len_px)) + 2
    Hf, Wf = v_full.shape
    x0, y0, x1, y1 = max(0, bx - m), max(0, by - m), min(Wf, bx + w + m), min(Hf, by + h + m)
    v = v_full[y0:y1, x0:x1]
    k = int(np.clip(np.ceil(2.2 * ext_px) + 2, 5, 31)) | 1
    bg = cv2.morphologyEx(v, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_RECT, (k, k)))
    ratio = cv2.subtract(bg, v).astype(np.float32) / np.maximum(bg.astype(np.float32), floor)
    mask = ratio > dark_ratio
    if scene is not None:
        ox, oy = origin_px
        mask &= ~scene.marking_mask_full(x0 + ox, y0 + oy, x1 + ox, y1 + oy)
    _, labels = cv2.connectedComponents(mask.astype(np.uint8), connectivity=8)
    ids = np.unique(labels[by - y0 : by - y0 + h, bx - x0 : bx - x0 + w][blob])
    ids = ids[ids > 0]
    if len(ids) == 0:
        return True, 0.0
    obj = labels == ids[0] if len(ids) == 1 else np.isin(labels, ids)
    ox_, oy_, ow, oh = cv2.boundingRect(obj.view(np.uint8))
    at_edge = (ox_ == 0 and x0 > 0) or (oy_ == 0 and y0 > 0) or \
              (ox_ + ow == x1 - x0 and x1 < Wf) or (oy_ + oh == y1 - y0 and y1 < Hf)
    fits = not at_edge and max(ow, oh) <= max_len_px + 2
    if not fits:
        return False, 0.0
    return True, float(ratio[oy_ : oy_ + oh, ox_ : ox_ + ow][obj[oy_ : oy_ + oh, ox_ : ox_ + ow]].sum())


def _band_isolation(scene: IceScene, blob: np.ndarray, bx: int, by: int, ext_px: float) -> float:
    """Fraction of a band (1–2.5 puck extents) around a blob (full-res mask at (bx, by)) that is ice-like."""
    band, ox, oy = blob_band(blob, bx, by, ext_px)
    ys, xs = np.nonzero(band)
    if len(xs) == 0:
        return 0.0
    p = scene.to_work(np.stack([xs + ox, ys + oy], axis=1).astype(np.float64))
    hh, ww = scene.ice_like.shape
    xi, yi = np.round(p[:, 0]).astype(np.int64), np.round(p[:, 1]).astype(np.int64)
    inside = (xi >= 0) & (xi < ww) & (yi >= 0) & (yi < hh)
    if not np.any(inside):
        return 0.0
    return float((scene.ice_like[yi[inside], xi[inside]] > 0).sum()) / len(p)


def _empty_streaks() -> Detections:
    d = empty_candidates()
    d.data["streak_length_px"] = np.zeros(0)
    d.data["streak_dir"] = np.zeros((0, 2))
    return d
