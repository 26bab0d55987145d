"""Where our puck track is right and wrong, against simulator truth.

    .venv/bin/python benchmarks/eval_puck_coasts.py --pred PRED_ROOT CLIP_DIR [CLIP_DIR ...]

PRED_ROOT holds one ``<clip folder>__clip`` per clip (what ``rulesfromvideo batch`` writes for
``CLIP_DIR/clip.mp4``). Two tables:

* **coasts**: coasted records (``measured: false``, no flight height) within 0.5 m of the
  truth puck, by frames since the last measurement and by whether a tracked seat was within
  ``--reach`` m of the puck at that measurement (free ice or next to a player);
* **visible frames**: recall (a predicted puck within 0.5 m) of the frames where the truth
  puck is visible, by its distance to the nearest truth sledge and by its speed.
"""

from __future__ import annotations

import argparse
import collections
import json
from pathlib import Path

import numpy as np

MATCH_M = 0.5


def _rows(pred_root: Path, clip: Path):
    pd = pred_root / (clip.name + "__clip")
    truth = json.loads((clip / "truth.json").read_text())
    tf = {f["frame"]: f for f in truth["frames"]}
    recs = [json.loads(line) for line in (pd / "tracks.jsonl").read_text().splitlines() if line.strip()]
    return truth, tf, recs


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pred", type=Path, required=True)
    ap.add_argument("--reach", type=float, default=1.8, help="seat-to-puck distance counted as 'next to a player', m")
    ap.add_argument("clips", nargs="+", type=Path)
    args = ap.parse_args(argv)
    coasts = collections.defaultdict(lambda: [0, 0])
    vis = []  # (distance to nearest sledge m, speed m/s, hit)
    for clip in args.clips:
        if not (args.pred / (clip.name + "__clip") / "tracks.jsonl").is_file():
            print(f"skipped {clip.name}: no prediction")
            continue
        truth, tf, recs = _rows(args.pred, clip)
        near, k = False, 0
        for r in recs:
            p, tp = r["puck"], tf[r["frame"]]["puck"]
            ok = p is not None and np.hypot(p["x"] - tp["x"], p["y"] - tp["y"]) <= MATCH_M
            if p is not None and p["measured"]:
                coasts["measured"][0] += ok
                coasts["measured"][1] += 1
                seats = [np.mean(np.asarray(q["blades"]), 0) for q in r["players"] if q.get("blades")]
                near, k = any(np.hypot(s[0] - p["x"], s[1] - p["y"]) <= args.reach for s in seats), 0
            elif p is not None and p.get("z") is None:
                k += 1
                key = f"coast {'next to a player' if near else 'free ice'} {'1-3' if k <= 3 else '4-6' if k <= 6 else '7+'} frames"
                coasts[key][0] += ok
                coasts[key][1] += 1
        frames = truth["frames"]
        for i, f in enumerate(frames):
            tp = f["puck"]
            if not tp.get("visible"):
                continue
            seats = [np.mean(np.asarray(q["blades"]), 0) for q in f.get("players", []) if q.get("blades")]
            d = min([float(np.hypot(s[0] - tp["x"], s[1] - tp["y"])) for s in seats] or [99.0])
            j, h = min(i + 1, len(frames) - 1), max(i - 1, 0)
            sp = np.hypot(frames[j]["puck"]["x"] - frames[h]["puck"]["x"],
                          frames[j]["puck"]["y"] - frames[h]["puck"]["y"]) * truth["fps"] / max(j - h, 1)
            rec = next((r for r in recs if r["frame"] == f["frame"]), None)
            p = rec and rec["puck"]
            vis.append((d, sp, bool(p and np.hypot(p["x"] - tp["x"], p["y"] - tp["y"]) <= MATCH_M)))
    print("coasts (within 0.5 m of the truth)")
    for key, (a, b) in sorted(coasts.items()):
        print(f"  {key:36s} {a:5d} / {b:5d} = {100 * a / max(b, 1):5.1f} %")
    print("visible-puck frames: recall")
    for label, col, bins in (("nearest sledge", 0, ((0, 0.8), (0.8, 1.5), (1.5, 3), (3, 99))),
                             ("speed", 1, ((0, 1), (1, 5), (5, 15), (15, 99)))):
        for lo, hi in bins:
            s = [v for v in vis if lo <= v[col] < hi]
            if s:
                print(f"  {label} {lo}-{hi}: {len(s):5d} frames ({100 * len(s) / len(vis):4.1f} %), "
                      f"recall {100 * np.mean([v[2] for v in s]):5.1f} %")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
