"""Command-line entry point: `rulesfromvideo SUBCOMMAND ...`.

Subcommands:
    analyze       video → events.json, tracks.jsonl, calibration.jsonl, report.html
    rules         tracks.jsonl → events.json (for tracks from any system)
    batch         analyze many videos, locally or on a Ray cluster
    serve         the review API and web UI
    live          live overlay feed (WebSocket) and events (SSE) from a stream
    synth         render a simulated clip with exact ground truth
    synth-suite   render the fixed, seeded end-to-end evaluation suite
    export-yolo   YOLO training data from rendered clips
    eval          score calibration / tracks / events (or a whole suite) against simulator truth
"""

from __future__ import annotations

import argparse
import contextlib
import signal
import sys
from collections.abc import Iterator
from importlib import resources
from pathlib import Path


def sample_paths() -> tuple[Path, Path]:
    """The embedded sample clip and its GAME.json (rendered by `rulesfromvideo synth`)."""
    root = resources.files("rulesfromvideo") / "data" / "sample"
    return Path(str(root / "clip.mp4")), Path(str(root / "game.json"))


def _interrupt(signum, frame) -> None:
    raise KeyboardInterrupt


@contextlib.contextmanager
def _sigterm_as_ctrl_c() -> Iterator[None]:
    """A SIGTERM (`kill`, `timeout`, a container or a cluster stopping the job) ends the block as
    Ctrl-C does: `analyze` writes out the frames done so far, events.json included, and a batch
    stops after the video in progress."""
    before = signal.signal(signal.SIGTERM, _interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, before)


def _cmd_analyze(args: argparse.Namespace) -> int:
    from rulesfromvideo.pipeline import AnalyzeError, analyze

    video, game = args.video, args.game
    if args.sample or video is None:
        sample_video, sample_game = sample_paths()
        video = video or sample_video
        game = game or sample_game
    if game is None:
        print("error: --game GAME.json is required with a VIDEO", file=sys.stderr)
        return 2
    try:
        with _sigterm_as_ctrl_c():
            result = analyze(
                video,
                game,
                args.out,
                overlay=args.overlay,
                camera_profile_path=args.camera_profile,
                progress=not args.quiet,
                max_frames=args.max_frames,
            )
    except AnalyzeError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    state = "complete" if result.complete else "INTERRUPTED (partial results written)"
    print(
        f"{result.frames} frames in {result.seconds:.1f} s ({result.fps:.1f} frames/s), "
        f"{len(result.events)} events, {state} -> {result.out_dir}"
    )
    return 0 if result.complete else 130


def _add_analyze(sub) -> None:
    p = sub.add_parser("analyze", help="run the main job on a video")
    p.add_argument("video", nargs="?", type=Path, help="the clip (default: the embedded sample)")
    p.add_argument("--game", type=Path, help="GAME.json describing the game situation")
    p.add_argument("--out", type=Path, required=True, help="output folder")
    p.add_argument("--overlay", action="store_true", help="also write overlay.mp4")
    p.add_argument("--camera-profile", type=Path, help="a stored fixed-camera calibration JSON")
    p.add_argument("--sample", action="store_true", help="analyse the embedded sample clip")
    p.add_argument("--max-frames", type=int, help="stop after N frames")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=_cmd_analyze)


def _cmd_synth(args: argparse.Namespace) -> int:
    from rulesfromvideo.suite import PROFILED_CAMERAS, write_clicked_profile
    from vision.sim.synth import list_cameras, list_scenarios, synth_clip

    if args.list:
        print("scenarios:")
        for name, text in list_scenarios().items():
            print(f"  {name:28s} {text}")
        print("camera presets:")
        for name, text in list_cameras().items():
            print(f"  {name:28s} {text}")
        return 0
    if not args.scenario or not args.out:
        print("error: synth needs --scenario NAME and --out DIR (or --list)", file=sys.stderr)
        return 2
    try:
        info = synth_clip(
            args.scenario,
            args.camera,
            args.seed,
            args.out,
            width=args.width,
            height=args.height,
            fps=args.fps,
            duration_s=args.duration,
            profile=args.profile,
            layout=args.layout,
            kits=args.kits,
        )
    except (KeyError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"wrote {info}")
    # A goal camera is registered from its venue profile only (it has no cold search): write the
    # one an operator would click, as synth-suite does, so that `batch` and `analyze` can use it.
    cams = [c.strip() for c in args.camera.split(",")]
    for cam in cams:
        if cam in PROFILED_CAMERAS:
            print(f"wrote {write_clicked_profile(args.out if len(cams) == 1 else args.out / cam)}")
    return 0


