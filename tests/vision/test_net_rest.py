"""NetWatch: new, still, puck-sized dark spots in a goal net after the puck came to it."""

from __future__ import annotations

import numpy as np

from vision.geometry import PlaneCamera
from vision.net_rest import NET_REST_WINDOW_S, NET_SPOT_BIRTH_FRAMES, NET_SPOT_STILL_FRAMES, NetWatch

FPS = 30.0
W, H = 1280, 720
ICE = 200
PX_PER_M = 40.0  # a puck 3 px across


def _watch() -> NetWatch:
    # IPC's goal (218 b, c): line at 26 m, posts 1.83 m apart inside, frame 1 m deep.
    return NetWatch(goal_line_x_m=26.0, post_inner_y_m=0.915, goal_depth_m=1.0, puck_diameter_m=0.0762,
                    puck_z_m=0.0127, fps=FPS)


def _camera(centre_x_m: float = 26.5) -> PlaneCamera:
    """Looking straight down at (centre_x_m, 0), PX_PER_M, image x along rink x."""
    H_image_from_rink = np.array([[PX_PER_M, 0.0, W / 2 - PX_PER_M * centre_x_m],
                                  [0.0, -PX_PER_M, H / 2],
                                  [0.0, 0.0, 1.0]])
    return PlaneCamera.from_homography(np.linalg.inv(H_image_from_rink), W, H)


def _px(cam: PlaneCamera, x: float, y: float) -> tuple[int, int]:
    uv = cam.H_image_from_rink @ [x, y, 1.0]
    return int(round(uv[0] / uv[2])), int(round(uv[1] / uv[2]))


def _frame(cam: PlaneCamera, dark: list[tuple[float, float, int]]) -> np.ndarray:
    """Plain ice with square dark spots (x m, y m, side px)."""
    v = np.full((H, W), ICE, np.uint8)
    for x, y, side in dark:
        u, w = _px(cam, x, y)
        h = side // 2
        v[w - h:w - h + side, u - h:u - h + side] = 40
    return v


def _approach(watch: NetWatch, cam: PlaneCamera, v: np.ndarray, frame: int = 0) -> None:
    watch.note(frame, {"x": 23.0, "y": 0.2, "measured": True}, v, cam)  # 3 m in front of the line


#: The first frame after ``_approach`` at 0 on which a new spot is not vetoed by that measurement.
LOST = NET_SPOT_BIRTH_FRAMES + 1


def test_a_puck_come_to_rest_in_the_net_is_found_where_it_lies_once_it_stayed_put():
    watch, cam = _watch(), _camera()
    _approach(watch, cam, _frame(cam, []))
    rest = (26.7, 0.4)  # 0.7 m behind the line, between the posts
    found = []
    for f in range(LOST, LOST + 5):
        found.append(watch.spots(f, _frame(cam, [(*rest, 3)]), cam))
    # Not before it has stayed put NET_SPOT_STILL_FRAMES frames: a stick poking in moves.
    assert [len(d) for d in found] == [0] * (NET_SPOT_STILL_FRAMES - 1) + [1] * (6 - NET_SPOT_STILL_FRAMES)
    xy = found[-1].data["xy_rink_m"][0]
    assert np.hypot(*(xy - rest)) < 0.03  # within a pixel (2.5 cm here)
    assert found[-1].data["net_rest"][0] == 1


def test_what_was_dark_before_the_puck_came_is_no_puck_and_nothing_is_watched_without_an_approach():
    watch, cam = _watch(), _camera()
    mark = (26.5, -0.5, 3)  # a dark mark in the net already on the reference (a frame's foot, a shadow)
    v = _frame(cam, [mark])
    # No puck seen in front of this goal yet: no reference, nothing watched.
    assert all(len(watch.spots(f, v, cam)) == 0 for f in range(4))
    _approach(watch, cam, v, frame=4)
    assert all(len(watch.spots(f, v, cam)) == 0 for f in range(4 + LOST, 10 + LOST))


def test_large_new_dark_blobs_and_spots_outside_the_net_are_not_the_puck():
    watch, cam = _watch(), _camera()
    _approach(watch, cam, _frame(cam, []))
    big = (26.5, 0.0, 20)  # a player's sledge in the net: 20 px square, 40 times a puck
    outside = (27.6, 0.0, 3)  # behind the net (1.6 m from the line)
    beside = (26.5, 1.4, 3)  # beside the net
    for f in range(LOST, LOST + 7):
        assert len(watch.spots(f, _frame(cam, [big, outside, beside]), cam)) == 0


