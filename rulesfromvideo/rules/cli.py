"""``rulesfromvideo rules TRACKS.jsonl --game GAME.json --out DIR``: rule calls from tracks.

Tracks from any system (design's ``tracks.jsonl``) in, ``DIR/events.json`` out
(written atomically, exactly the four contract types, validated against
:mod:`rulesfromvideo.schema`); the extra rule outputs (``delayed_offside``,
``goalkeeper_beyond_centre``, ``key_3s``, ``mercy``; docs/rules.md) go to
``DIR/extra_events.json`` in the same format (docs/interfaces.md). Bad input
exits with code 2 and one clear line.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

EXIT_BAD_INPUT = 2


def add_rules_parser(subparsers) -> argparse.ArgumentParser:
    """Add the ``rules`` subcommand; its ``func`` returns the exit code."""
    p = subparsers.add_parser("rules", help="rule calls (events.json) from tracks.jsonl",
                              description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("tracks", type=Path, help="tracks.jsonl (rink metres)")
    p.add_argument("--game", type=Path, required=True, help="GAME.json")
    p.add_argument("--out", type=Path, required=True, help="output folder (events.json)")
    p.add_argument("--calibration", type=Path, default=None,
                   help="calibration.jsonl whose per-frame quality enters the position sigma")
    p.add_argument("--detection-sigma-m", type=float, default=None,
                   help="detector's 1-sigma position error, m (default 0.01)")
    p.add_argument("--calibration-sigma-m", type=float, default=None,
                   help="calibration error at quality 1, m (default 0.01; 0 for exact rink coordinates)")
    p.add_argument("--blade-sigma-m", type=float, default=None,
                   help="the tracker's blade model error, m (default 0; our vision's tracks: "
                        "vision.tracking.BLADE_SIGMA_M = 0.25)")
    p.add_argument("--image-size", default=None, metavar="WxH",
                   help="with --calibration: the tracks are this project's vision's (as analyze writes "
                        "them); blade errors per view and the puck's camera pixel from each frame's camera, image "
                        "W×H px, as analyze does")
    p.set_defaults(func=cmd_rules)
    return p


def _fail(msg: str) -> int:
    print(f"rulesfromvideo rules: error: {msg}", file=sys.stderr)
    return EXIT_BAD_INPUT


def write_events_atomic(path: Path, events: list[dict[str, Any]]) -> None:
    """Check the events' fields (contract ones against schema.Event) and write them atomically."""
    from rulesfromvideo.rules.common import CONTRACT_TYPES
    from rulesfromvideo.schema import Event

    for n, e in enumerate(events):
        if e["type"] in CONTRACT_TYPES:
            Event.model_validate(e)
        else:
            for key in ("type", "t", "frame", "team", "verdict", "confidence", "margin_m", "rule", "evidence"):
                if key not in e:
                    raise ValueError(f"events[{n}]: {key}: missing")
            if not (0.0 <= e["confidence"] <= 1.0) or not math.isfinite(e["t"]):
                raise ValueError(f"events[{n}]: confidence or t out of range")
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".events.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump({"events": events}, fh, indent=1, allow_nan=False)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def cmd_rules(args: argparse.Namespace) -> int:
    from pydantic import ValidationError

    from calibration.rink import RinkModel
    from rulesfromvideo.game import load_game
    from rulesfromvideo.rules.engine import split_contract
    from rulesfromvideo.schema import write_events_json

    if not args.tracks.is_file():
        return _fail(f"{args.tracks}: no such file")
    if not args.game.is_file():
        return _fail(f"{args.game}: no such file")
    try:
        game = load_game(args.game)
        rink = RinkModel(game.rink_spec())
    except ValueError as exc:  # GameError is a ValueError
        return _fail(f"{args.game}: {exc}")
    kw: dict[str, Any] = {}
    if args.detection_sigma_m is not None:
        if not args.detection_sigma_m >= 0:
            return _fail("--detection-sigma-m must be >= 0")
        kw["detection_sigma_m"] = args.detection_sigma_m
    if args.calibration_sigma_m is not None:
        if not args.calibration_sigma_m >= 0:
            return _fail("--calibration-sigma-m must be >= 0")
        kw["calibration_sigma_m"] = args.calibration_sigma_m
    if args.blade_sigma_m is not None:
        if not args.blade_sigma_m >= 0:
            return _fail("--blade-sigma-m must be >= 0")
        kw["blade_sigma_m"] = args.blade_sigma_m
    size = None
    if args.image_size is not None:
        try:
            size = tuple(int(v) for v in args.image_size.lower().split("x"))
        except ValueError:
            size = ()
        if len(size) != 2 or min(size) <= 0:
            return _fail(f"--image-size {args.image_size!r}: expected WxH in pixels, e.g. 1280x720")
        if args.calibration is None:
            return _fail("--image-size needs --calibration (the frames' cameras)")
        if args.blade_sigma_m is None:  # frames without a camera: our vision's isotropic error
            from vision.tracking import BLADE_SIGMA_M

            kw["blade_sigma_m"] = BLADE_SIGMA_M
    from rulesfromvideo.pipeline import run_rules_on_files

    try:
        events, n_frames = run_rules_on_files(args.tracks, game, rink, args.calibration, size, **kw)
    except ValueError as exc:  # SchemaError is a ValueError
        return _fail(f"{args.tracks}: {exc}" if str(args.tracks) not in str(exc) else str(exc))
    if n_frames == 0:
        return _fail(f"{args.tracks}: no frames")
    contract, extra = split_contract(events)
    try:
        write_events_json(args.out / "events.json", contract)
        write_events_atomic(args.out / "extra_events.json", extra)
    except (ValueError, ValidationError) as exc:  # SchemaError is a ValueError
        return _fail(f"internal: an event does not fit the schema: {exc}")
    except OSError as exc:
        return _fail(f"{args.out}: cannot write: {exc.strerror or exc}")
    counts: dict[str, int] = {}
    for e in events:
        counts[e["type"]] = counts.get(e["type"], 0) + 1
    summary = ", ".join(f"{k} {v}" for k, v in sorted(counts.items())) or "no events"
    print(f"{n_frames} frames, {summary} -> {args.out / 'events.json'}, {args.out / 'extra_events.json'}")
    return 0
