"""Latency of the live overlay feed: frame read → WebSocket message sent, at 720p with 10 clients.

    .venv/bin/python benchmarks/bench_live.py                       # fixed-camera processor, 6 s clip
    .venv/bin/python benchmarks/bench_live.py --process pipeline    # Calibrator + FrameTracker per frame
    .venv/bin/python benchmarks/bench_live.py --process pipeline --clip CLIP_DIR   # a simulator render
    .venv/bin/python benchmarks/bench_live.py --process pipeline --clip CLIP_DIR --vision-inline
    .venv/bin/python benchmarks/bench_live.py --clients 10 --seconds 6 --queue-size 1

``--clip`` takes a folder that ``rulesfromvideo synth`` wrote (clip.mp4 + game.json) instead of
the generated clip (whose painted lines no registration finds, so the pipeline's stages
there mostly say "unknown"). With the pipeline, vision and rules run in a process of their
own by default (``PipelineProcessor(vision_process=True)``: every message has its frame's
calibration, and the newest puck and players); ``--vision-inline`` runs every stage in the
feed's processor thread, as before 2026-12-04.

A child process serves `LiveFeed` (the code behind `rulesfromvideo live`) on
127.0.0.1 over a generated 1280×720 30 fps clip read at real speed; the
source is held until all clients are connected. Each client is a `websockets`
connection in this process. Two latencies are printed:

* server: frame read → `send` returned, per message (the feed's own counter);
* client: frame read → message received and parsed (same monotonic clock, one machine);
* the objects' lag: how many frames the message's puck and players (``objects_frame``) are
  behind its frame, and the share of messages with a registered frame (``H_rink_from_image``).

Also printed: frames read / processed / dropped (queue full) and client drops.
Everything is bounded: the clip length and a hard `--timeout`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HOST = "127.0.0.1"  # loopback only
TOKENS = {"bench-tv": {"role": "broadcast", "name": "bench tv"}}
W, H, FPS = 1280, 720, 30.0
IMAGE_FROM_RINK = np.array([[18.0, 2.0, 640.0], [0.0, -9.0, 420.0], [0.0, 0.004, 1.0]])
GAME = {"rules": "ipc-sledge", "rink": {"layout": "ipc", "length_m": 60, "width_m": 30},
        "teams": {"home": {"color": "#c8102e", "attacks": "+x"}, "away": {"color": "#0b3d91"}}}


def make_clip(path: Path, seconds: float) -> Path:
    """A 720p clip: ice-white picture with painted lines and moving dark players and puck."""
    import cv2

    wr = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"mp4v"), FPS, (W, H))
    yy, xx = np.mgrid[0:H, 0:W]
    base = np.dstack([205 + 30 * yy / H, 210 + 25 * xx / W, 215 + 20 * yy / H]).astype(np.uint8)
    for u, colour in ((640, (40, 40, 200)), (420, (160, 60, 20)), (860, (160, 60, 20))):
        cv2.line(base, (u, 150), (u, H), colour, 8)
    for i in range(int(seconds * FPS)):
        f = base.copy()
        for k in range(10):
            cv2.ellipse(f, ((100 + 7 * i + 110 * k) % W, 300 + 35 * (k % 5)), (16, 38), 0, 0, 360, (30, 30, 30), -1)
        cv2.circle(f, ((30 + 9 * i) % W, 420), 5, (10, 10, 10), -1)
        wr.write(f)
    wr.release()
    return path


def serve(port: int, clip: Path, data_dir: Path, clients: int, queue_size: int, process: str,
          game_path: str = "", vision_inline: bool = False) -> None:
    """Child process: the live feed app on 127.0.0.1:port."""
    import uvicorn

    from calibration.fixed import CameraProfile
    from calibration.rink import RinkModel
    from rulesfromvideo.game import GameDescriptor
    from rulesfromvideo.service.app import create_app
    from rulesfromvideo.service.live import FixedCameraProcessor, LiveFeed, PipelineProcessor
    from rulesfromvideo.service.settings import Settings

    game = GameDescriptor.from_file(game_path) if game_path else GameDescriptor.from_dict(GAME)
    rink = RinkModel(game.rink_spec())
    if process == "pipeline":
        fn = PipelineProcessor(game, rink, FPS, vision_process=not vision_inline)
        if fn.worker is not None:
            fn.worker.wait_ready(120.0)
    else:
        pts = np.array([[-20.0, -10.0], [20.0, -10.0], [20.0, 10.0], [-20.0, 10.0], [0.0, 0.0]])
        hom = np.c_[pts, np.ones(len(pts))] @ IMAGE_FROM_RINK.T
        fn = FixedCameraProcessor(CameraProfile.from_point_pairs(hom[:, :2] / hom[:, 2:], pts, "bench", W, H), rink)
    feed = LiveFeed(str(clip), fn, queue_size=queue_size, realtime=True, wait_for_clients=clients)
    app = create_app(Settings(data_dir=data_dir, tokens=TOKENS), live_feed=feed)
    uvicorn.run(app, host=HOST, port=port, log_level="warning", access_log=False, ws="auto")


async def clients_run(url: str, n: int, timeout: float) -> dict:
    import websockets

    lat: list[float] = []
    lag: list[int] = []
    registered = [0]
    received = [0] * n
    end_stats = {}

    async def one(k: int) -> None:
        async with websockets.connect(url, additional_headers={"Authorization": "Bearer bench-tv"},
                                      max_size=2**22) as ws:
            while True:
                raw = await ws.recv()
                now = time.perf_counter()
                msg = json.loads(raw)
                if msg["type"] == "end":
                    end_stats.update(msg.get("stats") or {})
                    return
                lat.append(now - msg["t_read_mono"])
                received[k] += 1
                if k == 0:
                    registered[0] += msg.get("H_rink_from_image") is not None
                    if msg.get("objects_frame") is not None:
                        lag.append(int(msg["frame"]) - int(msg["objects_frame"]))

    await asyncio.wait_for(asyncio.gather(*(one(k) for k in range(n))), timeout)
    return {"lat": lat, "lag": lag, "registered": registered[0], "received": received, "end": end_stats}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--clients", type=int, default=10)
    p.add_argument("--seconds", type=float, default=6.0, help="clip length (read at real speed)")
    p.add_argument("--queue-size", type=int, choices=(1, 2), default=1)
    p.add_argument("--process", choices=("fixed", "pipeline"), default="fixed")
    p.add_argument("--timeout", type=float, default=120.0)
    p.add_argument("--clip", type=Path, help="a synth clip folder (clip.mp4 + game.json) instead of the generated clip")
    p.add_argument("--vision-inline", action="store_true", help="pipeline: every stage in the processor thread")
    p.add_argument("--game", default="", help=argparse.SUPPRESS)
    p.add_argument("--serve", nargs=3, metavar=("PORT", "CLIP", "DATA"), help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.serve:
        serve(int(args.serve[0]), Path(args.serve[1]), Path(args.serve[2]), args.clients, args.queue_size,
              args.process, args.game, args.vision_inline)
        return 0
    if not 1 <= args.clients <= 50 or not 0 < args.seconds <= 60:
        p.error("--clients 1..50 and --seconds 0..60 (bounded benchmark)")
    import httpx

    with tempfile.TemporaryDirectory(prefix="rfv-bench-live-") as tmp:
        tmp = Path(tmp)
        t0 = time.perf_counter()
        game_arg: list[str] = []
        if args.clip is not None:
            clip = args.clip / "clip.mp4"
            game_arg = ["--game", str(args.clip / "game.json")]
            print(f"clip: {clip}")
        else:
            clip = make_clip(tmp / "live720.mp4", args.seconds)
            print(f"clip: {W}x{H} {FPS:.0f} fps, {args.seconds:.0f} s, written in {time.perf_counter() - t0:.1f} s")
        with socket.socket() as s:
            s.bind((HOST, 0))
            port = s.getsockname()[1]
        server = subprocess.Popen(
            [sys.executable, __file__, "--serve", str(port), str(clip), str(tmp / "data"), "--clients",
             str(args.clients), "--queue-size", str(args.queue_size), "--process", args.process, *game_arg,
             *(["--vision-inline"] if args.vision_inline else [])],
            env={**os.environ, "PYTHONUNBUFFERED": "1"})
        try:
            base = f"http://{HOST}:{port}"
            with httpx.Client(base_url=base, timeout=10) as http:
                for _ in range(600):
                    try:
                        http.get("/api/health")
                        break
                    except httpx.HTTPError:
                        time.sleep(0.1)
                        if server.poll() is not None:
                            print("server failed to start", file=sys.stderr)
                            return 2
                res = asyncio.run(clients_run(f"ws://{HOST}:{port}/api/live/ws", args.clients, args.timeout))
                status = http.get("/api/live/status", headers={"Authorization": "Bearer bench-tv"}).json()
        finally:
            server.terminate()
            server.wait(15)
    lat = np.array(res["lat"]) * 1000.0
    frame_ms = 1000.0 / FPS
    mode = "" if args.process != "pipeline" else (", vision inline" if args.vision_inline else ", vision process")
    print(f"bench_live: {args.clients} WebSocket clients on {HOST}, processor={args.process}{mode}, "
          f"queue={args.queue_size}")
    print(f"frames read {status['frames_read']}, processed {status['frames_processed']}, "
          f"dropped {status['frames_dropped']} (queue), client drops {status['client_drops']}, "
          f"process errors {status['process_errors']}")
    sl = status["latency_ms"]
    print(f"server read→sent  ms: p50 {sl['p50']:.2f}  p99 {sl['p99']:.2f}  max {sl['max']:.2f}  (n={sl['n']})")
    print(f"client read→recv  ms: p50 {np.percentile(lat, 50):.2f}  p99 {np.percentile(lat, 99):.2f}  "
          f"max {lat.max():.2f}  (n={lat.size})")
    print(f"one frame at {FPS:.0f} fps = {frame_ms:.1f} ms; messages per client: "
          f"min {min(res['received'])} max {max(res['received'])}")
    n0 = max(res["received"][0], 1)
    if res["lag"]:
        lag = np.array(res["lag"])
        print(f"objects (puck, players) behind the message's frame, frames: p50 {np.percentile(lag, 50):.0f}  "
              f"p99 {np.percentile(lag, 99):.0f}  max {lag.max()}; messages with objects {lag.size}/{n0}, "
              f"registered {res['registered']}/{n0}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
