"""Marking segmentation and line fitting on hand-drawn frames with varied looks."""

import cv2
import numpy as np
import pytest

from calibration.markings import fit_lines, segment_markings
from calibration.rink import RinkModel, RinkSpec
from calibration.synthetic import Look, draw_frame, look_at_homography, random_look

RINK = RinkModel(RinkSpec.for_layout("ipc"))
W, H = 640, 360


def _overhead(look, seed=0):
    image_from_rink = look_at_homography([0.3, -2.0, 40.0], [0, 0, 0], 78, W, H)
    return draw_frame(RINK, image_from_rink, W, H, look=look, seed=seed, n_players=6, cm_per_px=4.0), image_from_rink


def _x_of_line_at_row(ln, y):
    a, b, c = ln.abc
    return -(b * y + c) / a


@pytest.mark.parametrize("look_seed", [0, 1, 2, 3])
def test_five_lines_across_found_in_colour_order(look_seed):
    look = Look() if look_seed == 0 else random_look(np.random.default_rng(look_seed))
    frame, image_from_rink = _overhead(look, look_seed)
    masks = segment_markings(frame)
    assert masks.has_ice and masks.ice_fraction > 0.5
    lines = fit_lines(masks.red, "red", 0.25 * H) + fit_lines(masks.blue, "blue", 0.25 * H)
    y = H / 2
    lines.sort(key=lambda ln: _x_of_line_at_row(ln, y))
    assert [ln.colour for ln in lines] == ["red", "blue", "red", "blue", "red"]
    # Each fitted line lies on the projection of its rink line (within 3 px: these
    # lines seed hypotheses; occluding players touching a line may tilt it a little).
    spec = RINK.spec
    for ln, x_m in zip(lines, [-spec.goal_line_x_m, -spec.blue_line_x_m, 0.0, spec.blue_line_x_m, spec.goal_line_x_m]):
        ends = np.array([[x_m, -8.0, 1.0], [x_m, 8.0, 1.0]]) @ image_from_rink.T
        ends = ends[:, :2] / ends[:, 2:]
        dist = np.abs(ends @ ln.abc[:2] + ln.abc[2])
        assert dist.max() < 3.0, (x_m, dist)


def test_paint_masks_follow_the_ice_not_a_palette():
    # Dim, yellowish venue with orange-ish red and teal-ish blue paint.
    look = Look(ice_bgr=(170, 200, 210), red_bgr=(40, 60, 200), blue_bgr=(140, 90, 30), gain=0.7, noise_sigma=3.0)
    frame, image_from_rink = _overhead(look)
    masks = segment_markings(frame)
    # Centre of the blue line +x and of the centre line are classified right.
    for x_m, colour in [(RINK.spec.blue_line_x_m, "blue"), (0.0, "red")]:
        p = image_from_rink @ np.array([x_m, 3.0, 1.0])
        u, v = np.round(p[:2] / p[2]).astype(int)
        assert getattr(masks, colour)[v, u] == 255
        other = "red" if colour == "blue" else "blue"
        assert getattr(masks, other)[v, u] == 0
    # Open ice is neither.
    p = image_from_rink @ np.array([4.0, -10.0, 1.0])
    u, v = np.round(p[:2] / p[2]).astype(int)
    assert masks.red[v, u] == 0 and masks.blue[v, u] == 0 and masks.ice[v, u] == 255


def test_no_ice_frame():
    rng = np.random.default_rng(0)
    frame = rng.integers(0, 90, (H, W, 3), dtype=np.uint8)
    masks = segment_markings(frame)
    assert not masks.has_ice
    assert not masks.red.any() and not masks.blue.any()


def test_faceoff_circles_fitted_as_ellipses():
    import cv2

    from calibration.markings import fit_ellipses

    frame, image_from_rink = _overhead(random_look(np.random.default_rng(7)), 7)
    masks = segment_markings(frame)
    ellipses = fit_ellipses(masks.red, "red", min_axis_px=20)
    spec = RINK.spec
    r = spec.faceoff_circle_radius_m - spec.thin_line_width_m / 2
    ang = np.linspace(0, 2 * np.pi, 200, endpoint=False)
    for sx in (-1, 1):
        for sy in (-1, 1):
            # Reference: the ellipse through the projected circle (a projected
            # circle's centre is not the projected centre, so fit the image).
            ring = np.c_[sx * spec.end_spot_x_m + r * np.cos(ang), sy * spec.end_spot_y_m + r * np.sin(ang), np.ones(200)]
            px = ring @ image_from_rink.T
            px = (px[:, :2] / px[:, 2:]).astype(np.float32)
            (cx, cy), axes, _ = cv2.fitEllipse(px)
            d = [np.linalg.norm(e.centre - [cx, cy]) for e in ellipses]
            assert d and min(d) < 3.0, ((cx, cy), d)  # ~30 cm at this scale: hypothesis-grade
            best = ellipses[int(np.argmin(d))]
            # Contours of a 1–2 px ring lie on its pixel boundaries: diameters within 5 px.
            assert np.allclose(sorted(best.axes), sorted(axes), atol=5.0)


