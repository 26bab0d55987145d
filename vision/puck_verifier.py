"""Learned puck verifier: is there a puck at this candidate? (patch classifier on ONNX Runtime)

The classical detectors (``vision.puck``, ``vision.puck_motion``) propose candidates from
darkness, compactness, isolation and motion. Where the puck touches a stick blade, a
sledge or a line, those cues fail together: the puck merges into one dark object and
its candidate scores low. A small classifier looks at the candidate's surroundings
instead, at the scale of the puck there, and says how much it looks like a puck.

A patch is a square of ``PATCH_SIDE_PUCKS`` puck extents around the candidate's centre,
resampled to ``PATCH_PX`` × ``PATCH_PX`` pixels (so a puck is ~``PATCH_PX /
PATCH_SIDE_PUCKS`` px wide in every patch, whatever the camera's distance). The same
function cuts the training patches (``models/puck_patch_data.py``) and the run-time
ones, so the two cannot drift apart.

The model is an ultralytics classification network (``models/train_puck_verifier.py``,
card ``models/puck_verifier.md``) exported to ONNX; at run time only ONNX Runtime. The same
class runs the carry model (``models/carry_verifier.md``), which judges the dark spots beside
the players (``near_players``, ``reach_windows_px``) for a puck held against a stick blade.
Input: (N, 3, PATCH_PX, PATCH_PX) float32 RGB in [0, 1] (ultralytics' classify
preprocessing with mean 0, std 1); output: (N, 2) class probabilities, classes in
folder order (``background``, ``puck``).
"""

from __future__ import annotations

import ast
from pathlib import Path

import cv2
import numpy as np

from vision.detections import PUCK, Detections
from vision.possession import CARRY_REACH_M
from vision.puck import empty_candidates

#: Where the trained model ships.
DEFAULT_MODEL_PATH = Path(__file__).resolve().parent.parent / "models" / "puck_verifier.onnx"

#: Patch size fed to the network, px.
PATCH_PX = 32
#: Patch side in puck sizes (a puck size: the square root of its expected image area at the candidate).
PATCH_SIDE_PUCKS = 5.0
#: Smallest patch side in image px: a far puck still gets some context.
MIN_SIDE_PX = 12.0


def patch_side_px(expected_area_px: np.ndarray) -> np.ndarray:
    """Patch side in image px for candidates whose puck would cover ``expected_area_px``.

    Args:
        expected_area_px: (N,) expected image area of a puck at each candidate, px².

    Returns:
        (N,) side of the square cut around each candidate, px.
    """
    ext = np.sqrt(np.maximum(np.asarray(expected_area_px, dtype=np.float64), 1.0))
    return np.maximum(PATCH_SIDE_PUCKS * ext, MIN_SIDE_PX)


def crop_patches(frame_bgr: np.ndarray, centre_xy_px: np.ndarray, side_px: np.ndarray) -> np.ndarray:
    """Square patches around image points, resampled to ``PATCH_PX`` (bilinear, edges replicated).

    Args:
        frame_bgr: (H, W, 3) uint8 frame.
        centre_xy_px: (N, 2) patch centres, image px.
        side_px: (N,) patch sides, image px.

    Returns:
        (N, PATCH_PX, PATCH_PX, 3) uint8 BGR patches.
    """
    c = np.asarray(centre_xy_px, dtype=np.float64).reshape(-1, 2)
    side = np.broadcast_to(np.asarray(side_px, dtype=np.float64), (len(c),))
    out = np.empty((len(c), PATCH_PX, PATCH_PX, 3), np.uint8)
    half = (PATCH_PX - 1) / 2.0
    for i, ((cx, cy), s) in enumerate(zip(c, side)):
        k = PATCH_PX / s  # patch px per image px
        M = np.array([[k, 0.0, half - k * cx], [0.0, k, half - k * cy]])
        # Bilinear is enough: sides are ~12-60 px, so a patch is at most ~2x shrunk.
        out[i] = cv2.warpAffine(frame_bgr, M, (PATCH_PX, PATCH_PX), flags=cv2.INTER_LINEAR,
                                borderMode=cv2.BORDER_REPLICATE)
    return out


