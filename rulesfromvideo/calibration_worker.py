"""The calibration stage in a process of its own, for `rulesfromvideo.pipeline.calibrations`.

``python -m rulesfromvideo.calibration_worker VIDEO GAME.json FPS [--camera-profile P]
[--max-frames N]`` decodes the video itself and writes, for every frame in order, a
pickled ``(frame index, calibration.registration.CalibrationResult)`` to its standard
output, then a pickled ``None`` — or the pickled exception that stopped it (a truncated
video's ``VideoError``). Anything else the stage prints goes to standard error, so the
stream holds only results. The parent reads at its own pace; the pipe's buffer bounds
how far this process runs ahead.

A separate interpreter started with ``-m`` (not ``multiprocessing``'s spawn, which
re-runs the parent's main script) works the same under the CLI, a script without a
``__main__`` guard, pytest and a Ray worker.
"""

from __future__ import annotations

import argparse
import pickle
import sys


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m rulesfromvideo.calibration_worker")
    ap.add_argument("video")
    ap.add_argument("game")
    ap.add_argument("fps", type=float)
    ap.add_argument("--camera-profile")
    ap.add_argument("--max-frames", type=int)
    args = ap.parse_args(argv)
    from rulesfromvideo.childproc import result_stream

    out = result_stream()
    try:
        import os

        from calibration.concurrency import use_side_thread
        from calibration.registration import Calibrator
        from calibration.rink import RinkModel
        from rulesfromvideo.game import GameDescriptor
        from rulesfromvideo.pipeline import calibrate_frames
        from vision.video import iter_frames

        # Beside the vision stage a second calibration thread only takes the vision's core.
        use_side_thread(os.environ.get("RFV_CALIBRATION_SIDE_THREAD", "0") == "1")

        profile = None
        if args.camera_profile:
            from calibration.fixed import CameraProfile

            profile = CameraProfile.load(args.camera_profile)
        rink = RinkModel(GameDescriptor.from_file(args.game).rink_spec())
        calibrator = Calibrator(rink, camera_profile=profile, fps=args.fps)
        for item in calibrate_frames(iter_frames(args.video), calibrator, args.max_frames):
            pickle.dump(item, out, protocol=pickle.HIGHEST_PROTOCOL)
            out.flush()
        pickle.dump(None, out)
        out.flush()
    except KeyboardInterrupt:  # Ctrl-C reaches the whole process group; the parent reports it
        return 130
    except BrokenPipeError:  # the parent stopped reading (it finished early or was stopped)
        return 0
    except BaseException as exc:
        try:
            pickle.dump(exc, out)
            out.flush()
        except Exception:
            print(f"calibration worker: {exc!r}", file=sys.stderr)
        return 1
    finally:
        try:
            out.close()
        except OSError:
            pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