def test_the_net_is_watched_a_window_after_the_approach_only():
    watch, cam = _watch(), _camera()
    _approach(watch, cam, _frame(cam, []))
    late = int(NET_REST_WINDOW_S * FPS) + 1  # (> LOST)
    v = _frame(cam, [(26.7, 0.4, 3)])
    assert all(len(watch.spots(f, v, cam)) == 0 for f in range(late, late + 5))


def test_a_spot_appearing_while_the_puck_was_measured_elsewhere_is_not_the_puck():
    """Something dark come into the net while the puck is still a metre and a half out: it cannot
    be the puck, not even once the puck is lost from view (goal-camera tuning render 1737). A
    puck measured elsewhere after a spot appeared does not unmake it (the track may have taken a
    player's dark parts once the puck was lost in the net: tuning render 1714)."""
    watch, cam = _watch(), _camera()
    _approach(watch, cam, _frame(cam, []))
    v = _frame(cam, [(26.5, -0.3, 3)])
    assert len(watch.spots(LOST, v, cam)) == 0
    watch.note(LOST, {"x": 24.9, "y": -0.35, "measured": True}, v, cam)  # the puck, 1.6 m from it
    assert all(len(watch.spots(f, v, cam)) == 0 for f in range(LOST + 1, LOST + 8))  # lost: still not it
    # Born one frame after the puck was measured 1.6 m away, sliding at 3 m/s: not it either.
    watch, cam = _watch(), _camera()
    _approach(watch, cam, _frame(cam, []))
    watch.note(LOST - 1, {"x": 24.8, "y": -0.35, "measured": True}, _frame(cam, []), cam)
    watch.note(LOST, {"x": 24.9, "y": -0.35, "measured": True}, _frame(cam, []), cam)
    assert all(len(watch.spots(f, v, cam)) == 0 for f in range(LOST + 1, LOST + 8))
    # Born unseen, then the puck "measured" far off: it stays a candidate.
    watch, cam = _watch(), _camera()
    _approach(watch, cam, _frame(cam, []))
    for f in range(LOST, LOST + 6):
        found = watch.spots(f, v, cam)
        watch.note(f, {"x": 21.0, "y": 3.4, "measured": True} if f > LOST else None, v, cam)
    assert len(found) == 1


def test_a_shot_come_to_rest_two_frames_after_it_was_seen_in_front_is_the_puck():
    """A shot at 18 m/s seen 0.4 m in front of the line lies 0.9 m deep two frames later (tuning
    render 1539): 1.4 m from where it was seen, within its reach."""
    watch, cam = _watch(), _camera()
    _approach(watch, cam, _frame(cam, []))
    watch.note(LOST - 1, {"x": 25.0, "y": 0.3, "measured": True}, _frame(cam, []), cam)
    watch.note(LOST, {"x": 25.6, "y": 0.3, "measured": True}, _frame(cam, []), cam)
    v = _frame(cam, [(26.95, 0.3, 3)])
    found = [watch.spots(f, v, cam) for f in range(LOST + 2, LOST + 6)]
    assert len(found[-1]) == 1


def test_no_spot_on_the_line_nor_at_a_player_is_the_puck():
    """The goal line, where a goalkeeper's pads and stick reach over it, is not watched, nor the
    spots next to a player's seat (his sledge's dark parts go wherever he goes)."""
    watch, cam = _watch(), _camera()
    _approach(watch, cam, _frame(cam, []))
    on_line = (26.1, 0.3, 3)
    at_player = (26.6, -0.5, 3)
    seats = np.array([[26.2, -0.9]])  # 0.5 m from it
    v = _frame(cam, [on_line, at_player])
    assert all(len(watch.spots(f, v, cam, seats_xy_rink_m=seats)) == 0 for f in range(LOST, LOST + 5))
    assert len([watch.spots(f, v, cam) for f in range(LOST + 5, LOST + 9)][-1]) == 1  # the player gone: new


def _tilted_camera(height_m: float, back_m: float) -> PlaneCamera:
    """A camera ``back_m`` in front of the goal at (26, 0), ``height_m`` up, looking at it."""
    C = np.array([26.0 - back_m, 0.0, height_m])
    fwd = np.array([26.0, 0.0, 0.0]) - C
    fwd /= np.linalg.norm(fwd)
    right = np.cross(fwd, [0.0, 0.0, 1.0])
    right /= np.linalg.norm(right)
    down = np.cross(fwd, right)
    R = np.stack([right, down, fwd])  # camera_from_rink
    K = np.array([[1000.0, 0.0, W / 2], [0.0, 1000.0, H / 2], [0.0, 0.0, 1.0]])
    t = -R @ C
    H_image_from_rink = K @ np.stack([R[:, 0], R[:, 1], t], axis=1)
    return PlaneCamera.from_homography(np.linalg.inv(H_image_from_rink), W, H)


