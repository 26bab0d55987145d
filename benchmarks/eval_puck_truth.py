"""Puck figures of the vision stage alone: each clip tracked with its true homography.

Separates the vision stage from calibration: every frame gets the simulator's exact
``rink_from_image``, so the printed puck recall, precision and error are the
detectors' and trackers' own. One row per clip, then the pooled row (counts summed).

    .venv/bin/python benchmarks/eval_puck_truth.py CLIP_DIR [CLIP_DIR ...]

A CLIP_DIR is what ``rulesfromvideo synth`` writes (clip.mp4, game.json, truth.json).
CPU ms/frame is the process CPU time of the vision stage (decode excluded).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from calibration.rink import RinkModel
from rulesfromvideo.game import GameDescriptor
from vision.evaluation import evaluate_tracks, load_truth, truth_calibration
from vision.tracking import FrameTracker
from vision.video import iter_frames


def run_clip(clip: Path) -> tuple[dict, float]:
    """Track one clip with its true homography → (metrics of ``evaluate_tracks``, CPU s per frame)."""
    truth = load_truth(clip)
    H = truth_calibration(truth)
    game = GameDescriptor.from_file(clip / "game.json")
    tracker = FrameTracker(RinkModel(game.rink_spec()), game, truth["fps"])
    recs, cpu = [], 0.0
    for i, frame in iter_frames(clip / "clip.mp4"):
        t0 = time.process_time()
        recs.append(tracker.update(frame, i, i / truth["fps"], H[i] if i < len(H) else None).to_record())
        cpu += time.process_time() - t0
    return evaluate_tracks(truth, recs), cpu / max(len(recs), 1)


def _pct(x) -> str:
    return "    -" if x is None or not np.isfinite(x) else f"{100 * x:5.1f}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("clips", nargs="+", type=Path)
    args = ap.parse_args(argv)
    print(f"{'clip':36s} {'visible':>7s} {'recall%':>7s} {'(meas)':>6s} {'prec%':>6s} {'(meas)':>6s} "
          f"{'med cm':>6s} {'p95 cm':>6s} {'CPU ms/f':>8s}")
    tot = {"vis": 0, "hit": 0.0, "hit_m": 0.0, "errs": [], "cpu": []}
    for clip in args.clips:
        m, cpu = run_clip(clip)
        vis = int(m["puck_visible_frames"])
        tot["vis"] += vis
        tot["hit"] += (m["puck_recall"] or 0.0) * vis
        tot["hit_m"] += (m["puck_recall_measured"] or 0.0) * vis
        tot["errs"] += list(m.get("_puck_err_m", []))
        tot["cpu"].append(cpu)
        print(f"{clip.name:36s} {vis:7d} {_pct(m['puck_recall']):>7s} {_pct(m['puck_recall_measured']):>6s} "
              f"{_pct(m['puck_precision']):>6s} {_pct(m['puck_precision_measured']):>6s} "
              f"{m['puck_err_median_cm'] or float('nan'):6.1f} {m['puck_err_p95_cm'] or float('nan'):6.1f} "
              f"{1000 * cpu:8.0f}", flush=True)
    e = np.asarray(tot["errs"]) * 100.0
    print(f"{'pooled':36s} {tot['vis']:7d} {_pct(tot['hit'] / max(tot['vis'], 1)):>7s} "
          f"{_pct(tot['hit_m'] / max(tot['vis'], 1)):>6s} {'':>6s} {'':>6s} "
          f"{np.median(e) if len(e) else float('nan'):6.1f} {np.percentile(e, 95) if len(e) else float('nan'):6.1f} "
          f"{1000 * float(np.mean(tot['cpu'])):8.0f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
