"""Renderer: painted landmarks land where the camera projects them; occlusion; determinism."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from calibration.rink import RinkModel, RinkSpec
from vision.sim.camera import Camera, make_rig
from vision.sim.looks import HELD_OUT_LOOK_SEEDS, Look, training_look
from vision.sim.render import Renderer
from vision.sim.scene import PlayerState, PuckState, SceneState


def clean_look() -> Look:
    """Paint and geometry only: no noise, texture, reflections, logos, glass or graphics."""
    return Look(ice_mottle=0.0, scratch_count=0, snow_amount=0.0, paint_fade=0.0, logos=[],
                reflection_strength=0.0, glass=False, vignetting=0.0, pan_blur=False, puck_blur=False,
                noise_sigma=0.0, score_bug=False)


@pytest.fixture(scope="module")
def rink() -> RinkModel:
    return RinkModel(RinkSpec.for_layout("ipc"))


@pytest.fixture(scope="module")
def clean(rink) -> Renderer:
    return Renderer(rink, seed=1, look=clean_look(), texture_cm_per_px=3.0)


def player(pid, x, y, heading_deg=0.0, team="home", number=7, role="skater", kind="sledge"):
    h = math.radians(heading_deg)
    f, lft = np.array([math.cos(h), math.sin(h)]), np.array([-math.sin(h), math.cos(h)])
    S = np.array([x, y])
    blades = np.array([S + lft * 0.12, S - lft * 0.12])
    fp = np.array([S - f * 0.25 + lft * 0.2, S + f * 1.0 + lft * 0.1, S + f * 1.0 - lft * 0.1, S - f * 0.25 - lft * 0.2])
    stick = S + f * 0.7 - lft * 0.45
    return PlayerState(pid, team, role, kind, S, h, blades, fp, np.array([stick[0], stick[1], 0.02]), number,
                       (46, 16, 200) if team == "home" else (120, 50, 10))


def _disc_mask(cam: Camera, centre_xy, radius_m: float) -> np.ndarray:
    ang = np.linspace(0, 2 * np.pi, 64, endpoint=False)
    ring = np.column_stack([centre_xy[0] + radius_m * np.cos(ang), centre_xy[1] + radius_m * np.sin(ang), np.zeros(64)])
    m = np.zeros((cam.height, cam.width), np.uint8)
    cv2.fillPoly(m, [np.round(cam.project(ring)).astype(np.int32)], 1)
    return m.astype(bool)


def _centroid(weight: np.ndarray, mask: np.ndarray) -> np.ndarray:
    w = np.where(mask, weight, 0.0)
    ys, xs = np.mgrid[: w.shape[0], : w.shape[1]]
    return np.array([(w * xs).sum() / w.sum(), (w * ys).sum() / w.sum()])


def _blueness(frame: np.ndarray) -> np.ndarray:
    f = frame.astype(np.float64)
    return np.clip(f[:, :, 0] - f[:, :, 2] - 20.0, 0, None)


def _redness(frame: np.ndarray) -> np.ndarray:
    f = frame.astype(np.float64)
    return np.clip(f[:, :, 2] - f[:, :, 0] - 20.0, 0, None)


CAMS = {
    "pinhole": dict(dist=None, roll_deg=0.0),
    "distorted": dict(dist=[-0.075, 0.01, 2e-4, -3e-4, 0.0], roll_deg=0.8),
}


@pytest.mark.parametrize("lens", sorted(CAMS))
def test_centre_spot_and_faceoff_spots_land_where_projected(lens, clean, rink):
    # Off-centre target so the spots sit away from the principal point, where distortion bites.
    cam = Camera.from_look_at([2.0, -19.0, 9.0], [3.5, 0.0, 0.0], 55.0, 640, 360, **CAMS[lens])
    empty = SceneState(0.0, None, [])
    frame, info = clean.render(empty, cam)
    assert frame.shape == (360, 640, 3) and frame.dtype == np.uint8
    assert info["players"] == {} and info["puck"] is None
    spots = [("centre_spot", _blueness, rink.spec.centre_spot_diameter_m / 2)]
    spots += [(f"neutral_spot_+x_{s}y", _redness, rink.spec.faceoff_spot_diameter_m / 2) for s in "+-"]
    checked = 0
    for name, colour, r in spots:
        xyz = rink.landmarks[name]
        if not cam.sees(xyz[None], margin_px=20)[0]:
            continue
        mask = _disc_mask(cam, xyz[:2], r + 0.12)
        c = _centroid(colour(frame), mask)
        p = cam.project(xyz[None])[0]
        assert np.linalg.norm(c - p) < 0.5, (name, c, p)
        checked += 1
    assert checked == 3


def test_blue_line_runs_where_projected_in_blueline_camera(clean, rink):
    cam = make_rig("blueline", rink, seed=4, width=640, height=360, end=+1).camera_at(0.0)
    cam = Camera(cam.K, [-0.06, 0.0, 0.0, 0.0, 0.0], cam.R, cam.t, cam.width, cam.height)
    frame, _ = clean.render(SceneState(0.0, None, []), cam)
    xb = rink.spec.blue_line_x_m
    ys = np.linspace(-rink.spec.width_m / 2 + 3.0, rink.spec.width_m / 2 - 3.0, 200)
    line_px = cam.project(np.column_stack([np.full_like(ys, xb), ys, np.zeros_like(ys)]))
    blue = _blueness(frame)
    errs = []
    for v in range(max(5, int(line_px[:, 1].min()) + 2), min(355, int(line_px[:, 1].max()) - 2), 15):
        # where the line's centre crosses image row v
        k = np.argsort(line_px[:, 1])
        u = np.interp(v, line_px[k, 1], line_px[k, 0])
        lo, hi = int(u) - 15, int(u) + 16
        row = blue[v, lo:hi]
        if row.sum() < 50:
            continue
        errs.append(abs((row * np.arange(lo, hi)).sum() / row.sum() - u))
    assert len(errs) >= 8
    assert max(errs) < 0.5, errs


@pytest.mark.parametrize("seed", [2, 5])
def test_goal_line_and_posts_in_goalcam(seed, clean, rink):
    cam = make_rig("goalcam", rink, seed=seed, width=640, height=360, end=+1).camera_at(0.0)
    frame, _ = clean.render(SceneState(0.0, None, []), cam)
    gx = rink.spec.goal_line_x_m
    red = _redness(frame)
    errs = []
    for y in np.r_[np.linspace(-5.0, -2.4, 5), np.linspace(2.4, 5.0, 5)]:
        pts = cam.project(np.array([[gx, y, 0.0], [gx, y + 0.02, 0.0]]))
        u, v = pts[0]
        if not (5 < u < 635 and 15 < v < 345):
            continue
        col = red[int(v) - 12:int(v) + 13, int(round(u))]
        rows = np.arange(int(v) - 12, int(v) + 13)
        # expected row at this (integer) column from the projected line through two points
        a, b = cam.project(np.array([[gx, y - 0.3, 0.0], [gx, y + 0.3, 0.0]]))
        v_exp = a[1] + (round(u) - a[0]) * (b[1] - a[1]) / (b[0] - a[0])
        errs.append(abs((col * rows).sum() / col.sum() - v_exp))
    assert len(errs) >= 6
    assert max(errs) < 0.6, errs
    # Both posts drawn red where they project (the white back frame may hide bits of them).
    for post in rink.goal_post_centres_xy(+1):
        zs = np.linspace(0.3, 1.1, 9)
        uv = np.round(cam.project(np.column_stack([np.full(9, post[0]), np.full(9, post[1]), zs]))).astype(int)
        hits = [red[v - 1:v + 2, u - 1:u + 2].max() > 60 for u, v in uv]
        assert sum(hits) >= 5, (post, hits)


def test_visibility_reports_occlusion_and_out_of_frame(clean):
    cam = Camera.from_look_at([0.0, -20.0, 2.0], [0.0, 0.0, 0.5], 30.0, 640, 360)
    near, behind, away = player(1, 0.0, -8.0, 90.0), player(2, 0.15, -5.5, 90.0, team="away"), player(3, 25.0, 10.0)
    puck = PuckState(np.array([3.0, -6.0, 0.0127]))
    frame, info = clean.render(SceneState(0.0, puck, [near, behind, away]), cam)
    assert info["players"][1]["unoccluded_fraction"] > 0.97
    assert info["players"][1]["in_frame"] and info["players"][1]["in_frame_fraction"] == 1.0
    assert info["players"][2]["in_frame"] and info["players"][2]["unoccluded_fraction"] < 0.6
    assert not info["players"][3]["in_frame"] and info["players"][3]["visible_fraction"] == 0.0
    assert info["puck"]["in_frame"] and info["puck"]["unoccluded_fraction"] > 0.95
    # The puck is drawn black where it projects; the near player's bounding box holds its seat.
    u, v = np.round(cam.project(puck.xyz_rink_m[None])[0]).astype(int)
    assert frame[v, u].max() < 60
    x0, y0, x1, y1 = info["players"][1]["bbox_px"]
    su, sv = cam.project(np.array([[0.0, -8.0, 0.2]]))[0]
    assert x0 <= su <= x1 and y0 <= sv <= y1


@pytest.mark.parametrize("heading_deg", [0.0, 90.0, 180.0, 270.0])
def test_puck_on_the_stick_blade_stays_in_view(clean, heading_deg):
    """A carried puck sits against the blade's face, so a camera sees it (not a blade painted over it).

    The blade plate stands 5.5 cm tall beside a 2.54 cm puck: from overhead most of the puck
    shows whichever way the carrier heads; an elevated side camera sees it whenever the stick is
    on the camera's side of the carrier (headings 0 and 270 here; at 90 and 180 the seated
    player's body hides it, as it would on the ice).
    """
    carrier = player(1, 0.0, -4.0, heading_deg)
    puck = PuckState(np.asarray(carrier.stick_blade_rink_m, float) * [1, 1, 0] + [0, 0, 0.0127])
    side = Camera.from_look_at([0.0, -25.0, 9.0], [0.0, -4.0, 0.0], 25.0, 640, 360)
    overhead = Camera.from_look_at([0.0, -4.0, 14.0], [0.0, -3.99, 0.0], 40.0, 640, 360)
    cams = [overhead, side] if heading_deg in (0.0, 270.0) else [overhead]
    for cam in cams:
        _, info = clean.render(SceneState(0.0, puck, [carrier]), cam)
        assert info["puck"]["unoccluded_fraction"] > 0.5, (heading_deg, info["puck"])


def test_same_seed_same_bytes_and_seeds_differ(rink):
    cam = make_rig("broadcast", rink, seed=0, width=320, height=180).camera_at(0.0, (0.0, 0.0))
    st = SceneState(0.5, PuckState(np.array([1.0, 0.5, 0.0127])), [player(4, 0.0, 0.0, 30.0), player(5, 2.0, 1.0)])
    a, ia = Renderer(rink, seed=5, texture_cm_per_px=8.0).render(st, cam)
    b, ib = Renderer(rink, seed=5, texture_cm_per_px=8.0).render(st, cam)
    c, _ = Renderer(rink, seed=6, texture_cm_per_px=8.0).render(st, cam)
    assert a.tobytes() == b.tobytes()
    assert ia == ib
    assert a.tobytes() != c.tobytes()


def test_every_preset_renders_its_subject(clean, rink):
    st = SceneState(0.0, PuckState(np.array([rink.spec.goal_line_x_m - 1.0, 0.3, 0.0127])),
                    [player(1, rink.spec.goal_line_x_m - 2.5, -1.0, 0.0)])
    for preset in ("broadcast", "overhead", "goalcam", "blueline"):
        cam = make_rig(preset, rink, seed=3, width=320, height=180, end=+1).camera_at(
            0.0, (rink.spec.goal_line_x_m - 3.0, 0.0))
        frame, info = clean.render(st, cam)
        assert frame.shape == (180, 320, 3)
        if preset != "blueline":  # the blue-line camera films the line, not the crease
            assert info["players"][1]["in_frame"], preset
            assert info["puck"]["in_frame"], preset


def test_motion_blur_smears_the_puck_along_its_velocity(rink):
    look = clean_look()
    look.puck_blur = True
    look.shutter_frac = 1.0
    r = Renderer(rink, seed=1, look=look, texture_cm_per_px=4.0)
    cam = Camera.from_look_at([0.0, -12.0, 5.0], [0.0, 0.0, 0.0], 25.0, 320, 180)
    st = SceneState(0.0, PuckState(np.array([0.0, 0.0, 0.0127])), [])
    sharp, _ = r.render(st, cam)
    blurred, _ = r.render(st, cam, puck_velocity_mps=np.array([30.0, 0.0, 0.0]), frame_interval_s=1 / 30)
    dark_sharp = (sharp.max(2) < 120).sum()
    dark_blur = (blurred.min(2) < sharp.min(2) - 10).sum()
    assert dark_blur > 2 * dark_sharp  # a streak, wider than the puck
    cols = np.nonzero((blurred.astype(int).sum(2) < sharp.astype(int).sum(2) - 30).any(0))[0]
    rows = np.nonzero((blurred.astype(int).sum(2) < sharp.astype(int).sum(2) - 30).any(1))[0]
    assert np.ptp(cols) > 3 * max(1, np.ptp(rows))  # along +x, the image's horizontal


def test_looks_vary_and_held_out_seeds_are_skipped():
    a, b = Look.from_seed(1), Look.from_seed(2)
    assert a.to_dict() != b.to_dict()
    assert Look.from_seed(1).to_dict() == a.to_dict()
    for i in HELD_OUT_LOOK_SEEDS:
        assert training_look(i).to_dict() != Look.from_seed(i).to_dict()
    for s in range(30):
        lk = Look.from_seed(s)
        assert 1.17 <= lk.board_height_m <= 1.22 and 0.15 <= lk.kick_plate_height_m <= 0.25


@pytest.mark.parametrize("lens", sorted(CAMS))
def test_goal_line_meets_the_boards_where_the_landmark_projects(lens, clean, rink):
    # Broadcast-like view of the +x end; the far-side (+y) board base is in view.
    cam = Camera.from_look_at([12.0, -21.0, 9.0], [18.0, 7.0, 0.0], 50.0, 640, 360, **CAMS[lens])
    frame, _ = clean.render(SceneState(0.0, None, []), cam)
    f = frame.astype(np.float64)
    yellow = np.minimum(f[:, :, 1], f[:, :, 2]) - f[:, :, 0]  # kick plate: R, G high, B low
    for name in ("goal_line_+x_board_+y", "blue_line_+x_far_board_+y"):
        xyz = rink.landmarks[name]
        assert cam.sees(xyz[None], margin_px=20)[0], name
        u, v = cam.project(xyz[None])[0]
        # Up the column through the landmark: ice, then the kick plate from the board base.
        col = yellow[int(v) - 10:int(v) + 11, int(round(u))]
        rows = np.arange(int(v) - 10, int(v) + 11)
        half = 0.5 * col.max()
        k = np.nonzero(col >= half)[0].max()  # lowest kick-plate row
        edge = rows[k] + (col[k] - half) / (col[k] - col[k + 1])  # sub-pixel crossing (hard edge: ±0.5 px)
        # The base curve's row at this column (the landmark is on it, at a fractional column).
        xs = xyz[0] + np.array([-0.1, 0.1])
        a, b = cam.project(np.array([[x, rink.spec.board_y_at(x), 0.0] for x in xs]))
        v_col = a[1] + (round(u) - a[0]) * (b[1] - a[1]) / (b[0] - a[0])
        assert abs(edge - v_col) < 1.0, (name, edge, v_col)
