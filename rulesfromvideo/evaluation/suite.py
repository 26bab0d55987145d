"""``rulesfromvideo eval suite --suite DIR --pred DIR``: score a whole rendered suite.

For every clip of ``DIR/suite.json`` (``rulesfromvideo synth-suite``; a folder of
``rulesfromvideo synth`` clips without one is read clip by clip, ``suite.manifest_from_clips``) the three
scorers run on the clip's predictions — ``calibration.evaluation`` (rink-space
error, completeness, confidently wrong), ``vision.evaluation`` (puck recall and
precision, blade error, IDF1, team accuracy) and
``rulesfromvideo.evaluation.events`` — and one table is printed: one row per
clip, then pooled rows per camera preset, per rink layout other than the
profile's own (`[nhl rink]`, `[iihf rink]`), for the games in other jerseys than red against
navy (`[drawn kits]`) and over all clips.

Predictions are found where ``rulesfromvideo batch 'SUITE/**/clip.mp4' --out PRED``
writes them (``rulesfromvideo.batch.out_dir_for``: ``PRED/<clip folder>__clip``
since every suite video is called ``clip.mp4``), else ``PRED/<dir>`` or
``PRED/<name>``; a clip whose folder lacks ``events.json``, ``tracks.jsonl`` or
``calibration.jsonl`` (failed or unfinished run) is listed as missing.

Event figures per type (``zone_entry``, ``icing``, ``goal``): a true positive is
a truth event matched (same type, nearest in time, within 0.5 s) by a
prediction **with the same verdict**; F1 = 2·TP / (truth + predicted). An
``inconclusive`` prediction is therefore never a true positive. Wrong decisive
goal calls: matched goal events whose decisive verdict differs from the truth,
plus predicted ``goal`` verdicts that match no truth event (a phantom goal).
Decisive and wrong decisive calls over all four contract types (crease too): a
decisive call is any verdict but ``inconclusive``; it is wrong when its matched
truth event has another verdict, or when it matches none and calls an infraction
(``offside``, ``icing``, ``goal``, ``occupied``) — the calls a judge must never get
wrong, whatever the F1.
The time error (frames) is over the matched events of the three types.
Margin of close zone entries (``ze m|e|``, ``ze bias``, cm): over matched
``zone_entry`` pairs whose truth margin lies within ``CLOSE_ENTRY_M`` of the line and
whose prediction states a margin (also when inconclusive), the median of |predicted −
true margin| and of the signed difference (+: the prediction deeper in the zone, towards
offside). These are the calls that need the footage; their margin error against the
uncertainty the rules state decides how many of them can be decisive.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Any

import numpy as np

EVENT_TYPES = ("zone_entry", "icing", "goal")
DECISIVE_TYPES = ("zone_entry", "icing", "goal", "crease")
INFRACTIONS = ("offside", "icing", "goal", "occupied")  # a phantom of these is a wrong call
# A zone entry whose true margin (903 b1: the deepest attacker's trailing blade at the puck's
# crossing) is within this of the line is a close call, m.
CLOSE_ENTRY_M = 1.0


def pred_dir_for(suite_dir: Path, entry: dict, pred_root: Path, videos: list[Path]) -> Path | None:
    """The folder holding one clip's `analyze` outputs, or None when there is none."""
    from rulesfromvideo.batch import out_dir_for

    video = suite_dir / entry["dir"] / "clip.mp4"
    for cand in (out_dir_for(video, pred_root, videos), pred_root / entry["dir"], pred_root / entry["name"]):
        # events.json is written last (after the frame loop): without it the run is unfinished or failed.
        if all((cand / f).is_file() for f in ("events.json", "tracks.jsonl", "calibration.jsonl")):
            return cand
    return None


