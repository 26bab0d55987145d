"""Render speed of the scene simulator: frames/s for render alone and render + H.264 encode.

    .venv/bin/python benchmarks/bench_render.py [--frames 90] [--width 1280] [--height 720]

A synthetic play (11 players moving, puck moving, broadcast camera panning after
the puck) is rendered at 30 fps; the second pass also pipes every frame into
``VideoWriter`` (libx264 veryfast, crf 23). Target: ≥ 5 frames/s render + encode
at 1280×720 (a 10 s clip in ≤ 60 s).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from sample_frames import demo_state  # noqa: E402

from calibration.rink import RinkModel, RinkSpec  # noqa: E402
from vision.sim.camera import make_rig  # noqa: E402
from vision.sim.render import Renderer  # noqa: E402
from vision.video import VideoWriter  # noqa: E402


def run(frames: int, width: int, height: int, seed: int, encode: bool, out: Path | None) -> float:
    rink = RinkModel(RinkSpec.for_layout("ipc"))
    renderer = Renderer(rink, seed=seed)
    rig = make_rig("broadcast", rink, seed=seed, width=width, height=height)
    fps = 30.0
    writer = VideoWriter(out, fps, width, height) if encode else None
    prev_state = prev_cam = None
    t0 = time.perf_counter()
    for i in range(frames):
        t = i / fps
        st = demo_state(t, rink)
        cam = rig.camera_at(t, st.puck.xyz_rink_m[:2])
        frame, _ = renderer.render(st, cam, prev_state=prev_state, prev_cam=prev_cam)
        if writer is not None:
            writer.write(frame)
        prev_state, prev_cam = st, cam
    if writer is not None:
        writer.close()
    return frames / (time.perf_counter() - t0)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--frames", type=int, default=90)
    ap.add_argument("--width", type=int, default=1280)
    ap.add_argument("--height", type=int, default=720)
    ap.add_argument("--seed", type=int, default=3)
    a = ap.parse_args()
    fps_render = run(a.frames, a.width, a.height, a.seed, False, None)
    print(f"render:          {fps_render:6.2f} frames/s  ({a.frames} frames {a.width}x{a.height})")
    with tempfile.TemporaryDirectory() as d:
        fps_both = run(a.frames, a.width, a.height, a.seed, True, Path(d) / "bench.mp4")
    print(f"render + encode: {fps_both:6.2f} frames/s  (10 s clip at 30 fps: {300 / fps_both:5.1f} s)")


if __name__ == "__main__":
    main()
