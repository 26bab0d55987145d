"""Training recipe of ``models/sledge_pose.onnx`` (YOLO pose: puck / skater / goalkeeper + blade keypoints).

Run with the training virtualenv (torch + ultralytics; never needed at run time)::

    python3 -m venv .venv-train
    .venv-train/bin/pip install torch==2.14.1 torchvision==0.29.1
    .venv-train/bin/pip install ultralytics onnx onnxslim -e .
    nice -n 19 .venv-train/bin/python models/train_sledge_pose.py            # all stages
    nice -n 19 .venv-train/bin/python models/train_sledge_pose.py --stages render,export

Stages (each reads what the previous one wrote, so they can be rerun separately):

1. ``render``: simulator clips (``vision.sim.synth.synth_clip``) of every sledge
   scenario in ``models/sledge_split.py``, all camera presets, widely randomised looks
   (``vision.sim.looks.training_look``, which skips ``HELD_OUT_LOOK_SEEDS``), scenario
   seeds from the training / validation ranges (the held-out range is never rendered
   here).
2. ``export``: ``vision.sim.export_yolo.export_yolo`` writes the YOLO pose dataset
   (classes and keypoints exactly as it defines them).
3. ``crop``: the frames are rendered at 640x360 (the scale the network sees a 720p
   frame at: letterbox 1280 -> 640); training uses square crops of ``--imgsz`` px of
   them (two per frame, one centred on a random object) so that a CPU step is cheap
   and no pixel is padding. Labels are clipped to the crop; a keypoint outside it gets
   visibility 0.
4. ``train``: ultralytics from the model YAML (no pretrained weights), CPU, for a wall
   budget (``--hours``, ultralytics ``time=``: it re-estimates the epochs that fit).
5. ``onnx``: export of the best checkpoint to ONNX (static input ``--export-hw``,
   opset ``--opset``) as ``models/sledge_pose.onnx``; settings and timings go to
   ``models/sledge_pose_train.json``.

Determinism: the renders and the crops are seeded; ultralytics is run with
``seed=0, deterministic=True``, but CPU training under a time budget stops after as
many epochs as the machine allowed, so weights differ between machines.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))
from sledge_split import TRAIN_SCENARIOS, merged_pose_labels, train_clip, val_clip  # noqa: E402

DEFAULTS = {
    "n_train_clips": 40,
    "n_val_clips": 6,
    "render_width": 640,
    "render_height": 360,
    "fps": 10.0,  # 10 fps keeps the pan blur near a broadcast's; the play's own length (3-4 s)
    "every": 3,  # one exported frame in 3 (0.3 s apart)
    "imgsz": 256,
    "crops_per_frame": 2,
    "model": "yolo11n-pose.yaml",
    "batch": 8,
    "hours": 0.56,
    "epochs": 300,  # upper bound; the time budget decides
    "export_hw": [384, 640],  # 720p letterboxed: 640x360 padded to a multiple of 32
    "opset": 17,
    "threads": 2,
}


def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", flush=True)


# ---------------------------------------------------------------------------- render
def stage_render(a: argparse.Namespace) -> dict:
    from vision.sim.looks import training_look
    from vision.sim.synth import synth_clip

    out = {"train": [], "val": [], "failed": []}
    for split, n, spec in (("train", a.n_train_clips, train_clip), ("val", a.n_val_clips, val_clip)):
        for i in range(n):
            c = spec(i)
            d = a.data / "clips" / split / f"{i:03d}_{c['scenario']}_{c['camera']}_s{c['seed']}"
            if (d / "truth.json").is_file() and (d / "clip.mp4").is_file():
                out[split].append(str(d))
                continue
            t0 = time.time()
            try:
                synth_clip(c["scenario"], c["camera"], c["seed"], d, width=a.render_width, height=a.render_height,
                           fps=a.fps, look=training_look(c["look_index"]), profile="ipc-sledge")
            except Exception as e:  # a WIP scenario that fails to build is skipped, and said so
                log(f"render {split} {i}: {c} failed: {type(e).__name__}: {e}")
                out["failed"].append({**c, "error": f"{type(e).__name__}: {e}"})
                shutil.rmtree(d, ignore_errors=True)
                continue
            out[split].append(str(d))
            log(f"render {split} {i + 1}/{n} {d.name} ({time.time() - t0:.1f} s)")
    (a.data / "clips.json").write_text(json.dumps(out, indent=1))
    return out


# ---------------------------------------------------------------------------- export
def stage_export(a: argparse.Namespace) -> None:
    from vision.sim.export_yolo import export_yolo

    clips = json.loads((a.data / "clips.json").read_text())
    for split in ("train", "val"):
        dst = a.data / "yolo" / split
        shutil.rmtree(dst, ignore_errors=True)
        export_yolo(clips[split], dst, every=a.every)
        log(f"export {split}: {len(clips[split])} clips -> {dst}")


# ---------------------------------------------------------------------------- crop
def _crop_labels(rows: np.ndarray, W: int, H: int, x0: int, y0: int, s: int, k: int, kd: int) -> list[str]:
    out = []
    for r in rows:
        cls = int(r[0])
        cx, cy, w, h = r[1] * W, r[2] * H, r[3] * W, r[4] * H
        bx0, by0, bx1, by1 = cx - w / 2 - x0, cy - h / 2 - y0, cx + w / 2 - x0, cy + h / 2 - y0
        cx0, cy0, cx1, cy1 = max(bx0, 0), max(by0, 0), min(bx1, s), min(by1, s)
        if cx1 - cx0 < 2 or cy1 - cy0 < 2 or (cx1 - cx0) * (cy1 - cy0) < 0.4 * w * h:
            continue  # mostly outside the crop
        vals = [cls, (cx0 + cx1) / 2 / s, (cy0 + cy1) / 2 / s, (cx1 - cx0) / s, (cy1 - cy0) / s]
        kp = r[5:5 + k * kd].reshape(k, kd)
        for j in range(k):
            px, py = kp[j, 0] * W - x0, kp[j, 1] * H - y0
            v = kp[j, 2] if kd == 3 else 1.0
            inside = 0 <= px < s and 0 <= py < s
            if v <= 0 or not inside:
                vals += [0.0, 0.0] + ([0.0] if kd == 3 else [])
            else:
                vals += [px / s, py / s] + ([v] if kd == 3 else [])
        out.append(f"{vals[0]} " + " ".join(f"{v:.6f}" for v in vals[1:]))
    return out


def stage_crop(a: argparse.Namespace) -> dict:
    import cv2
    import yaml

    dst = a.data / "crops"
    shutil.rmtree(dst, ignore_errors=True)
    rng = np.random.default_rng(12345)
    counts = {}
    meta = None
    for split in ("train", "val"):
        meta, pairs = merged_pose_labels(a.data / "yolo" / split)
        k, kd = meta["kpt_shape"]
        (dst / "images" / split).mkdir(parents=True, exist_ok=True)
        (dst / "labels" / split).mkdir(parents=True, exist_ok=True)
        n_img, n_obj = 0, np.zeros(len(meta["names"]), int)
        for img_path, rows in pairs:
            img = cv2.imread(str(img_path))
            H, W = img.shape[:2]
            if W != a.render_width:  # the network sees frames at 640 px wide
                f = a.render_width / W
                img = cv2.resize(img, (a.render_width, int(round(H * f))), interpolation=cv2.INTER_AREA)
                H, W = img.shape[:2]
            s = min(a.imgsz, W, H)
            for c in range(a.crops_per_frame):
                if c == 0 and len(rows):
                    r = rows[rng.integers(len(rows))]
                    cx, cy = r[1] * W + rng.uniform(-0.35, 0.35) * s, r[2] * H + rng.uniform(-0.35, 0.35) * s
                else:
                    cx, cy = rng.uniform(s / 2, W - s / 2), rng.uniform(s / 2, H - s / 2)
                x0 = int(np.clip(round(cx - s / 2), 0, W - s))
                y0 = int(np.clip(round(cy - s / 2), 0, H - s))
                crop = img[y0:y0 + s, x0:x0 + s]
                labels = _crop_labels(rows, W, H, x0, y0, s, k, kd)
                name = f"{img_path.stem}_c{c}"
                cv2.imwrite(str(dst / "images" / split / f"{name}.jpg"), crop, [cv2.IMWRITE_JPEG_QUALITY, 95])
                (dst / "labels" / split / f"{name}.txt").write_text("\n".join(labels) + ("\n" if labels else ""))
                n_img += 1
                for line in labels:
                    n_obj[int(line.split()[0])] += 1
        counts[split] = {"frames": len(pairs), "crops": n_img,
                         "objects": {meta["names"][i]: int(v) for i, v in enumerate(n_obj)}}
        log(f"crop {split}: {len(pairs)} frames -> {n_img} crops, objects {counts[split]['objects']}")
    data = {"path": str(dst), "train": "images/train", "val": "images/val", "names": meta["names"],
            "kpt_shape": meta["kpt_shape"], "flip_idx": meta["flip_idx"]}  # keypoints: meta["kpt_names"]
    (dst / "data.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
    counts["kpt_names"] = meta["kpt_names"]
    (dst / "counts.json").write_text(json.dumps(counts, indent=1))
    return counts


# ---------------------------------------------------------------------------- train
def _offline_ultralytics() -> None:
    os.environ.setdefault("YOLO_OFFLINE", "1")  # no hub, no asset downloads, no update checks
    os.environ.setdefault("YOLO_VERBOSE", "True")
    from ultralytics.utils import SETTINGS

    SETTINGS.update({"sync": False, "hub": False} if "hub" in SETTINGS else {"sync": False})


def train_args(a: argparse.Namespace) -> dict:
    return dict(
        data=str(a.data / "crops" / "data.yaml"), imgsz=a.imgsz, epochs=a.epochs, time=a.hours, batch=a.batch,
        nbs=a.batch,  # one optimiser step per batch (the default nbs=64 would accumulate 8 batches)
        device="cpu", workers=0, amp=False, plots=False, pretrained=False, optimizer="AdamW", lr0=0.002,
        cos_lr=False, warmup_epochs=0.0,  # no warm-up: ultralytics would spend >= 100 of the few CPU steps on it
        close_mosaic=1, mosaic=1.0, scale=0.3, translate=0.1, fliplr=0.5,
        hsv_h=0.015, hsv_s=0.5, hsv_v=0.3, patience=1000, seed=0, deterministic=True, cache="ram",
        project=str(a.runs), name=a.name, exist_ok=True, val=True, verbose=True,
    )


def ultralytics_train(model_yaml: str, args: dict, threads: int) -> dict:
    """Train ``model_yaml`` from scratch with ultralytics ``args`` on ``threads`` CPU threads → wall time and args."""
    import torch

    torch.set_num_threads(threads)
    _offline_ultralytics()
    from ultralytics import YOLO

    log("train settings: " + json.dumps(args))
    t0 = time.time()
    YOLO(model_yaml).train(**args)
    wall = time.time() - t0
    log(f"train wall {wall / 60:.1f} min")
    return {"train_wall_s": round(wall, 1), "train_args": args}


def stage_train(a: argparse.Namespace) -> dict:
    return ultralytics_train(a.model, train_args(a), a.threads)


# ---------------------------------------------------------------------------- onnx
def best_checkpoint(a: argparse.Namespace) -> Path:
    w = a.runs / a.name / "weights"
    for name in ("best.pt", "last.pt"):
        if (w / name).is_file():
            return w / name
    raise FileNotFoundError(f"no checkpoint in {w}")


def stage_onnx(a: argparse.Namespace) -> dict:
    import torch

    torch.set_num_threads(a.threads)
    _offline_ultralytics()
    from ultralytics import YOLO

    ckpt = best_checkpoint(a)
    try:
        import onnxslim  # noqa: F401

        simplify = True
    except ImportError:
        simplify = False
    f = YOLO(str(ckpt)).export(format="onnx", imgsz=list(a.export_hw), opset=a.opset, dynamic=False,
                               simplify=simplify, half=False, device="cpu")
    dst = REPO / "models" / "sledge_pose.onnx"
    # The keypoint names of export_yolo into the ONNX metadata (ultralytics writes '0'..'3').
    import onnx

    from vision.sim.export_yolo import POSE_KEYPOINTS

    m = onnx.load(f)
    names = {int(k): v for k, v in YOLO(str(ckpt)).names.items()}
    for prop in m.metadata_props:
        if prop.key == "kpt_names":
            prop.value = repr({c: list(POSE_KEYPOINTS) for c in names})
    onnx.save(m, str(dst))
    ck = torch.load(str(ckpt), map_location="cpu", weights_only=False)
    info = {"checkpoint": str(ckpt), "checkpoint_epoch": int(ck.get("epoch", -1)), "onnx": str(dst),
            "onnx_bytes": dst.stat().st_size, "export_hw": list(a.export_hw), "opset": a.opset, "simplify": simplify}
    log(f"onnx: {ckpt} (epoch {info['checkpoint_epoch']}) -> {dst} ({info['onnx_bytes'] / 1e6:.1f} MB)")
    return info


# ---------------------------------------------------------------------------- main
def hardware() -> dict:
    cpu = platform.processor() or ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {"cpu": cpu, "cpu_count": os.cpu_count(), "gpu": None, "python": platform.python_version(),
            "note": "CPU only, 2 cores shared with other jobs, training under nice -n 19"}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--stages", default="render,export,crop,train,onnx")
    p.add_argument("--data", type=Path, default=REPO / "datasets" / "sledge_pose")
    p.add_argument("--runs", type=Path, default=REPO / "runs" / "sledge_pose")
    p.add_argument("--name", default="yolo11n_pose")
    for k, v in DEFAULTS.items():
        opt = "--" + k.replace("_", "-")
        if isinstance(v, list):
            p.add_argument(opt, type=int, nargs=len(v), default=v)
        else:
            p.add_argument(opt, type=type(v), default=v)
    a = p.parse_args(argv)
    a.data, a.runs = a.data.resolve(), a.runs.resolve()
    a.data.mkdir(parents=True, exist_ok=True)
    stages = [s.strip() for s in a.stages.split(",") if s.strip()]
    settings_path = REPO / "models" / "sledge_pose_train.json"
    record = json.loads(settings_path.read_text()) if settings_path.is_file() else {}
    record.update({"settings": {k: getattr(a, k) for k in DEFAULTS}, "scenarios": list(TRAIN_SCENARIOS),
                   "hardware": hardware()})
    log("settings: " + json.dumps(record["settings"]))
    for s in stages:
        t0 = time.time()
        if s == "render":
            r = stage_render(a)
            record["clips"] = {k: len(v) for k, v in r.items() if k != "failed"} | {"failed": r["failed"]}
        elif s == "export":
            stage_export(a)
        elif s == "crop":
            record["dataset"] = stage_crop(a)
        elif s == "train":
            record.update(stage_train(a))
        elif s == "onnx":
            record["export"] = stage_onnx(a)
        else:
            raise SystemExit(f"unknown stage {s!r}")
        record.setdefault("stage_wall_s", {})[s] = round(time.time() - t0, 1)
        settings_path.write_text(json.dumps(record, indent=1, default=str) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
