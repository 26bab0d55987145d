"""``rulesfromvideo eval events --truth CLIP_DIR --pred OUT_DIR``: score rule calls.

Truth: ``CLIP_DIR/truth.json`` (simulator; its ``events`` and ``fps``) or
``CLIP_DIR/events.json``. Prediction: ``OUT_DIR/events.json`` plus
``OUT_DIR/extra_events.json`` when present. Either may be a
folder of clip folders; clips are paired by folder name.

Events are matched one-to-one per type, nearest in time first, within 0.5 s.
Per type: precision, recall, verdict accuracy (matched pairs whose verdicts are
equal; an ``inconclusive`` prediction counts as not accurate), wrong decisive
verdicts (a decisive prediction different from the truth), inconclusive rate
(of matched predictions) and the median time error in frames.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

MATCH_WINDOW_S = 0.5


def match_events(truth: list[dict], pred: list[dict], window_s: float = MATCH_WINDOW_S
                 ) -> tuple[list[tuple[dict, dict]], list[dict], list[dict]]:
    """(matched pairs, unmatched truth, unmatched predictions); same type, |dt| <= window."""
    pairs = []
    cands = []
    for i, t in enumerate(truth):
        for j, p in enumerate(pred):
            if p["type"] == t["type"] and abs(p["t"] - t["t"]) <= window_s:
                cands.append((abs(p["t"] - t["t"]), i, j))
    cands.sort()
    ti, pj = set(), set()
    for _, i, j in cands:
        if i in ti or j in pj:
            continue
        ti.add(i)
        pj.add(j)
        pairs.append((truth[i], pred[j]))
    return (pairs, [t for i, t in enumerate(truth) if i not in ti],
            [p for j, p in enumerate(pred) if j not in pj])


def score_events(truth: list[dict], pred: list[dict], fps: float,
                 window_s: float = MATCH_WINDOW_S) -> dict[str, dict[str, Any]]:
    """Per-type figures (see module doc), plus ``"all"``."""
    types = sorted({e["type"] for e in truth} | {e["type"] for e in pred})
    out: dict[str, dict[str, Any]] = {}
    totals = {"truth": 0, "pred": 0, "matched": 0, "correct": 0, "wrong_decisive": 0,
              "inconclusive": 0, "dt": []}
    for typ in types + ["all"]:
        if typ == "all":
            agg = totals
        else:
            tr = [e for e in truth if e["type"] == typ]
            pr = [e for e in pred if e["type"] == typ]
            pairs, _, _ = match_events(tr, pr, window_s)
            agg = {"truth": len(tr), "pred": len(pr), "matched": len(pairs),
                   "correct": sum(t["verdict"] == p["verdict"] for t, p in pairs),
                   "wrong_decisive": sum(p["verdict"] != "inconclusive" and p["verdict"] != t["verdict"]
                                         for t, p in pairs),
                   "inconclusive": sum(p["verdict"] == "inconclusive" for t, p in pairs),
                   "dt": [abs(p["t"] - t["t"]) * fps for t, p in pairs]}
            for k in totals:
                totals[k] = totals[k] + agg[k]
        m = agg["matched"]
        out[typ] = {
            "truth": agg["truth"], "pred": agg["pred"], "matched": m,
            "precision": m / agg["pred"] if agg["pred"] else None,
            "recall": m / agg["truth"] if agg["truth"] else None,
            "verdict_accuracy": agg["correct"] / m if m else None,
            "wrong_decisive": agg["wrong_decisive"],
            "inconclusive_rate": agg["inconclusive"] / m if m else None,
            "median_time_error_frames": float(np.median(agg["dt"])) if agg["dt"] else None,
            "max_time_error_frames": float(np.max(agg["dt"])) if agg["dt"] else None,
        }
    return out


def _read_events(path: Path) -> list[dict]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ValueError(f"cannot read {path}: {exc.strerror or exc}") from None
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}: not valid JSON: {exc.msg} (line {exc.lineno})") from None
    ev = data.get("events") if isinstance(data, dict) else None
    if not isinstance(ev, list):
        raise ValueError(f"{path}: no 'events' list")
    for n, e in enumerate(ev):
        for key in ("type", "t", "verdict"):
            if not isinstance(e, dict) or key not in e:
                raise ValueError(f"{path}: events[{n}]: {key}: missing")
    return ev


def load_truth(clip_dir: Path) -> tuple[list[dict], float]:
    """(truth events, fps) of one clip folder."""
    tj = clip_dir / "truth.json"
    if tj.is_file():
        try:
            data = json.loads(tj.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise ValueError(f"{tj}: {exc}") from None
        if "events" not in data:
            raise ValueError(f"{tj}: no 'events'")
        return list(data["events"]), float(data.get("fps", 30.0))
    ej = clip_dir / "events.json"
    if ej.is_file():
        return _read_events(ej), 30.0
    raise ValueError(f"{clip_dir}: neither truth.json nor events.json")


def _is_clip(d: Path) -> bool:
    return (d / "truth.json").is_file() or (d / "events.json").is_file()


def clip_pairs(truth_dir: Path, pred_dir: Path) -> list[tuple[str, Path, Path]]:
    """(name, truth clip dir, prediction dir) for one clip or a folder of clips."""
    if not truth_dir.is_dir():
        raise ValueError(f"{truth_dir}: no such folder")
    if _is_clip(truth_dir):
        return [(truth_dir.name, truth_dir, pred_dir)]
    out = []
    for d in sorted(p for p in truth_dir.iterdir() if p.is_dir() and _is_clip(p)):
        out.append((d.name, d, pred_dir / d.name))
    if not out:
        raise ValueError(f"{truth_dir}: no clip folders (truth.json) found")
    return out


def format_table(scores: dict[str, dict[str, Any]]) -> str:
    def f(v, pct=False):
        if v is None:
            return "-"
        return f"{100 * v:.1f}%" if pct else (f"{v:.2f}" if isinstance(v, float) else str(v))
    head = f"{'type':<26}{'truth':>6}{'pred':>6}{'prec':>8}{'recall':>8}{'verdict':>9}{'wrong':>6}{'inconc':>8}{'dt_med':>8}"
    lines = [head]
    for typ, s in scores.items():
        lines.append(f"{typ:<26}{s['truth']:>6}{s['pred']:>6}{f(s['precision'], 1):>8}{f(s['recall'], 1):>8}"
                     f"{f(s['verdict_accuracy'], 1):>9}{s['wrong_decisive']:>6}{f(s['inconclusive_rate'], 1):>8}"
                     f"{f(s['median_time_error_frames']):>8}")
    return "\n".join(lines)


def add_eval_events_parser(eval_subparsers) -> argparse.ArgumentParser:
    """Add ``eval events``; its ``func`` returns the exit code."""
    p = eval_subparsers.add_parser("events", help="score events.json against simulator truth",
                                   description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--truth", type=Path, required=True, help="clip folder (truth.json) or a folder of them")
    p.add_argument("--pred", type=Path, required=True, help="output folder (events.json) or a folder of them")
    p.add_argument("--window-s", type=float, default=MATCH_WINDOW_S, help="match window, s (default 0.5)")
    p.add_argument("--json", action="store_true", help="print the figures as JSON")
    p.set_defaults(func=cmd_eval_events)
    return p


def load_clip_events(truth_dir: Path, pred_dir: Path) -> tuple[list[dict], list[dict], float]:
    """(truth events, predicted events incl. extra_events.json, fps) of one clip.

    Raises:
        ValueError: a missing or malformed file (the message names it).
    """
    tr, fps = load_truth(Path(truth_dir))
    pdir = Path(pred_dir)
    pr = _read_events(pdir / "events.json")
    if (pdir / "extra_events.json").is_file():  # key_3s and the other extra types
        pr += _read_events(pdir / "extra_events.json")
    return tr, pr, fps


def evaluate_clip(truth_dir: Path, pred_dir: Path, window_s: float = MATCH_WINDOW_S) -> dict[str, dict[str, Any]]:
    """Per-type figures of `score_events` for one clip folder and its prediction folder."""
    tr, pr, fps = load_clip_events(truth_dir, pred_dir)
    return score_events(tr, pr, fps, window_s)


def cmd_eval_events(args: argparse.Namespace) -> int:
    try:
        pairs = clip_pairs(args.truth, args.pred)
        truth_all, pred_all, fps = [], [], 30.0
        for k, (name, tdir, pdir) in enumerate(pairs):
            tr, pr, fps = load_clip_events(tdir, pdir)
            # Events of different clips must never match each other: offset each clip.
            off = 1e5 * k
            truth_all += [{**e, "t": float(e["t"]) + off} for e in tr]
            pred_all += [{**e, "t": float(e["t"]) + off} for e in pr]
    except ValueError as exc:
        print(f"rulesfromvideo eval events: error: {exc}", file=sys.stderr)
        return 2
    scores = score_events(truth_all, pred_all, fps, args.window_s)
    if args.json:
        print(json.dumps({"clips": len(pairs), "scores": scores}, indent=1))
    else:
        print(f"{len(pairs)} clip(s)")
        print(format_table(scores))
    return 0
