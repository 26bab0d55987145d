"""Training recipe of ``models/puck_verifier.onnx`` (is this puck candidate the puck?).

Run with torch + ultralytics installed (the ``train`` extra; never needed at run time)::

    .venv/bin/pip install -e '.[train]'
    nice -n 5 .venv/bin/python models/train_puck_verifier.py              # all stages
    nice -n 5 .venv/bin/python models/train_puck_verifier.py --stages patches,train,onnx

Stages (each reads what the previous one wrote):

1. ``render``: 1280x720 simulator clips, 30 fps, each scenario's own length, scenario
   seeds ``SEED_BASE`` + i; scenario and camera preset cycle with the seed (``clip_spec``);
   the look is drawn from the seed (never one of ``HELD_OUT_LOOK_SEEDS``). The seeds are
   disjoint from the evaluation suite's (7000+) and the held-out range (900000+).
2. ``patches``: every clip is tracked as at run time (``vision.tracking.FrameTracker``
   with the true homography, so candidates are what the classical detectors propose);
   on every ``--every``-th frame each candidate's patch (``vision.puck_verifier.crop_patches``)
   is labelled against the true puck projected with the true camera (lens included):
   ``puck`` within 0.6 puck extents + 1.5 px of a puck at least half visible, ``background``
   farther than 2.5 extents + 3 px (or no puck in the frame), in between not used. Frames
   with the puck in the air (z > 3 cm) are skipped (its plane is not the ice). Each
   labelled frame adds one patch at the true puck, jittered by up to 0.3 extents, so
   pucks no candidate covered (held against a blade) are learned too. Background
   patches: all candidates scoring >= 0.1 (the hard ones) and up to 4 others per frame.
3. ``train``: ultralytics classification (``yolo11n-cls.yaml``, from scratch) on the
   ``PATCH_PX`` px patches, CPU, wall budget ``--hours``.
4. ``onnx``: export of the best checkpoint to ``models/puck_verifier.onnx`` (dynamic
   batch); settings, counts and timings go to ``models/puck_verifier_train.json``.
5. ``heldout``: renders ``--n-heldout-clips`` clips with held-out scenario seeds
   (``HELD_OUT_SEED_BASE`` + i) and the held-out looks (``HELD_OUT_LOOKS``, never
   trained on), cuts their patches exactly as in ``patches`` and scores them with the
   shipped ONNX model through ``vision.puck_verifier.PuckVerifier`` (ONNX Runtime):
   recall and false-positive rate at p >= 0.5, ROC AUC, per camera preset.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from train_sledge_pose import _offline_ultralytics, hardware, log, ultralytics_train  # noqa: E402

#: The sledge scenarios cycled over (sponge's standing players and the 60 s free play excluded).
SCENARIOS = (
    "onside_carried", "offside_carried", "onside_pass", "offside_pass", "offside_backwards_control",
    "defender_carries_in", "delayed_offside_tagup", "icing", "icing_shorthanded", "icing_touched",
    "icing_faceoff", "icing_opponent_could_play", "icing_goalkeeper", "icing_goal", "goal", "goal_close",
    "no_goal_on_line", "no_goal_post", "no_goal_from_behind", "goal_crease_occupied",
)
#: Camera presets cycled over: broadcast half of the time.
CAMERAS = ("broadcast", "blueline", "broadcast", "goalcam", "broadcast", "overhead")
SEED_BASE = 300
HELD_OUT_SEED_BASE = 900_100  # evaluation only, with the held-out looks

DEFAULTS = {
    "n_train_clips": 34,
    "n_val_clips": 6,
    "every": 2,
    "hours": 0.4,
    "batch": 64,
    "threads": 2,
    "n_heldout_clips": 8,
}


def clip_spec(i: int) -> dict:
    """Clip i (training first, then validation): scenario, camera and seed."""
    s = SEED_BASE + i
    return {"scenario": SCENARIOS[s % len(SCENARIOS)], "camera": CAMERAS[s % len(CAMERAS)], "seed": s}


def spec_dir(root: Path, c: dict) -> Path:
    """Where the clip of spec ``c`` (scenario, camera, seed; optional rule ``profile``) is rendered
    under ``root`` (a sledge scenario played by standing sponge players is named ``sponge_...``)."""
    sponge = c.get("profile") == "sponge-westridge" and not c["scenario"].startswith("sponge")
    kits = "_drawn" if c.get("kits", "classic") == "drawn" else ""
    return root / f"{'sponge_' if sponge else ''}{c['scenario']}_{c['camera']}_{c['seed']}{kits}"


def clip_dir(a: argparse.Namespace, i: int) -> Path:
    return spec_dir(a.data / "clips", clip_spec(i))


def splits(a: argparse.Namespace) -> dict[str, list[int]]:
    return {"train": list(range(a.n_train_clips)),
            "val": list(range(a.n_train_clips, a.n_train_clips + a.n_val_clips))}


# ---------------------------------------------------------------------------- render
def render_clips(items: list[tuple[dict, Path]]) -> dict:
    """Render each (spec with scenario, camera, seed, optional profile and kits; folder) not yet
    rendered → the failed ones."""
    from vision.sim.synth import synth_clip

    failed = []
    for c, d in items:
        if (d / "truth.json").is_file() and (d / "clip.mp4").is_file():
            continue
        t0 = time.time()
        try:
            synth_clip(c["scenario"], c["camera"], c["seed"], d, width=1280, height=720, fps=30,
                       profile=c.get("profile"), kits=c.get("kits", "classic"))
        except Exception as e:  # a scenario that fails to build is skipped, and said so
            failed.append({**c, "error": f"{type(e).__name__}: {e}"})
            shutil.rmtree(d, ignore_errors=True)
            continue
        log(f"render {d.name} ({time.time() - t0:.1f} s)")
    return {"failed": failed}


def stage_render(a: argparse.Namespace) -> dict:
    return render_clips([(clip_spec(i), clip_dir(a, i)) for i in sum(splits(a).values(), [])])


# ---------------------------------------------------------------------------- patches
def true_puck_px(fr: dict) -> tuple[np.ndarray, float, float] | None:
    """The true puck's centre in the image (true camera, lens included), its visible fraction and height."""
    import cv2

    p, c = fr.get("puck"), fr.get("camera")
    if not p or not c or not p.get("in_frame", True):
        return None
    X = np.array([[p["x"], p["y"], p.get("z", 0.0127)]], dtype=np.float64)
    R = np.asarray(c["R"], dtype=np.float64)
    uv, _ = cv2.projectPoints(X, cv2.Rodrigues(R)[0], np.asarray(c["t"], dtype=np.float64),
                              np.asarray(c["K"], dtype=np.float64), np.asarray(c["dist"], dtype=np.float64))
    return uv.reshape(2), float(p.get("visible_fraction", 1.0 if p.get("visible") else 0.0)), float(X[0, 2])


