"""The end-to-end evaluation suite: a fixed, seeded set of simulated clips.

``SUITE`` lists every clip the suite renders: each scenario of
``vision.sim.plays.SCENARIOS`` at least once, each camera preset of
``vision.sim.camera.PRESETS`` several times, one play filmed by two synchronised
cameras, a few clips in the held-out looks of ``vision.sim.looks``, and a few games in
other jerseys (``kits="drawn"``).

Seeds 7000-7099 are reserved for this suite: no threshold, detector or model
is tuned or trained on them (training streams use ``training_look`` and seeds
below 7000; the held-out looks stay evaluation-only as well).

``render_suite(out_dir)`` writes one folder per clip (a multi-camera play gets
one sub-folder per camera, as ``synth_clip`` writes it) and ``suite.json``, the
manifest that ``rulesfromvideo eval suite`` reads::

    {"version": 1, "width", "height", "clips": [{"name", "dir", "scenario",
      "camera", "seed", "look", "duration_s", "layout", "kits"}]}

``dir`` is relative to the suite folder and holds ``clip.mp4``, ``game.json``
and ``truth.json``.
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass
from pathlib import Path

SUITE_SEED_BASE = 7000  # seeds 7000-7099: evaluation only, never tuned on


@dataclass(frozen=True)
class SuiteClip:
    """One play of the suite.

    Attributes:
        name: folder name (unique, also unique as a parent-folder name for ``batch``).
        scenario: a key of ``vision.sim.plays.SCENARIOS``.
        camera: a preset, or a comma list of presets filming the same play.
        seed: seeds play, rig and renderer (``SUITE_SEED_BASE`` + index).
        look: a name of ``vision.sim.looks.HELD_OUT_LOOKS``, or None for the seed's own look.
        duration_s: clip length, s (None: the scenario's own).
        layout: the rink's marking layout ("nhl", "iihf"), or None for the profile's own (IPC):
            sledge hockey is often played on NHL and IIHF rinks.
        kits: the jerseys, as ``synth_clip`` takes them: "classic" (red against navy) or "drawn"
            from the seed (``vision.sim.players.draw_kits``: other colours, white road kits).
    """

    name: str
    scenario: str
    camera: str
    seed: int
    look: str | None = None
    duration_s: float | None = None
    layout: str | None = None
    kits: str = "classic"

    @property
    def cameras(self) -> list[str]:
        return [c.strip() for c in self.camera.split(",") if c.strip()]


def _define() -> tuple[SuiteClip, ...]:
    # Cameras are chosen so the deciding line is in view: blue-line and overhead cameras
    # for zone entries, goal cameras for goals, broadcast for both; each preset is used
    # for every event type it can see.
    plan = [
        ("onside_carried", "blueline", None),
        ("offside_carried", "broadcast", None),
        ("onside_pass", "overhead", None),
        ("offside_pass", "blueline", "heldout_dim_community_rink"),
        ("offside_backwards_control", "broadcast", None),
        ("defender_carries_in", "blueline", None),
        ("delayed_offside_tagup", "broadcast", None),
        ("icing", "broadcast", None),
        ("icing_shorthanded", "goalcam", None),
        ("icing_touched", "overhead", None),
        ("icing_faceoff", "broadcast", "heldout_warm_tv_arena"),
        ("icing_opponent_could_play", "goalcam", None),
        ("icing_goalkeeper", "broadcast", None),
        ("icing_goal", "goalcam", None),
        ("goal", "broadcast,goalcam", None),
        ("goal_close", "goalcam", None),
        ("no_goal_on_line", "goalcam", "heldout_cold_glassless"),
        ("no_goal_post", "broadcast", None),
        ("no_goal_from_behind", "goalcam", None),
        ("goal_crease_occupied", "overhead", None),
        ("sponge_key_3s", "broadcast", None),
        ("free_play", "broadcast", None),
        ("offside_carried", "overhead", "heldout_cold_glassless"),
        ("goal", "overhead", None),
        ("icing", "blueline", None),
        # Added 2026-12-04: sledge plays on NHL and IIHF rinks (their own line positions and
        # sizes), appended so that the clips above keep their names and seeds.
        ("offside_pass", "broadcast", None, "nhl"),
        ("goal", "goalcam", None, "nhl"),
        ("icing", "broadcast", None, "iihf"),
        ("offside_pass", "blueline", "heldout_warm_tv_arena", "iihf"),
        # Added 2026-12-07: games in other jerseys than red against navy (every clip above wears
        # those), kits drawn from the seed; 7030 and 7033 wear white road kits on white ice.
        ("offside_carried", "blueline", None, "nhl", "drawn"),
        ("goal_crease_occupied", "overhead", None, None, "drawn"),
        ("icing", "broadcast", None, None, "drawn"),
        ("goal", "goalcam", None, None, "drawn"),
        ("onside_pass", "broadcast", None, "iihf", "drawn"),
        ("icing_touched", "overhead", None, None, "drawn"),
    ]
    clips = []
    for i, (scenario, camera, look, *rest) in enumerate(plan):
        lay = rest[0] if rest else None
        kits = rest[1] if len(rest) > 1 else "classic"
        tag = camera.replace(",", "+") + (f"_{lay}" if lay else "") + ("_kits" if kits != "classic" else "")
        # free_play is 60 s; the suite keeps its first 20 s (3 entries, an icing) so the
        # whole suite renders and analyses in well under an hour on two cores.
        dur = 20.0 if scenario == "free_play" else None
        clips.append(SuiteClip(f"s{i:02d}_{scenario}_{tag}", scenario, camera, SUITE_SEED_BASE + i, look, dur, lay,
                               kits))
    return tuple(clips)


SUITE: tuple[SuiteClip, ...] = _define()


def clip_dirs(clip: SuiteClip) -> list[tuple[str, str]]:
    """(relative folder, camera) of each camera clip that ``synth_clip`` writes for ``clip``."""
    cams = clip.cameras
    if len(cams) == 1:
        return [(clip.name, cams[0])]
    return [(f"{clip.name}/{c}", c) for c in cams]


def render_suite(out_dir: str | Path, width: int = 1280, height: int = 720, only: int | None = None,
                 max_duration_s: float | None = None, fps: float = 30.0, log=print) -> dict:
    """Render the suite (or its first ``only`` plays) and write ``OUT/suite.json``.

    A play whose folders already hold ``truth.json`` is not rendered again, so an
    interrupted render can be resumed; the manifest is rewritten after every play.

    Args:
        out_dir: suite folder.
        width, height: frame size, px.
        only: render only the first N plays of ``SUITE``.
        max_duration_s: cap every clip at this length, s (quick looks and tests; truth events
            after the cap are dropped by ``synth_clip``).
        fps: frame rate (30 for the suite; lower only for quick looks and tests).
        log: called with one line per play.

    Returns:
        The manifest dict.
    """
    from vision.sim.looks import held_out_look
    from vision.sim.synth import synth_clip

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    plays = SUITE if only is None else SUITE[: max(0, int(only))]
    manifest = {"version": 1, "width": int(width), "height": int(height), "fps": float(fps),
                "seed_base": SUITE_SEED_BASE,
                "clips": []}
    for clip in plays:
        dirs = clip_dirs(clip)
        done = all((out / d / "truth.json").is_file() for d, _ in dirs)
        t0 = time.perf_counter()
        dur = clip.duration_s
        if max_duration_s is not None:
            dur = min(dur if dur is not None else float("inf"), float(max_duration_s))
            if dur == float("inf"):
                dur = None
        if not done:
            look = held_out_look(clip.look) if clip.look else None
            synth_clip(clip.scenario, clip.camera, clip.seed, out / clip.name, width=width, height=height,
                       fps=fps, duration_s=dur, look=look, layout=clip.layout, kits=clip.kits)
        for d, cam in dirs:
            if cam in PROFILED_CAMERAS:
                write_clicked_profile(out / d)
        for d, cam in dirs:
            manifest["clips"].append({"name": d.replace("/", "__"), "dir": d, "scenario": clip.scenario,
                                      "camera": cam, "seed": clip.seed, "look": clip.look,
                                      "duration_s": dur, "layout": clip.layout, "kits": clip.kits})
        _write_manifest(out, manifest)
        log(f"{'kept' if done else 'rendered'} {clip.name} ({time.perf_counter() - t0:.1f} s)")
    return manifest


#: Fixed cameras that get a venue profile (``camera_profile.json``, clicked landmarks) beside their
#: clip: the goal camera, which the design pins by its venue profile and which has no cold registration.
PROFILED_CAMERAS = ("goalcam",)


def write_clicked_profile(clip_dir: str | Path) -> Path:
    """Write ``camera_profile.json`` beside a rendered clip: the landmarks an operator would click
    (``vision.sim.profiles``); ``rulesfromvideo batch`` then uses it for that video."""
    from calibration.rink import RinkModel, RinkSpec
    from vision.sim.profiles import PROFILE_NAME, clicked_camera_profile

    clip_dir = Path(clip_dir)
    truth = json.loads((clip_dir / "truth.json").read_text())
    r = truth["rink"]
    rink = RinkModel(RinkSpec.for_layout(r["layout"], r.get("length_m"), r.get("width_m")))
    profile = clicked_camera_profile(truth, rink)
    if not profile:
        raise ValueError(f"{clip_dir}: no venue profile: {profile.reason}")
    profile.save(clip_dir / PROFILE_NAME)
    return clip_dir / PROFILE_NAME


def _write_manifest(out: Path, manifest: dict) -> None:
    tmp = out / "suite.json.tmp"
    tmp.write_text(json.dumps(manifest, indent=1) + "\n")
    tmp.replace(out / "suite.json")


def load_manifest(suite_dir: str | Path) -> dict:
    """``suite.json`` of a rendered suite; without one, the manifest of the clips under the folder.

    A folder of ``rulesfromvideo synth`` renders (each ``clip.mp4`` beside its ``truth.json``, at
    any depth: a multi-camera play has a folder per camera) is scored like a suite: fresh renders
    checked for wrong calls need no hand-written ``suite.json`` (``manifest_from_clips``).

    Raises:
        ValueError: missing or malformed manifest, and no clip folders either.
    """
    p = Path(suite_dir) / "suite.json"
    if not p.exists():
        return manifest_from_clips(suite_dir)
    try:
        data = json.loads(p.read_text())
    except OSError as exc:
        raise ValueError(f"{p}: cannot read ({exc.strerror or exc}); render it with synth-suite") from None
    except json.JSONDecodeError as exc:
        raise ValueError(f"{p}: not valid JSON ({exc.msg})") from None
    if not isinstance(data, dict) or not isinstance(data.get("clips"), list):
        raise ValueError(f"{p}: no 'clips' list")
    return data


def manifest_from_clips(suite_dir: str | Path) -> dict:
    """A ``suite.json``-shaped manifest of every ``clip.mp4`` + ``truth.json`` folder under ``suite_dir``.

    Each clip's scenario, camera, seed and rink layout come from its ``truth.json``; its name is
    its folder's path under ``suite_dir`` with ``/`` as ``__`` (``play/broadcast`` →
    ``play__broadcast``), sorted by path.

    Raises:
        ValueError: no such folder, or a ``truth.json`` that is not a JSON object.
    """
    root = Path(suite_dir)
    clips, size = [], (None, None)
    for truth_path in sorted(root.glob("**/truth.json")):
        d = truth_path.parent
        if not (d / "clip.mp4").is_file():
            continue
        try:
            truth = json.loads(truth_path.read_text())
        except (OSError, json.JSONDecodeError) as exc:
            raise ValueError(f"{truth_path}: not readable JSON ({exc})") from None
        if not isinstance(truth, dict):
            raise ValueError(f"{truth_path}: not a JSON object")
        rel = d.relative_to(root).as_posix()
        layout = (truth.get("rink") or {}).get("layout")
        clips.append({"name": rel.replace("/", "__"), "dir": rel, "scenario": truth.get("scenario"),
                      "camera": truth.get("camera"), "seed": truth.get("seed"), "look": None, "duration_s": None,
                      "layout": layout if layout in ("nhl", "iihf") else None,
                      "kits": (truth.get("kits") or {}).get("draw", "classic")})
        size = size if size[0] else (truth.get("width"), truth.get("height"))
    if not clips:
        raise ValueError(f"{root}: no suite.json and no clip folders (clip.mp4 beside truth.json) under it; "
                         "render them with synth-suite or synth")
    return {"version": 1, "width": size[0], "height": size[1], "clips": clips}


def as_dicts() -> list[dict]:
    """The suite definition as plain dicts (for docs and tests)."""
    return [asdict(c) for c in SUITE]
