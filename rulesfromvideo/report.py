"""`report.html`: one self-contained page (images inlined) that opens offline.

Contents: a top-down rink plot with the puck trajectory and player paths, an
event timeline, and per event its evidence — the decisive frame with the
registered rink lines, puck and blades drawn, a zoomed crop at the deciding
line (the blue line for a zone entry, the goal line for a goal or an icing),
an overhead mini-map with the puck and every blade at the decisive frame, the
margin and its uncertainty. On the decisive frame each player's blades carry the
3-sigma ellipse of our vision's blade error at that spot (the rules decide at 3 sigma).
"""

from __future__ import annotations

import base64
import html
import json
from array import array
from collections.abc import Iterator
from pathlib import Path

import cv2
import numpy as np

from rulesfromvideo.rules.common import K_SIGMA

CM_PER_PX_TOPDOWN = 6.0
TEAM_BGR = {"home": (46, 16, 200), "away": (145, 61, 11), None: (90, 90, 90)}


def _png_data_uri(img_bgr: np.ndarray) -> str:
    ok, buf = cv2.imencode(".png", img_bgr)
    if not ok:
        return ""
    return "data:image/png;base64," + base64.b64encode(buf.tobytes()).decode("ascii")


def _jpg_data_uri(img_bgr: np.ndarray, quality: int = 85) -> str:
    ok, buf = cv2.imencode(".jpg", img_bgr, [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:
        return ""
    return "data:image/jpeg;base64," + base64.b64encode(buf.tobytes()).decode("ascii")


def evidence_puck_xy(ev: dict):
    """The puck position (x, y) rink m that an event's evidence names, or None.

    Our rules write ``puck_xy_rink_m`` (zone entry, goal) or ``puck_xy_at_goal_line_rink_m``
    (icing); ``puck_xy`` is accepted from other tools' events.
    """
    evidence = ev.get("evidence") or {}
    for key in ("puck_xy_rink_m", "puck_xy_at_goal_line_rink_m", "puck_xy"):
        xy = evidence.get(key)
        if xy is not None and len(xy) == 2 and all(np.isfinite(np.asarray(xy, dtype=float))):
            return xy
    return None


def _iter_jsonl(path: Path):
    """Records of a JSONL file, streamed; nothing when the file is missing."""
    from vision.jsonl import iter_jsonl

    return iter_jsonl(path) if path.is_file() else iter(())


def _topdown_xy(topdown_from_rink: np.ndarray, xy_rink_m: np.ndarray) -> np.ndarray:
    """(N,2) rink metres → (N,2) top-down pixels."""
    pts = np.asarray(xy_rink_m, dtype=np.float64).reshape(-1, 1, 2)
    return cv2.perspectiveTransform(pts, topdown_from_rink).reshape(-1, 2)


class _TrajectoryPoints:
    """The points `topdown_plot` draws, gathered one tracks record at a time.

    Keeps (x, y) rink metres of the puck and of each player's blade centre
    (per (id, team)), not the records, as flat ``array('d')`` buffers: 16 bytes a point
    (``points(key)`` gives them as an (N, 2) array).
    """

    def __init__(self) -> None:
        self._paths: dict[tuple, array] = {}
        self._puck = array("d")

    @property
    def puck(self) -> np.ndarray:
        """(N, 2) puck positions, rink m, in frame order."""
        return np.frombuffer(self._puck, dtype=np.float64).reshape(-1, 2)

    @property
    def paths(self) -> dict[tuple, np.ndarray]:
        """{(id, team): (N, 2) blade centres, rink m, in frame order}."""
        return {k: np.frombuffer(v, dtype=np.float64).reshape(-1, 2) for k, v in self._paths.items()}

    def add(self, rec: dict) -> None:
        """Take the puck and blade-centre points of one tracks.jsonl record."""
        if rec.get("puck"):
            self._puck.extend((float(rec["puck"]["x"]), float(rec["puck"]["y"])))
        for p in rec.get("players") or []:
            b = p.get("blades") or []
            try:
                x = (float(b[0][0]) + float(b[1][0])) / 2.0
                y = (float(b[0][1]) + float(b[1][1])) / 2.0
            except (IndexError, TypeError, ValueError):
                continue
            if np.isfinite(x) and np.isfinite(y):
                self._paths.setdefault((p.get("id"), p.get("team")), array("d")).extend((x, y))


def topdown_plot(rink, tracks, events: list[dict], cm_per_px: float = CM_PER_PX_TOPDOWN):
    """Top-down rink with the puck trajectory (black), player paths (team colour) and event marks.

    Args:
        rink: `RinkModel`.
        tracks: tracks.jsonl records (any iterable, streamed once) or a `_TrajectoryPoints`.
        events: events.json events.
        cm_per_px: resolution.

    Returns:
        (H, W, 3) uint8 BGR image.
    """
    img = rink.render_topdown(cm_per_px)
    td = rink.topdown_from_rink(cm_per_px)
    if not isinstance(tracks, _TrajectoryPoints):
        points = _TrajectoryPoints()
        for rec in tracks:
            points.add(rec)
        tracks = points
    paths, puck = tracks.paths, tracks.puck
    for (pid, team), pts in paths.items():
        if len(pts) > 1:
            uv = _topdown_xy(td, np.array(pts))
            cv2.polylines(img, [np.round(uv * 4).astype(np.int32)], False,
                          TEAM_BGR.get(team, TEAM_BGR[None]), 1, cv2.LINE_AA, shift=2)
    if len(puck) > 1:
        uv = _topdown_xy(td, np.array(puck))
        cv2.polylines(img, [np.round(uv * 4).astype(np.int32)], False, (0, 0, 0), 2, cv2.LINE_AA, shift=2)
    for ev in events:
        pos = evidence_puck_xy(ev)
        if pos is not None:
            u, v = _topdown_xy(td, np.array([pos], dtype=float))[0]
            cv2.circle(img, (int(round(u)), int(round(v))), 7, (0, 200, 255), 2, cv2.LINE_AA)
    return img


def blade_ellipse_rink(center_xy_rink_m, cov_m2, k: float = 3.0, n: int = 48) -> np.ndarray:
    """(n, 2) outline, rink m, of the k-sigma ellipse of a point with covariance ``cov_m2`` (2, 2), m²."""
    L = np.linalg.cholesky(np.asarray(cov_m2, dtype=np.float64))
    t = np.linspace(0.0, 2.0 * np.pi, n, endpoint=False)
    return np.asarray(center_xy_rink_m, dtype=np.float64) + k * (L @ np.stack([np.cos(t), np.sin(t)])).T


def draw_frame_overlay(frame_bgr: np.ndarray, rink, rink_from_image, record: dict | None,
                       blade_k_sigma: float | None = None, blade_factor_by_team: dict | None = None) -> np.ndarray:
    """Draw the registered rink markings, the puck and the blades on one video frame.

    Args:
        frame_bgr: (H, W, 3) uint8 frame; not modified.
        rink: `calibration.rink.RinkModel`.
        rink_from_image: (3, 3) homography raw image px → rink m, or None (nothing drawn).
        record: the frame's `tracks.jsonl` record, or None.
        blade_k_sigma: also outline each player's k-sigma ellipse of our vision's blade error
            (``vision.tracking.blade_covariance_rink``; the rules decide at 3 sigma), or None.
        blade_factor_by_team: ``vision.tracking.blade_sigma_factor_by_team`` of the game (each
            player's kit scales his ellipse as it scales the rules' sigma), or None.

    Returns:
        A new (H, W, 3) uint8 image.
    """
    img = frame_bgr.copy()
    if rink_from_image is None:
        cv2.putText(img, "calibration unknown", (20, 40), cv2.FONT_HERSHEY_SIMPLEX, 1.0, (0, 0, 255), 2)
        return img
    image_from_rink = np.linalg.inv(np.asarray(rink_from_image, dtype=np.float64))
    h, w = img.shape[:2]

    def to_img(xy):
        pts = np.asarray(xy, dtype=np.float64).reshape(-1, 1, 2)
        # Points behind the camera map to negative w; drop them rather than draw garbage.
        hom = np.concatenate([pts.reshape(-1, 2), np.ones((len(pts), 1))], axis=1) @ image_from_rink.T
        ok = hom[:, 2] > 1e-9
        uv = hom[:, :2] / np.where(ok, hom[:, 2], 1.0)[:, None]
        return uv, ok

    for m in rink.markings:
        geoms = getattr(m.geometry, "geoms", [m.geometry])
        for g in geoms:
            ring = np.asarray(g.exterior.coords)
            uv, ok = to_img(ring)
            if ok.all() and np.abs(uv).max() < 4 * max(w, h):
                cv2.polylines(img, [np.round(uv * 4).astype(np.int32)], True, (0, 255, 255), 1, cv2.LINE_AA, shift=2)
    if record:
        puck = record.get("puck")
        if puck:
            uv, ok = to_img([[puck["x"], puck["y"]]])
            if ok[0]:
                c = (int(round(uv[0, 0])), int(round(uv[0, 1])))
                color = (0, 255, 0) if puck.get("measured", True) else (0, 165, 255)
                cv2.circle(img, c, 9, color, 2, cv2.LINE_AA)
        players = record.get("players") or []
        covs = [None] * len(players)
        if blade_k_sigma:
            from vision.tracking import player_blade_covariances

            covs = player_blade_covariances(rink_from_image, w, h, players, blade_factor_by_team)
        for p, cov in zip(players, covs):
            color = TEAM_BGR.get(p.get("team"), (90, 90, 90))
            if cov is not None and np.all(np.isfinite(cov)):
                mid = np.mean(np.asarray(p["blades"], float).reshape(-1, 2), axis=0)
                uv, ok = to_img(blade_ellipse_rink(mid, cov, blade_k_sigma))
                if ok.all():
                    cv2.polylines(img, [np.round(uv * 4).astype(np.int32)], True, color, 1, cv2.LINE_AA, shift=2)
            uv, ok = to_img(p.get("blades") or [])
            for (u, v), good in zip(uv, ok):
                if good:
                    cv2.circle(img, (int(round(u)), int(round(v))), 3, color, -1)
    return img


def _frames_at(video_path: Path, wanted: set[int]) -> Iterator[tuple[int, np.ndarray]]:
    """Decode the clip once, yielding (index, frame) for the frames named in ``wanted``, in order
    (``vision.video.iter_frames_at``: the frames in between are not converted).

    One frame is alive at a time, so memory does not grow with the number of events.
    An unreadable clip yields nothing (the report then draws the rink model only).
    """
    from vision.video import VideoError, iter_frames_at

    try:
        yield from iter_frames_at(video_path, wanted)
    except VideoError:
        return


def _crop_around(img: np.ndarray, center_px, half: int = 80, zoom: int = 3) -> np.ndarray:
    h, w = img.shape[:2]
    cx, cy = int(round(center_px[0])), int(round(center_px[1]))
    x0, y0 = max(0, cx - half), max(0, cy - half)
    x1, y1 = min(w, cx + half), min(h, cy + half)
    if x1 <= x0 or y1 <= y0:
        return np.zeros((2 * half * zoom, 2 * half * zoom, 3), np.uint8)
    crop = img[y0:y1, x0:x1]
    return cv2.resize(crop, None, fx=zoom, fy=zoom, interpolation=cv2.INTER_NEAREST)


MINIMAP_CM_PER_PX = 10.0
LINE_CROP_CM_PER_PX = 2.0
LINE_CROP_HALF_M = 4.0  # the rink-view crop spans ± this around the line point


def event_line(ev: dict, game, rink, puck_xy=None) -> tuple[str, float, float] | None:
    """The line that decides `ev`: ("blue line" | "goal line", x of its centre (m), y to look at (m)).

    The end is the one the event's team attacks (entering team, shooting team,
    attacking team); without a team, the end of the puck. The y is the puck's
    (evidence `puck_xy`, else the decisive frame's tracks), else centre ice.
    Returns None for event types without a line (crease, extra types).
    """
    typ = ev.get("type")
    if typ not in ("zone_entry", "goal", "icing"):
        return None
    xy = evidence_puck_xy(ev) or puck_xy
    end = None
    if ev.get("team") in ("home", "away"):
        try:
            end = game.attack_dir(ev["team"])
        except (AttributeError, KeyError, ValueError):
            end = None
    if end is None:
        end = 1 if xy is None or float(xy[0]) >= 0 else -1
    if typ == "zone_entry":
        name, x = "blue line", end * rink.spec.blue_line_x_m
    else:
        name, x = "goal line", end * rink.spec.goal_line_x_m
    half_w = rink.spec.width_m / 2
    y = 0.0 if xy is None else float(np.clip(float(xy[1]), -half_w, half_w))
    return name, float(x), y


def _draw_top_objects(img, td, record: dict | None, radius_px: int) -> None:
    """Puck (black, orange when inferred) and blades (team colours) of one tracks record on a top-down image."""
    if not record:
        return
    for p in record.get("players") or []:
        blades = np.asarray(p.get("blades") or [], dtype=float).reshape(-1, 2)
        blades = blades[np.all(np.isfinite(blades), axis=1)]
        if len(blades):
            for u, v in _topdown_xy(td, blades):
                cv2.circle(img, (int(round(u)), int(round(v))), max(2, radius_px // 2),
                           TEAM_BGR.get(p.get("team"), TEAM_BGR[None]), -1, cv2.LINE_AA)
    puck = record.get("puck")
    if puck:
        u, v = _topdown_xy(td, np.array([[puck["x"], puck["y"]]]))[0]
        color = (0, 0, 0) if puck.get("measured", True) else (0, 140, 255)
        cv2.circle(img, (int(round(u)), int(round(v))), radius_px, color, -1, cv2.LINE_AA)


def minimap(rink, record: dict | None, line: tuple[str, float, float] | None, base: np.ndarray | None = None,
            cm_per_px: float = MINIMAP_CM_PER_PX) -> np.ndarray:
    """Overhead mini-map at one frame: the rink, the deciding line in red, the puck and every blade.

    Args:
        rink: `RinkModel`.
        record: the frame's tracks.jsonl record (or None).
        line: `event_line(...)` or None.
        base: a cached `rink.render_topdown(cm_per_px)` to draw on (copied).
        cm_per_px: resolution.

    Returns:
        (H, W, 3) uint8 BGR image.
    """
    img = (rink.render_topdown(cm_per_px) if base is None else base).copy()
    td = rink.topdown_from_rink(cm_per_px)
    if line is not None:
        half_w = rink.spec.width_m / 2
        a, b = _topdown_xy(td, np.array([[line[1], -half_w], [line[1], half_w]]))
        cv2.line(img, tuple(int(round(v)) for v in a), tuple(int(round(v)) for v in b), (0, 0, 230), 2, cv2.LINE_AA)
    _draw_top_objects(img, td, record, radius_px=max(3, int(round(30 / cm_per_px))))
    return img


def line_crop_topdown(rink, record: dict | None, line: tuple[str, float, float],
                      cm_per_px: float = LINE_CROP_CM_PER_PX, half_m: float = LINE_CROP_HALF_M) -> np.ndarray:
    """Zoomed overhead view (rink model, not pixels) of ± `half_m` around the deciding line point.

    Used when the decisive frame has no calibration or the line is out of view.
    """
    full = rink.render_topdown(cm_per_px)
    td = rink.topdown_from_rink(cm_per_px)
    _draw_top_objects(full, td, record, radius_px=max(2, int(round(3.81 / cm_per_px))))
    (u, v), = _topdown_xy(td, np.array([[line[1], line[2]]]))
    half = int(round(half_m * 100 / cm_per_px))
    h, w = full.shape[:2]
    x0, y0 = int(np.clip(u - half, 0, max(0, w - 2 * half))), int(np.clip(v - half, 0, max(0, h - 2 * half)))
    return full[y0:y0 + 2 * half, x0:x0 + 2 * half].copy()


def line_crop_image(drawn: np.ndarray, rink_from_image, line: tuple[str, float, float],
                    out_px: int = 320) -> np.ndarray | None:
    """Zoomed crop of the (overlay-drawn) decisive frame centred where the deciding line meets the puck's y.

    Returns None when that point is behind the camera or outside the frame.
    """
    image_from_rink = np.linalg.inv(np.asarray(rink_from_image, dtype=np.float64))
    hom = image_from_rink @ np.array([line[1], line[2], 1.0])
    if hom[2] <= 1e-9:
        return None
    u, v = hom[:2] / hom[2]
    h, w = drawn.shape[:2]
    if not (0 <= u < w and 0 <= v < h):
        return None
    half = max(16, min(w, h) // 6)
    crop = _crop_around(drawn, (u, v), half=half, zoom=1)
    return cv2.resize(crop, (out_px, out_px), interpolation=cv2.INTER_NEAREST)


def timeline_svg(events: list[dict], duration_s: float) -> str:
    """An SVG strip with one tick per event, coloured by verdict."""
    width, height = 900, 70
    duration_s = max(duration_s, 1e-6)
    colors = {"inconclusive": "#999999"}
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}">',
             f'<line x1="10" y1="40" x2="{width - 10}" y2="40" stroke="#333" stroke-width="2"/>']
    for ev in events:
        x = 10 + (width - 20) * float(ev.get("t", 0.0)) / duration_s
        verdict = ev.get("verdict", "")
        color = colors.get(verdict, "#c8102e" if verdict in ("offside", "icing", "goal", "occupied") else "#0b7d3b")
        label = html.escape(f'{ev.get("type")}: {verdict} @ {float(ev.get("t", 0.0)):.2f}s')
        parts.append(f'<circle cx="{x:.1f}" cy="40" r="6" fill="{color}"><title>{label}</title></circle>')
    for k in range(0, int(duration_s) + 1, max(1, int(duration_s // 10) or 1)):
        x = 10 + (width - 20) * k / duration_s
        parts.append(f'<text x="{x:.1f}" y="62" font-size="10" text-anchor="middle">{k}s</text>')
    parts.append("</svg>")
    return "".join(parts)


def write_report(out_dir: Path, video_path: Path, game, rink, events: list[dict]) -> Path:
    """Write `out_dir/report.html` from the files of one `analyze` run.

    The page is written as it is made: the top-down plot and the timeline first, then one
    section per event in frame order while the clip is decoded once, so memory holds one
    video frame and one section at a time however many events there are.

    Args:
        out_dir: the analyze output folder (reads tracks.jsonl and calibration.jsonl).
        video_path: the analysed clip, decoded again for the evidence frames.
        game: the `GameDescriptor`.
        rink: the `RinkModel`.
        events: the events written to events.json.

    Returns:
        The path of the report.
    """
    out_dir = Path(out_dir)
    # Stream both files and keep only what the page draws: the records and
    # calibrations of event frames, and the trajectory points of the top-down plot.
    wanted = {int(e["frame"]) for e in events if "frame" in e}
    plot_tracks = _TrajectoryPoints()
    by_frame: dict[int, dict] = {}
    n_frames, duration = 0, 0.0
    for rec in _iter_jsonl(out_dir / "tracks.jsonl"):
        n_frames += 1
        duration = rec["t"]
        plot_tracks.add(rec)
        if rec.get("frame") in wanted:
            by_frame[rec["frame"]] = rec
    calib: dict[int, dict] = {}
    n_calibrated = 0
    for c in _iter_jsonl(out_dir / "calibration.jsonl"):
        n_calibrated += c.get("H_rink_from_image") is not None
        if c.get("frame") in wanted:
            calib[c["frame"]] = c

    plot = topdown_plot(rink, plot_tracks, events)
    del plot_tracks
    head = f"""<!doctype html><html><head><meta charset="utf-8"><title>rulesfromvideo report</title>
<style>body{{font-family:sans-serif;margin:20px;max-width:1400px}} img.frame{{max-width:860px;width:100%}}
img.crop{{width:300px;margin-left:8px;image-rendering:pixelated}}
img.linecrop{{width:300px;image-rendering:pixelated}} img.minimap{{width:360px}} figure{{margin:0 0 0 8px}} .imgs{{display:flex;align-items:flex-start}}
table td{{padding:2px 10px}} section.event{{border-top:1px solid #ccc;margin-top:16px}}</style></head><body>
<h1>rulesfromvideo report</h1>
<table><tr><td>video</td><td>{html.escape(str(video_path))}</td></tr>
<tr><td>rules</td><td>{html.escape(str(game.rules))}</td></tr>
<tr><td>frames</td><td>{n_frames} ({n_calibrated} calibrated)</td></tr>
<tr><td>events</td><td>{len(events)}</td></tr></table>
<h2>Top-down</h2><img src="{_png_data_uri(plot)}" style="max-width:100%">
<h2>Timeline</h2>{timeline_svg(events, duration)}
<h2>Events</h2>"""
    # Sections in frame order (events.json is in time order, so the same order but for
    # ties); each event's frame is drawn when the single decoding pass reaches it.
    order = sorted(range(len(events)), key=lambda i: int(events[i].get("frame", -1)))
    frames = _frames_at(Path(video_path), wanted)
    current: tuple[int, np.ndarray] | None = next(frames, None)
    minimap_base = rink.render_topdown(MINIMAP_CM_PER_PX)
    path = out_dir / "report.html"
    tmp = path.with_name("report.html.tmp")
    try:
        with tmp.open("w", encoding="utf-8") as fh:
            fh.write(head)
            for i in order:
                ev = events[i]
                fi = int(ev.get("frame", -1))
                while current is not None and current[0] < fi:
                    current = next(frames, None)
                frame = current[1] if current is not None and current[0] == fi else None
                fh.write(_event_section(ev, fi, frame, calib.get(fi, {}), by_frame.get(fi), game, rink,
                                        minimap_base))
            if not events:
                fh.write("<p>No events.</p>")
            fh.write("\n</body></html>")
    except BaseException:
        tmp.unlink(missing_ok=True)  # no half page left beside the run's files
        raise
    finally:
        frames.close()
    tmp.replace(path)
    return path


def _event_section(ev: dict, fi: int, frame: np.ndarray | None, calib: dict, rec: dict | None,
                   game, rink, minimap_base: np.ndarray) -> str:
    """One event's `<section>`: decisive frame drawn, zoomed crops, overhead mini-map, margin."""
    H = calib.get("H_rink_from_image")
    puck = (rec or {}).get("puck")
    line = event_line(ev, game, rink, None if not puck else (puck["x"], puck["y"]))
    imgs = ""
    line_crop = None
    if frame is not None:
        # Blades with the 3-sigma ellipse of their error: the band in which the rules
        # cannot tell where a blade is (a line inside it leaves the call open).
        from vision.tracking import blade_sigma_factor_by_team

        drawn = draw_frame_overlay(frame, rink, None if H is None else np.array(H), rec,
                                   blade_k_sigma=K_SIGMA, blade_factor_by_team=blade_sigma_factor_by_team(game))
        imgs += (f'<figure><img class="frame" src="{_jpg_data_uri(drawn)}"><figcaption>frame {fi}; '
                 f'rings: {K_SIGMA:g}σ of each player\'s blade position</figcaption></figure>')
        pos = evidence_puck_xy(ev)
        if pos is not None and H is not None:
            uv = cv2.perspectiveTransform(np.array([[pos]], np.float64), np.linalg.inv(np.array(H)))[0, 0]
            imgs += f'<img class="crop" src="{_png_data_uri(_crop_around(drawn, uv))}">'
        if line is not None and H is not None:
            line_crop = line_crop_image(drawn, H, line)
    if line is not None:
        caption = f"{line[0]} (video)" if line_crop is not None else f"{line[0]} (rink model)"
        if line_crop is None:
            line_crop = line_crop_topdown(rink, rec, line)
        imgs += (f'<figure><img class="linecrop" title="{html.escape(caption)}" '
                 f'src="{_png_data_uri(line_crop)}"><figcaption>{html.escape(caption)}</figcaption></figure>')
    mm = minimap(rink, rec, line, base=minimap_base)
    imgs += (f'<figure><img class="minimap" src="{_png_data_uri(mm)}">'
             f'<figcaption>overhead, frame {fi}</figcaption></figure>')
    ev_json = html.escape(json.dumps(ev.get("evidence", {}), indent=1)[:3000])
    sigma = (ev.get("evidence") or {}).get("sigma_m")
    return (
        "<section class='event'>"
        f"<h3>{html.escape(str(ev.get('type')))} — {html.escape(str(ev.get('verdict')))}"
        f" ({html.escape(str(ev.get('team')))})</h3>"
        f"<p>t = {float(ev.get('t', 0)):.3f} s, frame {fi}, rule {html.escape(str(ev.get('rule')))}, "
        + ("margin not measured" if ev.get("margin_m") is None
           else f"margin {100 * float(ev['margin_m']):+.1f} cm")
        + (f" ± {100 * float(sigma):.1f} cm (1σ)" if sigma is not None else "")
        + f", confidence {float(ev.get('confidence') or 0):.2f}"
        + (f" — {html.escape(str(ev['evidence']['reason']))}"
           if isinstance(ev.get("evidence"), dict) and ev["evidence"].get("reason") else "")
        + "</p>"
        f"<div class='imgs'>{imgs}</div><details><summary>evidence</summary><pre>{ev_json}</pre></details>"
        "</section>\n"
    )