def label_candidates(centre_xy_px: np.ndarray, ext_px: np.ndarray, truth: tuple | None,
                     min_visible: float = 0.5) -> np.ndarray:
    """Per candidate: 1 = puck, 0 = background, -1 = not used (see the module docstring); a puck
    less than ``min_visible`` visible labels no candidate a puck."""
    n = len(centre_xy_px)
    if truth is None:
        return np.zeros(n, dtype=np.int64)
    uv, vis, _ = truth
    d = np.hypot(*(np.asarray(centre_xy_px) - uv).T)
    lab = np.full(n, -1, dtype=np.int64)
    lab[d > 2.5 * ext_px + 3.0] = 0
    if vis >= min_visible:
        lab[d <= 0.6 * ext_px + 1.5] = 1
    return lab


def clip_patches(clip: Path, every: int, rng: np.random.Generator):
    """Yield (name, label, patch (PATCH_PX, PATCH_PX, 3) uint8) for one clip."""
    from calibration.rink import RinkModel
    from rulesfromvideo.game import GameDescriptor
    from vision.evaluation import load_truth, truth_calibration
    from vision.puck_verifier import crop_patches, patch_side_px
    from vision.tracking import FrameTracker
    from vision.video import iter_frames

    truth = load_truth(clip)
    H = truth_calibration(truth)
    game = GameDescriptor.from_file(clip / "game.json")
    tracker = FrameTracker(RinkModel(game.rink_spec()), game, truth["fps"], goalkeeper_detector=None,
                           puck_verifier=None, carry_verifier=None)  # as the classical detectors propose them
    tracker.propose_peaks = True  # and dark peaks: blades, shafts, pucks held against them
    for i, frame in iter_frames(clip / "clip.mp4"):
        if i >= len(H):
            break
        obs = tracker.update(frame, i, i / truth["fps"], H[i])
        if i % every or H[i] is None:
            continue
        tp = true_puck_px(truth["frames"][i])
        if tp is not None and tp[2] > 0.03:
            continue  # in the air: neither a puck on the ice nor background
        centres, areas, labels, names = [], [], [], []
        for kind, cands in (("c", obs.puck_candidates), ("p", obs.puck_peaks)):
            if cands is None or not len(cands):
                continue
            c = np.asarray(cands.data["centre_xy_px"], dtype=np.float64)
            area = np.asarray(cands.data["expected_area_px"], dtype=np.float64)
            lab = label_candidates(c, np.sqrt(np.maximum(area, 1.0)), tp)
            # Peaks have no classical score: all are "easy" and sampled like the weak candidates.
            score = np.asarray(cands.confidence, dtype=np.float64) if kind == "c" else np.zeros(len(c))
            neg = np.flatnonzero(lab == 0)
            easy = neg[score[neg] < 0.1]
            keep_easy = set(rng.choice(easy, size=min(4, len(easy)), replace=False).tolist()) if len(easy) else set()
            for j in range(len(c)):
                if lab[j] == 1 or (lab[j] == 0 and (score[j] >= 0.1 or j in keep_easy)):
                    centres.append(c[j]), areas.append(area[j]), labels.append(int(lab[j]))
                    names.append(f"{kind}{j}")
        if tp is not None and tp[1] >= 0.5 and tracker._cam is not None:
            xy_rink = np.array([[truth["frames"][i]["puck"]["x"], truth["frames"][i]["puck"]["y"]]])
            a_exp, _ = tracker.puck_detector.expected_size_px(tracker._cam, xy_rink)
            ext = float(np.sqrt(max(a_exp[0], 1.0)))
            centres.append(tp[0] + rng.uniform(-0.3, 0.3, 2) * ext), areas.append(float(a_exp[0]))
            labels.append(1), names.append("t")
        if not centres:
            continue
        patches = crop_patches(frame, np.array(centres), patch_side_px(np.array(areas)))
        for name, lab, patch in zip(names, labels, patches):
            yield f"{clip.name}_{i:04d}_{name}", lab, patch