def dark_peaks(v_full: np.ndarray, scene, detector, roi_xyxy_px: tuple[int, int, int, int] | None = None,
               max_peaks: int = 32, spacing_px: int = 5) -> Detections:
    """Puck-sized dark spots on or at the edge of the ice, whatever they are joined to.

    The classical detector segments dark blobs and judges each as a whole, so a puck
    merged with a stick blade, a shaft or a sledge is never proposed. Here every local
    maximum of darkness (against a closing as wide as ~2 pucks, which fills pucks and
    shafts but not bodies) is a proposal; the verifier decides which are pucks.

    Args:
        v_full: (H, W) uint8 max-channel image of the frame.
        scene: the frame's ``IceScene`` (``cam``, ``ice_mask_full``, ``ice_v_full``).
        detector: the ``PuckDetector`` (puck size model: ``expected_size_px``, ``thickness_m``).
        roi_xyxy_px: search window (x0, y0, x1, y1), px; None = whole frame.
        max_peaks: at most this many proposals, darkest first.
        spacing_px: proposals are local maxima over this window, px.

    Returns:
        Detections (class PUCK, confidence 0: the classical cues have no opinion) with the
        puck detector's data keys (``area_px`` = the expected area, ``contrast`` = relative
        darkness, ``isolation`` and ``motion`` 0).
    """
    Hf, Wf = v_full.shape[:2]
    x0, y0, x1, y1 = (0, 0, Wf, Hf) if roi_xyxy_px is None else roi_xyxy_px
    x0, y0, x1, y1 = max(0, int(x0)), max(0, int(y0)), min(Wf, int(x1)), min(Hf, int(y1))
    empty = empty_candidates()
    if x1 - x0 < 5 or y1 - y0 < 5 or not scene.ok:
        return empty
    ice = scene.ice_mask_full[y0:y1, x0:x1]
    if not np.any(ice):
        return empty
    cam = scene.cam
    rows = np.nonzero(ice.any(axis=1))[0]
    probe = np.array([[0.5 * (x0 + x1), y0 + rows[-1]]], dtype=np.float64)
    probe_rink, ok = cam.rink_from_image(probe)
    _, ext = detector.expected_size_px(cam, probe_rink if np.all(ok) else np.zeros((1, 2)))
    k = int(np.clip(np.ceil(2.2 * ext.max()) + 2, 5, 61)) | 1
    v = v_full[y0:y1, x0:x1]
    bg = cv2.morphologyEx(v, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_RECT, (k, k)))
    dark = cv2.blur(cv2.subtract(bg, v), (3, 3))
    # As dark as the classical detector asks of a puck pixel, against ice-bright background.
    floor = max(20.0, 0.5 * float(scene.ice_v_full))
    thr = (0.35 * np.maximum(bg, floor)).astype(np.uint8)
    # A puck touching a player lies on the ice mask's edge: look a few px beyond it.
    near_ice = cv2.dilate(ice, np.ones((7, 7), np.uint8)) > 0
    peak = (dark >= cv2.dilate(dark, np.ones((spacing_px, spacing_px), np.uint8))) & (dark > thr) & near_ice
    ys, xs = np.nonzero(peak)
    if len(xs) == 0:
        return empty
    order = np.argsort(-dark[ys, xs].astype(np.int32), kind="stable")
    ys, xs = ys[order], xs[order]
    keep: list[int] = []
    for i in range(len(xs)):  # flat maxima give several equal pixels: one proposal per spot
        if all(abs(int(xs[i]) - int(xs[j])) >= spacing_px or abs(int(ys[i]) - int(ys[j])) >= spacing_px for j in keep):
            keep.append(i)
            if len(keep) >= max_peaks:
                break
    xy_px = np.stack([xs[keep] + x0, ys[keep] + y0], axis=1).astype(np.float64)
    xy_rink, ok = cam.rink_from_image(xy_px, z_m=detector.thickness_m / 2.0)
    xy_px, xy_rink = xy_px[ok], xy_rink[ok]
    if len(xy_px) == 0:
        return empty
    area, ext_px = detector.expected_size_px(cam, xy_rink)
    rel = dark[ys[keep], xs[keep]][ok] / np.maximum(bg[ys[keep], xs[keep]][ok], floor)
    n = len(xy_px)
    return Detections.from_centers(xy_px, np.stack([ext_px, ext_px], axis=1), np.zeros(n), class_id=PUCK,
                                   xy_rink_m=xy_rink, area_px=area, expected_area_px=area, contrast=rel,
                                   isolation=np.zeros(n), motion=np.zeros(n))


def near_players(peaks: Detections, seats_xy_rink_m: list[np.ndarray] | np.ndarray,
                 reach_m: float = CARRY_REACH_M) -> Detections:
    """The proposals within a carrier's reach of a player: where a carried puck can be.

    Args:
        peaks: proposals with ``xy_rink_m`` (N, 2), rink m.
        seats_xy_rink_m: (P, 2) the players' seats (blade midpoints), rink m.
        reach_m: the farthest a carried puck is from its carrier's seat, m
            (``vision.possession.CARRY_REACH_M``).

    Returns:
        The proposals within ``reach_m`` of some seat (none when there are no players).
    """
    seats = np.asarray(seats_xy_rink_m, dtype=np.float64).reshape(-1, 2)
    if not len(peaks) or not len(seats):
        return peaks[np.zeros(len(peaks), bool)]
    d = np.linalg.norm(np.asarray(peaks.data["xy_rink_m"], dtype=np.float64)[:, None] - seats[None], axis=2)
    return peaks[d.min(axis=1) <= reach_m]


