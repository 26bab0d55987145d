"""Calibration speed: frames/s while tracking, cold registration, and decode-only.

Usage:
    .venv/bin/python benchmarks/bench_calibration.py [CLIP.mp4] [--frames N] [--cold N]

Without a clip, a short 720p panning clip is drawn with
``calibration.synthetic`` (hand-made frames; written to a temporary mp4 so
decoding is measured on a real file). A clip is registered against the rink of the
``game.json`` beside it when there is one (``rulesfromvideo synth`` writes it), else
the IPC rink. Prints frames/s for decode only,
decode + tracking (after one cold start), and cold registration (the
temporal state reset before every frame), plus the tracking/decode ratio.
Each figure is given from wall time and from the process CPU time (the
latter is the fairer one on a shared, overloaded machine).
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import numpy as np


def _make_clip(path: Path, n: int, width: int = 1280, height: int = 720) -> None:
    from calibration.rink import RinkModel, RinkSpec
    from calibration.synthetic import draw_frame, look_at_homography, random_look
    from vision.video import VideoWriter

    rink = RinkModel(RinkSpec.for_layout("ipc"))
    look = random_look(np.random.default_rng(1))
    with VideoWriter(path, 30.0, width, height) as vw:
        for i in range(n):
            H = look_at_homography([0.0, -21.0, 9.0], [2.0 + 0.15 * i, 1.0, 0.0], 42.0, width, height)
            vw.write(draw_frame(rink, H, width, height, look=look, seed=i, n_players=6))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("clip", nargs="?", type=Path)
    ap.add_argument("--frames", type=int, default=60, help="frames for decode / tracking")
    ap.add_argument("--cold", type=int, default=5, help="frames for cold registration")
    args = ap.parse_args(argv)

    import os

    from calibration.registration import Calibrator

    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    from calibration.rink import RinkModel, RinkSpec
    from vision.video import iter_frames

    with tempfile.TemporaryDirectory() as tmp:
        clip = args.clip
        if clip is None:
            clip = Path(tmp) / "bench.mp4"
            _make_clip(clip, args.frames)
        # The clip's own rink (its game.json, as ``rulesfromvideo synth`` writes it): an NHL or
        # IIHF clip registered against the IPC model would time failed searches.
        game_json = clip.parent / "game.json"
        if args.clip is not None and game_json.is_file():
            from rulesfromvideo.game import GameDescriptor
            rink = RinkModel(GameDescriptor.from_file(game_json).rink_spec())
        else:
            rink = RinkModel(RinkSpec.for_layout("ipc"))

        t0 = time.perf_counter()
        frames = []
        for i, f in iter_frames(clip):
            if i >= args.frames:
                break
            frames.append(f)
        decode_s = time.perf_counter() - t0
        n = len(frames)
        decode_fps = n / decode_s

        cal = Calibrator(rink)
        t0 = time.perf_counter()
        first = cal.update(frames[0], 0)
        first_s = time.perf_counter() - t0
        methods = []
        t0, c0 = time.perf_counter(), time.process_time()
        for i, f in enumerate(frames[1:], start=1):
            methods.append(cal.update(f, i).method)
        track_s, track_cpu = time.perf_counter() - t0, time.process_time() - c0
        track_fps = (n - 1) / track_s

        cold = Calibrator(rink)
        k = min(args.cold, n)
        t0, c0 = time.perf_counter(), time.process_time()
        ok = 0
        for i in range(k):
            cold.reset()
            ok += cold.update(frames[i], i).rink_from_image is not None
        cold_s, cold_cpu = time.perf_counter() - t0, time.process_time() - c0
        cold_fps = k / cold_s

        h, w = frames[0].shape[:2]
        print(f"clip {clip.name if args.clip else '(synthetic pan)'} {w}x{h}, {n} frames")
        print(f"decode only            {decode_fps:7.1f} frames/s")
        print(f"first frame (cold)     {first_s * 1000:7.0f} ms  ({first.method})")
        print(f"tracking               {track_fps:7.1f} frames/s  (CPU time: {(n - 1) / track_cpu:.1f}/s; "
              f"{sum(m == 'track' for m in methods)}/{len(methods)} tracked)")
        print(f"decode + tracking      {1.0 / (1.0 / decode_fps + 1.0 / track_fps):7.1f} frames/s  "
              f"(tracking / decode = {track_fps / decode_fps:.2f})")
        print(f"cold registration      {cold_fps:7.2f} frames/s  (CPU time: {k / cold_cpu:.2f}/s; "
              f"{ok}/{k} registered)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