def test_only_a_net_seen_steeply_from_above_is_watched():
    """From a broadcast height the players in front of the goal are drawn over the net's ice."""
    for height, back, watched in ((8.0, 30.0, False), (20.0, 8.0, True)):
        watch, cam = _watch(), _tilted_camera(height, back)
        _approach(watch, cam, _frame(cam, []))
        v = _frame(cam, [(26.7, 0.4, 3)])
        found = [watch.spots(f, v, cam) for f in range(LOST, LOST + 4)]
        assert len(found[-1]) == int(watched), (height, back)


def test_a_camera_that_moved_since_the_reference_compares_nothing():
    """The goal frame stands up to 1.22 m above the ice: once the camera moved, the ice's
    homography draws it elsewhere, and its tubes would be new spots (suite s34, an overhead
    camera following an icing). A camera unmoved within the calibration's jitter compares."""
    rest = (26.8, 0.2, 3)
    for moved_m, found_one in ((0.02, True), (1.0, False)):  # 0.8 px; 40 px
        watch, cam0, cam1 = _watch(), _camera(26.5), _camera(26.5 - moved_m)
        _approach(watch, cam0, _frame(cam0, []))
        found = [watch.spots(f, _frame(cam1, [rest]), cam1) for f in range(LOST, LOST + 4)]
        assert len(found[-1]) == int(found_one), moved_m


def _render(tmp_path, scenario: str, camera: str, seed: int):
    """(truth, game, true calibration per frame) of a drawn-kit render."""
    from rulesfromvideo.game import GameDescriptor
    from vision.evaluation import load_truth, truth_calibration
    from vision.sim.synth import synth_clip

    synth_clip(scenario, camera, seed, tmp_path, kits="drawn")
    truth = load_truth(tmp_path)
    return truth, GameDescriptor.from_file(tmp_path / "game.json"), truth_calibration(truth)


def _track(tmp_path, truth, game, H, watch: bool) -> list[dict | None]:
    """FrameTracker's puck record per frame; ``watch`` False: no net is ever watched."""
    from calibration.rink import RinkModel
    from vision.tracking import FrameTracker
    from vision.video import iter_frames

    tracker = FrameTracker(RinkModel(game.rink_spec()), game, truth["fps"])
    if not watch:
        tracker.net_watch.note = lambda *a, **k: None
    return [tracker.update(frame, i, i / truth["fps"], H[i]).puck for i, frame in iter_frames(tmp_path / "clip.mp4")]


def _rest_recall(truth, pucks, goal_x_m: float) -> tuple[int, int]:
    """(frames measured within 15 cm, frames) of a visible puck lying still beyond the goal line."""
    frames = truth["frames"]
    rest = [i for i in range(1, len(frames)) if frames[i]["puck"]["visible"] and frames[i]["puck"]["x"] > goal_x_m
            and np.hypot(frames[i]["puck"]["x"] - frames[i - 1]["puck"]["x"],
                         frames[i]["puck"]["y"] - frames[i - 1]["puck"]["y"]) < 0.01]
    hit = [i for i in rest if pucks[i] is not None and pucks[i]["measured"]
           and np.hypot(pucks[i]["x"] - frames[i]["puck"]["x"], pucks[i]["y"] - frames[i]["puck"]["y"]) < 0.15]
    return len(hit), len(rest)


def test_a_puck_shot_into_the_net_seen_from_above_is_tracked_lying_there(tmp_path):
    """Drawn-kit tuning render 1434 (overhead, a goal at frame 41): the puck lies in the net on the
    goal frame's corner from frame 44 on, a dark pixel or two the verifier doubts (p 0.05); the track
    ended at the frame and the puck was unknown to the end of the clip. With the nets watched it is
    measured where it lies."""
    truth, game, H = _render(tmp_path, "goal", "overhead", 1434)
    goal_x = float(game.rink_spec().goal_line_x_m)
    hit, n = _rest_recall(truth, _track(tmp_path, truth, game, H, watch=True), goal_x)
    assert n >= 40 and hit >= 0.85 * n, (hit, n)
    off, _ = _rest_recall(truth, _track(tmp_path, truth, game, H, watch=False), goal_x)
    assert off <= 0.1 * n, (off, n)