def write_patches(root: Path, split_clips: dict[str, list[Path]], patches_of) -> dict:
    """Write ``patches_of(clip)``'s (name, label, patch) as ``root/SPLIT/{puck,background}/NAME.png``
    for every rendered clip of each split (``root`` emptied first) → counts per split."""
    import cv2

    shutil.rmtree(root, ignore_errors=True)
    counts: dict[str, dict[str, int]] = {}
    for split, clips in split_clips.items():
        counts[split] = {"background": 0, "puck": 0, "clips": 0}
        for cls in ("background", "puck"):
            (root / split / cls).mkdir(parents=True, exist_ok=True)
        for d in clips:
            if not (d / "truth.json").is_file():
                continue
            t0 = time.time()
            n0 = dict(counts[split])
            for name, lab, patch in patches_of(d):
                cls = "puck" if lab == 1 else "background"
                cv2.imwrite(str(root / split / cls / f"{name}.png"), patch)
                counts[split][cls] += 1
            counts[split]["clips"] += 1
            log(f"patches {split} {d.name}: +{counts[split]['puck'] - n0['puck']} puck, "
                f"+{counts[split]['background'] - n0['background']} background ({time.time() - t0:.1f} s)")
    return counts


def stage_patches(a: argparse.Namespace) -> dict:
    rng = np.random.default_rng(0)
    return write_patches(a.data / "patches", {k: [clip_dir(a, i) for i in v] for k, v in splits(a).items()},
                         lambda d: clip_patches(d, a.every, rng))


