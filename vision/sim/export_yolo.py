"""YOLO datasets from simulator renders and their truth.

``export_yolo(clip_dirs, out_dir, every=5)`` decodes every ``every``-th frame of
each clip's ``clip.mp4`` and writes three ultralytics datasets under ``out_dir``:

* ``detect/``: boxes for ``puck`` (0), ``sledge`` (1, a skater) and ``goalkeeper`` (2),
  each box the image extent of the object's projected 3D body (puck: its cylinder;
  player: the sledge footprint on the ice and the same outline raised to the head,
  plus the stick blade), clipped to the image; objects the truth marks not visible
  are left out.
* ``pose/``: the two player classes with four keypoints each: left blade, right blade
  (contact points, IPC 305), front skid (302), stick blade; visibility 2 = in the
  image and unoccluded, 1 = in the image but covered, 0 = outside.
* ``landmarks/``: one ``rink`` object per image whose keypoints are the projected
  ``rink.landmarks`` (fixed, sorted order), visibility 2 inside the image, else 0.

Each dataset has ``images/{train,val}``, ``labels/{train,val}`` and a ``data.yaml``.
A frame goes to ``val`` when ``crc32(clip name) + frame // every`` is divisible by 5.
"""

from __future__ import annotations

import json
import zlib
from pathlib import Path
from typing import Iterable

import cv2
import numpy as np

from vision.sim.rinkgeom import PUCK_RADIUS_M, PUCK_THICKNESS_M

CLASSES = ["puck", "sledge", "goalkeeper"]
POSE_KEYPOINTS = ["blade_left", "blade_right", "front_skid", "stick_blade"]
SEATED_TOP_M = 1.05  # head of a seated sledge player above the ice
STANDING_TOP_M = 1.80
MIN_BOX_PX = 2.0


def _camera(fr: dict, w: int, h: int):
    from vision.sim.camera import Camera

    return Camera.from_dict(fr["camera"], w, h)


def _project(cam, xyz: np.ndarray) -> np.ndarray | None:
    """(N, 2) pixels of points in front of the camera, or None when none is."""
    xyz = np.atleast_2d(np.asarray(xyz, float))
    front = cam.depth(xyz) > 0.05
    if not np.any(front):
        return None
    return cam.project(xyz[front])


def _box(px: np.ndarray | None, w: int, h: int) -> tuple[float, float, float, float] | None:
    """Normalised (cx, cy, bw, bh) of points clipped to the image; None if too small/mostly outside."""
    if px is None or len(px) == 0:
        return None
    x0, y0 = px.min(axis=0)
    x1, y1 = px.max(axis=0)
    area = max(x1 - x0, 1e-6) * max(y1 - y0, 1e-6)
    cx0, cy0, cx1, cy1 = max(x0, 0.0), max(y0, 0.0), min(x1, w - 1.0), min(y1, h - 1.0)
    if cx1 - cx0 < MIN_BOX_PX or cy1 - cy0 < MIN_BOX_PX:
        return None
    if (cx1 - cx0) * (cy1 - cy0) < 0.3 * area:
        return None
    return ((cx0 + cx1) / 2 / w, (cy0 + cy1) / 2 / h, (cx1 - cx0) / w, (cy1 - cy0) / h)


def _puck_points(p: dict) -> np.ndarray:
    a = np.linspace(0, 2 * np.pi, 12, endpoint=False)
    ring = np.column_stack([p["x"] + PUCK_RADIUS_M * np.cos(a), p["y"] + PUCK_RADIUS_M * np.sin(a)])
    z = p.get("z", PUCK_THICKNESS_M / 2)
    return np.vstack([np.column_stack([ring, np.full(12, z - PUCK_THICKNESS_M / 2)]),
                      np.column_stack([ring, np.full(12, z + PUCK_THICKNESS_M / 2)])])


def _player_points(q: dict) -> np.ndarray:
    fp = np.asarray(q["footprint"], float)
    top = STANDING_TOP_M if q.get("kind") == "standing" else SEATED_TOP_M
    c = fp.mean(axis=0)
    upper = c + 0.6 * (fp - c)  # the torso above the seat is narrower than the frame
    return np.vstack([np.column_stack([fp, np.zeros(len(fp))]),
                      np.column_stack([upper, np.full(len(fp), top)]),
                      np.asarray(q["stick_blade"], float)[None, :]])


def _kp(cam, xyz, w, h, visible: bool) -> list[float]:
    px = _project(cam, np.asarray(xyz, float)[None, :])
    if px is None:
        return [0.0, 0.0, 0]
    x, y = px[0]
    if not (0 <= x <= w - 1 and 0 <= y <= h - 1):
        return [0.0, 0.0, 0]
    return [x / w, y / h, 2 if visible else 1]


def _fmt(vals: Iterable) -> str:
    return " ".join(f"{v:.6f}" if isinstance(v, float) else str(v) for v in vals)


def _landmark_flip_idx(names: list[str]) -> list[int]:
    """A horizontal image flip of a side view swaps the +x and -x ends."""
    idx = {n: i for i, n in enumerate(names)}
    out = []
    for n in names:
        m = n.replace("+x", "\0").replace("-x", "+x").replace("\0", "-x")
        out.append(idx.get(m, idx[n]))
    return out