def _plain_ice(w=W, h=H):
    frame = np.full((h, w, 3), (235, 232, 228), np.uint8)  # bluish-white ice (BGR)
    frame[: h // 6] = (60, 50, 45)  # crowd / boards strip at the top
    return frame


def test_saturated_jersey_does_not_erase_a_fainter_line():
    # A motion-blurred broadcast view of a red-jersey team: the strongest "red" in
    # view is the jerseys; the line's own (blurred, less saturated) red must still
    # be half-coverage segmented against its local peak, not the jersey's.
    frame = _plain_ice()
    line_x = 300
    frame[H // 6:, line_x - 6:line_x + 6] = (150, 150, 225)  # faded red line, 12 px wide
    for cx in (80, 160, 480, 560):  # saturated red jerseys
        frame[150:200, cx - 15:cx + 15] = (30, 20, 200)
    frame = cv2.GaussianBlur(frame, (1, 9), 0)  # vertical pan blur
    masks = segment_markings(frame)
    row = masks.red[250]
    on = np.flatnonzero(row[line_x - 20:line_x + 20]) + line_x - 20
    assert len(on) > 0, "faded line lost from the red mask"
    # Half-coverage edges of the 12 px line, within a pixel.
    assert abs(on.min() - (line_x - 6)) <= 1 and abs(on.max() - (line_x + 5)) <= 1


def test_wide_line_splitting_the_view_keeps_its_interior():
    # A zoomed centre line runs top to bottom and cuts the ice region in two.
    frame = _plain_ice()
    line_x = 320
    frame[H // 6:, line_x - 10:line_x + 10] = (40, 40, 200)  # 20 px red line
    masks = segment_markings(frame)
    assert masks.ice[250, line_x] == 255, "the line between the two ice halves is on the ice"
    assert masks.red[250, line_x - 9:line_x + 9].min() == 255
    # The crowd strip stays off the ice.
    assert masks.ice[10, line_x] == 0


def test_warm_tint_near_the_camera_is_still_ice():
    # Highlights clipped to neutral white far away, unclipped ice near the camera tinted
    # warm by the light (a* -2, b* +7 in 8-bit Lab, as in a tuning render where the whole
    # near half of a blue-line view fell off the ice and took the centre line with it).
    frame = _plain_ice()
    frame[H // 6:] = (255, 255, 255)
    frame[3 * H // 5:] = (210, 228, 230)  # BGR; Lab (230, 126, 137): warm, not clipped
    line_y = 4 * H // 5
    frame[line_y - 5:line_y + 5, 40:600] = (40, 40, 200)  # red line in the tinted part
    masks = segment_markings(frame)
    assert masks.ice[3 * H // 5 + 10:, 20:620].min() == 255, "the tinted ice is part of the ice region"
    assert masks.red[line_y, 60:580].min() == 255, "the red line on the tinted ice is paint"
    assert masks.ice[10, 320] == 0, "the crowd strip stays off the ice"


def test_ice_is_the_brightest_large_surface_not_the_largest():
    # A wide overhead view: dim, low-chroma stands (olive, L ~ 70) fill two thirds of the
    # frame around a smaller bright rink; the stands must not be taken for the ice.
    frame = np.full((H, W, 3), (40, 75, 70), np.uint8)  # BGR olive stands
    frame[100:260, 200:440] = (235, 232, 228)  # the ice, 17 % of the frame
    frame[100:260, 318:322] = (40, 40, 200)  # a red line on it
    masks = segment_markings(frame)
    assert masks.ice_lab[0] > 200, masks.ice_lab
    assert masks.ice[180, 260] == 255 and masks.ice[20, 20] == 0
    assert masks.red[180, 319] == 255


def test_width_of_a_thin_line_with_a_net_and_jersey_of_its_colour_joined_to_it():
    # A goal line (2 px) with a red goal frame and a red jersey standing on it: the
    # line's width is its paint's, so the registration does not refuse it as a goal
    # line for being as wide as a blue line (design: goal lines are ~6x thinner).
    mask = np.zeros((H, W), np.uint8)
    cv2.line(mask, (20, 250), (600, 110), 255, 2)
    cv2.rectangle(mask, (120, 190), (170, 232), 255, 3)  # the net's frame, over the line
    cv2.ellipse(mask, (400, 150), (12, 30), 0, 0, 360, 255, -1)  # a jersey
    lines = fit_lines(mask, "red", 0.25 * H)
    assert len(lines) == 1
    assert lines[0].width_px < 4.0  # 2 px drawn, ~3 px across its slanted raster


def test_an_over_exposed_rink_beside_a_speckled_crowd_is_the_ice():
    # A wide overhead view of an NHL rink (fresh render 764): the ice is clipped to neutral
    # white everywhere, the stands around it are a speckle of many dim colours. The unclipped
    # bright pixels are all crowd and hold no surface of one colour: the clipped white is the
    # ice, not "no ice in view".
    rng = np.random.default_rng(764)
    lab = np.stack([rng.integers(60, 130, (H, W)), rng.integers(100, 156, (H, W)),
                    rng.integers(100, 156, (H, W))], axis=2).astype(np.uint8)
    frame = cv2.cvtColor(lab, cv2.COLOR_LAB2BGR)
    frame[60:300, 100:540] = (255, 255, 255)  # the ice, 46 % of the frame, clipped
    frame[60:300, 316:324] = (40, 40, 200)  # the centre red line on it
    masks = segment_markings(frame)
    assert masks.has_ice, masks.ice_fraction
    assert masks.ice_lab[0] >= 250, masks.ice_lab
    assert masks.ice[180, 200] == 255 and masks.ice[20, 20] == 0
    assert masks.red[180, 320] == 255
