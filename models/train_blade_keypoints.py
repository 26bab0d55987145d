"""Training recipe of the blade-keypoint model (where are this player's two blades in the picture?).

The model (``models/blade_keypoints.onnx``, card ``models/blade_keypoints.md``) is a YOLO pose
network with one class (a player: sledge, goalkeeper or standing) and two keypoints (his blade
contact points, IPC 305; a standing player's feet), run on ``vision.blade_crops`` crops: a square
placed from the rink around a player's estimated blades, at one scale whatever the camera.

Run with torch + ultralytics installed (the ``train`` extra; never needed at run time)::

    .venv/bin/pip install -e '.[train]'
    nice -n 5 .venv/bin/python models/train_blade_keypoints.py --stages crops,train,onnx,heldout \\
        --train '/tmp/tune2[89]/*' '/tmp/tune3[0-2]/*' --val '/tmp/tune33/*' \\
        --heldout '/tmp/tune34/*' '/tmp/tune36/*'

Clips are simulator renders already on disk (``rulesfromvideo synth``: ``clip.mp4`` + ``truth.json``
per folder); the ones named by ``--heldout`` must never be used for training or tuning.

Stages:

1. ``crops``: on every ``--every``-th frame of each clip, up to ``--per-frame`` visible players
   with both blades known, drawn at random; each crop centred on his true blade midpoint moved by
   N(0, ``--jitter-m``) per axis (run time centres it on the tracker's estimate, ~13 cm off), its
   side scaled by U(0.85, 1.15). Every visible player in the crop is labelled: his box (his
   footprint on the ice and raised by his height), his two blades projected with the true camera
   and lens, ordered left to right in the picture (visibility 2, 1 where the renderer says a blade
   is hidden, 0 outside the crop).
2. ``train``: ultralytics pose (``yolo11n-pose.yaml``, from scratch), CPU, ``--hours`` wall budget,
   no mosaic (one player per crop matters), left-right flips with the blades swapped.
3. ``onnx``: the best checkpoint to ``--out`` (dynamic batch, opset 17).
4. ``heldout``: crops cut as in 1 from the ``--heldout`` clips, the shipped ONNX model through
   ``vision.blade_keypoints``; each blade's error on the ice (m; back through the true lens and
   homography) per camera preset, against the error of the crop's own centre (the jitter).
"""

from __future__ import annotations

import argparse
import glob
import json
import platform
import random
import sys
import time
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from vision.blade_crops import CROP_SIDE_PER_M, CROP_SIZE_PX, crop_window, cut_crop, image_to_crop  # noqa: E402
from vision.sim.camera import Camera  # noqa: E402
from vision.video import iter_frames_at  # noqa: E402

#: Height of a player's box above his footprint, m (a seated player ~1.1 m, a standing one ~1.8 m).
BOX_HEIGHT_M = {"sledge": 1.1, "standing": 1.8}


def frame_camera(truth: dict, fr: dict) -> Camera:
    c = fr["camera"]
    return Camera(K=np.asarray(c["K"], float), dist=np.asarray(c.get("dist") or np.zeros(5), float),
                  R=np.asarray(c["R"], float), t=np.asarray(c["t"], float),
                  width=int(truth["width"]), height=int(truth["height"]))


def _in_front(cam: Camera, xyz: np.ndarray) -> bool:
    return bool(np.all(cam.depth(xyz) > 0.3))


def player_labels(cam: Camera, players: list[dict], window: np.ndarray,
                  S: int = CROP_SIZE_PX) -> list[tuple[np.ndarray, np.ndarray]]:
    """[(box xyxy crop px (4,), keypoints (2, 3) crop px + visibility)] of the visible players in an S px crop."""
    out = []
    for p in players:
        if not p.get("visible") or not p.get("blades") or not p.get("footprint"):
            continue
        h = BOX_HEIGHT_M.get(p.get("kind"), 1.1)
        fp = np.asarray(p["footprint"], float).reshape(-1, 2)
        xyz = np.vstack([np.column_stack([fp, np.zeros(len(fp))]), np.column_stack([fp, np.full(len(fp), h)])])
        if not _in_front(cam, xyz):
            continue
        box_px = image_to_crop(window, cam.project(xyz), S)
        x0, y0 = box_px.min(axis=0)
        x1, y1 = box_px.max(axis=0)
        area = max((x1 - x0) * (y1 - y0), 1e-6)
        cx0, cy0, cx1, cy1 = max(x0, 0), max(y0, 0), min(x1, S), min(y1, S)
        if cx1 <= cx0 or cy1 <= cy0 or (cx1 - cx0) * (cy1 - cy0) / area < 0.4:
            continue
        bl = np.asarray(p["blades"], float).reshape(2, 2)
        kp = image_to_crop(window, cam.project(np.column_stack([bl, np.zeros(2)])), S)
        vis = [2 if v else 1 for v in (p.get("blades_visible") or [True, True])]
        order = np.argsort(kp[:, 0], kind="stable")
        kpts = np.zeros((2, 3))
        for j, i in enumerate(order):
            inside = 0 <= kp[i, 0] < S and 0 <= kp[i, 1] < S
            kpts[j] = (kp[i, 0], kp[i, 1], vis[i]) if inside else (0.0, 0.0, 0)
        out.append((np.array([cx0, cy0, cx1, cy1]), kpts))
    return out


