"""Speed of the classical vision stage (``FrameTracker.update``) against decode-only speed.

    .venv/bin/python benchmarks/bench_vision.py [--frames 60] [--width 1280] [--height 720]
    .venv/bin/python benchmarks/bench_vision.py --clip CLIP_DIR   # an existing clip.mp4 + truth.json

Without ``--clip`` a simulated play (``offside_carried``, seed 3, broadcast camera
panning after the play) is rendered and encoded to a temporary H.264 clip first
(not timed). Then the clip is decoded twice: once alone (decode-only frames/s)
and once feeding every frame, with its truth homography as calibration, to a
``FrameTracker`` (vision frames/s = frames / time spent in ``update``). Printed:
both rates, the ratio vision / decode, and decode + vision end to end.
Target from the vision issue: ≥ 30 frames/s for the vision stage at 1280×720.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

import numpy as np

from vision.evaluation import _iter_video, truth_calibration


def render_clip(out_dir: Path, frames: int, width: int, height: int, seed: int = 3,
                scenario: str = "offside_carried") -> Path:
    """Render a simulated clip (clip.mp4 + truth.json + game.json) into ``out_dir``."""
    from calibration.rink import RinkModel
    from rulesfromvideo.game import GameDescriptor
    from vision.sim.camera import make_rig
    from vision.sim.plays import make_play
    from vision.sim.render import Renderer
    from vision.video import VideoWriter

    play = make_play(scenario, seed)
    game = GameDescriptor.from_dict(play.game)
    rink = RinkModel(game.rink_spec())
    rig = make_rig("broadcast", rink, seed, width, height)
    renderer = Renderer(rink, seed)
    out_dir.mkdir(parents=True, exist_ok=True)
    writer = VideoWriter(out_dir / "clip.mp4", play.fps, width, height)
    truth_frames = []
    prev_state = prev_cam = None
    n = min(frames, int(play.duration_s * play.fps))
    for f in range(n):
        t = f / play.fps
        state = play.state_at(t)
        cam = rig.camera_at(t, play.focus_at(t))
        frame, _ = renderer.render(state, cam, prev_state=prev_state, prev_cam=prev_cam)
        writer.write(frame)
        prev_state, prev_cam = state, cam
        truth_frames.append({"frame": f, "t": t, "H_image_from_rink": cam.H_image_from_rink().tolist()})
    writer.close()
    (out_dir / "truth.json").write_text(json.dumps({"fps": play.fps, "width": width, "height": height,
                                                   "frames": truth_frames}))
    (out_dir / "game.json").write_text(json.dumps(play.game))
    return out_dir


def bench(clip: Path, max_frames: int) -> dict:
    from calibration.rink import RinkModel
    from rulesfromvideo.game import GameDescriptor
    from vision.tracking import FrameTracker

    truth = json.loads((clip / "truth.json").read_text())
    game = GameDescriptor.from_file(clip / "game.json")
    rink = RinkModel(game.rink_spec())
    calib = truth_calibration(truth)
    video = clip / "clip.mp4"

    t0 = time.perf_counter()
    n_dec = 0
    for index, _frame in _iter_video(video):
        if index >= max_frames:
            break
        n_dec += 1
    decode_s = time.perf_counter() - t0

    tracker = FrameTracker(rink, game, float(truth.get("fps", 30.0)))
    vision_s = 0.0
    n = 0
    t_all = time.perf_counter()
    shape = None
    for index, frame in _iter_video(video):
        if index >= max_frames:
            break
        shape = frame.shape
        c = calib[index] if index < len(calib) else None
        t1 = time.perf_counter()
        tracker.update(frame, index, index / 30.0, c)
        vision_s += time.perf_counter() - t1
        n += 1
    total_s = time.perf_counter() - t_all
    return {
        "frames": n,
        "size": f"{shape[1]}x{shape[0]}" if shape else "?",
        "decode_fps": n_dec / decode_s,
        "vision_fps": n / vision_s,
        "ratio_vision_to_decode": (n / vision_s) / (n_dec / decode_s),
        "decode_plus_vision_fps": n / total_s,
        "vision_ms_per_frame": 1000.0 * vision_s / max(1, n),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--frames", type=int, default=60)
    ap.add_argument("--width", type=int, default=1280)
    ap.add_argument("--height", type=int, default=720)
    ap.add_argument("--clip", type=Path, help="clip folder (clip.mp4, truth.json, game.json); default: render one")
    args = ap.parse_args()
    if args.clip is not None:
        r = bench(args.clip, args.frames)
    else:
        with tempfile.TemporaryDirectory() as tmp:
            clip = render_clip(Path(tmp) / "clip", args.frames, args.width, args.height)
            r = bench(clip, args.frames)
    print(
        f"vision stage at {r['size']}: {r['vision_fps']:.1f} frames/s ({r['vision_ms_per_frame']:.1f} ms/frame); "
        f"decode only {r['decode_fps']:.1f} frames/s; ratio vision/decode {r['ratio_vision_to_decode']:.2f}; "
        f"decode + vision {r['decode_plus_vision_fps']:.1f} frames/s over {r['frames']} frames"
    )


if __name__ == "__main__":
    np.seterr(all="ignore")
    main()