def _add_synth(sub) -> None:
    p = sub.add_parser("synth", help="render a simulated clip with exact ground truth")
    p.add_argument("--scenario", help="scenario name (see --list)")
    p.add_argument("--camera", default="broadcast", help="preset, or a comma list for synced cameras")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", type=Path)
    p.add_argument("--width", type=int, default=1280)
    p.add_argument("--height", type=int, default=720)
    p.add_argument("--fps", type=float, default=30.0)
    p.add_argument("--duration", type=float, help="seconds (default: the scenario's own)")
    p.add_argument("--profile", help="rule profile (default: the scenario's own)")
    p.add_argument("--layout", choices=("ipc", "iihf", "nhl"),
                   help="rink marking layout at its standard size (default: the profile's own)")
    p.add_argument("--kits", choices=("classic", "drawn"), default="classic",
                   help="the teams' jerseys: red against navy (classic) or a pair drawn from the seed")
    p.add_argument("--list", action="store_true", help="list scenarios and camera presets")
    p.set_defaults(func=_cmd_synth)


def _cmd_synth_suite(args: argparse.Namespace) -> int:
    from rulesfromvideo.suite import render_suite

    try:
        manifest = render_suite(args.out, width=args.width, height=args.height, only=args.only,
                                max_duration_s=args.max_duration)
    except (KeyError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"{len(manifest['clips'])} clips -> {args.out}/suite.json")
    return 0


def _add_synth_suite(sub) -> None:
    p = sub.add_parser("synth-suite", help="render the fixed, seeded end-to-end evaluation suite")
    p.add_argument("--out", type=Path, required=True, help="suite folder (suite.json + one folder per clip)")
    p.add_argument("--width", type=int, default=1280)
    p.add_argument("--height", type=int, default=720)
    p.add_argument("--only", type=int, help="render only the first N plays of the suite")
    p.add_argument("--max-duration", type=float, help="cap every clip at S seconds (quick looks)")
    p.set_defaults(func=_cmd_synth_suite)


def _cmd_export_yolo(args: argparse.Namespace) -> int:
    from vision.sim.export_yolo import export_yolo

    clips = [Path(c) for c in args.clips]
    missing = [str(c) for c in clips if not (c / "truth.json").is_file()]
    if missing:
        print(f"error: no truth.json in: {', '.join(missing)}", file=sys.stderr)
        return 2
    print(export_yolo(clips, args.out, every=args.every))
    return 0


def _add_export_yolo(sub) -> None:
    p = sub.add_parser("export-yolo", help="YOLO training data from rendered clips")
    p.add_argument("clips", nargs="+", help="clip folders written by synth")
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--every", type=int, default=5, help="take every N-th frame")
    p.set_defaults(func=_cmd_export_yolo)


def _cmd_batch(args: argparse.Namespace) -> int:
    from rulesfromvideo.batch import run_batch

    try:
        with _sigterm_as_ctrl_c():
            outcomes = run_batch(args.pattern, args.out, game=args.game, ray_address=args.ray, overlay=args.overlay)
    except RuntimeError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if not outcomes:
        print(f"error: no video matches {args.pattern!r}", file=sys.stderr)
        return 2
    for o in outcomes:
        extra = f" ({o['error']})" if o.get("error") else ""
        print(f"{o['status']:8s} {o['video']} -> {o['out_dir']}{extra}")
    failed = sum(o["status"] == "failed" for o in outcomes)
    interrupted = any(o.get("error") == "interrupted" for o in outcomes)
    stopped = " — INTERRUPTED, the rest not started (run it again to go on)" if interrupted else ""
    print(f"{len(outcomes)} videos, {failed} failed; summary in {args.out}/batch.json{stopped}")
    return 130 if interrupted else 1 if failed else 0


def _add_batch(sub) -> None:
    p = sub.add_parser("batch", help="analyse many videos (locally or on Ray)")
    p.add_argument("pattern", help="glob of videos, e.g. 'season/**/*.mp4' (quote it)")
    p.add_argument("--out", type=Path, required=True, help="root folder, one sub-folder per video")
    p.add_argument("--game", type=Path, help="GAME.json for videos without their own")
    p.add_argument("--ray", metavar="ADDRESS", help="run on Ray: auto, ray://host:port, or local")
    p.add_argument("--overlay", action="store_true")
    p.set_defaults(func=_cmd_batch)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="rulesfromvideo",
        description="Officiating assistant for ice sledge hockey and sponge hockey.",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    _add_analyze(sub)
    _add_batch(sub)

    from rulesfromvideo.rules.cli import add_rules_parser

    from rulesfromvideo.service.cli import add_live_parser, add_serve_parser

    add_rules_parser(sub)
    add_serve_parser(sub)
    add_live_parser(sub)
    _add_synth(sub)
    _add_synth_suite(sub)
    _add_export_yolo(sub)

    ev = sub.add_parser("eval", help="score outputs against simulator truth")
    ev_sub = ev.add_subparsers(dest="what", required=True)
    from calibration.evaluation import add_eval_calibration_parser
    from rulesfromvideo.evaluation.events import add_eval_events_parser
    from vision.evaluation import add_eval_tracks_parser

    add_eval_calibration_parser(ev_sub)
    add_eval_tracks_parser(ev_sub)
    add_eval_events_parser(ev_sub)
    from rulesfromvideo.evaluation.suite import add_eval_suite_parser

    add_eval_suite_parser(ev_sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return int(args.func(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
