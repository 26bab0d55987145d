"""Batch runs: many videos, one `analyze` each, locally or on a Ray cluster.

Each video gets its own folder `ROOT/<video stem>/` (with its parent folders' names in front
when stems collide: `ROOT/<parent>__clip/`, see `out_dir_for`). A video whose folder holds
a `run.json` with `"complete": true` is skipped, so a batch can be re-run after
an interruption. A video that fails is recorded (its folder gets `error.txt`,
the summary lists it) and the others go on. `ROOT/batch.json` summarises the run.

The game descriptor of a video is, in order: `VIDEO.game.json` beside it
(`clip.mp4` → `clip.game.json`), `game.json` in its folder, or `--game`. A fixed
camera's venue profile (`calibration.fixed.CameraProfile`, e.g. a goal camera's,
clicked in the review UI) is used when `camera_profile.json` sits in the video's
folder (`rulesfromvideo analyze --camera-profile` for a single video).
"""

from __future__ import annotations

import glob
import json
import time
import traceback
from dataclasses import asdict, dataclass
from pathlib import Path


@dataclass
class VideoOutcome:
    """How one video of a batch ended: status is `done`, `skipped` or `failed`."""

    video: str
    out_dir: str
    status: str
    frames: int = 0
    seconds: float = 0.0
    events: int = 0
    error: str | None = None


def find_game(video: Path, default_game: Path | None) -> Path | None:
    """The GAME.json that applies to `video` (see module docstring), or None."""
    for cand in (video.with_suffix(".game.json"), video.parent / "game.json"):
        if cand.is_file():
            return cand
    return default_game


def find_camera_profile(video: Path) -> Path | None:
    """The venue camera profile beside `video` (`camera_profile.json` in its folder), or None."""
    cand = video.parent / "camera_profile.json"
    return cand if cand.is_file() else None


def out_dir_for(video: Path, root: Path, videos: list[Path]) -> Path:
    """`ROOT/<stem>`; when stems collide (`a/clip.mp4`, `b/clip.mp4`) the parent names too, as
    many as it takes to tell the colliding videos apart (`x/broadcast/clip.mp4` and
    `y/broadcast/clip.mp4` → `x__broadcast__clip`, `y__broadcast__clip`): two videos must never
    share a folder (the second would be skipped as complete or overwrite the first)."""
    video = Path(video)
    same = [Path(v) for v in videos if Path(v).stem == video.stem and Path(v) != video]
    if not same:
        return root / video.stem

    def name(v: Path, depth: int) -> str:
        return "__".join([p.name for p in v.parents][:depth][::-1] + [v.stem])

    depth = 1
    while depth < len(video.parents) and any(name(v, depth) == name(video, depth) for v in same):
        depth += 1
    return root / name(video, depth)


def is_complete(out_dir: Path) -> bool:
    """True when a previous run of this video finished (run.json says complete)."""
    try:
        return bool(json.loads((out_dir / "run.json").read_text()).get("complete"))
    except (OSError, ValueError):
        return False


def analyze_one(video: str, game: str | None, out_dir: str, overlay: bool = False,
                max_frames: int | None = None, camera_profile: str | None = None) -> dict:
    """Analyse one video, catching every failure into the outcome (used locally and as a Ray task)."""
    from rulesfromvideo.pipeline import analyze

    out = Path(out_dir)
    if game is None:
        return asdict(VideoOutcome(video, out_dir, "failed", error="no GAME.json found (use --game)"))
    t0 = time.perf_counter()
    try:
        res = analyze(video, game, out, overlay=overlay, progress=False, max_frames=max_frames,
                      camera_profile_path=camera_profile)
    except Exception as exc:  # one bad video must not stop the batch
        out.mkdir(parents=True, exist_ok=True)
        (out / "error.txt").write_text(f"{exc}\n\n{traceback.format_exc()}")
        return asdict(VideoOutcome(video, out_dir, "failed", seconds=time.perf_counter() - t0, error=str(exc)))
    status = "done" if res.complete else "failed"
    return asdict(
        VideoOutcome(video, out_dir, status, res.frames, round(res.seconds, 3), len(res.events),
                     None if res.complete else "interrupted")
    )


