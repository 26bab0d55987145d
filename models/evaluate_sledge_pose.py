"""Evaluate ``models/sledge_pose.onnx`` on held-out simulator renders (runtime venv, no torch).

Held out twice: scenario seeds from ``HELD_OUT_SEED_BASE`` (never rendered for
training or validation) and the named evaluation looks ``HELD_OUT_LOOKS``
(``vision.sim.looks``), which ``training_look`` never returns. Frames are rendered
at 1280x720 (the training frames were 640x360), labelled by
``vision.sim.export_yolo`` exactly as the training set, and run through
``vision.learned.OnnxPoseDetector``.

Prints, per class, precision and recall at IoU >= 0.5 (greedy matching by
confidence, per image), the pixel error of every keypoint of matched players
where the truth labels it in the image (export_yolo visibility 1 = covered or
2 = unoccluded; median / p95, 720p px), and the
detector's time per 720p frame on this CPU::

    .venv/bin/python models/evaluate_sledge_pose.py                 # renders once into datasets/
    .venv/bin/python models/evaluate_sledge_pose.py --json out.json
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import time
from pathlib import Path

import cv2
import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))
from sledge_split import held_out_clip, merged_pose_labels  # noqa: E402

from vision.detections import box_iou  # noqa: E402
from vision.learned import DEFAULT_MODEL_PATH, OnnxPoseDetector  # noqa: E402


def render_held_out(root: Path, n_clips: int, width: int, height: int, fps: float, every: int) -> Path:
    """Render (once) the held-out clips and export them with export_yolo; returns the YOLO folder."""
    from vision.sim.export_yolo import export_yolo
    from vision.sim.looks import Look
    from vision.sim.synth import synth_clip

    dirs = []
    for i in range(n_clips):
        c = held_out_clip(i)
        d = root / "clips" / f"{i:03d}_{c['scenario']}_{c['camera']}_s{c['seed']}_{c['look_name']}"
        if not (d / "truth.json").is_file():
            t0 = time.time()
            synth_clip(c["scenario"], c["camera"], c["seed"], d, width=width, height=height, fps=fps,
                       look=Look.from_seed(c["look_seed"]), profile="ipc-sledge")
            print(f"rendered {d.name} ({time.time() - t0:.1f} s)", flush=True)
        dirs.append(str(d))
    yolo = root / "yolo"
    stamp = root / "yolo.done"
    if not stamp.is_file() or json.loads(stamp.read_text()) != {"clips": dirs, "every": every}:
        shutil.rmtree(yolo, ignore_errors=True)
        export_yolo(dirs, yolo, every=every)
        stamp.write_text(json.dumps({"clips": dirs, "every": every}))
    return yolo


def rows_to_truth(rows: np.ndarray, W: int, H: int, k: int, kd: int) -> dict[str, np.ndarray]:
    """Normalised YOLO pose rows -> class ids, xyxy px, keypoints px and their labelled visibility."""
    rows = np.asarray(rows, float).reshape(-1, 5 + k * kd)
    cls = rows[:, 0].astype(int)
    cx, cy, w, h = rows[:, 1] * W, rows[:, 2] * H, rows[:, 3] * W, rows[:, 4] * H
    xyxy = np.stack([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2], axis=1).reshape(-1, 4)
    kp = rows[:, 5:5 + k * kd].reshape(-1, k, kd)
    xy = kp[:, :, :2] * np.array([W, H])
    vis = kp[:, :, 2] > 0 if kd == 3 else np.ones(xy.shape[:2], bool)
    return {"class_id": cls, "xyxy": xyxy, "kp_xy": xy, "kp_vis": vis}


def match(gt_xyxy: np.ndarray, det_xyxy: np.ndarray, det_conf: np.ndarray, thr: float = 0.5) -> list[tuple[int, int]]:
    """Greedy one-to-one matching by confidence: (gt index, det index) pairs with IoU >= thr."""
    if not len(gt_xyxy) or not len(det_xyxy):
        return []
    iou = box_iou(det_xyxy, gt_xyxy)
    used = np.zeros(len(gt_xyxy), bool)
    pairs = []
    for d in np.argsort(-det_conf, kind="stable"):
        cand = np.where(~used & (iou[d] >= thr))[0]
        if len(cand):
            g = cand[np.argmax(iou[d, cand])]
            used[g] = True
            pairs.append((int(g), int(d)))
    return pairs


def evaluate(det: OnnxPoseDetector, meta: dict, pairs: list[tuple[Path, np.ndarray]], iou_thr: float = 0.5) -> dict:
    """Score ``det`` on (image, label rows) pairs from ``merged_pose_labels``."""
    names = [meta["names"][i] for i in sorted(meta["names"])]
    k, kd = (int(v) for v in meta["kpt_shape"])
    kpt_names = list(meta["kpt_names"])
    stats = {c: {"tp": 0, "fp": 0, "fn": 0} for c in range(len(names))}
    kp_err: dict[int, list[float]] = {j: [] for j in range(k)}
    times = []
    for img_path, rows in pairs:
        img = cv2.imread(str(img_path))
        H, W = img.shape[:2]
        gt = rows_to_truth(rows, W, H, k, kd)
        t0 = time.perf_counter()
        d = det(img)
        times.append(time.perf_counter() - t0)
        for c in stats:
            gi = np.where(gt["class_id"] == c)[0]
            di = np.where(d.class_id == c)[0]
            m = match(gt["xyxy"][gi], d.xyxy[di], d.confidence[di], iou_thr)
            stats[c]["tp"] += len(m)
            stats[c]["fp"] += len(di) - len(m)
            stats[c]["fn"] += len(gi) - len(m)
            if names[c] == "puck":
                continue
            for g, dd in m:
                g, dd = gi[g], di[dd]
                for j in range(k):
                    if gt["kp_vis"][g, j]:
                        kp_err[j].append(float(np.linalg.norm(d.keypoints_xy_px[dd, j] - gt["kp_xy"][g, j])))
    res = {"images": len(pairs), "classes": {}, "keypoints_px": {}, "iou_threshold": iou_thr}
    for c, s in stats.items():
        p = s["tp"] / max(s["tp"] + s["fp"], 1)
        r = s["tp"] / max(s["tp"] + s["fn"], 1)
        res["classes"][names[c]] = {**s, "precision": round(p, 3), "recall": round(r, 3), "truth": s["tp"] + s["fn"]}
    for j, e in kp_err.items():
        e = np.asarray(e)
        res["keypoints_px"][kpt_names[j]] = {
            "n": int(len(e)),
            "median": round(float(np.median(e)), 2) if len(e) else None,
            "p95": round(float(np.percentile(e, 95)), 2) if len(e) else None,
        }
    t = np.asarray(times[1:] if len(times) > 1 else times) * 1000
    res["ms_per_frame"] = {"median": round(float(np.median(t)), 1), "p95": round(float(np.percentile(t, 95)), 1),
                           "frame_px": [int(W), int(H)], "input_hw": list(det.input_hw)}
    return res


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--model", type=Path, default=DEFAULT_MODEL_PATH)
    p.add_argument("--data", type=Path, default=REPO / "datasets" / "sledge_pose_heldout")
    p.add_argument("--clips", type=int, default=8, help="held-out clips (looks and cameras cycle; every camera twice at 8)")
    p.add_argument("--every", type=int, default=4)
    p.add_argument("--fps", type=float, default=10.0)
    p.add_argument("--conf", type=float, default=0.25)
    p.add_argument("--iou", type=float, default=0.5, help="NMS IoU")
    p.add_argument("--threads", type=int, default=0, help="ONNX Runtime intra-op threads (0: default)")
    p.add_argument("--json", type=Path, default=None)
    a = p.parse_args(argv)
    yolo = render_held_out(a.data, a.clips, 1280, 720, a.fps, a.every)
    meta, pairs = merged_pose_labels(yolo)
    det = OnnxPoseDetector(a.model, conf=a.conf, iou=a.iou, intra_op_threads=a.threads)
    res = evaluate(det, meta, pairs)
    res.update({"model": str(a.model), "conf": a.conf, "nms_iou": a.iou, "clips": a.clips, "every": a.every})
    print(f"held-out: {res['images']} frames (1280x720), {a.clips} clips, held-out seeds and looks; "
          f"conf {a.conf}, IoU >= {res['iou_threshold']}")
    print(f"{'class':<12}{'truth':>7}{'TP':>6}{'FP':>6}{'FN':>6}{'precision':>11}{'recall':>8}")
    for c, s in res["classes"].items():
        print(f"{c:<12}{s['truth']:>7}{s['tp']:>6}{s['fp']:>6}{s['fn']:>6}{s['precision']:>11.3f}{s['recall']:>8.3f}")
    print("keypoint error of matched players (720p px):")
    for n, s in res["keypoints_px"].items():
        print(f"  {n:<16} n={s['n']:<5} median={s['median']}  p95={s['p95']}")
    t = res["ms_per_frame"]
    print(f"inference per 1280x720 frame (letterbox + ONNX Runtime + decode/NMS, input {t['input_hw']}): "
          f"median {t['median']} ms, p95 {t['p95']} ms")
    if a.json:
        a.json.write_text(json.dumps(res, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
