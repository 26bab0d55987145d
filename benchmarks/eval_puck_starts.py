"""How each puck track segment started, and how its frames fared, on rendered clips (true camera).

Every clip is tracked with the truth's homographies (the vision stage alone, as
``benchmarks/eval_puck_truth.py``). Each time the puck tracker (re)starts a track the new segment
is recorded with how it started — ``reacquire`` (a chain of strong candidates over two or three
frames), ``takeover`` (a chain of moving candidates taking a held track), ``kick`` (a pass, shot or
rebound outside the gate) — and the kind of candidate it started on: ``carry`` (a spot the carry
model accepted), ``moved`` (seen moving by the motion detector) or ``still``, with its score and
the learned verifier's probability. The segment's frames up to the next start are scored against
the truth: a reported frame is right within 0.5 m of the true puck (``PUCK_MATCH_M``), else wrong
(measured or coasted). Printed: per (how, kind) the segments, right and wrong frames, then the
segments with the most wrong frames.

    .venv/bin/python benchmarks/eval_puck_starts.py CLIP_DIR [CLIP_DIR ...]
    .venv/bin/python benchmarks/eval_puck_starts.py --worst 30 /tmp/tune*/*/

A CLIP_DIR is what ``rulesfromvideo synth`` writes (clip.mp4, game.json, truth.json). Docs:
docs/vision.md (stop 39: a coasting track taken by something moving; stop 40: still starts).
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from calibration.rink import RinkModel
from rulesfromvideo.game import GameDescriptor
from vision.evaluation import PUCK_MATCH_M, load_truth, truth_calibration
from vision.tracking import FrameTracker, PuckTracker
from vision.video import iter_frames


@dataclass
class Segment:
    """One puck track segment: from a start to the next one.

    Attributes:
        frame: the frame it started on.
        how: ``reacquire``, ``takeover`` or ``kick``.
        kind: the starting candidate's kind: ``carry``, ``moved``, ``still`` (``?``: not found).
        score: the starting candidate's score.
        verifier_p: its learned verifier probability (nan: not shown to the verifier).
        seat_m: the starting position's distance to the nearest tracked player's seat, m (inf:
            no player tracked on that frame).
        right, wrong: reported frames within / beyond ``PUCK_MATCH_M`` of the truth (wrong also
            where the truth has no puck).
    """

    frame: int
    how: str
    kind: str
    score: float
    verifier_p: float
    seat_m: float = float("inf")
    right: int = 0
    wrong: int = 0


class StartRecorder:
    """Records the segments of one ``PuckTracker`` (wraps its instance methods; the tracker's
    behaviour is unchanged).

    Args:
        tracker: the puck tracker to watch.
    """

    def __init__(self, tracker: PuckTracker) -> None:
        self.segments: list[Segment] = []
        self._cands = None
        self._seats = np.zeros((0, 2))
        self._how: str | None = None
        update, start, kick, reacquire = tracker._update, tracker._start, tracker._try_kick, tracker._try_reacquire

        def _update(frame_index, cands, meas_sigma_m, players):
            self._cands, self._how = cands, "takeover"  # a start straight from _update is the takeover
            self._seats = np.array([seat for _, _, seat in players], dtype=np.float64).reshape(-1, 2)
            return update(frame_index, cands, meas_sigma_m, players)

        def _try_reacquire(frame_index, xy, score, no_start, no_rest):
            self._how = "reacquire"
            try:
                return reacquire(frame_index, xy, score, no_start, no_rest)
            finally:
                self._how = "takeover"

        def _start(frame_index, xy, v0, earlier=()):
            self._record(frame_index, xy, self._how or "reacquire")
            return start(frame_index, xy, v0, earlier)

        def _try_kick(frame_index, xy, score, oversize, moved=None):
            got = kick(frame_index, xy, score, oversize, moved)
            if got is not None:
                self._record(frame_index, xy[got[0]], "kick")
            return got

        tracker._update, tracker._start, tracker._try_kick, tracker._try_reacquire = \
            _update, _start, _try_kick, _try_reacquire

    def _record(self, frame_index: int, xy: np.ndarray, how: str) -> None:
        c = self._cands
        kind, score, vp = "?", float("nan"), float("nan")
        if c is not None and len(c):
            j = int(np.argmin(np.linalg.norm(np.asarray(c.data["xy_rink_m"]) - np.asarray(xy), axis=1)))

            def col(key: str) -> float:
                v = c.data.get(key)
                return float(np.asarray(v)[j]) if v is not None else float("nan")

            kind = "carry" if col("carry_p") > 0 else "moved" if col("moved") > 0 else "still"
            score, vp = float(c.confidence[j]), col("verifier_p")
        seat_m = float(np.min(np.linalg.norm(self._seats - np.asarray(xy), axis=1))) if len(self._seats) else float("inf")
        self.segments.append(Segment(int(frame_index), how, kind, score, vp, seat_m))


def score_segments(segments: list[Segment], records: list[dict], truth_frames: list[dict]) -> None:
    """Counts each segment's right and wrong reported frames (in place).

    Args:
        segments: the clip's segments, in start order.
        records: ``tracks.jsonl`` records of the clip, one per frame.
        truth_frames: the truth's frames (``puck``: ``{"x", "y"}`` or None).
    """
    starts = [s.frame for s in segments]
    truth = {int(f["frame"]): f.get("puck") for f in truth_frames}
    for rec in records:
        f, p = int(rec["frame"]), rec.get("puck")
        k = int(np.searchsorted(starts, f, side="right")) - 1
        if p is None or k < 0:
            continue
        t = truth.get(f)
        ok = t is not None and float(np.hypot(p["x"] - t["x"], p["y"] - t["y"])) <= PUCK_MATCH_M
        if ok:
            segments[k].right += 1
        else:
            segments[k].wrong += 1


def summarise(per_clip: dict[str, list[Segment]]) -> dict[tuple[str, str], dict[str, int]]:
    """(how, kind) → {"segments", "right", "wrong"} over every clip."""
    out: dict[tuple[str, str], dict[str, int]] = defaultdict(lambda: {"segments": 0, "right": 0, "wrong": 0})
    for segs in per_clip.values():
        for s in segs:
            row = out[(s.how, s.kind)]
            row["segments"] += 1
            row["right"] += s.right
            row["wrong"] += s.wrong
    return dict(out)


def run_clip(clip: Path) -> list[Segment]:
    """Track one clip with its true homography and return its scored segments."""
    truth = load_truth(clip)
    H = truth_calibration(truth)
    game = GameDescriptor.from_file(clip / "game.json")
    tracker = FrameTracker(RinkModel(game.rink_spec()), game, truth["fps"])
    recorder = StartRecorder(tracker.puck)
    records: list[dict[str, Any]] = []  # as the tracker reports them frame by frame (no backfill)
    for i, frame in iter_frames(clip / "clip.mp4"):
        records.append(tracker.update(frame, i, i / truth["fps"], H[i] if i < len(H) else None).to_record())
    score_segments(recorder.segments, records, truth["frames"])
    return recorder.segments


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("clips", nargs="+", type=Path)
    ap.add_argument("--worst", type=int, default=15, help="list this many segments with the most wrong frames")
    ap.add_argument("--json", type=Path, help="write every clip's segments here")
    args = ap.parse_args(argv)
    per_clip = {}
    for clip in args.clips:
        per_clip[clip.name] = run_clip(clip)
        segs = per_clip[clip.name]
        print(f"{clip.name:40s} segments {len(segs):3d}  right {sum(s.right for s in segs):5d}  "
              f"wrong {sum(s.wrong for s in segs):5d}", flush=True)
    print(f"\n{'started by':12s} {'candidate':9s} {'segments':>8s} {'right':>7s} {'wrong':>7s}")
    for (how, kind), row in sorted(summarise(per_clip).items(), key=lambda kv: -kv[1]["wrong"]):
        print(f"{how:12s} {kind:9s} {row['segments']:8d} {row['right']:7d} {row['wrong']:7d}")
    worst = sorted(((s, name) for name, segs in per_clip.items() for s in segs), key=lambda t: -t[0].wrong)
    print("\nsegments with the most wrong frames (clip, frame, how, kind, score, verifier p, seat m, right, wrong):")
    for s, name in worst[: args.worst]:
        if s.wrong:
            print(f"  {name:40s} {s.frame:5d} {s.how:10s} {s.kind:6s} {s.score:5.2f} {s.verifier_p:5.2f} "
                  f"{s.seat_m:6.2f} {s.right:4d} {s.wrong:4d}")
    if args.json:
        args.json.write_text(json.dumps({name: [asdict(s) for s in segs] for name, segs in per_clip.items()}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
