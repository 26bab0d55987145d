"""Render simulator clips per camera preset, calibrate them, score against truth.

Usage:
    .venv/bin/python benchmarks/eval_calibration_sim.py OUT_DIR [--frames 30] [--size 1280x720]
        [--clip broadcast:1:offside_carried ...]

Each ``--clip PRESET:SEED[:SCENARIO]`` is rendered into ``OUT_DIR/clips/NAME``
(``clip.mp4`` + ``truth.json``; through ``vision.sim.synth.synth_clip`` when it
exists, else directly with the renderer, rig and play), calibrated into
``OUT_DIR/pred/NAME/calibration.jsonl``, and the per-preset table of
``eval calibration`` is printed (with the lens model, then the 3×3 only).

Goal cameras get a camera profile as an operator would click it: the ice
landmarks of frame 0 that are in view, projected through the true (distorted)
camera, plus 1 px Gaussian click noise.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import cv2
import numpy as np

DEFAULT_CLIPS = [
    "broadcast:1:offside_carried", "broadcast:3:icing", "broadcast:5:goal",
    "blueline:2:offside_carried", "blueline:4:offside_pass",
    "overhead:2:offside_carried", "overhead:4:offside_carried",
    "goalcam:2:offside_carried", "goalcam:4:goal",
]


def render_clip(out_dir: Path, preset: str, seed: int, scenario: str, n_frames: int, width: int, height: int) -> None:
    """``clip.mp4`` + ``truth.json`` (docs/interfaces.md format) for one preset/seed."""
    out_dir.mkdir(parents=True, exist_ok=True)
    try:
        from vision.sim.synth import synth_clip
    except ImportError:
        synth_clip = None
    if synth_clip is not None:
        synth_clip(scenario, preset, seed, out_dir, width=width, height=height, fps=30.0, duration_s=n_frames / 30.0)
        return
    from calibration.rink import RinkModel, RinkSpec
    from vision.sim.camera import make_rig
    from vision.sim.plays import make_play
    from vision.sim.render import Renderer
    from vision.video import VideoWriter

    rink = RinkModel(RinkSpec.for_layout("ipc"))
    play = make_play(scenario, seed)
    rig = make_rig(preset, rink, seed, width, height, end=+1)
    renderer = Renderer(rink, seed)
    frames, prev = [], None
    with VideoWriter(out_dir / "clip.mp4", 30.0, width, height) as vw:
        for i in range(n_frames):
            t = i / 30.0
            state = play.state_at(t)
            cam = rig.camera_at(t, play.focus_at(t))
            img, _ = renderer.render(state, cam, prev_state=prev[0] if prev else None,
                                     prev_cam=prev[1] if prev else None)
            prev = (state, cam)
            vw.write(img)
            d = cam.to_dict()
            frames.append({"frame": i, "t": t, "camera": {k: d[k] for k in ("K", "dist", "R", "t")},
                           "H_image_from_rink": cam.H_image_from_rink().tolist()})
    truth = {"version": 1, "fps": 30.0, "width": width, "height": height, "scenario": scenario, "camera": preset,
             "seed": seed, "rink": {"layout": "ipc", "length_m": 60, "width_m": 30}, "frames": frames, "events": []}
    (out_dir / "truth.json").write_text(json.dumps(truth))


def clicked_profile(clip_dir: Path, rink, goal_end: int = +1, click_sigma_px: float = 1.0):
    """A CameraProfile from the visible ice landmarks of frame 0 with click noise."""
    from calibration.fixed import CameraProfile

    truth = json.loads((clip_dir / "truth.json").read_text())
    cam = truth["frames"][0]["camera"]
    K, R, t, dist = (np.asarray(cam[k], float) for k in ("K", "R", "t", "dist"))
    names = [n for n, p in rink.landmarks.items() if abs(p[2]) < 1e-9]
    xyz = np.array([rink.landmarks[n] for n in names], float)
    depth = xyz @ R[2] + t[2]
    px, _ = cv2.projectPoints(xyz, cv2.Rodrigues(R)[0], t, K, dist)
    px = px.reshape(-1, 2)
    w, h = truth["width"], truth["height"]
    ok = (depth > 0) & (px[:, 0] > 5) & (px[:, 0] < w - 5) & (px[:, 1] > 5) & (px[:, 1] < h - 5)
    noise = np.random.default_rng(0).normal(0.0, click_sigma_px, (int(ok.sum()), 2))
    return CameraProfile.from_point_pairs(px[ok] + noise, xyz[ok, :2], truth["camera"], w, h, goal_end=goal_end)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out", type=Path)
    ap.add_argument("--frames", type=int, default=30)
    ap.add_argument("--size", default="1280x720")
    ap.add_argument("--clip", action="append", help="PRESET:SEED[:SCENARIO] (repeatable; default: a 9-clip set)")
    args = ap.parse_args(argv)
    width, height = (int(v) for v in args.size.split("x"))

    from calibration.evaluation import calibrate_video, evaluate_clip, summarise
    from calibration.rink import RinkModel, RinkSpec

    rink = RinkModel(RinkSpec.for_layout("ipc"))
    results = {True: [], False: []}
    for spec in args.clip or DEFAULT_CLIPS:
        parts = spec.split(":")
        preset, seed = parts[0], int(parts[1])
        scenario = parts[2] if len(parts) > 2 else "offside_carried"
        name = f"{preset}_{seed}"
        clip, pred = args.out / "clips" / name, args.out / "pred" / name
        if not (clip / "truth.json").is_file():
            render_clip(clip, preset, seed, scenario, args.frames, width, height)
        profile = None
        if preset == "goalcam":
            profile = clicked_profile(clip, rink)
            profile.save(clip / "camera_profile.json")
        info = calibrate_video(clip / "clip.mp4", rink, pred / "calibration.jsonl", profile)
        print(f"{name:14s} {info}")
        for use_lens in (True, False):
            results[use_lens].append(evaluate_clip(clip, pred, use_lens=use_lens))
    for use_lens in (True, False):
        print("\nwith the lens model (image_to_rink)" if use_lens else "\n3x3 H_rink_from_image only")
        print(f"{'camera':10s} {'clips':>5s} {'frames':>6s} {'med cm':>7s} {'p95 cm':>7s} {'goal med':>8s} "
              f"{'complete':>8s} {'wrong':>5s} {'jit p95':>7s}")
        for cam, s in summarise(results[use_lens]).items():
            def f(v, spec=".2f"):
                return "-" if v is None else format(v, spec)
            print(f"{cam:10s} {s['clips']:5d} {s['frames']:6d} {f(s['median_cm']):>7s} {f(s['p95_cm']):>7s} "
                  f"{f(s['goal_median_cm']):>8s} {f(None if s['completeness'] is None else 100 * s['completeness'], '.1f'):>7s}% "
                  f"{s['confident_wrong']:5d} {f(s['jitter_p95_cm']):>7s}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
