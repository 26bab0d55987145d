"""Peak memory of analyze's rules stage against video length (flat in length or not).

    .venv/bin/python benchmarks/bench_rules_memory.py [--minutes 1 5 20] [--churn-s 8] [--single-pass]

For each length, a synthetic game (``bench_rules.synth_game``: 11 players, passes, shots)
is written as ``tracks.jsonl`` in a temporary folder, with every player's track id renewed
every ``--churn-s`` seconds (our vision opens about 90 track ids a minute of 720p broadcast,
docs/vision.md; a fixed set of 11 ids would hide how ``Observations`` grows, (ids × frames)).
Then a fresh child process runs ``pipeline._run_rules`` on it (what ``analyze`` runs after
the frame loop: the tracks file streamed, judged in windows past ``rules.windows.SINGLE_PASS_S``)
and prints its peak resident memory (``VmHWM``) and time; the file's writing is not
measured. ``--single-pass`` measures the old way instead: the whole file read into one
``Observations`` and one ``run_rules`` pass (``Observations.from_tracks_jsonl``).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

CHILD = r"""
import json, sys, time
from pathlib import Path

def hwm_kb():
    # VmHWM, not ru_maxrss: Linux carries ru_maxrss over exec from the parent that forked us.
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1])

from calibration.rink import RinkModel
from rulesfromvideo.game import GameDescriptor
tracks, single = Path(sys.argv[1]), sys.argv[2] == "1"
game = GameDescriptor.from_dict({"rules": "ipc-sledge", "teams": {"home": {"color": "#c8102e", "attacks": "+x"},
                                                              "away": {"color": "#0b3d91"}}})
rink = RinkModel(game.rink_spec())
base = hwm_kb()
t0 = time.perf_counter()
if single:
    from rulesfromvideo.observations import Observations
    from rulesfromvideo.rules.engine import run_rules
    events = run_rules(Observations.from_tracks_jsonl(tracks), game, rink)
else:
    from rulesfromvideo.pipeline import _run_rules
    events = _run_rules(tracks, game, rink)
print(json.dumps({"seconds": time.perf_counter() - t0, "events": len(events), "base_kb": base,
                  "peak_kb": hwm_kb()}))
"""


def write_tracks(path: Path, minutes: float, fps: float, churn_s: float, seed: int) -> int:
    """Write the synthetic game with renewed track ids; returns the number of distinct ids."""
    sys.path.insert(0, str(Path(__file__).parent))
    from bench_rules import synth_game

    churn = max(1, int(round(churn_s * fps)))
    ids = set()
    with open(path, "w", encoding="utf-8") as fh:
        for rec in synth_game(minutes, fps, seed):
            gen = rec["frame"] // churn
            for p in rec["players"]:
                p["id"] = p["id"] + 100 * gen
                ids.add(p["id"])
            touch = (rec.get("puck") or {}).get("touch")
            if touch:
                touch["player"] = touch["player"] + 100 * gen
            fh.write(json.dumps(rec) + "\n")
    return len(ids)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--minutes", type=float, nargs="+", default=[1.0, 5.0, 20.0])
    ap.add_argument("--fps", type=float, default=30.0)
    ap.add_argument("--churn-s", type=float, default=8.0)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--single-pass", action="store_true", help="the whole file in one Observations")
    a = ap.parse_args()
    root = Path(__file__).resolve().parents[1]
    mode = "single pass" if a.single_pass else "analyze (_run_rules, windowed)"
    print(f"rules stage, {mode}; track ids renewed every {a.churn_s:g} s")
    print(f"{'minutes':>8} {'frames':>8} {'ids':>6} {'tracks MB':>10} {'peak MB':>8} {'+MB':>6} {'s':>7} {'events':>7}")
    with tempfile.TemporaryDirectory() as tmp:
        for minutes in a.minutes:
            path = Path(tmp) / f"tracks_{minutes:g}.jsonl"
            n_ids = write_tracks(path, minutes, a.fps, a.churn_s, a.seed)
            out = subprocess.run([sys.executable, "-c", CHILD, str(path), "1" if a.single_pass else "0"],
                                 capture_output=True, text=True, cwd=root)
            if out.returncode != 0:
                print(f"{minutes:>8g}  failed: {out.stderr.strip().splitlines()[-1:]}")
                continue
            r = json.loads(out.stdout.strip().splitlines()[-1])
            print(f"{minutes:>8g} {int(minutes * 60 * a.fps):>8d} {n_ids:>6d} {path.stat().st_size / 1e6:>10.1f} "
                  f"{r['peak_kb'] / 1024:>8.0f} {(r['peak_kb'] - r['base_kb']) / 1024:>6.0f} "
                  f"{r['seconds']:>7.1f} {r['events']:>7d}")
            path.unlink()


if __name__ == "__main__":
    main()
