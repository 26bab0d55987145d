"""Render simulator clips per camera preset, calibrate them, score against truth.

Usage:
    .venv/bin/python benchmarks/eval_calibration_sim.py OUT_DIR [--frames 30] [--size 1280x720]
        [--clip broadcast:1:offside_carried ...]

Each ``--clip PRESET:SEED[:SCENARIO]`` is rendered into ``OUT_DIR/clips/NAME``
(``clip.mp4`` + ``truth.json``; through ``vision.sim.synth.synth_clip`` when it
exists, else directly with the renderer, rig and play), calibrated into
``OUT_DIR/pred/NAME/calibration.jsonl``, and the per-preset table of
``eval calibration`` is printed (with the lens model, then the 3×3 only).

Goal cameras get a camera profile as an operator would click it
(``vision.sim.profiles.clicked_camera_profile``: 8 ice landmarks of frame 0 spread
over the view, each clicked on the whole pixel under it; until 2026-12-03 every
visible landmark with 1 px Gaussian click noise).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path


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
    from vision.sim.profiles import PROFILE_NAME, clicked_camera_profile

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
            profile = clicked_camera_profile(json.loads((clip / "truth.json").read_text()), rink)
            profile.save(clip / PROFILE_NAME)
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
