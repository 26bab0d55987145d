"""Calibration evaluation against simulator truth, and a calibration-only runner.

``rulesfromvideo eval calibration --truth CLIP_DIR --pred OUT_DIR`` reads
``CLIP_DIR/truth.json`` (per-frame camera ``K, dist, R, t``) and
``OUT_DIR/calibration.jsonl`` and prints, per camera preset:

- rink-space error over a 1 m grid of ice in view: each grid point is
  projected into the raw (distorted) image with the true camera, then mapped
  back with the predicted ``H_rink_from_image``; median and p95 in cm;
- for goal cameras, the same within 3 m of a goal line (0.5 m grid); for blue-line
  cameras, within 2 m of a blue line (the calibration issue's two near-line targets);
- completeness: share of frames with ≥ 4 markings in view that got a
  calibration;
- confidently-wrong frames: median error > 1 m with quality ≥ 0.5;
- jitter: frame-to-frame motion (cm) of fixed rink points on static cameras;
- frames/s when ``OUT_DIR/calibration_timing.json`` exists.

``--truth`` may also be a folder of clip folders, at any depth (``--pred`` then holds one
folder per clip at the same relative path). ``--run`` first calibrates each clip's
``clip.mp4`` with :func:`calibrate_video`.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import cv2
import numpy as np

__all__ = ["calibrate_video", "evaluate_clip", "clip_figures", "add_eval_calibration_parser", "summarise"]

CONFIDENT_QUALITY = 0.5
WRONG_M = 1.0


def calibrate_video(video_path: str | Path, rink, out_path: str | Path, camera_profile=None,
                    max_frames: int | None = None) -> dict[str, Any]:
    """Calibrate every frame of a video and write ``calibration.jsonl``.

    Args:
        video_path: the clip.
        rink: ``calibration.rink.RinkModel``.
        out_path: the JSONL file to write (its folder is created); a
            ``calibration_timing.json`` with frames and seconds is written next to it.
        camera_profile: optional ``CameraProfile`` of a fixed camera.
        max_frames: stop after this many frames.

    Returns:
        ``{"frames", "seconds", "fps", "calibrated"}``.
    """
    from calibration.registration import Calibrator
    from vision.video import iter_frames, probe

    fps, _, _, _ = probe(video_path)
    cal = Calibrator(rink, camera_profile=camera_profile, fps=fps)
    out_path = Path(out_path)
    out_path.parent.mkdir(parents=True, exist_ok=True)
    n = n_ok = 0
    busy = 0.0
    with open(out_path, "w", encoding="utf-8") as fh:
        for index, frame in iter_frames(video_path):
            if max_frames is not None and index >= max_frames:
                break
            t0 = time.perf_counter()
            res = cal.update(frame, index)
            busy += time.perf_counter() - t0
            fh.write(json.dumps(res.to_record(index)) + "\n")
            n += 1
            n_ok += res.rink_from_image is not None
    info = {"frames": n, "seconds": round(busy, 4), "fps": round(n / busy, 2) if busy > 0 else None,
            "calibrated": n_ok}
    (out_path.parent / "calibration_timing.json").write_text(json.dumps(info))
    return info


# ------------------------------------------------------------------ truth geometry
def _rink_from_truth(truth: dict):
    from calibration.rink import RinkModel, RinkSpec

    r = truth.get("rink", {}) or {}
    return RinkModel(RinkSpec.for_layout(r.get("layout", "ipc"), r.get("length_m"), r.get("width_m")))


def _ice_grid(rink, step_m: float) -> np.ndarray:
    """(N, 2) grid points (m) on the ice surface."""
    from shapely import contains_xy

    L, W = rink.spec.length_m, rink.spec.width_m
    xs = np.arange(-np.floor(L / 2), np.floor(L / 2) + 1e-9, step_m)
    ys = np.arange(-np.floor(W / 2), np.floor(W / 2) + 1e-9, step_m)
    gx, gy = np.meshgrid(xs, ys)
    g = np.c_[gx.ravel(), gy.ravel()]
    return g[contains_xy(rink.ice, g[:, 0], g[:, 1])]


def _project_truth(cam: dict, xy_rink_m: np.ndarray, width: int, height: int) -> tuple[np.ndarray, np.ndarray]:
    """Distorted pixels (M, 2) of the ice points in view, and the index (M,) of those points."""
    K = np.asarray(cam["K"], float)
    R = np.asarray(cam["R"], float)
    t = np.asarray(cam["t"], float).reshape(3)
    dist = np.asarray(cam.get("dist", [0.0] * 5), float)
    xyz = np.c_[xy_rink_m, np.zeros(len(xy_rink_m))]
    depth = xyz @ R[2] + t[2]
    front = np.flatnonzero(depth > 0.1)
    if len(front) == 0:
        return np.zeros((0, 2)), front
    # Points far outside the field of view make the distortion polynomial fold
    # back into the image; keep rays within ~1.5× the image half-diagonal.
    cam_pts = xyz[front] @ R.T + t
    n = cam_pts[:, :2] / cam_pts[:, 2:]
    half = np.array([width / 2 / K[0, 0], height / 2 / K[1, 1]])
    near = np.all(np.abs(n) < 1.5 * half, axis=1)
    front = front[near]
    rvec, _ = cv2.Rodrigues(R)
    px, _ = cv2.projectPoints(xyz[front], rvec, t, K, dist)
    px = px.reshape(-1, 2)
    inside = (px[:, 0] >= -0.5) & (px[:, 0] <= width - 0.5) & (px[:, 1] >= -0.5) & (px[:, 1] <= height - 0.5)
    return px[inside], front[inside]


def _back(rink_from_image: np.ndarray, px: np.ndarray) -> np.ndarray:
    hom = np.c_[px, np.ones(len(px))] @ rink_from_image.T
    w = hom[:, 2:3]
    return np.where(np.abs(w) > 1e-12, hom[:, :2] / np.where(np.abs(w) > 1e-12, w, 1.0), np.inf)


def _marking_samples(rink) -> list[np.ndarray]:
    out = []
    for m in rink.markings:
        geom = m.geometry
        polys = [geom] if geom.geom_type == "Polygon" else list(geom.geoms)
        pts = []
        for p in polys:
            ring = p.exterior
            n = max(4, int(ring.length / 0.5))
            pts.extend(ring.interpolate(d).coords[0][:2] for d in np.linspace(0, ring.length, n, endpoint=False))
        out.append(np.asarray(pts))
    return out


def _read_pred(path: Path) -> dict[int, dict]:
    pred = {}
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            line = line.strip()
            if line:
                rec = json.loads(line)
                pred[int(rec["frame"])] = rec
    return pred


def _static_camera(frames: list[dict]) -> bool:
    cams = [f["camera"] for f in frames]
    ref = cams[0]
    return all(np.allclose(c["R"], ref["R"]) and np.allclose(c["t"], ref["t"]) and np.allclose(c["K"], ref["K"])
               for c in cams)


def _mapper(rec: dict | None, H: np.ndarray | None, use_lens: bool):
    """Raw px (N, 2) → rink m (N, 2) for one prediction record (lens model when present)."""
    if H is None:
        return None
    lens = rec.get("lens") if (use_lens and rec) else None
    if lens and rec.get("H_rink_from_undistorted") is not None:
        K, dist = np.asarray(lens["K"], float), np.asarray(lens["dist"], float)
        Hu = np.asarray(rec["H_rink_from_undistorted"], float)

        def to_rink(px):
            und = cv2.undistortPoints(np.asarray(px, float).reshape(-1, 1, 2), K, dist, P=K).reshape(-1, 2)
            return _back(Hu, und)

        return to_rink
    return lambda px: _back(H, px)


def evaluate_clip(truth_dir: str | Path, pred_dir: str | Path, use_lens: bool = True) -> dict[str, Any]:
    """Metrics of one clip (see module docstring).

    With ``use_lens`` a record's optional ``lens``/``H_rink_from_undistorted``
    is used (undistort, then map); otherwise only the contract's 3×3.

    Returns:
        dict with ``camera``, ``frames``, ``errors_cm`` (all grid errors),
        ``goal_errors_cm``, ``blue_errors_cm``, ``eligible``, ``calibrated_eligible``,
        ``confident_wrong``, ``jitter_cm`` (per frame pair), ``fps``.
    """
    truth_dir, pred_dir = Path(truth_dir), Path(pred_dir)
    truth = json.loads((truth_dir / "truth.json").read_text())
    pred = _read_pred(pred_dir / "calibration.jsonl")
    rink = _rink_from_truth(truth)
    width, height = int(truth["width"]), int(truth["height"])
    grid = _ice_grid(rink, 1.0)
    goal_x = float(rink.spec.goal_line_x_m)
    fine = _ice_grid(rink, 0.5)
    near_blue = fine[np.abs(np.abs(fine[:, 0]) - float(rink.spec.blue_line_x_m)) <= 2.0]
    fine = fine[np.abs(np.abs(fine[:, 0]) - goal_x) <= 3.0]
    marks = _marking_samples(rink)
    frames = truth["frames"]
    static = len(frames) > 1 and _static_camera(frames)
    errors, goal_errors, blue_errors, jitter = [], [], [], []
    eligible = calibrated_eligible = confident_wrong = 0
    prev = None
    for fr in frames:
        cam = fr["camera"]
        k = int(fr["frame"])
        n_visible = sum(1 for s in marks if len(_project_truth(cam, s, width, height)[1]) > 0)
        rec = pred.get(k)
        H = None if rec is None or rec.get("H_rink_from_image") is None else np.asarray(rec["H_rink_from_image"], float)
        q = 0.0 if rec is None else float(rec.get("quality", 0.0))
        to_rink = _mapper(rec, H, use_lens)
        if n_visible >= 4:
            eligible += 1
            calibrated_eligible += H is not None
        px, idx = _project_truth(cam, grid, width, height)
        if H is not None and len(px):
            e = np.linalg.norm(to_rink(px) - grid[idx], axis=1) * 100.0
            errors.append(e)
            if np.median(e) > WRONG_M * 100.0 and q >= CONFIDENT_QUALITY:
                confident_wrong += 1
            if truth.get("camera") == "goalcam":
                gpx, gidx = _project_truth(cam, fine, width, height)
                if len(gpx):
                    goal_errors.append(np.linalg.norm(to_rink(gpx) - fine[gidx], axis=1) * 100.0)
            if truth.get("camera") == "blueline":
                bpx, bidx = _project_truth(cam, near_blue, width, height)
                if len(bpx):
                    blue_errors.append(np.linalg.norm(to_rink(bpx) - near_blue[bidx], axis=1) * 100.0)
        if static:
            cur = to_rink if H is not None and len(px) else None
            if cur is not None and prev is not None:
                jitter.append(float(np.median(np.linalg.norm(cur(px) - prev(px), axis=1)) * 100))
            prev = cur
    timing = pred_dir / "calibration_timing.json"
    fps = json.loads(timing.read_text()).get("fps") if timing.is_file() else None
    return {
        "clip": truth_dir.name,
        "camera": truth.get("camera", "unknown"),
        "frames": len(frames),
        "errors_cm": np.concatenate(errors) if errors else np.zeros(0),
        "goal_errors_cm": np.concatenate(goal_errors) if goal_errors else np.zeros(0),
        "blue_errors_cm": np.concatenate(blue_errors) if blue_errors else np.zeros(0),
        "eligible": eligible,
        "calibrated_eligible": calibrated_eligible,
        "confident_wrong": confident_wrong,
        "jitter_cm": np.asarray(jitter),
        "static": static,
        "fps": fps,
    }


def summarise(results: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Aggregate clip metrics per camera preset (and "all")."""
    groups: dict[str, list[dict]] = {}
    for r in results:
        groups.setdefault(r["camera"], []).append(r)
    if len(groups) > 1:
        groups["all"] = list(results)
    out = {}
    for cam, rs in groups.items():
        e = np.concatenate([r["errors_cm"] for r in rs])
        g = np.concatenate([r["goal_errors_cm"] for r in rs])
        b = np.concatenate([r.get("blue_errors_cm", np.zeros(0)) for r in rs])
        j = np.concatenate([r["jitter_cm"] for r in rs])
        elig = sum(r["eligible"] for r in rs)
        fps = [r["fps"] for r in rs if r["fps"]]
        out[cam] = {
            "clips": len(rs),
            "frames": sum(r["frames"] for r in rs),
            "median_cm": float(np.median(e)) if len(e) else None,
            "p95_cm": float(np.percentile(e, 95)) if len(e) else None,
            "goal_median_cm": float(np.median(g)) if len(g) else None,
            "goal_p95_cm": float(np.percentile(g, 95)) if len(g) else None,
            "blue_median_cm": float(np.median(b)) if len(b) else None,
            "blue_p95_cm": float(np.percentile(b, 95)) if len(b) else None,
            "completeness": sum(r["calibrated_eligible"] for r in rs) / elig if elig else None,
            "confident_wrong": sum(r["confident_wrong"] for r in rs),
            "jitter_median_cm": float(np.median(j)) if len(j) else None,
            "jitter_p95_cm": float(np.percentile(j, 95)) if len(j) else None,
            "fps": float(np.mean(fps)) if fps else None,
        }
    return out


