"""Puck figures of the vision stage alone: each clip tracked with its true homography.

Separates the vision stage from calibration: every frame gets the simulator's exact
``rink_from_image``, so the printed puck recall, precision and error are the
detectors' and trackers' own. One row per clip, then the pooled row (counts summed).

    .venv/bin/python benchmarks/eval_puck_truth.py CLIP_DIR [CLIP_DIR ...]
    .venv/bin/python benchmarks/eval_puck_truth.py --no-verifier CLIP_DIR ...   # classical scores only
    .venv/bin/python benchmarks/eval_puck_truth.py --verifier OTHER.onnx CLIP_DIR ...   # a candidate model

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
from vision.evaluation import evaluate_tracks, load_truth, pool, truth_calibration
from vision.puck_verifier import PuckVerifier
from vision.tracking import FrameTracker
from vision.video import iter_frames


def run_clip(clip: Path, verifier="default") -> tuple[dict, float]:
    """Track one clip with its true homography → (metrics of ``evaluate_tracks``, CPU s per frame).

    ``verifier`` is ``FrameTracker``'s ``puck_verifier``: "default", None or a ``PuckVerifier``.
    """
    truth = load_truth(clip)
    H = truth_calibration(truth)
    game = GameDescriptor.from_file(clip / "game.json")
    tracker = FrameTracker(RinkModel(game.rink_spec()), game, truth["fps"],
                           puck_verifier=verifier)
    recs, cpu = [], 0.0
    for i, frame in iter_frames(clip / "clip.mp4"):
        t0 = time.process_time()
        recs.append(tracker.update(frame, i, i / truth["fps"], H[i] if i < len(H) else None).to_record())
        cpu += time.process_time() - t0
    return evaluate_tracks(truth, recs), cpu / max(len(recs), 1)


def _pct(x) -> str:
    return "    -" if x is None or not np.isfinite(x) else f"{100 * x:5.1f}"


def _row(name: str, m: dict, cpu: float) -> None:
    print(f"{name:36s} {int(m['puck_visible_frames']):7d} {_pct(m['puck_recall']):>7s} "
          f"{_pct(m['puck_recall_measured']):>6s} {_pct(m['puck_precision']):>6s} "
          f"{_pct(m['puck_precision_measured']):>6s} {m['puck_err_median_cm']:6.1f} {m['puck_err_p95_cm']:6.1f} "
          f"{1000 * cpu:8.0f}", flush=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("clips", nargs="+", type=Path)
    ap.add_argument("--no-verifier", action="store_true",
                    help="without the learned puck verifier (models/puck_verifier.onnx): classical scores only")
    ap.add_argument("--verifier", type=Path, metavar="ONNX",
                    help="this puck verifier model instead of models/puck_verifier.onnx (to compare a retrain)")
    args = ap.parse_args(argv)
    if args.no_verifier and args.verifier:
        ap.error("--no-verifier and --verifier exclude each other")
    if args.verifier and not args.verifier.is_file():
        ap.error(f"--verifier: no such model file: {args.verifier}")
    verifier = None if args.no_verifier else PuckVerifier(args.verifier) if args.verifier else "default"
    print(f"{'clip':36s} {'visible':>7s} {'recall%':>7s} {'(meas)':>6s} {'prec%':>6s} {'(meas)':>6s} "
          f"{'med cm':>6s} {'p95 cm':>6s} {'CPU ms/f':>8s}")
    results, cpus = [], []
    for clip in args.clips:
        m, cpu = run_clip(clip, verifier=verifier)
        results.append(m)
        cpus.append(cpu)
        _row(clip.name, m, cpu)
    _row("pooled", pool(results), float(np.mean(cpus)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