def behind_bodies(xyz_rink_m: np.ndarray, camera_xyz_m: np.ndarray | None, seats_xy_rink_m: np.ndarray,
                  radius_m: float, z_range_m: tuple[float, float]) -> np.ndarray:
    """Which points the camera sees through a player's body (an upright cylinder at each seat).

    A body is opaque: a dark spot whose line of sight passes through a standing player's legs
    or torso is that body (dark trousers, a helmet), not a puck on the ice behind it.

    Args:
        xyz_rink_m: (N, 3) the points seen (a spot's rink position at puck height), rink m.
        camera_xyz_m: (3,) camera centre, rink m; None (no pose) → nothing is hidden.
        seats_xy_rink_m: (P, 2) the bodies' ground centres (feet), rink m.
        radius_m: the cylinder's radius, m.
        z_range_m: (low, high) the cylinder's heights above the ice, m.

    Returns:
        (N,) bool, True where the segment from the point to the camera passes within
        ``radius_m`` of a seat at a height within ``z_range_m``.
    """
    p = np.asarray(xyz_rink_m, dtype=np.float64).reshape(-1, 3)
    seats = np.asarray(seats_xy_rink_m, dtype=np.float64).reshape(-1, 2)
    if camera_xyz_m is None or not len(p) or not len(seats):
        return np.zeros(len(p), bool)
    c = np.asarray(camera_xyz_m, dtype=np.float64).reshape(3)
    dz = c[2] - p[:, 2]  # (N,)
    z0, z1 = z_range_m
    with np.errstate(divide="ignore", invalid="ignore"):
        ta = np.where(np.abs(dz) > 1e-9, (z0 - p[:, 2]) / dz, -np.inf)
        tb = np.where(np.abs(dz) > 1e-9, (z1 - p[:, 2]) / dz, np.inf)
    lo = np.clip(np.minimum(ta, tb), 0.0, 1.0)[:, None]  # the part of the sight line within the
    hi = np.clip(np.maximum(ta, tb), 0.0, 1.0)[:, None]  # body's heights, as fractions of it
    d = (c[None, :2] - p[:, :2])[:, None, :]  # (N, 1, 2) ground direction of the sight line
    off = p[:, None, :2] - seats[None]  # (N, P, 2)
    dd = np.maximum(np.sum(d * d, axis=2), 1e-12)
    t = np.clip(-np.sum(off * d, axis=2) / dd, lo, hi)  # nearest approach within those heights
    gap = np.linalg.norm(off + t[..., None] * d, axis=2)
    return np.any((gap <= radius_m) & (hi > lo), axis=1)


def reach_windows_px(cam, seats_xy_rink_m: list[np.ndarray] | np.ndarray, width: int, height: int,
                     reach_m: float = CARRY_REACH_M) -> list[tuple[int, int, int, int]]:
    """Image windows that hold every point within ``reach_m`` of a seat, overlapping ones merged.

    Args:
        cam: the frame's ``vision.geometry.PlaneCamera``.
        seats_xy_rink_m: (P, 2) the players' seats, rink m.
        width, height: the image size, px.
        reach_m: half side of the square around each seat, m.

    Returns:
        [(x0, y0, x1, y1)] px, clipped to the image, pairwise disjoint boxes (a box that
        overlaps another is replaced by their bounding box until none do).
    """
    seats = np.asarray(seats_xy_rink_m, dtype=np.float64).reshape(-1, 2)
    boxes: list[list[int]] = []
    corners = np.array([[-1.0, -1.0], [1.0, -1.0], [1.0, 1.0], [-1.0, 1.0]]) * reach_m
    for seat in seats:
        xyz = np.column_stack([seat + corners, np.zeros(4)])
        uv, depth = cam.image_from_rink(xyz)
        if not np.all(depth > 0) or not np.isfinite(uv).all():
            continue
        x0, y0 = np.floor(uv.min(axis=0)).astype(int)
        x1, y1 = np.ceil(uv.max(axis=0)).astype(int) + 1
        x0, y0, x1, y1 = max(0, x0), max(0, y0), min(width, x1), min(height, y1)
        if x1 > x0 and y1 > y0:
            boxes.append([x0, y0, x1, y1])
    return _merge_overlapping(boxes)