def clip_crops(clip: Path, every: int, per_frame: int, jitter_m: float, rng: random.Random,
               size: int = CROP_SIZE_PX, side_per_m: float = CROP_SIDE_PER_M):
    """Yield (frame index, player id, camera preset, the frame's true camera, crop (S, S, 3), labels, window,
    centre xy m, true blades (2, 2) m)."""
    truth = json.loads((clip / "truth.json").read_text())
    frames = {fr["frame"]: fr for fr in truth["frames"] if fr.get("camera")}
    wanted = [i for i in sorted(frames) if i % every == 0]
    for i, frame in iter_frames_at(clip / "clip.mp4", wanted):
        fr = frames[i]
        cam = frame_camera(truth, fr)
        cand = [p for p in fr["players"] if p.get("visible") and p.get("blades") and all(p.get("blades_visible") or [True])]
        rng.shuffle(cand)
        for p in cand[:per_frame]:
            bl = np.asarray(p["blades"], float).reshape(2, 2)
            centre = bl.mean(axis=0) + np.array([rng.gauss(0, jitter_m), rng.gauss(0, jitter_m)])
            if not _in_front(cam, np.array([[*centre, 0.0], [*centre, 1.0]])):
                continue
            window = crop_window(cam.project, centre, side_per_m)
            if window is None or window[2] > 4 * max(cam.width, cam.height):
                continue
            window[2] *= rng.uniform(0.85, 1.15)
            labels = player_labels(cam, fr["players"], window, size)
            if not labels:
                continue
            yield i, p["id"], truth.get("camera"), cam, cut_crop(frame, window, size), labels, window, centre, bl


def stage_crops(args) -> dict:
    rng = random.Random(args.seed)
    counts = {}
    for split, pats in (("train", args.train), ("val", args.val)):
        img_dir, lab_dir = args.work / "images" / split, args.work / "labels" / split
        img_dir.mkdir(parents=True, exist_ok=True)
        lab_dir.mkdir(parents=True, exist_ok=True)
        n = 0
        for clip in sorted({Path(p) for pat in pats for p in glob.glob(pat)}):
            if not (clip / "truth.json").is_file():
                continue
            for i, pid, _preset, _cam, crop, labels, _w, _c, _b in clip_crops(clip, args.every, args.per_frame, args.jitter_m,
                                                                     rng, args.size, args.side_per_m):
                stem = f"{clip.name}_{i:04d}_{pid}"
                cv2.imwrite(str(img_dir / f"{stem}.png"), crop)
                S = args.size
                lines = []
                for box, kp in labels:
                    cx, cy, w, h = (box[0] + box[2]) / 2 / S, (box[1] + box[3]) / 2 / S, (box[2] - box[0]) / S, (box[3] - box[1]) / S
                    k = " ".join(f"{x / S:.5f} {y / S:.5f} {int(v)}" for x, y, v in kp)
                    lines.append(f"0 {cx:.5f} {cy:.5f} {w:.5f} {h:.5f} {k}")
                (lab_dir / f"{stem}.txt").write_text("\n".join(lines) + "\n")
                n += 1
        counts[split] = n
        print(f"crops {split}: {n}", flush=True)
    (args.work / "data.yaml").write_text(
        f"path: {args.work}\ntrain: images/train\nval: images/val\nkpt_shape: [2, 3]\nflip_idx: [1, 0]\n"
        f"names:\n  0: player\n")
    return counts


def stage_train(args) -> dict:
    import torch
    from ultralytics import YOLO

    torch.set_num_threads(args.threads)
    # From scratch, or on from an earlier run's checkpoint (``--init``; a fully convolutional
    # network takes another input size).
    model = YOLO(str(args.init) if args.init else "yolo11n-pose.yaml")
    model.train(data=str(args.work / "data.yaml"), imgsz=args.size, epochs=args.epochs, time=args.hours,
                batch=args.batch, workers=2, device="cpu", project=str(args.work), name="run", exist_ok=True,
                pretrained=bool(args.init), mosaic=0.0, close_mosaic=0, fliplr=0.5, scale=0.1, translate=0.05,
                degrees=0.0, hsv_h=0.3, hsv_s=0.7, hsv_v=0.4, plots=False, seed=args.seed, verbose=False,
                patience=100)
    return {"best": str(args.work / "run" / "weights" / "best.pt")}


