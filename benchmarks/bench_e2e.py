"""End-to-end speed and memory of ``analyze`` (calibration + vision + rules + report).

    .venv/bin/python benchmarks/bench_e2e.py                       # 720p and 1080p, 90 frames; 60 s free_play
    .venv/bin/python benchmarks/bench_e2e.py --frames 45 --sizes 1280x720 --long-s 20 --long-size 640x360
    .venv/bin/python benchmarks/bench_e2e.py --clip 1280x720=CLIP.mp4 --long-clip LONG.mp4   # existing clips
    .venv/bin/python benchmarks/bench_e2e.py --keep DIR            # keep the rendered clips in DIR

For each size a short simulated clip (``offside_carried``, seed 3, broadcast
camera; rendered with ``synth_clip`` and not timed, unless ``--clip`` names
one) is decoded alone (decode-only frames/s), then analysed by
``rulesfromvideo analyze`` in a child process. Printed per clip:

- analyze frames/s: frames / seconds of analyze's frame loop (decode,
  calibration, vision, file writes), as ``run.json`` records it;
- the ratio of that to the decode-only frames/s of the same clip in the same run;
- the child's wall time (start-up, rules and report included), its CPU time
  (user + system of the child, its calibration process and their ffmpeg decoders,
  from ``os.wait4``) per frame, and peak memory: the sum of the peak resident sizes
  of the child and of each of its descendants (``VmHWM`` sampled from ``/proc`` every
  50 ms; the calibration process is one of them) — an upper bound of their peak
  together — and the largest single process (``VmHWM``; the analyze process reads its own at
  the end; until 2026-12-04 ``ru_maxrss`` from ``os.wait4``, which Linux carries over fork and
  exec from this benchmark process, so that column read high);
- the load average when the clip started, so figures taken on a shared machine
  can be interpreted (CPU time per frame is the steadier figure).

The long clip (``free_play``, 60 s by default; ``--long-s 0`` skips it) gives the
wall time of a full minute and, against the short clips, whether peak memory
stays flat in video length. Targets (end-to-end issue): ≥ 30 frames/s at 720p,
≥ 0.5× decode, peak memory ≤ 2 GB and flat in length.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

_CHILD = """
import json, os, sys
import rulesfromvideo
from rulesfromvideo.pipeline import analyze
r = analyze(sys.argv[1], sys.argv[2], sys.argv[3], progress=False)
hwm = next(int(l.split()[1]) for l in open("/proc/self/status") if l.startswith("VmHWM:"))
print(json.dumps({"frames": r.frames, "loop_s": r.seconds, "complete": r.complete, "events": len(r.events),
                  "hwm_kb": hwm, "code": os.path.dirname(os.path.dirname(os.path.abspath(rulesfromvideo.__file__)))}))