def _event_figures(truth: list[dict], pred: list[dict], fps: float) -> dict[str, Any]:
    from rulesfromvideo.evaluation.events import match_events

    out: dict[str, Any] = {}
    dts: list[float] = []
    wrong_goal = 0
    for typ in EVENT_TYPES:
        tr = [e for e in truth if e["type"] == typ]
        pr = [e for e in pred if e["type"] == typ]
        pairs, _, unmatched_pred = match_events(tr, pr)
        if typ == "zone_entry":
            out["_entry_margin_err_cm"] = _close_entry_errors_cm(pairs)
        tp = sum(t["verdict"] == p["verdict"] for t, p in pairs)
        dts += [abs(float(p["t"]) - float(t["t"])) * fps for t, p in pairs]
        out[f"{typ}_truth"], out[f"{typ}_pred"], out[f"{typ}_tp"] = len(tr), len(pr), tp
        out[f"{typ}_matched"] = len(pairs)
        out[f"{typ}_f1"] = 2 * tp / (len(tr) + len(pr)) if (tr or pr) else None
        if typ == "goal":
            wrong_goal = sum(p["verdict"] not in ("inconclusive", t["verdict"]) for t, p in pairs)
            wrong_goal += sum(p["verdict"] == "goal" for p in unmatched_pred)
    out["wrong_goal_calls"] = wrong_goal
    decisive = wrong = 0
    for typ in DECISIVE_TYPES:
        pairs, _, unmatched_pred = match_events([e for e in truth if e["type"] == typ],
                                                [e for e in pred if e["type"] == typ])
        decisive += sum(p["verdict"] != "inconclusive" for p in [p for _, p in pairs] + unmatched_pred)
        wrong += sum(p["verdict"] not in ("inconclusive", t["verdict"]) for t, p in pairs)
        wrong += sum(p["verdict"] in INFRACTIONS for p in unmatched_pred)
    out["decisive_calls"], out["wrong_decisive_calls"] = decisive, wrong
    out["median_dt_frames"] = float(np.median(dts)) if dts else None
    out["_dt_frames"] = dts
    out.update(_margin_figures(out["_entry_margin_err_cm"]))
    return out


def entry_margin_errors_cm(truth: list[dict], pred: list[dict]) -> list[float]:
    """Predicted − true margin (cm) of the matched ``zone_entry`` pairs whose true margin is
    within ``CLOSE_ENTRY_M`` of the line and whose prediction states a finite margin."""
    from rulesfromvideo.evaluation.events import match_events

    pairs, _, _ = match_events([e for e in truth if e["type"] == "zone_entry"],
                               [e for e in pred if e["type"] == "zone_entry"])
    return _close_entry_errors_cm(pairs)


def _close_entry_errors_cm(pairs: list[tuple[dict, dict]]) -> list[float]:
    """``entry_margin_errors_cm`` of already matched (truth, prediction) ``zone_entry`` pairs."""
    out = []
    for t, p in pairs:
        mt, mp = t.get("margin_m"), p.get("margin_m")
        if isinstance(mt, (int, float)) and isinstance(mp, (int, float)) and math.isfinite(mt) \
                and math.isfinite(mp) and abs(mt) <= CLOSE_ENTRY_M:
            out.append(100.0 * (float(mp) - float(mt)))
    return out


def _margin_figures(errs_cm: list[float]) -> dict[str, Any]:
    return {"entry_margin_abs_err_cm": float(np.median(np.abs(errs_cm))) if errs_cm else None,
            "entry_margin_bias_cm": float(np.median(errs_cm)) if errs_cm else None,
            "entry_margin_n": len(errs_cm)}


