"""Render speed of the scene simulator: frames/s for render alone and render + H.264 encode.

    .venv/bin/python benchmarks/bench_render.py [--frames 90] [--width 1280] [--height 720]

A synthetic play (11 players moving, puck moving, broadcast camera panning after
the puck) is rendered at 30 fps; the second pass also pipes every frame into
``VideoWriter`` (libx264 veryfast, crf 23). Target: ≥ 5 frames/s render + encode
at 1280×720 (a 10 s clip in ≤ 60 s).
"""

from __future__ import annotations

import argparse
import os
import resource
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


def run(frames: int, width: int, height: int, seed: int, encode: bool, out: Path | None) -> tuple[float, float, float]:
    """(frames/s wall, renderer CPU ms/frame, ffmpeg CPU ms/frame)."""
    rink = RinkModel(RinkSpec.for_layout("ipc"))
    renderer = Renderer(rink, seed=seed)
    rig = make_rig("broadcast", rink, seed=seed, width=width, height=height)
    fps = 30.0
    writer = VideoWriter(out, fps, width, height) if encode else None
    prev_state = prev_cam = None
    c0 = time.process_time()
    k0 = resource.getrusage(resource.RUSAGE_CHILDREN)
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
    wall = time.perf_counter() - t0
    k1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    child = (k1.ru_utime + k1.ru_stime) - (k0.ru_utime + k0.ru_stime)
    return frames / wall, 1000 * (time.process_time() - c0) / frames, 1000 * child / frames


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--frames", type=int, default=90)
    ap.add_argument("--width", type=int, default=1280)
    ap.add_argument("--height", type=int, default=720)
    ap.add_argument("--seed", type=int, default=3)
    a = ap.parse_args()
    print(f"{a.frames} frames {a.width}x{a.height}, {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}")
    fps_render, cpu_r, _ = run(a.frames, a.width, a.height, a.seed, False, None)
    print(f"render:          {fps_render:6.2f} frames/s wall  (renderer CPU {cpu_r:5.1f} ms/frame)")
    with tempfile.TemporaryDirectory() as d:
        fps_both, cpu_b, cpu_enc = run(a.frames, a.width, a.height, a.seed, True, Path(d) / "bench.mp4")
    print(f"render + encode: {fps_both:6.2f} frames/s wall  (renderer CPU {cpu_b:5.1f} ms/frame, "
          f"ffmpeg CPU {cpu_enc:5.1f} ms/frame; 10 s clip at 30 fps: {300 / fps_both:5.1f} s)")


if __name__ == "__main__":
    main()
