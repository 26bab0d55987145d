"""Wall time of the calibration stages while tracking, ms per frame (frames decoded first).

    .venv/bin/python benchmarks/bench_calibration_stages.py CLIP_DIR [CLIP_DIR ...]

CLIP_DIR holds ``clip.mp4`` and ``game.json`` (what ``rulesfromvideo synth`` writes). The
first frame is registered cold and not counted; the next (up to 119) are tracked with each
stage of ``calibration.registration.Calibrator`` timed (stages nest: ``refine`` and
``score`` are part of ``fine``, ``half_cov`` of ``segment``).
"""

from __future__ import annotations

import argparse
import collections
import functools
import time
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("clips", nargs="+", type=Path)
    args = ap.parse_args(argv)

    import calibration.markings as M
    import calibration.registration as R
    from calibration.rink import RinkModel
    from rulesfromvideo.game import GameDescriptor
    from vision.video import iter_frames

    acc: dict[str, float] = collections.defaultdict(float)

    def timed(name, obj, attr):
        f = getattr(obj, attr)

        @functools.wraps(f)
        def g(*a, **k):
            t0 = time.perf_counter()
            try:
                return f(*a, **k)
            finally:
                acc[name] += time.perf_counter() - t0

        setattr(obj, attr, g)

    for name, obj, attr in (("segment", R, "segment_markings"), ("half_cov", M, "_half_coverage"),
                            ("targets", R._FrameTargets, "__init__"), ("flow", R.Calibrator, "_flow_predict"),
                            ("fine", R.Calibrator, "_fine"), ("refine", R.Calibrator, "_refine"),
                            ("score", R.Calibrator, "_score"), ("result", R.Calibrator, "_result"),
                            ("cold", R.Calibrator, "_cold")):
        timed(name, obj, attr)
    for clip in args.clips:
        rink = RinkModel(GameDescriptor.from_file(clip / "game.json").rink_spec())
        frames = [f for i, f in iter_frames(clip / "clip.mp4") if i < 120]
        cal = R.Calibrator(rink)
        cal.update(frames[0], 0)
        acc.clear()
        t0 = time.perf_counter()
        for i, f in enumerate(frames[1:], start=1):
            cal.update(f, i)
        n, total = len(frames) - 1, time.perf_counter() - t0
        stages = " ".join(f"{k} {1000 * v / n:.1f}" for k, v in sorted(acc.items(), key=lambda kv: -kv[1]))
        print(f"{clip.name}: {1000 * total / n:.1f} ms/frame ({n / total:.1f} frames/s); {stages}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