def _pool_events(rows: list[dict]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for typ in EVENT_TYPES:
        n_t = sum(r[f"{typ}_truth"] for r in rows)
        n_p = sum(r[f"{typ}_pred"] for r in rows)
        tp = sum(r[f"{typ}_tp"] for r in rows)
        out[f"{typ}_truth"], out[f"{typ}_pred"], out[f"{typ}_tp"] = n_t, n_p, tp
        out[f"{typ}_matched"] = sum(r[f"{typ}_matched"] for r in rows)
        out[f"{typ}_f1"] = 2 * tp / (n_t + n_p) if (n_t or n_p) else None
    out["wrong_goal_calls"] = sum(r["wrong_goal_calls"] for r in rows)
    out["decisive_calls"] = sum(r["decisive_calls"] for r in rows)
    out["wrong_decisive_calls"] = sum(r["wrong_decisive_calls"] for r in rows)
    dts = [d for r in rows for d in r["_dt_frames"]]
    out["median_dt_frames"] = float(np.median(dts)) if dts else None
    out.update(_margin_figures([e for r in rows for e in r["_entry_margin_err_cm"]]))
    return out


def evaluate_suite(suite_dir: str | Path, pred_root: str | Path) -> dict[str, Any]:
    """Figures per clip, per camera preset and overall.

    Returns:
        ``{"clips": [row, ...], "pooled": {camera: row, ..., "all": row}, "missing": [name, ...]}``
        where a row holds ``calib_median_cm``, ``calib_p95_cm``, ``completeness``,
        ``confident_wrong``, ``puck_recall``, ``puck_precision``, ``puck_recall_at_lines``
        (measured, over ``puck_at_line_frames``: ``vision.evaluation``), ``blade_median_cm``,
        ``idf1``, ``team_accuracy``, ``<type>_f1`` (and counts), ``wrong_goal_calls``,
        ``decisive_calls``, ``wrong_decisive_calls``, ``median_dt_frames``,
        ``entry_margin_abs_err_cm``, ``entry_margin_bias_cm`` and ``entry_margin_n`` (close zone
        entries, module doc).

    Raises:
        ValueError: no readable manifest.
    """
    from calibration.evaluation import evaluate_clip as calib_clip
    from calibration.evaluation import summarise
    from rulesfromvideo.evaluation.events import load_clip_events
    from rulesfromvideo.suite import load_manifest
    from vision.evaluation import evaluate_clip as tracks_clip
    from vision.evaluation import pool, public

    suite_dir, pred_root = Path(suite_dir), Path(pred_root)
    manifest = load_manifest(suite_dir)
    entries = manifest["clips"]
    videos = [suite_dir / e["dir"] / "clip.mp4" for e in entries]
    rows, raw, missing = [], [], []
    for e in entries:
        tdir = suite_dir / e["dir"]
        pdir = pred_dir_for(suite_dir, e, pred_root, videos)
        if pdir is None:
            missing.append(e["name"])
            continue
        cal = calib_clip(tdir, pdir)
        trk = tracks_clip(tdir, pdir)
        tr, pr, fps = load_clip_events(tdir, pdir)
        ev = _event_figures(tr, pr, fps)
        c = summarise([cal])[cal["camera"]]
        row = {"clip": e["name"], "camera": e["camera"], "scenario": e["scenario"], "look": e.get("look"),
               "layout": e.get("layout"), "kits": e.get("kits", "classic"),
               "pred_dir": str(pdir), **_calib_cols(c), **_track_cols(public(trk)), **ev}
        rows.append(row)
        raw.append((e["camera"], cal, trk, ev, e.get("layout"), e.get("kits", "classic")))
    pooled: dict[str, dict] = {}
    groups: dict[str, list] = {}
    for item in raw:
        groups.setdefault(item[0], []).append(item)
    for item in raw:  # clips on other rinks than the profile's own (NHL, IIHF), pooled apart too
        if item[4]:
            groups.setdefault(f"{item[4]} rink", []).append(item)
    for item in raw:  # games in other jerseys than red against navy, pooled apart too
        if item[5] != "classic":
            groups.setdefault(f"{item[5]} kits", []).append(item)
    if raw:
        groups["all"] = raw
    for cam, items in groups.items():
        c = summarise([dict(i[1], camera="x") for i in items])["x"]
        pooled[cam] = {"clip": f"[{cam}]", "camera": cam, "clips": len(items), **_calib_cols(c),
                       **_track_cols(pool([i[2] for i in items])), **_pool_events([i[3] for i in items])}
    for r in rows:
        r.pop("_dt_frames", None)
        r.pop("_entry_margin_err_cm", None)
    return {"suite": str(suite_dir), "pred": str(pred_root), "width": manifest.get("width"),
            "height": manifest.get("height"), "clips": rows, "pooled": pooled, "missing": missing}


def _calib_cols(s: dict) -> dict:
    return {"calib_median_cm": s["median_cm"], "calib_p95_cm": s["p95_cm"],
            "completeness": s["completeness"], "confident_wrong": s["confident_wrong"]}


def _nan_none(v):
    return None if v is None or (isinstance(v, float) and math.isnan(v)) else v


def _track_cols(m: dict) -> dict:
    return {"puck_recall": _nan_none(m["puck_recall"]), "puck_precision": _nan_none(m["puck_precision"]),
            "puck_recall_at_lines": _nan_none(m.get("puck_recall_at_lines_measured")),
            "puck_at_line_frames": m.get("puck_at_line_frames"),
            "blade_median_cm": _nan_none(m["blade_err_median_cm"]), "idf1": _nan_none(m["idf1"]),
            "team_accuracy": _nan_none(m["team_accuracy"])}


_COLS = (  # (header, key, kind)
    ("cal med", "calib_median_cm", "cm"), ("cal p95", "calib_p95_cm", "cm"), ("compl", "completeness", "pct"),
    ("cwrong", "confident_wrong", "int"), ("puckR", "puck_recall", "pct"), ("puckP", "puck_precision", "pct"),
    ("blade", "blade_median_cm", "cm"), ("IDF1", "idf1", "pct"), ("team", "team_accuracy", "pct"),
    ("F1 ze", "zone_entry_f1", "pct"), ("F1 ice", "icing_f1", "pct"), ("F1 goal", "goal_f1", "pct"),
    ("wrongG", "wrong_goal_calls", "int"), ("dec", "decisive_calls", "int"), ("wrongD", "wrong_decisive_calls", "int"),
    ("dt fr", "median_dt_frames", "fr"), ("ze m|e|", "entry_margin_abs_err_cm", "cm"),
    ("ze bias", "entry_margin_bias_cm", "cm"), ("ev p/t", None, "pt"),
)


def _get(row: dict, key: str | None, kind: str):
    if kind == "pt":  # predicted / truth events of the three scored types
        return (sum(row[f"{t}_pred"] for t in EVENT_TYPES), sum(row[f"{t}_truth"] for t in EVENT_TYPES))
    return row[key]


def _cell(v, kind: str) -> str:
    if kind == "pt":
        return f"{v[0]}/{v[1]}"
    if v is None:
        return "-"
    if kind == "pct":
        return f"{100 * v:.0f}%"
    if kind == "int":
        return str(int(v))
    if kind == "fr":
        return f"{v:.2f}"
    return f"{v:.0f}" if abs(v) >= 100 else f"{v:.1f}"


def format_table(result: dict) -> str:
    """One text table: clip rows, then the pooled rows."""
    width = max([len(r["clip"]) for r in result["clips"]] + [len(f"[{k}]") for k in result["pooled"]] + [4])
    head = f"{'clip':<{width}} {'camera':<9}" + "".join(f"{h:>8}" for h, _, _ in _COLS)
    lines = [head, "-" * len(head)]
    for r in result["clips"]:
        lines.append(f"{r['clip']:<{width}} {r['camera']:<9}" + "".join(f"{_cell(_get(r, k, t), t):>8}" for _, k, t in _COLS))
    lines.append("-" * len(head))
    for cam, r in result["pooled"].items():
        lines.append(f"{r['clip']:<{width}} {str(r['clips']) + ' clips':<9}"
                     + "".join(f"{_cell(_get(r, k, t), t):>8}" for _, k, t in _COLS))
    if result["missing"]:
        lines.append(f"no predictions for {len(result['missing'])} clip(s): {', '.join(result['missing'])}")
    return "\n".join(lines)


def cmd_eval_suite(args: argparse.Namespace) -> int:
    """``eval suite``: 0 when every clip had predictions, 1 when some were missing, 2 on bad input."""
    try:
        result = evaluate_suite(args.suite, args.pred)
    except ValueError as exc:
        print(f"rulesfromvideo eval suite: error: {exc}", file=sys.stderr)
        return 2
    print(format_table(result))
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1))
    return 1 if result["missing"] else 0


def add_eval_suite_parser(eval_subparsers) -> argparse.ArgumentParser:
    """Add ``eval suite``; its ``func`` returns the exit code."""
    p = eval_subparsers.add_parser("suite", help="score a rendered suite (synth-suite) and its batch predictions",
                                   description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--suite", type=Path, required=True,
                   help="folder written by synth-suite (suite.json), or any folder of synth clips (clip.mp4 + truth.json)")
    p.add_argument("--pred", type=Path, required=True, help="folder written by batch 'SUITE/**/clip.mp4' --out PRED")
    p.add_argument("--json", type=Path, help="also write the figures as JSON")
    p.set_defaults(func=cmd_eval_suite)
    return p
