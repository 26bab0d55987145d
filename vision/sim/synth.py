"""Render a simulated play to ``clip.mp4`` + ``game.json`` + ``truth.json``.

``synth_clip(scenario, camera, seed, out_dir, ...)`` builds the play
(``vision.sim.plays.make_play``), films it with a seeded camera rig
(``vision.sim.camera.make_rig``), renders every frame (``vision.sim.render``) and
writes the truth of ``docs/interfaces.md`` next to the video. Several cameras
(``camera="broadcast,goalcam"``) film the same play on the same clock, one
sub-folder each.

``truth_to_tracks(truth)`` turns a truth (or a ``Play``) into perfect-input
``tracks.jsonl`` records (design format), so the rules can be evaluated on exact
observations.

Truth fields beyond the interface page, kept because the dataset export needs
them: ``players[].kind``, ``players[].blades_visible`` ([bool, bool]) and
``players[].front_skid`` ([x, y]); ``puck.visible_fraction``; a top-level
``touches`` list (``t``, ``frame`` = first frame at or after it, ``player``,
``team``, ``kind``, ``xy`` = point of contact) for perfect-input tracks.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any, Iterator

import numpy as np

from vision.sim.plays import SCENARIOS, Play, make_play

VISIBLE_FRACTION = 0.25  # share of an object's key points/pixels that must show to call it visible

_CAMERA_TEXT = {
    "broadcast": "main side camera high above the -y boards, panning and zooming after the play",
    "blueline": "fixed side camera square to the blue line at the featured end",
    "goalcam": "end camera behind the goal the featured team attacks",
    "overhead": "near-vertical camera over the ice",
}


def list_scenarios() -> dict[str, str]:
    """Scenario name -> one-line description."""
    return dict(SCENARIOS)


def list_cameras() -> dict[str, str]:
    """Camera preset name -> one-line description."""
    try:
        from vision.sim.camera import PRESETS
    except ImportError:
        PRESETS = tuple(_CAMERA_TEXT)  # noqa: N806
    return {p: _CAMERA_TEXT.get(p, p) for p in PRESETS}


def _r(x: Any) -> Any:
    """Round every float to 1e-6 (byte-stable JSON), recursively; numpy to Python."""
    if isinstance(x, dict):
        return {k: _r(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_r(v) for v in x]
    if isinstance(x, np.ndarray):
        return _r(x.tolist())
    if isinstance(x, (bool, np.bool_)):
        return bool(x)
    if isinstance(x, (int, np.integer)):
        return int(x)
    if isinstance(x, (float, np.floating)):
        v = round(float(x), 6)
        return 0.0 if v == 0 else v
    return x


def _events_for(play: Play, fps: float, duration_s: float) -> list[dict]:
    out = []
    for e in play.events:
        if e["t"] < duration_s:
            e = dict(e)
            e["frame"] = int(round(e["t"] * fps))
            out.append(e)
    return out


def _frame_truth(play: Play, t: float, frame: int, cam, info: dict) -> dict:
    st = play.state_at(t)
    pinfo = info.get("puck") or {}
    puck = None
    if st.puck is not None:
        x, y, z = (float(v) for v in st.puck.xyz_rink_m)
        vf = float(pinfo.get("visible_fraction", 0.0))
        puck = {"x": x, "y": y, "z": z, "visible": bool(pinfo.get("in_frame", False)) and vf >= VISIBLE_FRACTION,
                "in_frame": bool(pinfo.get("in_frame", False)), "visible_fraction": vf}
    players = []
    by_id = {pl.id: pl for pl in play.players}
    for ps in st.players:
        pi = (info.get("players") or {}).get(ps.id, {})
        vf = float(pi.get("visible_fraction", 0.0))
        players.append({
            "id": ps.id, "team": ps.team, "role": ps.role, "kind": ps.kind,
            "blades": ps.blades_rink_m.tolist(),
            "footprint": ps.footprint_rink_m.tolist(),
            "stick_blade": ps.stick_blade_rink_m.tolist(),
            "front_skid": by_id[ps.id].front_skid(t).tolist(),
            "visible": bool(pi.get("in_frame", False)) and vf >= VISIBLE_FRACTION,
            "blades_visible": [bool(v) for v in pi.get("blades_visible", [False, False])],
        })
    d = cam.to_dict()
    return {"frame": frame, "t": t,
            "camera": {k: d[k] for k in ("K", "dist", "R", "t")},
            "H_image_from_rink": cam.H_image_from_rink().tolist(),
            "puck": puck, "players": players}


def synth_clip(
    scenario: str,
    camera: str,
    seed: int,
    out_dir: str | Path,
    width: int = 1280,
    height: int = 720,
    fps: float = 30,
    duration_s: float | None = None,
    look: Any = None,
    profile: str | None = None,
    layout: str | None = None,
    kits: str = "classic",
) -> dict:
    """Render a scenario to video with exact truth.

    Args:
        scenario: a name from :func:`list_scenarios`.
        camera: a preset from :func:`list_cameras`, or a comma list for synchronised
            cameras (one sub-folder per camera, named after the preset).
        seed: seeds the play, the rig and the renderer (same seed -> same truth bytes).
        out_dir: output folder.
        width, height: image size, pixels (even).
        fps: frame rate of the clip.
        duration_s: clip length, s (default: the play's own length).
        look: a ``vision.sim.looks.Look`` (default: drawn from the seed).
        profile: rule profile (default "ipc-sledge"; ``sponge_key_3s`` is always sponge).
        layout: rink marking layout "ipc" | "iihf" | "nhl" at its standard size (default:
            the profile's own; ``vision.sim.plays.make_play``).
        kits: the teams' jerseys: "classic" (red against navy) or "drawn" from the seed
            (``vision.sim.plays.make_play``); GAME.json names them.

    Returns:
        ``{"scenario", "seed", "frames", "events", "clips": [folder, ...]}``.

    Raises:
        ValueError: unknown scenario, camera or bad size.
    """
    from vision.sim.camera import PRESETS, make_rig
    from vision.sim.render import Renderer
    from vision.video import VideoWriter

    cams = [c.strip() for c in str(camera).split(",") if c.strip()]
    bad = [c for c in cams if c not in PRESETS]
    if not cams or bad:
        raise ValueError(f"synth_clip: unknown camera {bad or camera!r}; presets: {list(PRESETS)}")
    play = make_play(scenario, seed, profile or "ipc-sledge", layout=layout, kits=kits)
    fps = float(fps)
    dur = float(play.duration_s if duration_s is None else duration_s)
    n = max(1, int(round(dur * fps)))
    out_dir = Path(out_dir)
    rink = play.geom.model
    if rink is None:
        from calibration.rink import RinkModel, RinkSpec

        rink = RinkModel(RinkSpec.for_layout(play.geom.layout))
    events = _events_for(play, fps, n / fps)
    clips = []
    for cam_name in cams:
        d = out_dir / cam_name if len(cams) > 1 else out_dir
        d.mkdir(parents=True, exist_ok=True)
        rig = make_rig(cam_name, rink, seed, width, height, end=play.featured_end)
        renderer = Renderer(rink, seed, look=look)
        frames = []
        prev = None
        with VideoWriter(d / "clip.mp4", fps, width, height) as vw:
            for i in range(n):
                t = i / fps
                state = play.state_at(t)
                cam = rig.camera_at(t, play.focus_at(t))
                img, info = renderer.render(state, cam, prev_state=prev[0] if prev else None,
                                            prev_cam=prev[1] if prev else None, frame_interval_s=1.0 / fps)
                prev = (state, cam)
                vw.write(img)
                frames.append(_frame_truth(play, t, i, cam, info))
        truth = {
            "version": 1, "fps": fps, "width": int(width), "height": int(height),
            "scenario": scenario, "camera": cam_name, "seed": int(seed),
            "rink": {k: play.game["rink"][k] for k in ("layout", "length_m", "width_m")},
            # The jerseys, so that an evaluation can pool the games on other kits apart.
            "kits": {"draw": kits, **{team: play.game["teams"][team]["color"] for team in ("home", "away")}},
            "frames": frames, "events": events,
            "touches": [{"t": k.t, "frame": int(math.ceil(k.t * fps - 1e-9)), "player": k.player, "team": k.team,
                         "kind": k.kind, "xy": k.xy.tolist()} for k in play.puck.touches if k.t < n / fps],
        }
        (d / "truth.json").write_text(json.dumps(_r(truth), separators=(",", ":")) + "\n")
        (d / "game.json").write_text(json.dumps(_r(play.game), indent=2) + "\n")
        clips.append(str(d))
    return {"scenario": scenario, "seed": int(seed), "frames": n, "events": len(events), "clips": clips}


def _touch_frames(touches, fps: float) -> dict[int, dict]:
    """First frame at or after each touch -> {"player", "team"} (the earliest touch wins)."""
    out: dict[int, dict] = {}
    for k in touches:
        f = int(math.ceil(float(k["t"] if isinstance(k, dict) else k.t) * fps - 1e-9))
        pl = k["player"] if isinstance(k, dict) else k.player
        tm = k["team"] if isinstance(k, dict) else k.team
        out.setdefault(f, {"player": int(pl), "team": tm})
    return out


def truth_to_tracks(truth: dict | Play) -> Iterator[dict]:
    """Perfect-input ``tracks.jsonl`` records from a truth (or a :class:`Play`).

    Args:
        truth: a truth.json dict (``truth["touches"]`` is used when present, else
            touches are read from the puck's ``last_touch`` changes), or a ``Play``.

    Yields:
        ``{"frame", "t", "puck": {"x", "y", "z", "measured": True[, "touch"]} | None,
        "players": [{"id", "team", "role", "blades", "footprint"}]}`` per frame, rink metres
        (``footprint``, the sledge polygon, is an optional extra for the crease rule, 907 a4).
    """
    if isinstance(truth, Play):
        play = truth
        touch = _touch_frames(play.puck.touches, play.fps)
        for f in range(play.n_frames):
            t = f / play.fps
            st = play.state_at(t)
            p = st.puck.xyz_rink_m
            puck = {"x": float(p[0]), "y": float(p[1]), "z": float(p[2]), "measured": True}
            if f in touch:
                puck["touch"] = touch[f]
            yield _r({"frame": f, "t": t, "puck": puck,
                      "players": [{"id": q.id, "team": q.team, "role": q.role, "blades": q.blades_rink_m.tolist(),
                                   "footprint": q.footprint_rink_m.tolist()} for q in st.players]})
        return
    fps = float(truth["fps"])
    touch = _touch_frames(truth.get("touches", []), fps)
    teams = {}
    for fr in truth["frames"]:
        for q in fr["players"]:
            teams[q["id"]] = q["team"]
    last = None
    for fr in truth["frames"]:
        pk = fr.get("puck")
        puck = None
        if pk is not None:
            puck = {"x": pk["x"], "y": pk["y"], "z": pk.get("z", 0.0), "measured": True}
            f = fr["frame"]
            if f in touch:
                puck["touch"] = touch[f]
            elif "touches" not in truth and pk.get("last_touch") not in (None, last):
                puck["touch"] = {"player": pk["last_touch"], "team": teams.get(pk["last_touch"])}
            last = pk.get("last_touch", last)
        yield {"frame": fr["frame"], "t": fr["t"], "puck": puck,
               "players": [{"id": q["id"], "team": q["team"], "role": q["role"], "blades": q["blades"],
                            **({"footprint": q["footprint"]} if "footprint" in q else {})} for q in fr["players"]]}
