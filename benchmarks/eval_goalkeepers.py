"""Goalkeeper class of the learned pose model on rendered clips, against simulator truth.

Every 10th frame of each clip: the model (``vision.learned.OnnxPoseDetector``, conf 0.4, as
``vision.tracking`` uses it) is run on the whole frame; a visible true goalkeeper counts as
found when his seat (blade midpoint, projected with the true homography) lies in a goalkeeper
box (8 px aside, 12 px below: the tracker's matching rule); a box with no true goalkeeper in it
is a false box. Prints per clip the counts and the median inference time (wall ms).

    .venv/bin/python benchmarks/eval_goalkeepers.py CLIP_DIR [CLIP_DIR ...]

A CLIP_DIR is what ``rulesfromvideo synth`` writes (clip.mp4, truth.json).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from vision.learned import OnnxPoseDetector
from vision.video import iter_frames


def _inside(box: np.ndarray, uv: np.ndarray) -> bool:
    return bool(box[0] - 8 <= uv[0] <= box[2] + 8 and box[1] <= uv[1] <= box[3] + 12)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("clips", nargs="+", type=Path)
    ap.add_argument("--every", type=int, default=10, help="check every N-th frame")
    args = ap.parse_args(argv)
    det = OnnxPoseDetector(conf=0.4)
    gk_id = det.class_names.index("goalkeeper")
    print(f"{'clip':36s} {'visible gk':>10s} {'found':>6s} {'false boxes':>11s} {'ms median':>9s}")
    for clip in args.clips:
        truth = json.loads((clip / "truth.json").read_text())
        visible = found = false = 0
        ms = []
        for i, frame in iter_frames(clip / "clip.mp4"):
            if i % args.every:
                continue
            fr = truth["frames"][i]
            H = np.asarray(fr["H_image_from_rink"], float)
            seats = []
            for p in fr["players"]:
                if p["role"] == "goalkeeper" and p["visible"]:
                    q = H @ np.r_[np.mean(p["blades"], axis=0), 1.0]
                    seats.append(q[:2] / q[2])
            t0 = time.perf_counter()
            d = det(frame)
            ms.append(1000.0 * (time.perf_counter() - t0))
            boxes = d.xyxy[d.class_id == gk_id]
            visible += len(seats)
            found += sum(any(_inside(b, s) for b in boxes) for s in seats)
            false += sum(not any(_inside(b, s) for s in seats) for b in boxes)
        print(f"{clip.name:36s} {visible:10d} {found:6d} {false:11d} {np.median(ms) if ms else float('nan'):9.0f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