def stage_onnx(args) -> dict:
    import shutil

    from ultralytics import YOLO

    best = args.work / "run" / "weights" / "best.pt"
    path = YOLO(str(best)).export(format="onnx", imgsz=args.size, opset=17, dynamic=True, simplify=True)
    shutil.copy(path, args.out)
    return {"onnx": str(args.out)}


def stage_heldout(args) -> dict:
    from vision.blade_keypoints import BladeKeypointModel

    model = BladeKeypointModel(args.out)
    rng = random.Random(args.seed + 1)
    rows: dict[str, list] = {}
    for clip in sorted({Path(p) for pat in args.heldout for p in glob.glob(pat)}):
        if not (clip / "truth.json").is_file():
            continue
        for _i, _pid, cam_name, cam, crop, _labels, window, centre, bl in clip_crops(clip, args.every, args.per_frame,
                                                                             args.jitter_m, rng, args.size,
                                                                             args.side_per_m):
            pred_img = model.blades_image_px(crop[None], window[None])[0]
            if not np.all(np.isfinite(pred_img)):
                rows.setdefault(cam_name, []).append((np.nan, np.nan, float(np.linalg.norm(centre - bl.mean(0)))))
                continue
            und = cam.undistort_image_points(pred_img)
            H = np.linalg.inv(cam.H_image_from_rink())
            q = np.column_stack([und, np.ones(2)]) @ H.T
            pred = q[:, :2] / q[:, 2:]
            e1 = np.linalg.norm(pred - bl, axis=1)
            e2 = np.linalg.norm(pred[::-1] - bl, axis=1)
            e = e1 if e1.sum() <= e2.sum() else e2
            rows.setdefault(cam_name, []).append((float(e.mean()), float(np.linalg.norm(pred.mean(0) - bl.mean(0))),
                                                  float(np.linalg.norm(centre - bl.mean(0)))))
    report = {}
    for cam_name, r in sorted(rows.items()) + [("all", [x for v in rows.values() for x in v])]:
        a = np.asarray(r, float)
        ok = np.isfinite(a[:, 0])
        report[cam_name] = {
            "n": int(len(a)), "found": float(ok.mean()),
            "blade_median_cm": float(np.median(a[ok, 0]) * 100), "blade_p90_cm": float(np.percentile(a[ok, 0], 90) * 100),
            "mid_median_cm": float(np.median(a[ok, 1]) * 100), "centre_median_cm": float(np.median(a[:, 2]) * 100)}
        print(cam_name, json.dumps(report[cam_name]), flush=True)
    return report


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--stages", default="crops,train,onnx,heldout")
    ap.add_argument("--train", nargs="+", default=[])
    ap.add_argument("--val", nargs="+", default=[])
    ap.add_argument("--heldout", nargs="+", default=[])
    ap.add_argument("--work", type=Path, default=Path("/tmp/blade_kp"))
    ap.add_argument("--out", type=Path, default=ROOT / "models" / "blade_keypoints.onnx")
    ap.add_argument("--size", type=int, default=CROP_SIZE_PX, help="crop side, px (run time: CROP_SIZE_PX)")
    ap.add_argument("--side-per-m", type=float, default=CROP_SIDE_PER_M,
                    help="crop side over a 1 m vertical (run time: CROP_SIDE_PER_M)")
    ap.add_argument("--every", type=int, default=6)
    ap.add_argument("--per-frame", type=int, default=3)
    ap.add_argument("--jitter-m", type=float, default=0.2)
    ap.add_argument("--init", type=Path, default=None, help="checkpoint to start from (default: from scratch)")
    ap.add_argument("--epochs", type=int, default=60)
    ap.add_argument("--hours", type=float, default=0.5)
    ap.add_argument("--batch", type=int, default=128)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--seed", type=int, default=53)
    args = ap.parse_args(argv)
    args.work.mkdir(parents=True, exist_ok=True)
    rec_path = args.work / "record.json"
    record = json.loads(rec_path.read_text()) if rec_path.is_file() else {}
    record["settings"] = {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()}
    record["hardware"] = {"cpu": platform.processor() or platform.machine(), "gpu": None, "python": platform.python_version()}
    for stage in args.stages.split(","):
        t0 = time.time()
        record[stage] = {"crops": stage_crops, "train": stage_train, "onnx": stage_onnx, "heldout": stage_heldout}[stage](args)
        record.setdefault("stage_wall_s", {})[stage] = round(time.time() - t0, 1)
        rec_path.write_text(json.dumps(record, indent=1))
    print(json.dumps(record.get("stage_wall_s")), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
