"""Moving-puck detector: what got darker on the ice since the previous frames, seen through the ice plane.

A static dark mark on the ice (a hash mark, a logo, a scratch, a line's edge) is at
the same rink spot in every frame; a moving puck is not. The earlier frames are
warped into this frame through the ice-plane homographies of both frames
(``image_now_from_image_then = image_from_rink_now @ rink_from_image_then``), so a
panning or zooming camera cancels and only what moved on the ice remains — this
rests on the calibration's geometry, not on how the puck or the paint looks.

Per pixel, ``dark_k = erode3x3(V_then_warped) − V_now`` with ``V = max(B, G, R)``: the
3×3 erosion tolerates one pixel of misregistration (a static line shifted by a pixel
stays dark in the eroded earlier frame). ``dark = min(dark_1, dark_2)`` over the two
previous frames keeps only pixels that were ice-bright in both (sensor noise and
compression flicker rarely agree twice). Pixels that come from outside an earlier
frame count as dark then (no evidence).

Blobs of ``dark / ice`` above a relative threshold are kept when they look like a
puck possibly swept into a motion-blur streak (see ``vision.puck.StreakDetector`` for
the physics): the integrated darkness ("ink") of a 7.62 cm puck at that spot, the
width of a puck, a length of at most a puck plus a 45 m/s sweep over one frame, a
band around them where nothing changed since the previous frame (a puck crosses
static ice, paint or a logo; a player's moving edge has the rest of the player
moving around it), the colour of a darker copy of their surroundings (a blend of
black rubber with ice, paint or a logo, not a jersey), and the whole dark object
they belong to in this frame no longer than a puck streak (a stick blade moving
with its player is joined to its shaft). The centre is the darkness-weighted
centroid: the mid-exposure position of a blurred puck.

A puck at rest gives no difference: the compact detector (``vision.puck``) finds it.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.detections import PUCK, Detections
from vision.geometry import PlaneCamera
from vision.ice import IceScene
from vision.puck import (
    PuckDetector, _empty_streaks, blob_band, blob_moments_all, connected_components, dark_object_around, ink_area_px,
)


@dataclass
class MotionPuckConfig:
    """Thresholds of the moving-puck detector.

    Attributes:
        dark_ratio_min: a pixel is a candidate when it is darker than the same rink spot in
            both earlier frames by this fraction of the ice brightness (a puck blurred over
            L diameters is ~0.85 / L darker than the ice).
        max_speed_mps: fastest puck considered (a hard slap shot), m/s.
        ink_range: accepted integrated darkness / the expected ink of a puck at that spot
            (``vision.puck.ink_area_px``: at least a 2.5 px disc's, for pucks smaller than that).
        width_range: accepted streak width / the expected puck extent.
        length_slack_px: tolerance on the streak length, px.
        min_isolation: least fraction of a band around the blob that did not change since the
            previous frame (static ice, paint or logo around a puck; the rest of a moving player).
        max_chroma_diff: largest difference between the blob's chroma and the ice's
            (a blend of black rubber and ice keeps the ice's chroma; a jersey does not).
        max_changed_fraction: above this share of ice pixels changed (either way) since the
            previous frame, it is not comparable (a cut, a flash, a wrong homography): no candidates.
        min_score: candidates below this score are dropped.
        max_candidates: at most this many candidates, best first.
    """

    dark_ratio_min: float = 0.10
    max_speed_mps: float = 45.0
    ink_range: tuple[float, float] = (0.3, 3.0)
    width_range: tuple[float, float] = (0.35, 2.0)
    length_slack_px: float = 3.0
    min_isolation: float = 0.75
    max_chroma_diff: float = 0.12
    max_changed_fraction: float = 0.08
    min_score: float = 0.2
    max_candidates: int = 8


class MotionPuckDetector:
    """Find moving-puck candidates by differencing against earlier frames warped through the ice plane.

    Args:
        puck: the compact puck detector (expected puck sizes from the camera).
        config: thresholds.
    """

    def __init__(self, puck: PuckDetector, config: MotionPuckConfig | None = None) -> None:
        self.puck = puck
        self.config = config or MotionPuckConfig()

    def detect(
        self,
        frame_bgr: np.ndarray,
        v_full: np.ndarray,
        scene: IceScene,
        earlier: list[tuple[np.ndarray, PlaneCamera]],
        fps: float,
        roi: tuple[int, int, int, int] | None = None,
    ) -> Detections:
        """Moving-puck candidates, best first.

        Args:
            frame_bgr: (H, W, 3) uint8 this frame.
            v_full: (H, W) uint8 ``max(B, G, R)`` of this frame.
            scene: this frame's ice model (its ``cam`` maps the ice plane).
            earlier: one or two ``(v_full (H, W) uint8, cam)`` of the previous frames, newest
                first; frames whose calibration was unknown are left out by the caller.
            fps: frame rate (bounds the streak length by ``max_speed_mps``).
            roi: ``(x0, y0, x1, y1)`` image px: look only there (around a tracked puck); None:
                the whole ice. A blob cut by its border is not a candidate, and the share of
                changed ice that marks a cut or a wrong homography is judged on the whole ice
                only (a player crossing a small region changes much of it).

        Returns:
            Detections of class ``PUCK`` with the data of ``PuckDetector.detect`` (``area_px``
            is the ink-equivalent puck area), ``streak_length_px`` (N,) and ``streak_dir``
            (N, 2) (the streak's axis; its sign is unknown).
        """
        cfg = self.config
        if not earlier or not scene.ok:
            return _empty_streaks()
        cam = scene.cam
        x, y, w, h = cv2.boundingRect(scene.ice_mask_full)
        if w < 5 or h < 5:
            return _empty_streaks()
        # The largest streak a puck can leave: at the ice's bottom edge (nearest the camera).
        probe, ok = cam.rink_from_image(np.array([[x + 0.5 * w, y + h - 1.0]]))
        scale = float(cam.ground_scale_px_per_m(probe)[0]) if ok[0] else 200.0
        if roi is not None:
            x0, y0 = max(x, roi[0]), max(y, roi[1])
            x1, y1 = min(x + w, roi[2]), min(y + h, roi[3])
            if x1 - x0 < 5 or y1 - y0 < 5:
                return _empty_streaks()
            x, y, w, h = x0, y0, x1 - x0, y1 - y0
        # Earlier frames in this frame's pixels, cropped to the ice's bounding box.
        shift = np.array([[1.0, 0.0, -x], [0.0, 1.0, -y], [0.0, 0.0, 1.0]])
        v_now = v_full[y : y + h, x : x + w]
        ice = scene.ice_mask_full[y : y + h, x : x + w]
        floor = float(max(20.0, 0.5 * scene.ice_v_full))
        thr = int(np.ceil(cfg.dark_ratio_min * max(scene.ice_v_full, floor)))
        dark = changed = None
        k3 = np.ones((3, 3), np.uint8)
        for v_then, cam_then in earlier[:2]:
            M = shift @ cam.H_image_from_rink @ cam_then.H_rink_from_image
            warped = cv2.warpPerspective(v_then, M, (w, h), flags=cv2.INTER_LINEAR,
                                         borderMode=cv2.BORDER_CONSTANT, borderValue=0)
            d = cv2.subtract(cv2.erode(warped, k3), v_now)
            if dark is None:
                # Changed since the previous frame, either way (±1 px of misregistration allowed).
                changed = cv2.compare(cv2.max(d, cv2.subtract(v_now, cv2.dilate(warped, k3))), thr, cv2.CMP_GT)
            dark = d if dark is None else cv2.min(dark, d)
        mask = cv2.bitwise_and(cv2.compare(dark, thr, cv2.CMP_GT), ice)
        if roi is None and cv2.countNonZero(cv2.bitwise_and(changed, ice)) > \
                cfg.max_changed_fraction * max(cv2.countNonZero(ice), 1):
            # Not comparable: a cut or flash, or one of the two homographies is wrong (the
            # markings then disagree). Moving players change ~1–2 % of a broadcast view's ice.
            return _empty_streaks()
        n, labels, stats, cents = connected_components(mask)
        if n <= 1:
            return _empty_streaks()
        ice_v = max(scene.ice_v_full, floor)
        # Pre-filter: a blob bigger than a puck's longest possible streak anywhere in view is not one.
        sweep_max = cfg.max_speed_mps / max(fps, 1.0)
        box_max = scale * (self.puck.diameter_m + sweep_max) + cfg.length_slack_px + 2
        bmax = np.maximum(stats[:, cv2.CC_STAT_WIDTH], stats[:, cv2.CC_STAT_HEIGHT])
        ids = np.nonzero((stats[:, cv2.CC_STAT_AREA] >= 2) & (bmax <= box_max))[0]
        ids = ids[ids > 0]
        if len(ids):
            # Ink of every blob at once (one pass over the image), against a puck's at its centre
            # (loosely: the weighted centre below moves the expected size a little).
            # Every blob's pixels, listed once (findNonZero: row-major, as np.nonzero, but faster).
            pts = cv2.findNonZero(mask).reshape(-1, 2)
            xs_on, ys_on = pts[:, 0], pts[:, 1]
            lab_on, dark_on = labels[ys_on, xs_on], dark[ys_on, xs_on]
            ink_all = np.bincount(lab_on, weights=dark_on, minlength=n) / ice_v
            c_rink, okc = cam.rink_from_image(cents[ids] + np.array([x, y]), z_m=self.puck.thickness_m / 2.0)
            a_exp_all, _ = self.puck.expected_size_px(cam, c_rink)
            r = ink_all[ids] / np.maximum(0.85 * ink_area_px(a_exp_all), 1.0)
            ids = ids[okc & (r >= 0.8 * cfg.ink_range[0]) & (r <= 1.25 * cfg.ink_range[1])]
        if len(ids):
            # Cut by the ice's bounding box: length and ink unreliable.
            bx_, by_ = stats[ids, cv2.CC_STAT_LEFT], stats[ids, cv2.CC_STAT_TOP]
            inner = (bx_ > 0) & (by_ > 0) & (bx_ + stats[ids, cv2.CC_STAT_WIDTH] < w) & \
                (by_ + stats[ids, cv2.CC_STAT_HEIGHT] < h)
            ids = ids[inner]
        rows: list[tuple] = []
        if not len(ids):
            return _empty_streaks()
        # Shape of every surviving blob at once: darkness-weighted centre (mid-exposure),
        # ink, length, width and axis; then size, ink and length tests at that centre.
        mom = blob_moments_all(lab_on, xs_on, ys_on, dark_on, stats, ids, x, y)
        c_px = np.stack([mom["cx"], mom["cy"]], axis=1)
        xy_r_all, okr_all = cam.rink_from_image(c_px, z_m=self.puck.thickness_m / 2.0)
        a_exp_all, ext_all = self.puck.expected_size_px(cam, xy_r_all)
        ink_ratio_all = (mom["ink"] / ice_v) / np.maximum(0.85 * ink_area_px(a_exp_all), 1.0)
        len_max_all = 0.87 * ext_all + sweep_max * cam.ground_scale_px_per_m(xy_r_all) + cfg.length_slack_px
        shape_ok = okr_all & (cfg.ink_range[0] <= ink_ratio_all) & (ink_ratio_all <= cfg.ink_range[1])
        shape_ok &= mom["length"] <= len_max_all
        shape_ok &= (cfg.width_range[0] * ext_all - 1.0 <= mom["width"]) & (mom["width"] <= cfg.width_range[1] * ext_all + 1.5)
        for k in np.flatnonzero(shape_ok):
            i = ids[k]
            bx, by, bw, bh, _ = stats[i]
            sub = labels[by : by + bh, bx : bx + bw] == i
            cx, cy, ink, length = float(mom["cx"][k]), float(mom["cy"][k]), float(mom["ink"][k]) / ice_v, float(mom["length"][k])
            axis = mom["axis"][k]
            xy_r = xy_r_all[k : k + 1]
            a_exp, ext = float(a_exp_all[k]), float(ext_all[k])
            ink_ratio, len_max = float(ink_ratio_all[k]), float(len_max_all[k])
            # Around a puck nothing moved (it crosses static ice, paint or a logo); around the
            # moving edge of a player the rest of the player moved too.
            band_mask, ox, oy = _clipped_band(sub, bx, by, ext, changed.shape)
            if not band_mask.any():
                continue
            bs = changed[oy : oy + band_mask.shape[0], ox : ox + band_mask.shape[1]][band_mask]
            iso = 1.0 - float(np.count_nonzero(bs)) / len(bs)
            if iso < cfg.min_isolation:
                continue
            # Colour: a blend of black rubber with what lies around it (ice, paint, a logo).
            around = frame_bgr[y + oy : y + oy + band_mask.shape[0], x + ox : x + ox + band_mask.shape[1]][band_mask]
            chroma = _chroma_diff(frame_bgr[y + by : y + by + bh, x + bx : x + bx + bw][sub],
                                  around.reshape(-1, 3).astype(np.float64).mean(axis=0))
            if chroma > cfg.max_chroma_diff:
                continue
            # A stick blade moving with its player differences into a puck-sized sliver, but in
            # this frame it is joined to its shaft: the dark object around it is longer than any
            # puck streak, or the sliver holds only a small share of its darkness.
            fits, ink_now = dark_object_around(v_full, sub, bx + x, by + y, ext, len_max, floor)
            if not fits or ink < 0.4 * ink_now:
                continue
            ink_score = float(np.exp(-0.5 * (np.log(ink_ratio) / np.log(2.0)) ** 2))
            score = ink_score * iso * (1.0 - 0.5 * chroma / cfg.max_chroma_diff)
            if score < cfg.min_score:
                continue
            peak = float(dark[by : by + bh, bx : bx + bw][sub].max()) / ice_v
            rows.append((cx, cy, score, ink_ratio * a_exp, a_exp, peak, iso, 1.0,
                         bw, bh, xy_r[0, 0], xy_r[0, 1], length, axis[0], axis[1]))
        if not rows:
            return _empty_streaks()
        arr = np.asarray(rows, dtype=np.float64)
        arr = arr[np.argsort(-arr[:, 2], kind="stable")][: cfg.max_candidates]
        return Detections.from_centers(
            arr[:, 0:2], arr[:, 8:10], np.clip(arr[:, 2], 0.0, 1.0), class_id=PUCK,
            xy_rink_m=arr[:, 10:12], area_px=arr[:, 3], expected_area_px=arr[:, 4], contrast=arr[:, 5],
            isolation=arr[:, 6], motion=arr[:, 7], streak_length_px=arr[:, 12], streak_dir=arr[:, 13:15],
        )


def _clipped_band(blob: np.ndarray, bx: int, by: int, ext_px: float, shape: tuple[int, int]):
    """``vision.puck.blob_band`` clipped to an image of ``shape``: ((hb, wb) bool band, ox, oy)."""
    band, ox, oy = blob_band(blob, bx, by, ext_px)
    x0, y0 = max(0, -ox), max(0, -oy)
    x1, y1 = max(x0, min(band.shape[1], shape[1] - ox)), max(y0, min(band.shape[0], shape[0] - oy))
    return band[y0:y1, x0:x1], ox + x0, oy + y0


def _chroma_diff(px_bgr: np.ndarray, around_bgr: np.ndarray) -> float:
    """How far the blob's mean colour is from a darker copy of the background's (0 = same hue).

    Args:
        px_bgr: (K, 3) the blob's pixels in this frame.
        around_bgr: (3,) the mean colour around it (ice, paint or a logo).
    """
    if len(px_bgr) == 0:
        return 1.0
    m = px_bgr.reshape(-1, 3).astype(np.float64).mean(axis=0)
    a = m / max(float(m.sum()), 1.0)
    b = around_bgr / max(float(around_bgr.sum()), 1.0)
    return float(np.abs(a - b).max())