def _merge_overlapping(boxes: list[list[int]]) -> list[tuple[int, int, int, int]]:
    """Replace any two overlapping (x0, y0, x1, y1) boxes by their bounding box until none overlap."""
    boxes = [list(b) for b in boxes]
    i = 0
    while i < len(boxes):
        a = boxes[i]
        j = next((j for j in range(i + 1, len(boxes)) if a[0] < boxes[j][2] and boxes[j][0] < a[2]
                  and a[1] < boxes[j][3] and boxes[j][1] < a[3]), None)
        if j is None:
            i += 1
            continue
        b = boxes.pop(j)
        boxes[i] = [min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3])]
        i = 0  # the grown box may now overlap one already passed
    return [tuple(b) for b in boxes]


class PuckVerifier:
    """ONNX Runtime patch classifier: probability that a candidate is the puck.

    Args:
        model_path: the ONNX file (default ``models/puck_verifier.onnx``).
        threads: ONNX Runtime intra-op threads.

    Raises:
        FileNotFoundError: the model file does not exist.
    """

    def __init__(self, model_path: str | Path = DEFAULT_MODEL_PATH, threads: int = 1) -> None:
        import onnxruntime as ort

        path = Path(model_path)
        if not path.is_file():
            raise FileNotFoundError(f"puck verifier model not found: {path}")
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = threads
        opts.inter_op_num_threads = 1
        self.session = ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])
        self.input_name = self.session.get_inputs()[0].name
        meta = self.session.get_modelmeta().custom_metadata_map
        names = _literal(meta.get("names")) or {0: "background", 1: "puck"}
        self.puck_index = next((int(k) for k, v in names.items() if v == "puck"), 1)
        shape = self.session.get_inputs()[0].shape
        # A static batch (ultralytics' default export) is fed one patch at a time.
        self.batch = shape[0] if isinstance(shape[0], int) else None

    def probabilities(self, patches_bgr: np.ndarray) -> np.ndarray:
        """(N,) puck probability of (N, PATCH_PX, PATCH_PX, 3) uint8 BGR patches."""
        if len(patches_bgr) == 0:
            return np.zeros(0)
        x = np.ascontiguousarray(patches_bgr[..., ::-1].transpose(0, 3, 1, 2), dtype=np.float32) / 255.0
        if self.batch is None:
            p = self.session.run(None, {self.input_name: x})[0]
        else:
            p = np.concatenate([self.session.run(None, {self.input_name: x[i:i + 1]})[0] for i in range(len(x))])
        return np.asarray(p[:, self.puck_index], dtype=np.float64)

    def __call__(self, frame_bgr: np.ndarray, centre_xy_px: np.ndarray, expected_area_px: np.ndarray) -> np.ndarray:
        """(N,) puck probability of candidates at ``centre_xy_px`` (N, 2) image px with ``expected_area_px`` (N,)."""
        return self.probabilities(crop_patches(frame_bgr, centre_xy_px, patch_side_px(expected_area_px)))


class MaxOfVerifiers:
    """Several patch classifiers judged as one: a patch's probability is the largest of theirs.

    The carry model is two networks (``models/carry_verifier.md``): one shown carried pucks at least
    half visible, one shown them down to a quarter visible (a puck carried past a low camera is
    mostly behind its stick blade). Each finds carries the other misses; where either is sure
    (``vision.tracking.CARRY_ACCEPT_P``) is a carried puck.

    Args:
        verifiers: ``PuckVerifier``-like objects (``probabilities`` of (N, PATCH_PX, PATCH_PX, 3)
            uint8 BGR patches → (N,)).
    """

    def __init__(self, verifiers) -> None:
        self.verifiers = list(verifiers)
        if not self.verifiers:
            raise ValueError("MaxOfVerifiers needs at least one verifier")

    def probabilities(self, patches_bgr: np.ndarray) -> np.ndarray:
        """(N,) largest puck probability any verifier gives each (N, PATCH_PX, PATCH_PX, 3) patch."""
        return np.max([np.asarray(v.probabilities(patches_bgr), dtype=np.float64).reshape(len(patches_bgr))
                       for v in self.verifiers], axis=0)

    def __call__(self, frame_bgr: np.ndarray, centre_xy_px: np.ndarray, expected_area_px: np.ndarray) -> np.ndarray:
        """(N,) as ``PuckVerifier.__call__``, the patches cut once for all the verifiers."""
        return self.probabilities(crop_patches(frame_bgr, centre_xy_px, patch_side_px(expected_area_px)))


def _literal(text: str | None):
    if not text:
        return None
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return None