# ---------------------------------------------------------------------------- train
def train_args(a: argparse.Namespace) -> dict:
    from vision.puck_verifier import PATCH_PX

    return dict(
        data=str(a.data / "patches"), imgsz=PATCH_PX, epochs=100, time=a.hours, batch=a.batch, nbs=a.batch,
        device="cpu", workers=0, amp=False, plots=False, pretrained=False, optimizer="AdamW", lr0=0.002,
        cos_lr=False, warmup_epochs=0.0,
        # The puck sits at the patch centre: crops keep >= 80 % of the area, no erasing (it could erase the
        # puck and keep the label), flips both ways (the ice has no up), colour jitter for unseen arenas.
        scale=0.2, erasing=0.0, fliplr=0.5, flipud=0.5, hsv_h=0.05, hsv_s=0.6, hsv_v=0.4, auto_augment=None,
        patience=1000, seed=0, deterministic=True, project=str(a.runs), name="yolo11n_cls", exist_ok=True,
        val=True, verbose=True,
    )


def stage_train(a: argparse.Namespace) -> dict:
    return ultralytics_train("yolo11n-cls.yaml", train_args(a), a.threads)


def stage_onnx(a: argparse.Namespace, dest: Path | None = None) -> dict:
    """Export the best checkpoint to ``dest`` (default: the shipped verifier, ``models/puck_verifier.onnx``)."""
    import torch

    _offline_ultralytics()
    from ultralytics import YOLO

    from vision.puck_verifier import DEFAULT_MODEL_PATH, PATCH_PX

    dest = DEFAULT_MODEL_PATH if dest is None else dest
    w = a.runs / "yolo11n_cls" / "weights"
    ckpt = next((w / n for n in ("best.pt", "last.pt") if (w / n).is_file()), None)
    if ckpt is None:
        raise FileNotFoundError(f"no checkpoint in {w}")
    f = YOLO(str(ckpt)).export(format="onnx", imgsz=PATCH_PX, opset=17, dynamic=True, simplify=True, device="cpu")
    shutil.copyfile(f, dest)
    ck = torch.load(str(ckpt), map_location="cpu", weights_only=False)
    info = {"checkpoint": str(ckpt), "checkpoint_epoch": int(ck.get("epoch", -1)),
            "onnx_bytes": dest.stat().st_size, "dynamic_batch": True}
    log(f"onnx: {ckpt} -> {dest} ({info['onnx_bytes'] / 1e6:.2f} MB)")
    return info


# ---------------------------------------------------------------------------- heldout
def heldout_spec(i: int) -> dict:
    from vision.sim.looks import HELD_OUT_LOOKS

    s = HELD_OUT_SEED_BASE + i
    looks = sorted(HELD_OUT_LOOKS)
    return {"scenario": SCENARIOS[(7 * i) % len(SCENARIOS)], "camera": CAMERAS[i % len(CAMERAS)], "seed": s,
            "look": looks[i % len(looks)]}


def roc_auc(pos: np.ndarray, neg: np.ndarray) -> float:
    """Probability that a random puck patch scores above a random background patch (ties count half)."""
    if not len(pos) or not len(neg):
        return float("nan")
    allv = np.concatenate([pos, neg])
    order = np.argsort(allv, kind="mergesort")
    ranks = np.empty(len(allv))
    ranks[order] = np.arange(1, len(allv) + 1)
    for v in np.unique(allv):  # average ranks of ties
        m = allv == v
        ranks[m] = ranks[m].mean()
    return float((ranks[: len(pos)].sum() - len(pos) * (len(pos) + 1) / 2) / (len(pos) * len(neg)))


