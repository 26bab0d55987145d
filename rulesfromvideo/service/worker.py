"""Child process of `jobs.subprocess_analyze`: probe the clip, run `pipeline.analyze`.

Exit status: 0 done, 2 bad input (message in OUT/worker_error.txt), 3 the
pipeline could not be loaded, 130 interrupted (SIGINT: partial results were
written by `analyze`).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m rulesfromvideo.service.worker")
    p.add_argument("video", type=Path)
    p.add_argument("game", type=Path)
    p.add_argument("out", type=Path)
    p.add_argument("--camera-profile", type=Path)
    p.add_argument("--max-frames", type=int)
    args = p.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    err = args.out / "worker_error.txt"

    from rulesfromvideo.service.media import NotAVideo, UnreadableVideo, probe_video

    try:
        probe_video(args.video)
    except (NotAVideo, UnreadableVideo, OSError) as exc:
        err.write_text(f"video unreadable: {exc}\n", encoding="utf-8")
        return 2
    try:
        from rulesfromvideo.pipeline import AnalyzeError, analyze
    except ImportError as exc:
        err.write_text(f"the analysis pipeline is not available: {exc}\n", encoding="utf-8")
        return 3
    try:
        result = analyze(args.video, args.game, args.out, camera_profile_path=args.camera_profile,
                         progress=False, max_frames=args.max_frames)
    except AnalyzeError as exc:
        err.write_text(f"{exc}\n", encoding="utf-8")
        return 2
    except ImportError as exc:
        err.write_text(f"the analysis pipeline is not available: {exc}\n", encoding="utf-8")
        return 3
    except KeyboardInterrupt:
        return 130
    return 0 if result.complete else 130


if __name__ == "__main__":
    sys.exit(main())