"""
# The checkout this script lives in: the code it measures, wherever it is run from (a worktree of
# older code included). A child started with ``-c`` would otherwise import from the current
# directory first, ahead of PYTHONPATH (stops 33 and 34 compared their code with itself so).
_ROOT = Path(__file__).resolve().parents[1]


def _size(text: str) -> tuple[int, int]:
    w, h = text.lower().split("x")
    return int(w), int(h)


def render(out_dir: Path, scenario: str, seed: int, width: int, height: int, duration_s: float) -> Path:
    """Render a broadcast clip with ``synth_clip``; returns its clip.mp4 (game.json beside it)."""
    from vision.sim.synth import synth_clip

    synth_clip(scenario, "broadcast", seed, out_dir, width=width, height=height, duration_s=duration_s)
    return out_dir / "clip.mp4"


def decode_only(video: Path) -> dict:
    """Frames/s of decoding the whole clip (wall) and the CPU time it took (this process + ffmpeg)."""
    from vision.video import iter_frames

    c0, ch0 = os.times(), None
    ch0 = (c0.children_user + c0.children_system)
    t0 = time.perf_counter()
    n = sum(1 for _ in iter_frames(video))
    wall = time.perf_counter() - t0
    c1 = os.times()
    cpu = (c1.user + c1.system - c0.user - c0.system) + (c1.children_user + c1.children_system - ch0)
    return {"frames": n, "wall_s": wall, "fps": n / wall if wall > 0 else float("nan"), "cpu_s": cpu}


def _tree_peaks_mb(pid: int, peaks: dict[int, float]) -> None:
    """Update ``peaks`` (pid → MB) with the peak resident size (VmHWM) of a process and its descendants."""
    todo = [pid]
    while todo:
        p = todo.pop()
        try:
            for line in Path(f"/proc/{p}/status").read_text().splitlines():
                if line.startswith("VmHWM:"):
                    peaks[p] = max(peaks.get(p, 0.0), float(line.split()[1]) / 1024.0)
            for task in Path(f"/proc/{p}/task").iterdir():
                todo += [int(c) for c in (task / "children").read_text().split()]
        except (OSError, ValueError):
            continue


def _sample_peaks(pid: int, stop: threading.Event, peaks: dict[int, float]) -> None:
    while not stop.wait(0.05):
        _tree_peaks_mb(pid, peaks)


def analyze_child(video: Path, game: Path, out: Path) -> dict:
    """Run analyze in a child process; its wall time, CPU time, peak RSS and loop figures."""
    load = os.getloadavg()[0]
    t0 = time.perf_counter()
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(_ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]))
    proc = subprocess.Popen([sys.executable, "-P", "-c", _CHILD, str(video), str(game), str(out)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    stop, peaks = threading.Event(), {}
    sampler = threading.Thread(target=_sample_peaks, args=(proc.pid, stop, peaks), daemon=True)
    sampler.start()
    stdout = proc.stdout.read()
    stderr = proc.stderr.read()
    stop.set()
    sampler.join()
    _, status, ru = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise RuntimeError(f"analyze failed ({proc.returncode}): {stderr.decode()[-2000:]}")
    res = json.loads(stdout.decode().strip().splitlines()[-1])
    # The analyze process's own peak, read by itself at the end (the 50 ms samples can miss the
    # report's last moments). Not wait4's ru_maxrss: Linux carries it over fork and exec from
    # this process (which rendered and decoded the clips), and it is the largest of the tree.
    peaks[proc.pid] = max(peaks.get(proc.pid, 0.0), res.get("hwm_kb", 0) / 1024.0)
    res.update({"wall_s": wall, "cpu_s": ru.ru_utime + ru.ru_stime, "maxrss_mb": max(peaks.values()),
                "peak_tree_rss_mb": sum(peaks.values()), "load_avg_1min": load})
    res["fps"] = res["frames"] / res["loop_s"] if res["loop_s"] > 0 else float("nan")
    return res


def bench_clip(label: str, video: Path, work: Path) -> dict:
    """Decode-only then analyze figures of one clip; prints one block."""
    from vision.video import probe

    fps, w, h, n = probe(video)
    game = video.with_suffix(".game.json") if video.with_suffix(".game.json").is_file() else video.parent / "game.json"
    dec = decode_only(video)
    an = analyze_child(video, game, work / f"out_{label}")
    row = {"label": label, "size": f"{w}x{h}", "frames": an["frames"], "decode_fps": dec["fps"],
           "analyze_fps": an["fps"], "ratio_to_decode": an["fps"] / dec["fps"], "wall_s": an["wall_s"],
           "cpu_ms_per_frame": 1000 * an["cpu_s"] / max(1, an["frames"]),
           "cpu_fps": an["frames"] / an["cpu_s"] if an["cpu_s"] > 0 else float("nan"),
           "decode_cpu_ms_per_frame": 1000 * dec["cpu_s"] / max(1, dec["frames"]),
           "maxrss_mb": an["maxrss_mb"], "peak_tree_rss_mb": an["peak_tree_rss_mb"],
           "load_avg_1min": an["load_avg_1min"], "clip_s": n / fps if fps else None, "code": an.get("code")}
    print(f"{label:>10s} {row['size']:>9s} {row['frames']:5d} frames: analyze {row['analyze_fps']:.2f} frames/s, "
          f"decode only {row['decode_fps']:.1f} frames/s, ratio {row['ratio_to_decode']:.3f}; "
          f"wall {row['wall_s']:.1f} s; CPU {row['cpu_ms_per_frame']:.0f} ms/frame "
          f"({row['cpu_fps']:.2f} frames per CPU-s; decode {row['decode_cpu_ms_per_frame']:.1f} ms/frame); "
          f"peak RSS <= {row['peak_tree_rss_mb']:.0f} MB all processes ({row['maxrss_mb']:.0f} MB the largest); "
          f"load average {row['load_avg_1min']:.1f}; code {row['code']}", flush=True)
    return row


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="1280x720,1920x1080", help="comma list WxH of the short clips")
    ap.add_argument("--frames", type=int, default=90, help="frames of each short clip")
    ap.add_argument("--clip", action="append", default=[], metavar="WxH=PATH", help="use an existing clip for a size")
    ap.add_argument("--scenario", default="offside_carried")
    ap.add_argument("--seed", type=int, default=3)
    ap.add_argument("--long-s", type=float, default=60.0, help="seconds of the free_play clip (0: skip)")
    ap.add_argument("--long-size", default="1280x720")
    ap.add_argument("--long-clip", type=Path, help="use an existing long clip")
    ap.add_argument("--keep", type=Path, help="render into this folder and keep the clips and outputs")
    ap.add_argument("--json", type=Path, help="also write the figures as JSON")
    args = ap.parse_args(argv)

    given = dict(c.split("=", 1) for c in args.clip)
    tmp = None if args.keep else tempfile.TemporaryDirectory(prefix="bench_e2e_")
    work = args.keep or Path(tmp.name)
    work.mkdir(parents=True, exist_ok=True)
    rows = []
    try:
        for size in [s for s in args.sizes.split(",") if s]:
            w, h = _size(size)
            video = Path(given[size]) if size in given else render(
                work / f"clip_{size}", args.scenario, args.seed, w, h, args.frames / 30.0)
            rows.append(bench_clip("short", video, work / size))
        if args.long_clip or args.long_s > 0:
            w, h = _size(args.long_size)
            video = args.long_clip or render(work / "clip_long", "free_play", args.seed, w, h, args.long_s)
            rows.append(bench_clip("long", video, work / "long"))
    finally:
        if tmp is not None:
            tmp.cleanup()
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
