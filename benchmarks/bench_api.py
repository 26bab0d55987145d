"""Load benchmark of the review API: N concurrent clients on 127.0.0.1 for a bounded time.

    .venv/bin/python benchmarks/bench_api.py                 # 50 clients, 60 s
    .venv/bin/python benchmarks/bench_api.py --clients 50 --seconds 20

The server runs in a child process (uvicorn, one worker, SQLite in WAL mode
in a temporary folder) with a fixture analysis that writes contract output
files, so the numbers measure the service, not the vision pipeline. The
clients are asyncio tasks sharing one httpx connection pool; each loops over a
request mix until the deadline:

    35 % GET /api/clips/{id}/events     25 % GET /api/clips
    20 % GET /api/clips/{id}/frames/N.png (overlay drawn, N random)
    10 % POST /api/events/{id}/decisions (judge; committed before the answer)
    10 % GET /api/export/events.csv

Prints p50/p99 latency per request kind and overall, throughput and errors.
Traffic goes to 127.0.0.1 only.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HOST = "127.0.0.1"  # loopback only, never anything else
TOKENS = {"bench-admin": {"role": "admin", "name": "bench admin"},
          "bench-judge": {"role": "judge", "name": "bench judge"},
          "bench-viewer": {"role": "viewer", "name": "bench viewer"}}
GAME = {"rules": "ipc-sledge", "rink": {"layout": "ipc", "length_m": 60, "width_m": 30},
        "teams": {"home": {"color": "#c8102e", "attacks": "+x"}, "away": {"color": "#0b3d91"}}}
W, H, N = 1280, 720, 90


def fixture_analyze(ctx) -> None:
    """Contract outputs for a broadcast-like camera (12 px/m), 3 events."""
    image_from_rink = np.array([[12.0, 0.0, 640.0], [0.0, -12.0, 360.0], [0.0, 0.0, 1.0]])
    H_list = np.linalg.inv(image_from_rink).tolist()
    n = ctx.frames_total or N
    with open(ctx.out_dir / "tracks.jsonl", "w") as t, open(ctx.out_dir / "calibration.jsonl", "w") as c:
        for i in range(n):
            t.write(json.dumps({"frame": i, "t": i / 30, "puck": {"x": -20 + 0.5 * i, "y": 1.0, "measured": True},
                                "players": [{"id": k, "team": "home" if k % 2 else "away", "role": "skater",
                                             "blades": [[k * 2.0 - 10, -3.0], [k * 2.0 - 9.6, -3.0]]}
                                            for k in range(10)]}) + "\n")
            c.write(json.dumps({"frame": i, "H_rink_from_image": H_list, "quality": 0.9}) + "\n")
            ctx.report(i + 1, n)
    events = [{"type": "zone_entry", "t": 1.0, "frame": 30, "team": "home", "verdict": "offside", "confidence": 0.9,
               "margin_m": 0.12, "rule": "903 b1", "evidence": {"player": 3}},
              {"type": "goal", "t": 2.0, "frame": 60, "team": "home", "verdict": "no_goal", "confidence": 0.7,
               "margin_m": -0.02, "rule": "906", "evidence": {}},
              {"type": "icing", "t": 2.5, "frame": 75, "team": "away", "verdict": "waved_off", "confidence": 0.8,
               "margin_m": 0.5, "rule": "905 d", "evidence": {"exception": "shorthanded"}}]
    (ctx.out_dir / "events.json").write_text(json.dumps({"events": events}))


def serve(port: int, data_dir: Path) -> None:
    """Child process: the app with the fixture analysis, on 127.0.0.1:port."""
    import logging

    import uvicorn

    from rulesfromvideo.service.app import create_app
    from rulesfromvideo.service.settings import Settings

    app = create_app(Settings(data_dir=data_dir, tokens=TOKENS, job_heartbeat_s=0.2), analyze_fn=fixture_analyze)
    logging.getLogger("rulesfromvideo.service").setLevel(logging.WARNING)
    uvicorn.run(app, host=HOST, port=port, log_level="warning", access_log=False)


def make_video(path: Path) -> Path:
    import cv2

    wr = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"mp4v"), 30.0, (W, H))
    # Ice-like picture: a smooth gradient, painted lines, dark moving players and a puck.
    yy, xx = np.mgrid[0:H, 0:W]
    base = np.dstack([200 + 30 * yy / H, 205 + 25 * xx / W, 210 + 20 * yy / H]).astype(np.uint8)
    for u, colour in ((640, (40, 40, 200)), (536, (160, 60, 20)), (744, (160, 60, 20)), (952, (40, 40, 200))):
        cv2.line(base, (u, 0), (u, H), colour, 6)
    for i in range(N):
        f = base.copy()
        for k in range(10):
            cv2.ellipse(f, (100 + 11 * i + 90 * k, 250 + 30 * (k % 4)), (18, 40), 0, 0, 360, (30, 30, 30), -1)
        cv2.circle(f, (20 + 12 * i, 330), 5, (10, 10, 10), -1)
        wr.write(f)
    wr.release()
    return path


def pct(values: list[float], q: float) -> float:
    return float(np.percentile(np.array(values) * 1000.0, q)) if values else float("nan")


async def load(base: str, clients: int, seconds: float, clip_id: int, event_ids: list[int]) -> dict:
    import httpx

    viewer = {"Authorization": "Bearer bench-viewer"}
    judge = {"Authorization": "Bearer bench-judge"}
    lat: dict[str, list[float]] = {}
    errors: dict[str, int] = {}
    deadline = time.perf_counter() + seconds
    kinds = (["events"] * 35 + ["clips"] * 25 + ["frame"] * 20 + ["decision"] * 10 + ["export"] * 10)
    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)

    async with httpx.AsyncClient(base_url=base, timeout=30.0, limits=limits) as http:
        async def one_client(seed: int) -> None:
            rng = random.Random(seed)
            while time.perf_counter() < deadline:
                kind = rng.choice(kinds)
                t0 = time.perf_counter()
                try:
                    if kind == "events":
                        r = await http.get(f"/api/clips/{clip_id}/events", headers=viewer)
                    elif kind == "clips":
                        r = await http.get("/api/clips", headers=viewer)
                    elif kind == "frame":
                        r = await http.get(f"/api/clips/{clip_id}/frames/{rng.randrange(N)}.png", headers=viewer)
                    elif kind == "decision":
                        r = await http.post(f"/api/events/{rng.choice(event_ids)}/decisions", headers=judge,
                                            json={"decision": rng.choice(["confirm", "overturn", "inconclusive"]),
                                                  "note": f"bench {seed}"})
                    else:
                        r = await http.get("/api/export/events.csv", headers=viewer)
                    ok = r.status_code < 400
                except httpx.HTTPError:
                    ok = False
                dt = time.perf_counter() - t0
                if ok:
                    lat.setdefault(kind, []).append(dt)
                else:
                    errors[kind] = errors.get(kind, 0) + 1

        t_start = time.perf_counter()
        await asyncio.gather(*(one_client(i) for i in range(clients)))
        wall = time.perf_counter() - t_start
    return {"lat": lat, "errors": errors, "wall": wall}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--clients", type=int, default=50)
    p.add_argument("--seconds", type=float, default=60.0)
    p.add_argument("--serve", nargs=2, metavar=("PORT", "DATA_DIR"), help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.serve:
        serve(int(args.serve[0]), Path(args.serve[1]))
        return 0
    if not 1 <= args.clients <= 200 or not 0 < args.seconds <= 60:
        p.error("--clients must be 1..200 and --seconds 0..60 (the benchmark is bounded)")
    import httpx

    with tempfile.TemporaryDirectory(prefix="rfv-bench-") as tmp:
        tmp = Path(tmp)
        with socket.socket() as s:
            s.bind((HOST, 0))
            port = s.getsockname()[1]
        base = f"http://{HOST}:{port}"
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        server = subprocess.Popen([sys.executable, __file__, "--serve", str(port), str(tmp / "data")], env=env)
        try:
            admin = {"Authorization": "Bearer bench-admin"}
            with httpx.Client(base_url=base, timeout=30.0) as http:
                for _ in range(300):
                    try:
                        http.get("/api/health")
                        break
                    except httpx.HTTPError:
                        time.sleep(0.1)
                video = make_video(tmp / "bench.mp4")
                with open(video, "rb") as fh:
                    clip = http.post("/api/clips", headers=admin, files={"file": ("bench.mp4", fh, "video/mp4")},
                                     data={"game": json.dumps(GAME), "name": "bench"}).json()
                job = http.post(f"/api/clips/{clip['id']}/jobs", headers=admin).json()
                while http.get(f"/api/jobs/{job['id']}", headers=admin).json()["state"] not in (
                        "succeeded", "failed"):
                    time.sleep(0.1)
                events = http.get(f"/api/clips/{clip['id']}/events", headers=admin).json()["events"]
                assert events, "the fixture analysis produced no events"
            res = asyncio.run(load(base, args.clients, args.seconds, clip["id"], [e["id"] for e in events]))
        finally:
            server.terminate()
            server.wait(15)
    lat, errors, wall = res["lat"], res["errors"], res["wall"]
    everything = [v for vs in lat.values() for v in vs]
    n_err = sum(errors.values())
    print(f"bench_api: {args.clients} clients, {wall:.1f} s on {HOST}, 1 uvicorn worker, SQLite WAL")
    print(f"{'request':<10} {'n':>7} {'p50 ms':>9} {'p99 ms':>9} {'errors':>7}")
    for kind in ("events", "clips", "frame", "decision", "export"):
        vs = lat.get(kind, [])
        print(f"{kind:<10} {len(vs):>7} {pct(vs, 50):>9.1f} {pct(vs, 99):>9.1f} {errors.get(kind, 0):>7}")
    print(f"{'all':<10} {len(everything):>7} {pct(everything, 50):>9.1f} {pct(everything, 99):>9.1f} {n_err:>7}")
    print(f"throughput {len(everything) / wall:.1f} req/s, errors {n_err}")
    return 0 if n_err == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