def _write_yaml(path: Path, names: list[str], kpt_shape: tuple[int, int] | None = None,
                flip_idx: list[int] | None = None, kpt_names: list[str] | None = None) -> None:
    lines = [f"path: {path.parent.resolve()}", "train: images/train", "val: images/val", "names:"]
    lines += [f"  {i}: {n}" for i, n in enumerate(names)]
    if kpt_shape is not None:
        lines.append(f"kpt_shape: [{kpt_shape[0]}, {kpt_shape[1]}]")
        lines.append(f"flip_idx: [{', '.join(str(i) for i in flip_idx)}]")
        lines.append("# keypoints: " + ", ".join(kpt_names or []))
    path.write_text("\n".join(lines) + "\n")


def export_yolo(clip_dirs: Iterable[str | Path], out_dir: str | Path, every: int = 5) -> dict:
    """Write detection, pose and rink-landmark YOLO datasets from rendered clips.

    Args:
        clip_dirs: folders each holding ``clip.mp4`` and ``truth.json`` (from ``synth_clip``).
        out_dir: dataset root; gets ``detect/``, ``pose/``, ``landmarks/``.
        every: take one frame in ``every``.

    Returns:
        Counts: ``{"images", "boxes", "pose_objects", "landmark_points"}``.
    """
    from calibration.rink import RinkModel, RinkSpec
    from vision.video import iter_frames

    out = Path(out_dir)
    sets = {k: out / k for k in ("detect", "pose", "landmarks")}
    for root in sets.values():
        for sub in ("images/train", "images/val", "labels/train", "labels/val"):
            (root / sub).mkdir(parents=True, exist_ok=True)
    counts = {"images": 0, "boxes": 0, "pose_objects": 0, "landmark_points": 0}
    lm_names: list[str] | None = None
    for cd in clip_dirs:
        cd = Path(cd)
        truth = json.loads((cd / "truth.json").read_text())
        w, h = int(truth["width"]), int(truth["height"])
        rk = truth["rink"]
        rink = RinkModel(RinkSpec.for_layout(rk["layout"], length_m=rk["length_m"], width_m=rk["width_m"]))
        names = sorted(rink.landmarks)
        if lm_names is None:
            lm_names = names
        lm_xyz = np.array([rink.landmarks[n] for n in lm_names]) if names == lm_names else None
        frames = {fr["frame"]: fr for fr in truth["frames"]}
        tag = f"{cd.parent.name}_{cd.name}".replace(" ", "_")
        for i, img in iter_frames(cd / "clip.mp4"):
            if i % every or i not in frames:
                continue
            fr = frames[i]
            cam = _camera(fr, w, h)
            split = "val" if (zlib.crc32(tag.encode()) + i // every) % 5 == 0 else "train"
            stem = f"{tag}_{i:05d}"
            det, pose = [], []
            pk = fr.get("puck")
            if pk is not None and pk.get("visible"):
                b = _box(_project(cam, _puck_points(pk)), w, h)
                if b:
                    det.append(_fmt([0, *b]))
            for q in fr["players"]:
                if not q.get("visible"):
                    continue
                b = _box(_project(cam, _player_points(q)), w, h)
                if not b:
                    continue
                cls = 2 if q["role"] == "goalkeeper" else 1
                det.append(_fmt([cls, *b]))
                bv = q.get("blades_visible", [True, True])
                kps = [_kp(cam, [*q["blades"][0], 0.0], w, h, bv[0]),
                       _kp(cam, [*q["blades"][1], 0.0], w, h, bv[1]),
                       _kp(cam, [*q.get("front_skid", np.mean(q["footprint"], axis=0)), 0.0], w, h, True),
                       _kp(cam, q["stick_blade"], w, h, True)]
                pose.append(_fmt([cls - 1, *b, *[v for kp in kps for v in kp]]))
            lms = []
            if lm_xyz is not None:
                front = cam.depth(lm_xyz) > 0.05
                px = np.full((len(lm_xyz), 2), -1.0)
                if np.any(front):
                    px[front] = cam.project(lm_xyz[front])
                inside = front & (px[:, 0] >= 0) & (px[:, 0] <= w - 1) & (px[:, 1] >= 0) & (px[:, 1] <= h - 1)
                if inside.sum() >= 4:
                    b = _box(px[inside], w, h) or (0.5, 0.5, 1.0, 1.0)
                    vals = []
                    for k in range(len(lm_xyz)):
                        vals += [px[k, 0] / w, px[k, 1] / h, 2] if inside[k] else [0.0, 0.0, 0]
                    lms.append(_fmt([0, *b, *vals]))
                    counts["landmark_points"] += int(inside.sum())
            for key, rows in (("detect", det), ("pose", pose), ("landmarks", lms)):
                cv2.imwrite(str(sets[key] / "images" / split / f"{stem}.jpg"), img)
                (sets[key] / "labels" / split / f"{stem}.txt").write_text("\n".join(rows) + ("\n" if rows else ""))
            counts["images"] += 1
            counts["boxes"] += len(det)
            counts["pose_objects"] += len(pose)
    _write_yaml(sets["detect"] / "data.yaml", CLASSES)
    _write_yaml(sets["pose"] / "data.yaml", ["sledge", "goalkeeper"], (4, 3), [1, 0, 2, 3], POSE_KEYPOINTS)
    names = lm_names or []
    _write_yaml(sets["landmarks"] / "data.yaml", ["rink"], (len(names), 3), _landmark_flip_idx(names), names)
    return counts
