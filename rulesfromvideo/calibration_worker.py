"""The calibration stage in a process of its own, for `rulesfromvideo.pipeline.calibrations`.

``python -m rulesfromvideo.calibration_worker VIDEO GAME.json FPS [--camera-profile P]
[--max-frames N]`` decodes the video and, for every frame in order, calibrates it (frames it
cannot register are held, up to ``calibration.backfill.BACKFILL_MAX_S``, and tracked backwards from the next frame it
registers: `calibration.backfill`) and builds
the vision stage's per-frame scene (`vision.frame_scene.SceneBuilder`: the ice model and the
max channel, which depend on the frame and its calibration only), and sends
``(frame index, frame_bgr, calibration.registration.CalibrationResult,
vision.frame_scene.FrameScene)`` to its parent through `rulesfromvideo.shm_pipe` (the
arrays in shared memory, the rest pickled on standard output), then ``None`` — or the
exception that stopped it (a truncated video's ``VideoError``). The parent acknowledges each
item on this process's standard input; at most a few items are in flight. Anything else the
stage prints goes to standard error, so the stream holds only results.

A separate interpreter started with ``-m`` (not ``multiprocessing``'s spawn, which
re-runs the parent's main script) works the same under the CLI, a script without a
``__main__`` guard, pytest and a Ray worker.
"""

from __future__ import annotations

import argparse
import signal
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
    from rulesfromvideo.shm_pipe import SlotWriter

    # A terminate() from the parent runs the finally below, which frees the shared memory.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    out = result_stream()
    writer = SlotWriter(out, sys.stdin.buffer)
    try:
        import os

        import cv2

        from calibration.backfill import calibrated_in_order
        from calibration.concurrency import use_side_thread
        from calibration.registration import Calibrator
        from calibration.rink import RinkModel
        from rulesfromvideo.allocator import keep_frame_arrays_in_heap
        from rulesfromvideo.game import GameDescriptor
        from vision.frame_scene import SceneBuilder
        from vision.video import iter_frames

        # Each process keeps to its core: OpenCV's worker threads here only took CPU from the vision
        # process (900 frames, six alternating rounds: 29.5-29.8 against 28.9-29.6 frames/s, 4 % less CPU).
        cv2.setNumThreads(1)
        keep_frame_arrays_in_heap()  # frames and scenes reused from the heap (rulesfromvideo.allocator)
        # Beside the vision stage a second calibration thread only takes the vision's core.
        use_side_thread(os.environ.get("RFV_CALIBRATION_SIDE_THREAD", "0") == "1")

        profile = None
        if args.camera_profile:
            from calibration.fixed import CameraProfile

            profile = CameraProfile.load(args.camera_profile)
        rink = RinkModel(GameDescriptor.from_file(args.game).rink_spec())
        calibrator = Calibrator(rink, camera_profile=profile, fps=args.fps)
        scenes = SceneBuilder(rink)
        # Offline: frames it cannot register are held and tracked backwards from the next it does.
        for index, frame_bgr, calib in calibrated_in_order(iter_frames(args.video), calibrator, args.max_frames):
            writer.send((index, frame_bgr, calib, scenes.build(frame_bgr, calib)))
        writer.send(None)
    except KeyboardInterrupt:  # Ctrl-C reaches the whole process group; the parent reports it
        return 130
    except BrokenPipeError:  # the parent stopped reading (it finished early or was stopped)
        return 0
    except BaseException as exc:
        if isinstance(exc, SystemExit):
            raise
        try:
            writer.send(exc)
        except Exception:
            print(f"calibration worker: {exc!r}", file=sys.stderr)
        return 1
    finally:
        writer.close()
        try:
            out.close()
        except OSError:
            pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