def score_heldout(model, items: list[tuple[dict, Path]], patches_of, thresholds=(0.5,)) -> dict:
    """Render each held-out (spec with ``look``, optional ``profile``; folder) if needed, cut its
    patches with ``patches_of(clip)`` and score them with ``model`` (a ``PuckVerifier``) → per
    camera preset (or the spec's ``group``) and ``all``: patch counts, ROC AUC, recall and
    false-positive rate at each threshold."""
    from vision.sim.looks import held_out_look
    from vision.sim.synth import synth_clip

    scores: dict[str, dict[str, list[float]]] = {}
    for c, d in items:
        if not (d / "truth.json").is_file():
            synth_clip(c["scenario"], c["camera"], c["seed"], d, width=1280, height=720, fps=30,
                       look=held_out_look(c["look"]), profile=c.get("profile"))
        got = scores.setdefault(c.get("group", c["camera"]), {"puck": [], "background": []})
        labs, patches = [], []
        for _, lab, patch in patches_of(d):
            labs.append(lab), patches.append(patch)
        if patches:
            p = model.probabilities(np.stack(patches))
            for lab, pi in zip(labs, p):
                got["puck" if lab == 1 else "background"].append(float(pi))
        log(f"heldout {d.name} ({c['look']}): {sum(labs)} puck, {len(labs) - sum(labs)} background patches")
    out = {}
    for cam, got in sorted(scores.items()) + [("all", {k: sum((g[k] for g in scores.values()), [])
                                                         for k in ("puck", "background")})]:
        pos, neg = np.asarray(got["puck"]), np.asarray(got["background"])
        out[cam] = {"puck_patches": int(len(pos)), "background_patches": int(len(neg)), "roc_auc": roc_auc(pos, neg)}
        for thr in thresholds:
            out[cam][f"recall_at_{thr}"] = float(np.mean(pos >= thr)) if len(pos) else None
            out[cam][f"false_positive_rate_at_{thr}"] = float(np.mean(neg >= thr)) if len(neg) else None
        log(f"heldout {cam}: {out[cam]}")
    return out


def stage_heldout(a: argparse.Namespace) -> dict:
    from vision.puck_verifier import PuckVerifier

    rng = np.random.default_rng(1)
    items = [(c, spec_dir(a.data / "heldout", c)) for c in map(heldout_spec, range(a.n_heldout_clips))]
    return score_heldout(PuckVerifier(), items, lambda d: clip_patches(d, a.every, rng))


def run_stages(argv: list[str] | None, description: str, defaults: dict, seed_base: int, name: str,
               stages: dict) -> int:
    """Parse ``--stages``, ``--data``, ``--runs``, ``--record`` and ``defaults`` as options; run the
    stages in order, each one's result and wall time recorded in ``--record`` (default
    ``models/{name}_train.json``: a measurement of another model belongs elsewhere)."""
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--stages", default=",".join(stages))
    p.add_argument("--data", type=Path, default=REPO / "datasets" / name)
    p.add_argument("--runs", type=Path, default=REPO / "runs" / name)
    p.add_argument("--record", type=Path, default=REPO / "models" / f"{name}_train.json")
    for k, v in defaults.items():
        p.add_argument("--" + k.replace("_", "-"), type=type(v), default=v)
    a = p.parse_args(argv)
    a.data, a.runs = a.data.resolve(), a.runs.resolve()
    a.data.mkdir(parents=True, exist_ok=True)
    record_path = a.record.resolve()
    record_path.parent.mkdir(parents=True, exist_ok=True)
    record = json.loads(record_path.read_text()) if record_path.is_file() else {}
    record["settings"] = {k: getattr(a, k) for k in defaults} | {"seed_base": seed_base}
    record["hardware"] = hardware()
    names = [s.strip() for s in a.stages.split(",") if s.strip()]
    unknown = [s for s in names if s not in stages]
    if unknown:
        raise SystemExit(f"unknown stage(s) {unknown}; known: {list(stages)}")
    for stage in names:  # each stage's result under its name, its wall time in stage_wall_s
        t0 = time.time()
        record[stage] = stages[stage](a)
        record.setdefault("stage_wall_s", {})[stage] = round(time.time() - t0, 1)
        record_path.write_text(json.dumps(record, indent=1, default=str) + "\n")
    return 0


def main(argv: list[str] | None = None) -> int:
    return run_stages(argv, __doc__.splitlines()[0], DEFAULTS, SEED_BASE, "puck_verifier",
                      {"render": stage_render, "patches": stage_patches, "train": stage_train, "onnx": stage_onnx,
                       "heldout": stage_heldout})


if __name__ == "__main__":
    raise SystemExit(main())