def run_batch(
    pattern: str,
    out_root: str | Path,
    *,
    game: str | Path | None = None,
    ray_address: str | None = None,
    overlay: bool = False,
    max_frames: int | None = None,
) -> list[dict]:
    """Analyse every video matching `pattern` (a glob, `**` allowed).

    Args:
        pattern: e.g. `season/**/*.mp4`.
        out_root: folder receiving one sub-folder per video and `batch.json`.
        game: default GAME.json for videos without their own.
        ray_address: None to run here one after the other; `auto` or `ray://host:port`
            (or `local` to start a local Ray instance) to run one Ray task per video.
        overlay: also write overlay.mp4 per video.
        max_frames: analyse at most this many frames per video (quick looks, tests).

    Returns:
        One outcome dict per video (see `VideoOutcome`).
    """
    root = Path(out_root)
    root.mkdir(parents=True, exist_ok=True)
    videos = sorted(Path(p) for p in glob.glob(pattern, recursive=True) if Path(p).is_file())
    default_game = Path(game) if game else None
    todo, outcomes = [], []
    interrupted = False
    for v in videos:
        od = out_dir_for(v, root, videos)
        if is_complete(od):
            outcomes.append(asdict(VideoOutcome(str(v), str(od), "skipped")))
            continue
        g, cp = find_game(v, default_game), find_camera_profile(v)
        todo.append((str(v), None if g is None else str(g), str(od), None if cp is None else str(cp)))

    if ray_address:
        outcomes += _run_on_ray(todo, ray_address, overlay, max_frames)
    else:
        for v, g, od, cp in todo:
            outcomes.append(analyze_one(v, g, od, overlay, max_frames, cp))
            if outcomes[-1]["error"] == "interrupted":  # Ctrl-C stops the batch, not only this video
                interrupted = True
                break
    outcomes.sort(key=lambda o: o["video"])
    summary = {
        "pattern": pattern,
        "videos": len(videos),
        "interrupted": interrupted,
        "done": sum(o["status"] == "done" for o in outcomes),
        "skipped": sum(o["status"] == "skipped" for o in outcomes),
        "failed": sum(o["status"] == "failed" for o in outcomes),
        "outcomes": outcomes,
    }
    from rulesfromvideo.pipeline import write_json_atomic

    write_json_atomic(root / "batch.json", summary)
    return outcomes


def _run_on_ray(todo: list[tuple], address: str, overlay: bool, max_frames: int | None) -> list[dict]:
    """One Ray task per video; a task that raises is recorded as failed, the others go on."""
    try:
        import ray
    except ImportError as exc:  # ray is the optional `cluster` extra
        raise RuntimeError("--ray needs the 'cluster' extra: pip install 'rulesfromvideo[cluster]'") from exc
    started_here = not ray.is_initialized()
    if started_here:
        if address == "local":
            ray.init(num_cpus=None, include_dashboard=False, log_to_driver=False)
        else:
            ray.init(address=address, include_dashboard=False, log_to_driver=False)
    try:
        # One CPU per video, although analyze's calibration process keeps about 0.4 of a
        # second core busy (docs/benchmarks.md): a full cluster runs a little
        # over-subscribed rather than leaving cores idle between the two stages.
        task = ray.remote(num_cpus=1, max_retries=1)(analyze_one)
        refs = [task.remote(v, g, od, overlay, max_frames, cp) for v, g, od, cp in todo]
        outcomes = []
        for (v, _, od, _), ref in zip(todo, refs):
            try:
                outcomes.append(ray.get(ref))
            except Exception as exc:  # worker died: recorded, never silently lost
                outcomes.append(asdict(VideoOutcome(v, od, "failed", error=f"ray task failed: {exc}")))
        return outcomes
    finally:
        if started_here:
            ray.shutdown()
