"""Rink marking segmentation and line/ellipse fitting from pixels.

Nothing here knows the simulator's palette. The ice colour is estimated per
frame (the dominant bright, least-saturated colour), and paint is found by its
*colour difference to the ice* in CIE Lab: red paint shifts the (a*, b*)
chroma towards +a*, blue paint towards −b*. Thresholds scale with the ice's
own colour spread, so tinted or dim lighting and faded paint move the
thresholds with the ice instead of breaking them.

All masks are ``uint8`` (0 / 255), shape (H, W) of the analysed image.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from calibration.concurrency import side_pool

__all__ = [
    "MarkingMasks",
    "ImageLine",
    "ImageEllipse",
    "segment_markings",
    "fit_lines",
    "fit_ellipses",
    "merge_collinear",
]

# Hue sectors of the chroma shift (degrees of atan2(db*, da*)) for paint.
# Red/magenta-red paints: +a* with modest b*; blues: −b*. Wide sectors on purpose.
_RED_SECTOR_DEG = (-40.0, 55.0)
_BLUE_SECTOR_DEG = (-165.0, -30.0)

# Faint markings keep the pixels at this share of their local peak coverage or
# more (see ``_half_coverage``); chosen on tuning clips (seeds 101-110): 0.5 kept
# the most frames but widened half-covered lines (median error +15 %), 0.7 lost
# an end-zone clip again, as did applying it only below half coverage.
RIDGE_FRACTION = 0.6

# A chroma shift from the ice colour of up to this many paint thresholds, in no paint's hue
# sector, still counts as ice (``_chroma_lut``).
TINT_MAX_FACTOR = 2.0

# The ice colour is the chroma mode of the bright pixels, each weighted by (L / 255) to this
# power (``_ice_colour``): ice at L 240 then outweighs a dark crowd at L 70 ~ 140 to 1.
ICE_MODE_BRIGHTNESS_POWER = 4.0

# 8-bit Lab lightness at and above which a pixel is taken as clipped at the sensor's white.
CLIPPED_L = 250
NEUTRAL_BIT = 4  # in the chroma table, beside the class (0 other, 1 ice, 2 red, 3 blue)


@dataclass
class MarkingMasks:
    """Per-frame segmentation.

    Attributes:
        ice: (H, W) uint8, the ice surface region (filled, markings and
            players on it included).
        ice_like: (H, W) uint8, pixels with the ice's own colour.
        red: (H, W) uint8, red paint on/near the ice.
        blue: (H, W) uint8, blue paint on/near the ice.
        red_faint: (H, W) uint8, red candidates before the half-coverage test
            (keeps sub-pixel lines far away; for line detection, not for fitting).
        blue_faint: (H, W) uint8, the same for blue.
        ice_lab: (3,) float, estimated ice colour in OpenCV 8-bit Lab.
        ice_fraction: share of the image covered by the ice region.
        chroma_spread: robust spread of the ice's chroma (Lab units).
    """

    ice: np.ndarray
    ice_like: np.ndarray
    red: np.ndarray
    blue: np.ndarray
    red_faint: np.ndarray
    blue_faint: np.ndarray
    ice_lab: np.ndarray
    ice_fraction: float
    chroma_spread: float

    @property
    def has_ice(self) -> bool:
        """True when enough ice is in view to look for markings."""
        return self.ice_fraction >= 0.05


@dataclass
class ImageLine:
    """A straight marking seen in the image.

    Attributes:
        colour: "red" | "blue".
        abc: (3,) line a·x + b·y + c = 0 in px with a² + b² = 1.
        p0: (2,) one end of the supporting pixels, px.
        p1: (2,) the other end, px.
        width_px: mean painted width across the line, px.
        support: number of mask pixels supporting it.
    """

    colour: str
    abc: np.ndarray
    p0: np.ndarray
    p1: np.ndarray
    width_px: float
    support: int

    @property
    def length_px(self) -> float:
        return float(np.linalg.norm(self.p1 - self.p0))

    @property
    def direction(self) -> np.ndarray:
        """(2,) unit direction from p0 to p1."""
        d = self.p1 - self.p0
        return d / max(np.linalg.norm(d), 1e-9)


@dataclass
class ImageEllipse:
    """An elliptical marking (projected circle) in the image.

    Attributes:
        colour: "red" | "blue".
        centre: (2,) px.
        axes: (2,) full axis lengths, px (OpenCV's convention).
        angle_deg: rotation, degrees.
        support: number of contour points fitted.
    """

    colour: str
    centre: np.ndarray
    axes: np.ndarray
    angle_deg: float
    support: int


def _ice_colour(lab: np.ndarray) -> tuple[np.ndarray, float] | None:
    """Estimate the ice colour as the (a*, b*) mode of the bright pixels.

    Args:
        lab: (H, W, 3) uint8 Lab image.

    Returns:
        (ice_lab (3,), chroma_spread) or ``None`` when nothing looks like ice.
    """
    step = max(2, int(np.sqrt(lab.shape[0] * lab.shape[1] / 20000)))
    sub = lab[::step, ::step].reshape(-1, 3).astype(np.float32)
    L, a, b = sub[:, 0], sub[:, 1] - 128.0, sub[:, 2] - 128.0
    chroma = np.hypot(a, b)
    # Ice is bright and the least saturated large surface; "bright" relative to
    # this frame so that dim venues still work.
    bright = (L >= np.percentile(L, 40)) & (L >= 60) & (chroma < 45)
    if bright.sum() < 0.05 * len(sub):
        return None
    # Pixels clipped at the sensor's white have lost their chroma and say nothing of the
    # ice's tint (their spread is nil): left out while enough unclipped bright ones remain
    # (``segment_markings`` takes them as ice-like when near neutral) — unless those hold no
    # large surface of one colour: then the clipped white is the ice (an over-exposed rink
    # beside a speckled crowd from above, fresh render 764, found no ice at all).
    unclipped = bright & (L < CLIPPED_L)
    if unclipped.sum() >= 0.05 * len(sub):
        est = _chroma_mode(L, a, b, unclipped)
        if est is not None:
            return est
    return _chroma_mode(L, a, b, bright)


def _chroma_mode(L: np.ndarray, a: np.ndarray, b: np.ndarray, sel: np.ndarray) -> tuple[np.ndarray, float] | None:
    """The ice colour among the selected sample pixels (``_ice_colour``), or None.

    Args:
        L, a, b: (N,) Lab samples, a* and b* centred on 0.
        sel: (N,) bool, the bright pixels to take the mode of.
    """
    # The mode is taken over brightness-weighted counts: a dark crowd or dark boards that
    # fill more of a wide view than the ice (an overhead camera seeing the stands) must
    # not outvote the brightest large surface.
    wt = (L[sel] / 255.0) ** ICE_MODE_BRIGHTNESS_POWER
    hist, ae, be = np.histogram2d(a[sel], b[sel], bins=45, range=[[-45, 45], [-45, 45]], weights=wt)
    hist = cv2.GaussianBlur(hist.astype(np.float32), (5, 5), 1.0)
    ia, ib = np.unravel_index(int(np.argmax(hist)), hist.shape)
    a0, b0 = (ae[ia] + ae[ia + 1]) / 2, (be[ib] + be[ib + 1]) / 2
    near = sel & (np.hypot(a - a0, b - b0) < 6.0)
    if near.sum() < 0.03 * len(L):
        return None
    # Within that colour, ice is the brighter mode (boards share it, shadows do not).
    Ln = L[near]
    L0 = float(np.median(Ln[Ln >= np.percentile(Ln, 30)]))
    ice = np.array([L0, np.median(a[near]) + 128.0, np.median(b[near]) + 128.0])
    da, db = a[near] - (ice[1] - 128), b[near] - (ice[2] - 128)
    spread = float(1.4826 * np.median(np.hypot(da, db))) + 0.5
    return ice, spread


@lru_cache(maxsize=64)
def _chroma_lut_cached(a0: int, b0: int, tol_ice: float, thr_paint: float) -> np.ndarray:
    lut = _chroma_lut(np.array([0.0, a0, b0]), tol_ice, thr_paint)
    # One more bit in the same table: the byte pair is within the paint threshold of neutral
    # grey (for clipped white, ``segment_markings``), so one look-up per pixel serves both.
    a = np.arange(256, dtype=np.float32)[:, None] - 128.0
    b = np.arange(256, dtype=np.float32)[None, :] - 128.0
    return lut | np.where(np.hypot(a, b) < thr_paint, NEUTRAL_BIT, 0).astype(np.uint8)


def _chroma_lut(ice_lab: np.ndarray, tol_ice: float, thr_paint: float) -> np.ndarray:
    """(256, 256) uint8 class of each (a*, b*) byte pair: 0 other, 1 ice, 2 red, 3 blue."""
    a = np.arange(256, dtype=np.float32)[:, None] - ice_lab[1]
    b = np.arange(256, dtype=np.float32)[None, :] - ice_lab[2]
    d = np.hypot(a, b)
    hue = np.degrees(np.arctan2(b, a))
    lut = np.zeros((256, 256), np.uint8)
    lut[d < tol_ice] = 1
    paint = d > thr_paint
    red = (hue > _RED_SECTOR_DEG[0]) & (hue < _RED_SECTOR_DEG[1])
    blue = (hue > _BLUE_SECTOR_DEG[0]) & (hue < _BLUE_SECTOR_DEG[1])
    lut[paint & red] = 2
    lut[paint & blue] = 3
    # The light's tint varies over the ice (warm light near the camera, highlights clipped to
    # neutral white beside unclipped tinted ice): a shift of a few chroma units towards no
    # paint's hue (yellow, green) is ice too, not "other".
    lut[(d < TINT_MAX_FACTOR * thr_paint) & ~red & ~blue & (lut == 0)] = 1
    return lut


def segment_markings(frame_bgr: np.ndarray, paint_min_chroma: float = 10.0,
                     ice_hint: tuple[np.ndarray, float] | None = None) -> MarkingMasks:
    """Segment ice, red paint and blue paint.

    Args:
        frame_bgr: (H, W, 3) uint8 BGR image.
        paint_min_chroma: floor, in Lab chroma units, of the colour difference
            to the ice that counts as paint (the working threshold is the
            larger of this and 4× the ice's own chroma spread).
        ice_hint: (ice_lab (3,), chroma_spread) from a recent frame of the same
            shot, to skip the ice colour estimate (it changes slowly).

    Returns:
        :class:`MarkingMasks`; all-zero masks and ``ice_fraction`` 0 when no
        ice is found.
    """
    h, w = frame_bgr.shape[:2]
    zeros = np.zeros((h, w), np.uint8)
    lab = cv2.cvtColor(frame_bgr, cv2.COLOR_BGR2LAB)
    est = ice_hint if ice_hint is not None else _ice_colour(lab)
    if est is None:
        return MarkingMasks(zeros, zeros, zeros.copy(), zeros.copy(), zeros.copy(), zeros.copy(), np.zeros(3), 0.0, 0.0)
    ice_lab, spread = est
    tol_ice = max(6.0, 3.0 * spread)
    thr = max(paint_min_chroma, 4.0 * spread)
    # Classify chroma through a per-frame lookup table (fast, no per-pixel trig).
    # Quantised so consecutive frames of one venue reuse the table.
    lut = _chroma_lut_cached(int(round(ice_lab[1])), int(round(ice_lab[2])), round(tol_ice * 2) / 2, round(thr * 2) / 2)
    # One flat take on a combined (a*, b*) uint16 index: ~3× faster than 2-D fancy indexing.
    L, a_ch, b_ch = cv2.split(lab)
    ab = a_ch.astype(np.uint16)
    ab <<= 8
    ab |= b_ch
    cls = np.take(lut.ravel(), ab)
    neutral = cv2.compare(cls & NEUTRAL_BIT, 0, cv2.CMP_GT)
    cls &= NEUTRAL_BIT - 1
    # Masks with cv2 compare/bitwise on uint8 (0/255): several times faster than
    # numpy boolean temporaries on a whole frame (this runs every frame).
    lo_ice = max(0.0, ice_lab[0] - max(25.0, 0.25 * ice_lab[0]))
    ice_like = cv2.bitwise_and(cv2.compare(cls, 1, cv2.CMP_EQ), cv2.compare(L, lo_ice, cv2.CMP_GT))
    # Clipped white with little chroma left is ice (or boards, glare), never paint.
    clipped_white = cv2.bitwise_and(cv2.compare(L, CLIPPED_L, cv2.CMP_GE), neutral)
    ice_like = cv2.bitwise_or(ice_like, clipped_white)
    painted_L = cv2.compare(L, 0.12 * ice_lab[0], cv2.CMP_GT)  # dark navy paint under dim light still counts

    # Ice region at low resolution: close the ice-coloured pixels over markings
    # and players, keep large components, fill their holes, scale back up.
    s = max(1, int(round(max(h, w) / 160)))
    small = cv2.resize(ice_like, (max(1, w // s), max(1, h // s)), interpolation=cv2.INTER_AREA)
    small = (small > 100).astype(np.uint8) * 255
    small = cv2.morphologyEx(small, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 3)))
    n, labels, stats, _ = cv2.connectedComponentsWithStats(small, connectivity=4)
    big = np.flatnonzero(stats[:, cv2.CC_STAT_AREA] >= 0.03 * small.size)
    big = big[big > 0]
    region = np.isin(labels, big).astype(np.uint8) * 255
    if len(big) > 1:
        # A wide line across the whole view (a zoomed centre line) cuts the ice in
        # two; the closing above cannot bridge it. Paint in a gap that a wider
        # closing bridges is on the ice (boards and crowd are not in a concavity).
        paint = cv2.bitwise_and(cv2.compare(cls, 2, cv2.CMP_GE), painted_L)
        paint = cv2.resize(paint, (small.shape[1], small.shape[0]), interpolation=cv2.INTER_AREA)
        bridged = cv2.morphologyEx(region, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_RECT, (9, 9)))
        region = cv2.bitwise_or(region, cv2.bitwise_and(bridged, cv2.compare(paint, 60, cv2.CMP_GT)))
    if region.any():
        contours, _ = cv2.findContours(region, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        cv2.drawContours(region, contours, -1, 255, thickness=cv2.FILLED)
    ice = cv2.resize(region, (w, h), interpolation=cv2.INTER_NEAREST)
    ice_fraction = float(np.count_nonzero(region)) / region.size

    # Paint lies on the ice; lines continue a little up the boards: allow a margin.
    near_ice = cv2.dilate(region, cv2.getStructuringElement(cv2.MORPH_RECT, (3, 3)))
    near_ice = cv2.resize(near_ice, (w, h), interpolation=cv2.INTER_NEAREST)
    keep = cv2.bitwise_and(near_ice, painted_L)
    ice_bgr = np.median(frame_bgr[::7, ::7][ice_like[::7, ::7] > 0], axis=0) if ice_like.any() else None
    red_c = cv2.bitwise_and(cv2.compare(cls, 2, cv2.CMP_EQ), keep)
    blue_c = cv2.bitwise_and(cv2.compare(cls, 3, cv2.CMP_EQ), keep)
    blue_job = side_pool().submit(_half_coverage, blue_c, frame_bgr, ice_bgr)  # overlaps red's
    red = _half_coverage(red_c, frame_bgr, ice_bgr)
    blue = blue_job.result()
    return MarkingMasks(ice, ice_like, red, blue, red_c, blue_c, ice_lab, ice_fraction, spread)


def _half_coverage(candidate: np.ndarray, frame_bgr: np.ndarray, ice_bgr: np.ndarray | None) -> np.ndarray:
    """Keep candidate paint pixels (uint8 0/255 mask) at least half covered by paint.

    A blurred/antialiased edge pixel mixes paint and ice linearly; thresholding
    the colour difference low (to find faint paint) would grow every marking by
    a fraction of a pixel and bias the homography's scale. Coverage is the
    projection of (pixel − ice) on (paint − ice), the paint colour being the
    median of the strongest candidates.

    That reference fails for markings that never reach it: sub-pixel far lines,
    motion-blurred or faded paint, or any line when the strongest same-hue
    thing in view is a red jersey. Where the local peak (a few pixels around)
    stays below 1 / (2 · ``RIDGE_FRACTION``) of the reference, the marking's
    ridge is kept instead: pixels at ``RIDGE_FRACTION`` of that peak or more
    (symmetric about the line, so its position is unbiased, its width not).
    """
    if ice_bgr is None:
        return np.zeros(candidate.shape, np.uint8)
    # cv2.findNonZero instead of numpy boolean indexing/nonzero: ~10× faster,
    # same row-major order.
    nz = cv2.findNonZero(candidate)
    if nz is None:
        return np.zeros(candidate.shape, np.uint8)
    nz = nz.reshape(-1, 2)
    xs, ys = nz[:, 0], nz[:, 1]
    ice_f = ice_bgr.astype(np.float32)
    # Paint colour from a subsample of the candidates (the strongest 40 %).
    nz_sub = cv2.findNonZero(np.ascontiguousarray(candidate[::2, ::2]))
    if nz_sub is not None:
        nz_sub = nz_sub.reshape(-1, 2)
        px = frame_bgr[2 * nz_sub[:, 1], 2 * nz_sub[:, 0]].astype(np.float32) - ice_f
    else:
        px = frame_bgr[ys, xs].astype(np.float32) - ice_f
    mag = np.einsum("ij,ij->i", px, px)
    paint = np.median(px[mag >= np.percentile(mag, 60)], axis=0)
    denom = float(paint @ paint)
    if denom < 1.0:
        return (candidate > 0).astype(np.uint8) * 255
    # cover = (pixel − ice)·paint / |paint|², only at the candidates (a few % of
    # the frame) instead of converting and transforming the whole image.
    cover = frame_bgr[ys, xs].astype(np.float32) @ (paint / denom).astype(np.float32)
    cover -= np.float32(float(ice_f @ paint) / denom)
    cover_img = np.zeros(candidate.shape, np.float32)
    cover_img[ys, xs] = cover
    # Window: wider than half of the widest line at this image size (a line's edge
    # pixel must see its centre), narrow enough to keep a jersey from masking a line.
    k = max(5, int(round(9 * candidate.shape[1] / 640)) | 1)
    peak = cv2.dilate(cover_img, cv2.getStructuringElement(cv2.MORPH_RECT, (k, k)))[ys, xs]
    ok = (cover >= np.minimum(np.float32(0.5), np.float32(RIDGE_FRACTION) * peak)) & (cover > 0)
    out = np.zeros(candidate.shape, np.uint8)
    out[ys[ok], xs[ok]] = 255
    return out


def _pca_line(pts: np.ndarray) -> np.ndarray:
    """Total-least-squares line (3,) a·x + b·y + c = 0, a² + b² = 1."""
    mean = pts.mean(axis=0)
    cov = np.cov((pts - mean).T)
    evals, evecs = np.linalg.eigh(cov)
    normal = evecs[:, 0]
    return np.array([normal[0], normal[1], -normal @ mean])


def _fit_one_line(pts: np.ndarray, iters: int = 3) -> tuple[np.ndarray, np.ndarray, float] | None:
    """Robust line through (N, 2) pixel coordinates: fit, trim, refit.

    Returns:
        (abc (3,), inlier points (M, 2), rms distance px) or ``None``.
    """
    keep = pts
    for _ in range(iters):
        if len(keep) < 10:
            return None
        abc = _pca_line(keep)
        d = pts @ abc[:2] + abc[2]
        # Trim at a multiple of the core thickness so crease arcs/players drop out.
        core = np.percentile(np.abs(d[np.abs(d) < np.percentile(np.abs(d), 60) + 1.0]), 90) + 1.5
        keep = pts[np.abs(d) <= 2.0 * core]
    d = keep @ abc[:2] + abc[2]
    return abc, keep, float(np.sqrt(np.mean(d**2)))


def fit_lines(mask: np.ndarray, colour: str, min_length_px: float = 40.0, max_lines: int = 8,
              min_straight_fraction: float = 0.6) -> list[ImageLine]:
    """Fit long straight painted lines in one colour mask.

    Each connected component whose extent could hold a line is fitted by a
    trimmed Huber line fit; it is accepted when most of its pixels lie on the
    line (a goal line joined to its crease arc, a line with a player across
    it pass; a circle does not). Collinear pieces split by occluders are
    merged.

    Args:
        mask: (H, W) uint8 colour mask.
        colour: label stored on the lines.
        min_length_px: shortest accepted (merged) line, px.
        max_lines: keep at most this many (most supported first).
        min_straight_fraction: share of a component's pixels that must lie
            on its line.

    Returns:
        Lines sorted by decreasing support.
    """
    n, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    piece_len = min_length_px / 3.0
    pieces: list[ImageLine] = []
    for i in range(1, n):
        x, y, bw, bh, area = stats[i]
        if np.hypot(bw, bh) < piece_len or area < 10:
            continue
        ys, xs = np.nonzero(labels[y : y + bh, x : x + bw] == i)
        pts = np.c_[xs + x, ys + y].astype(np.float64)
        ln = _line_in_component(pts, colour, piece_len, min_straight_fraction)
        if ln is not None:
            pieces.append(ln)
    merged = merge_collinear(pieces)
    lines = [ln for ln in merged if ln.length_px >= min_length_px]
    lines.sort(key=lambda ln: -ln.support)
    return lines[:max_lines]


def _line_in_component(pts: np.ndarray, colour: str, min_len: float, min_fraction: float) -> ImageLine | None:
    # Thinning the sample keeps the fit fast on long thick lines (cold start
    # fits every component of four masks); ~800 points pin a line to well
    # under a pixel, and refinement on the full paint follows anyway.
    if len(pts) > 1600:
        pts = pts[:: len(pts) // 800]
    fit = _fit_one_line(pts)
    if fit is None:
        return None
    abc, inl, rms = fit
    if len(inl) < min_fraction * len(pts):
        return None
    direction = np.array([-abc[1], abc[0]])
    s = inl @ direction
    lo, hi = np.percentile(s, [0.5, 99.5])
    length = hi - lo
    if length < min_len:
        return None
    d = inl @ abc[:2] + abc[2]
    spread = max(1.0, _spread_px(d))
    if length < 8.0 * spread:  # long and thin; arcs with hash marks are not
        return None
    # An arc trimmed to its straightest part leaves gaps along the line.
    hist, _ = np.histogram(s, bins=max(4, int(length // 4)), range=(lo, hi))
    if np.mean(hist > 0) < 0.6:
        return None
    foot = -abc[2] * abc[:2]
    width = _core_width(s, d, lo, hi)
    return ImageLine(colour, abc, foot + lo * direction, foot + hi * direction, width, int(len(inl)))


def _spread_px(d: np.ndarray) -> float:
    """Extent across a line of pixels at signed distances ``d`` (N,) px from it: 5th to 95th
    percentile, plus the pixel itself, px."""
    return float(np.percentile(d, 95) - np.percentile(d, 5) + 1.0)


def _core_width(s: np.ndarray, d: np.ndarray, lo: float, hi: float, bin_px: float = 8.0) -> float:
    """Painted width of a line, px: the median over short stretches along it of the spread across it.

    A goal net, a player or a crease arc of the paint's colour joined to the line
    widens the stretches it touches; the whole line's spread would take them in
    (a goal line read as thick as a blue line is refused as a goal line).

    Args:
        s: (N,) positions of the line's pixels along it, px.
        d: (N,) their signed distances across it, px.
        lo, hi: the line's extent along ``s``, px.
        bin_px: stretch length, px.
    """
    n_bins = max(1, int((hi - lo) // bin_px))
    k = np.clip(((s - lo) / max(hi - lo, 1e-9) * n_bins).astype(int), 0, n_bins - 1)
    widths = []
    for b in range(n_bins):
        db = d[k == b]
        if len(db) >= 3:
            widths.append(_spread_px(db))
    if not widths:
        widths = [_spread_px(d)]
    return float(max(1.0, np.median(widths)))


def merge_collinear(lines: list[ImageLine], angle_tol_deg: float = 10.0, dist_tol_px: float = 4.0) -> list[ImageLine]:
    """Merge pieces of the same straight marking split by occluders."""
    lines = sorted(lines, key=lambda ln: -ln.support)
    merged: list[ImageLine] = []
    cos_tol = np.cos(np.radians(angle_tol_deg))
    for ln in lines:
        for m in merged:
            if abs(float(ln.abc[:2] @ m.abc[:2])) < cos_tol:
                continue
            tol = max(dist_tol_px, 1.0 * max(ln.width_px, m.width_px))
            if abs(m.abc[:2] @ ln.p0 + m.abc[2]) > tol or abs(m.abc[:2] @ ln.p1 + m.abc[2]) > tol:
                continue
            d = np.array([-m.abc[1], m.abc[0]])
            s = [m.p0 @ d, m.p1 @ d, ln.p0 @ d, ln.p1 @ d]
            foot = -m.abc[2] * m.abc[:2]
            total = m.support + ln.support
            m.width_px = (m.width_px * m.support + ln.width_px * ln.support) / total
            m.support = total
            m.p0, m.p1 = foot + min(s) * d, foot + max(s) * d
            break
        else:
            merged.append(ImageLine(ln.colour, ln.abc.copy(), ln.p0.copy(), ln.p1.copy(), ln.width_px, ln.support))
    return merged


def fit_ellipses(mask: np.ndarray, colour: str, min_axis_px: float = 20.0) -> list[ImageEllipse]:
    """Fit ellipses (projected faceoff/centre circles) to ring-like contours (RANSAC).

    Args:
        mask: (H, W) uint8 colour mask.
        colour: label stored on the ellipses.
        min_axis_px: smallest accepted minor axis, px.

    Returns:
        Ellipses whose contour fits within ~2 px rms, largest first.
    """
    # Thin (1–2 px) rings break into arcs at antialiasing gaps: close them first.
    closed = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
    contours, _ = cv2.findContours(closed, cv2.RETR_LIST, cv2.CHAIN_APPROX_NONE)
    rng = np.random.default_rng(0)
    out = []
    for c in contours:
        if len(c) < 30:
            continue
        pts = c.reshape(-1, 2).astype(np.float32)
        # RANSAC on 6-point samples: hash marks, spots or players touching a
        # ring must not pull the fit.
        best = None
        for _ in range(40):
            sample = pts[rng.choice(len(pts), 6, replace=False)]
            try:
                (cx, cy), (ax1, ax2), ang = cv2.fitEllipse(sample)
            except cv2.error:
                continue
            if not np.isfinite([cx, cy, ax1, ax2]).all() or min(ax1, ax2) < min_axis_px:
                continue
            inl = np.abs(_ellipse_dev(pts, cx, cy, ax1, ax2, ang)) < 1.0
            if best is None or inl.sum() > best.sum():
                best = inl
        if best is None or best.sum() < max(30, 0.5 * len(pts)):
            continue
        (cx, cy), (ax1, ax2), ang = cv2.fitEllipse(pts[best])
        if min(ax1, ax2) < min_axis_px:
            continue
        dev = _ellipse_dev(pts[best], cx, cy, ax1, ax2, ang)
        if np.sqrt(np.mean(dev**2)) > 1.0:
            continue
        out.append(ImageEllipse(colour, np.array([cx, cy]), np.array([ax1, ax2]), float(ang), int(best.sum())))
    out.sort(key=lambda e: -e.axes.prod())
    return out


def _ellipse_dev(pts: np.ndarray, cx: float, cy: float, ax1: float, ax2: float, ang: float) -> np.ndarray:
    """Approximate signed distance (px) of points to an OpenCV ellipse."""
    t = np.radians(ang)
    rot = np.array([[np.cos(t), np.sin(t)], [-np.sin(t), np.cos(t)]])
    q = (pts - [cx, cy]) @ rot.T / (np.array([ax1, ax2]) / 2)
    return (np.hypot(q[:, 0], q[:, 1]) - 1.0) * min(ax1, ax2) / 2
