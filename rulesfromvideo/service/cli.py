"""`rulesfromvideo serve` (review API + UI) and `rulesfromvideo live SOURCE` (live overlay feed).

Wire into the main CLI with::

    from rulesfromvideo.service.cli import add_live_parser, add_serve_parser
    add_serve_parser(sub); add_live_parser(sub)

Both read the service settings from `RFV_*` environment variables (tokens:
`RFV_TOKENS` or `RFV_TOKENS_FILE`; see docs/service.md); command-line flags
override the data dir and bind address. They bind to 127.0.0.1 unless told
otherwise.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def _settings(args):
    from rulesfromvideo.service.settings import Settings

    overrides = {}
    if getattr(args, "data_dir", None) is not None:
        overrides["data_dir"] = args.data_dir
    if getattr(args, "media_root", None) is not None:
        overrides["media_root"] = args.media_root
    return Settings(**overrides)


def _serve(app, host: str, port: int) -> int:
    import uvicorn

    uvicorn.run(app, host=host, port=port, log_level="info", ws="auto")
    return 0


def _cmd_serve(args: argparse.Namespace) -> int:
    from rulesfromvideo.service.app import create_app

    try:
        app = create_app(_settings(args))
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return _serve(app, args.host, args.port)


def add_serve_parser(subparsers) -> argparse.ArgumentParser:
    """Add `serve`: the review API and web UI."""
    p = subparsers.add_parser("serve", help="run the review API and web UI")
    p.add_argument("--host", default="127.0.0.1", help="bind address (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8000)
    p.add_argument("--data-dir", type=Path, help="data folder (default $RFV_DATA_DIR or ./rfv-data)")
    p.add_argument("--media-root", type=Path, help="clips may be registered by path under this folder")
    p.set_defaults(func=_cmd_serve)
    return p


def build_processor(game_path: Path | None, camera_profile_path: Path | None, fps: float):
    """The best per-frame function available: the pipeline stages, else a fixed camera profile.

    Raises:
        ValueError: neither can be built (the message says what is missing).
    """
    rink, game, profile = None, None, None
    if game_path is not None:
        from calibration.rink import RinkModel
        from rulesfromvideo.game import GameDescriptor

        game = GameDescriptor.from_file(game_path)
        rink = RinkModel(game.rink_spec())
    if camera_profile_path is not None:
        from calibration.fixed import CameraProfile

        profile = CameraProfile.load(camera_profile_path)
        if not profile:
            raise ValueError(f"{camera_profile_path}: camera profile has no homography ({profile.reason})")
    from rulesfromvideo.service.live import FixedCameraProcessor, PipelineProcessor

    if game is not None:
        try:
            return PipelineProcessor(game, rink, fps, camera_profile=profile)
        except ImportError as exc:
            if profile is None:
                raise ValueError(f"the pipeline's per-frame stages are not available ({exc}); "
                                 "pass --camera-profile for a fixed camera") from None
    if profile is not None:
        return FixedCameraProcessor(profile, rink)
    raise ValueError("live needs --game GAME.json (pipeline stages) and/or --camera-profile CAM.json")


def _cmd_live(args: argparse.Namespace) -> int:
    from rulesfromvideo.service.app import create_app
    from rulesfromvideo.service.live import LiveFeed, open_source

    try:
        cap, _is_file, fps = open_source(args.source)
        cap.release()
        process = build_processor(args.game, args.camera_profile, fps)
        feed = LiveFeed(args.source, process, queue_size=args.queue_size, realtime=not args.fast, loop=args.loop)
        app = create_app(_settings(args), live_feed=feed)
    except (ValueError, OSError, json.JSONDecodeError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return _serve(app, args.host, args.port)


def add_live_parser(subparsers) -> argparse.ArgumentParser:
    """Add `live SOURCE`: per-frame overlay data on a WebSocket, rule events as SSE."""
    p = subparsers.add_parser("live", help="live overlay feed (WebSocket + server-sent events)")
    p.add_argument("source", help="video file, rtsp:// or http(s):// URL, or camera index (0, 1, ...)")
    p.add_argument("--game", type=Path, help="GAME.json (rink layout, teams) for the pipeline stages")
    p.add_argument("--camera-profile", type=Path, help="stored fixed-camera calibration JSON")
    p.add_argument("--queue-size", type=int, choices=(1, 2), default=1,
                   help="frames waiting for processing; older ones are dropped and counted")
    p.add_argument("--loop", action="store_true", help="restart a file at its end")
    p.add_argument("--fast", action="store_true", help="read a file as fast as possible (not real speed)")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8001)
    p.add_argument("--data-dir", type=Path, help="data folder (default $RFV_DATA_DIR or ./rfv-data)")
    p.set_defaults(func=_cmd_live)
    return p