def clip_figures(truth_dir: str | Path, pred_dir: str | Path, use_lens: bool = True) -> dict[str, Any]:
    """The summary figures (`summarise`) of one clip: median/p95 cm, completeness, confidently wrong, ..."""
    r = evaluate_clip(truth_dir, pred_dir, use_lens=use_lens)
    return {"camera": r["camera"], **summarise([r])[r["camera"]]}


def _fmt(v, spec=".2f") -> str:
    return "-" if v is None else format(v, spec)


def _clip_dirs(truth: Path) -> list[Path]:
    """``truth`` itself when it is a clip folder, else every clip folder under it, at any depth
    (a multi-camera play keeps one clip folder per camera)."""
    if (truth / "truth.json").is_file():
        return [truth]
    # Walked by hand: Path.rglob does not enter symlinked folders (a suite assembled from links).
    return sorted(c for sub in truth.iterdir() if sub.is_dir() for c in _clip_dirs(sub))


def _cmd_eval_calibration(args: argparse.Namespace) -> int:
    truth, pred = Path(args.truth), Path(args.pred)
    if not truth.is_dir():
        print(f"error: --truth {truth}: not a folder", file=sys.stderr)
        return 2
    clips = _clip_dirs(truth)
    if not clips:
        print(f"error: --truth {truth}: no truth.json in it or its sub-folders", file=sys.stderr)
        return 2
    single = clips == [truth]
    results = []
    for clip in clips:
        out = pred if single else pred / clip.relative_to(truth)
        if args.run:
            from calibration.fixed import CameraProfile

            profile = CameraProfile.load(args.camera_profile) if args.camera_profile else None
            video = clip / "clip.mp4"
            rink = _rink_from_truth(json.loads((clip / "truth.json").read_text()))
            info = calibrate_video(video, rink, out / "calibration.jsonl", profile, max_frames=args.max_frames)
            print(f"calibrated {video}: {info}")
        if not (out / "calibration.jsonl").is_file():
            print(f"error: {out / 'calibration.jsonl'}: missing (use --run to calibrate the clip)", file=sys.stderr)
            return 2
        try:
            results.append(evaluate_clip(clip, out, use_lens=not args.no_lens))
        except (KeyError, ValueError, json.JSONDecodeError) as exc:
            print(f"error: {clip}: bad truth or prediction ({exc})", file=sys.stderr)
            return 2
    summary = summarise(results)
    print(f"{'camera':10s} {'clips':>5s} {'frames':>6s} {'med cm':>7s} {'p95 cm':>7s} {'goal med':>8s} "
          f"{'goal p95':>8s} {'blue med':>8s} {'blue p95':>8s} {'complete':>8s} {'wrong':>5s} {'jit med':>7s} {'jit p95':>7s} {'fps':>6s}")
    for cam, s in summary.items():
        print(f"{cam:10s} {s['clips']:5d} {s['frames']:6d} {_fmt(s['median_cm']):>7s} {_fmt(s['p95_cm']):>7s} "
              f"{_fmt(s['goal_median_cm']):>8s} {_fmt(s['goal_p95_cm']):>8s} "
              f"{_fmt(s['blue_median_cm']):>8s} {_fmt(s['blue_p95_cm']):>8s} "
              f"{_fmt(None if s['completeness'] is None else 100 * s['completeness'], '.1f'):>7s}% "
              f"{s['confident_wrong']:5d} {_fmt(s['jitter_median_cm']):>7s} {_fmt(s['jitter_p95_cm']):>7s} "
              f"{_fmt(s['fps'], '.1f'):>6s}")
    if args.json:
        Path(args.json).write_text(json.dumps(summary, indent=2))
    return 0


def add_eval_calibration_parser(eval_subparsers) -> argparse.ArgumentParser:
    """Register ``eval calibration`` on the ``eval`` sub-parsers."""
    p = eval_subparsers.add_parser("calibration", help="rink-space error, completeness, jitter of calibration.jsonl")
    p.add_argument("--truth", required=True, type=Path, help="clip folder with truth.json, or a folder of them")
    p.add_argument("--pred", required=True, type=Path, help="folder with calibration.jsonl (one per clip)")
    p.add_argument("--run", action="store_true", help="calibrate clip.mp4 into --pred first")
    p.add_argument("--camera-profile", type=Path, help="fixed-camera profile JSON for --run")
    p.add_argument("--max-frames", type=int, help="with --run: stop after N frames")
    p.add_argument("--json", type=Path, help="also write the summary as JSON")
    p.add_argument("--no-lens", action="store_true", help="score only the 3×3 H_rink_from_image (ignore lens fields)")
    p.set_defaults(func=_cmd_eval_calibration)
    return p
