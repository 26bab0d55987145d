"""Rink model against numbers worked out by hand from the IPC rule book (section 2,
rules 201-218) and the NHL/IIHF standards documented in docs/rink-layouts.md."""

import math

import numpy as np
import pytest
from numpy.testing import assert_allclose
from shapely import affinity
from shapely.geometry import Point

from calibration.layouts import FT_M, IN_M
from calibration.rink import COLORS_RGB, Marking, RinkModel, RinkSpec


@pytest.fixture(scope="module")
def ipc():
    return RinkModel(RinkSpec.for_layout("ipc", length_m=60.0, width_m=30.0))


@pytest.fixture(scope="module", params=["ipc", "iihf", "nhl"])
def any_rink(request):
    return RinkModel(RinkSpec.for_layout(request.param))


def _swap(name: str) -> str:
    """Name of the marking/landmark a half turn maps ``name`` to."""
    for a, b in (("+x", "-x"), ("+y", "-y")):
        name = name.replace(a, "\0").replace(b, a).replace("\0", b)
    return name


# ---------------------------------------------------------------- IPC 201-218 numbers
def test_ipc_goal_lines_209(ipc):
    # 209: "Lines shall be marked 4m from each end of the rink, 5cm wide" -> 30 - 4 = 26.
    assert ipc.spec.goal_line_x_m == pytest.approx(26.0)
    assert ipc.goal_line_edges_x(+1) == pytest.approx((25.975, 26.025))
    assert ipc.goal_line_edges_x(-1) == pytest.approx((-25.975, -26.025))
    g = ipc.marking("goal_line_+x").geometry
    assert g.bounds[0] == pytest.approx(25.975) and g.bounds[2] == pytest.approx(26.025)
    assert ipc.marking("goal_line_-x").color == "red"


def test_ipc_blue_lines_210(ipc):
    # 210: "The ice area between the two goal lines shall be divided in three equal
    # parts by lines 30cm wide": 52 m / 3 = 17.333 m, so centres at 26 - 17.333 = 8.667.
    assert ipc.spec.blue_line_x_m == pytest.approx(52.0 / 6.0)
    assert ipc.spec.blue_line_x_m == pytest.approx(8.667, abs=1e-3)
    near, far = ipc.blue_line_edges_x(+1)
    assert (near, far) == pytest.approx((8.667 - 0.15, 8.667 + 0.15), abs=1e-3)
    near_m, far_m = ipc.blue_line_edges_x(-1)
    assert (near_m, far_m) == pytest.approx((-near, -far))
    # three equal parts measured centre to centre
    parts = [2 * ipc.spec.blue_line_x_m, 26.0 - ipc.spec.blue_line_x_m]
    assert parts[0] == pytest.approx(parts[1])
    assert ipc.marking("blue_line_+x").color == "blue"


def test_ipc_centre_line_211_and_spots_213_214(ipc):
    # 211: centre line 30 cm red; 213: centre spot 30 cm blue, circle r 4.5 m blue 5 cm.
    assert ipc.centre_line_edges_x() == pytest.approx((-0.15, 0.15))
    spot = ipc.marking("centre_spot")
    assert spot.color == "blue"
    assert spot.geometry.area == pytest.approx(math.pi * 0.15**2, rel=1e-3)
    circ = ipc.marking("centre_circle").geometry
    assert circ.area == pytest.approx(math.pi * (4.5**2 - 4.45**2), rel=1e-3)
    # 214: neutral spots 60 cm red, 1.5 m from the blue line (near edge to centre).
    ns = ipc.marking("neutral_spot_+x_-y")
    assert ns.color == "red"
    cx = ns.geometry.centroid.x
    assert ipc.blue_line_edges_x(+1)[0] - cx == pytest.approx(1.5)
    assert ns.geometry.area == pytest.approx(math.pi * 0.3**2, rel=1e-3)


def test_ipc_crease_radius_217d(ipc):
    # 217 d: "A semi-circle 180cm in radius ... using the centre of the goal as the
    # centre point"; the radius reaches the outside edge of the crease line.
    assert ipc.spec.crease_radius_m == pytest.approx(1.80)
    cr = ipc.crease(+1)
    assert cr.contains(Point(26.0 - 1.79, 0.0))
    assert not cr.contains(Point(26.0 - 1.81, 0.0))
    assert cr.bounds[0] == pytest.approx(26.0 - 1.80, abs=1e-6)
    assert cr.bounds[3] == pytest.approx(1.80, abs=1e-3)
    # the L corner sits on the imaginary line 1.22 m from the goal line (217 d)
    corner = ipc.landmarks["crease_+x_corner_+y"]
    assert corner[0] == pytest.approx(26.0 - 1.22)
    assert math.hypot(corner[0] - 26.0, corner[1]) == pytest.approx(1.80)
    # light-blue fill inside, white behind the goal line (217 b)
    fill = ipc.marking("crease_fill_+x")
    assert fill.color == "light_blue"
    assert fill.geometry.bounds[2] <= ipc.goal_line_edges_x(+1)[0] + 1e-9


def test_ipc_crease_includes_its_line_217c(ipc):
    # 217 c: "The goal crease shall include all the space outlined by and include the
    # crease line and extending vertically 1.27m".
    for end, tag in ((+1, "+x"), (-1, "-x")):
        line = ipc.marking(f"crease_{tag}").geometry
        assert line.difference(ipc.crease(end)).area < 1e-9
        assert ipc.crease(end).contains(line.representative_point())
    assert ipc.crease_height_m == pytest.approx(1.27)


def test_ipc_posts_218b(ipc):
    # 218 b: posts 1.83 m apart (internal), 1.22 m high, 5 cm diameter.
    y_left, y_right = ipc.goal_posts_y()
    assert (y_left, y_right) == pytest.approx((-0.915, 0.915))
    assert y_right - y_left == pytest.approx(1.83)
    base = ipc.landmarks["post_base_+x_+y"]
    top = ipc.landmarks["post_top_+x_+y"]
    assert base == pytest.approx([26.0, 0.915 + 0.025, 0.0])
    assert top == pytest.approx([26.0, 0.94, 1.22])
    segs = ipc.goal_frame_segments(+1)
    posts = [s for s in segs if s[0][0] == s[1][0] and s[0][1] == s[1][1]]
    assert len(posts) == 2
    gap_inside = abs(posts[0][0][1] - posts[1][0][1]) - ipc.spec.goal_post_diameter_m
    assert gap_inside == pytest.approx(1.83)
    # every frame point is on or behind the goal line (the open end faces centre ice)
    pts = np.array([p for s in segs for p in s])
    assert np.all(pts[:, 0] >= 26.0 - 1e-9) and np.all(pts[:, 0] <= 26.0 + 1.12)


def test_zone_membership_206(ipc):
    # 206: "The entire width of the line shall be considered as part of the zone that
    # the puck is in" -> the blue line's area belongs to both adjacent zones.
    near, far = ipc.blue_line_edges_x(+1)
    on_line = Point(0.5 * (near + far), 3.0)
    neutral = ipc.zone("+x", "neutral")
    attacking = ipc.zone("+x", "attacking")
    defending = ipc.zone("+x", "defending")
    assert neutral.intersects(on_line) and attacking.intersects(on_line)
    assert not defending.intersects(on_line)
    # both edges of the line are in both zones
    for x in (near, far):
        assert neutral.intersects(Point(x, 0)) and attacking.intersects(Point(x, 0))
    # just past the far edge: attacking only; just inside the near edge: neutral only
    assert attacking.contains(Point(far + 0.01, 0)) and not neutral.intersects(Point(far + 0.01, 0))
    assert neutral.contains(Point(near - 0.01, 0)) and not attacking.intersects(Point(near - 0.01, 0))
    # the team attacking -x sees the +x zone as its defending zone
    assert ipc.zone("-x", "defending").equals(attacking)
    # the three zones cover the ice; overlaps are exactly the two blue lines
    union = neutral.union(attacking).union(defending)
    assert union.symmetric_difference(ipc.ice).area < 1e-6
    overlap = neutral.intersection(attacking).area + neutral.intersection(defending).area
    blue = ipc.marking("blue_line_+x").geometry.area + ipc.marking("blue_line_-x").geometry.area
    assert overlap == pytest.approx(blue, rel=1e-6)
    with pytest.raises(ValueError, match="kind"):
        ipc.zone("+x", "offensive")


@pytest.mark.parametrize(
    "kwargs, field",
    [
        ({"length_m": 61.5}, "length_m"),  # 201: maximum 61 m
        ({"length_m": 55.0}, "length_m"),  # 201: minimum 56 m
        ({"width_m": 30.5}, "width_m"),  # 201: maximum 30 m
        ({"width_m": 25.0}, "width_m"),  # 201: minimum 26 m
        ({"corner_radius_m": 9.0}, "corner_radius_m"),  # 201: 7-8.5 m
        ({"length_m": "long"}, "length_m"),
        ({"width_m": float("nan")}, "width_m"),
    ],
)
def test_sizes_outside_201_raise(kwargs, field):
    with pytest.raises(ValueError, match=field):
        RinkSpec.for_layout("ipc", **kwargs)


def test_unknown_layout_raises():
    with pytest.raises(ValueError, match="layout"):
        RinkSpec.for_layout("olympic")


def test_sizes_inside_201_accepted():
    for length, width in ((56.0, 26.0), (61.0, 30.0), (58.0, 28.0)):
        rink = RinkModel(RinkSpec.for_layout("ipc", length_m=length, width_m=width))
        assert rink.spec.goal_line_x_m == pytest.approx(length / 2 - 4.0)  # 209
        assert rink.spec.blue_line_x_m == pytest.approx((length / 2 - 4.0) / 3)  # 210
        assert rink.ice.bounds == pytest.approx((-length / 2, -width / 2, length / 2, width / 2))


def test_ipc_faceoff_marks_215(ipc):
    # 215 c/d "as illustrated", dimensioned from IIHF 1.9: hash marks 60 cm beyond the
    # r 4.5 m circle, inside edges 1.70 m apart; L legs 1.20 m / 0.90 m, 45 cm apart,
    # starting 30 cm from the 60 cm spot's outer edge (0.6 m from the spot centre).
    lm = ipc.landmarks
    cx, cy = 20.0, 7.0
    tip = lm["hash_+x_+y_board_goal_tip_in"]
    assert tip[0] == pytest.approx(cx + 0.85)
    assert tip[1] == pytest.approx(cy + math.sqrt(4.5**2 - 0.875**2) + 0.60)
    base = lm["hash_+x_+y_board_goal_base_in"]
    assert math.hypot(base[0] - cx, base[1] - cy) == pytest.approx(4.5)
    corner = lm["faceoff_l_+x_+y_goal_board_corner"]
    assert corner == pytest.approx([cx + 0.6, cy + 0.225, 0.0])
    assert lm["faceoff_l_+x_+y_goal_board_long_end"] == pytest.approx([cx + 1.8, cy + 0.225, 0.0])
    # the short leg starts at the long leg's inside edge and runs 0.90 m away from the spot
    assert lm["faceoff_l_+x_+y_centre_axis_short_end"] == pytest.approx([cx - 0.6, cy - 0.225 - 0.9, 0.0])
    assert ipc.marking("faceoff_circle_+x_+y").color == "red"  # 215 d


def test_ipc_default_is_60_by_30():
    spec = RinkSpec.for_layout("ipc")
    assert (spec.length_m, spec.width_m, spec.corner_radius_m) == (60.0, 30.0, 8.5)


# ---------------------------------------------------------------- NHL / IIHF
def test_nhl_dimensions_in_feet_converted():
    spec = RinkSpec.for_layout("nhl")
    ft = FT_M
    assert spec.length_m == pytest.approx(60.96)  # 200 ft
    assert spec.width_m == pytest.approx(25.908)  # 85 ft
    assert spec.corner_radius_m == pytest.approx(28 * ft)
    assert spec.goal_line_x_m == pytest.approx(89 * ft)  # 11 ft from the end boards
    assert spec.goal_line_width_m == pytest.approx(0.0508)  # 2 in
    assert spec.blue_line_x_m == pytest.approx(25 * ft)  # 75 ft from the end boards
    assert spec.blue_line_width_m == pytest.approx(0.3048)  # 12 in
    assert spec.faceoff_circle_radius_m == pytest.approx(4.572)  # 15 ft
    assert spec.end_spot_x_m == pytest.approx(69 * ft)  # 20 ft from the goal line
    assert spec.end_spot_y_m == pytest.approx(22 * ft)
    assert spec.neutral_spot_x_m == pytest.approx((25 - 0.5 - 5) * ft)  # 5 ft from the blue line
    assert spec.goal_post_gap_m == pytest.approx(1.8288)  # 6 ft
    rink = RinkModel(spec)
    names = {m.name for m in rink.markings}
    assert {"trapezoid_+x", "trapezoid_-x"} <= names
    # NHL crease: 6 ft arc, straight sides 4 ft from the centre, 4.5 ft long
    cr = rink.crease(+1)
    gx = spec.goal_line_x_m
    assert cr.bounds[1] == pytest.approx(-4 * ft) and cr.bounds[3] == pytest.approx(4 * ft)
    assert cr.bounds[0] == pytest.approx(gx - 6 * ft, abs=1e-6)
    side_len = math.sqrt(36 - 16) * ft  # where the 6 ft arc meets the 4 ft sides
    assert side_len == pytest.approx(4.5 * ft, abs=0.05 * ft)
    assert rink.landmarks["crease_+x_corner_+y"] == pytest.approx([gx - side_len, 4 * ft, 0])
    # trapezoid: 22 ft wide at the goal line, 28 ft at the end boards
    assert rink.landmarks["trapezoid_+x_goal_line_+y"][1] == pytest.approx(11 * ft)
    assert rink.landmarks["trapezoid_+x_board_-y"] == pytest.approx([100 * ft, -14 * ft, 0])
    # hash marks 5 ft 7 in apart (inside edges), 2 ft long
    a = rink.landmarks["hash_+x_+y_board_goal_tip_in"]
    b = rink.landmarks["hash_+x_+y_board_centre_tip_in"]
    assert abs(a[0] - b[0]) == pytest.approx(5 * ft + 7 * IN_M)


def test_nhl_standard_size_accepted_in_metres_and_ranges_checked():
    spec = RinkSpec.for_layout("nhl", length_m=60.96, width_m=25.91)
    assert spec.width_m == pytest.approx(25.91)
    with pytest.raises(ValueError, match="width_m"):
        RinkSpec.for_layout("nhl", width_m=30.0)


def test_iihf_blue_lines_from_end_boards():
    # IIHF: blue line centre 22.86 m from the end boards on 58-60 m rinks, scaled below.
    assert RinkSpec.for_layout("iihf").blue_line_x_m == pytest.approx(30.0 - 22.86)
    short = RinkSpec.for_layout("iihf", length_m=56.0)
    assert 28.0 - short.blue_line_x_m == pytest.approx(22.86 * 56 / 60)


# ---------------------------------------------------------------- geometry properties
def test_half_turn_symmetry_of_markings(any_rink):
    # Rotating the rink by 180 degrees maps every marking onto its mirror-named twin,
    # except the referee crease, which is only in front of the scorekeeper (216).
    by_name = any_rink.markings_by_name
    for m in any_rink.markings:
        if m.name == "referee_crease":
            continue
        twin = by_name[_swap(m.name)]
        rot = affinity.rotate(m.geometry, 180.0, origin=(0, 0))
        assert rot.symmetric_difference(twin.geometry).area < 1e-6, m.name
        assert twin.color == m.color and twin.kind == m.kind
    for name, p in any_rink.landmarks.items():
        if name.startswith("referee_crease"):
            continue
        q = any_rink.landmarks[_swap(name)]
        assert_allclose(q, [-p[0], -p[1], p[2]], atol=1e-9, err_msg=name)


def test_referee_crease_216(ipc):
    # 216: semicircle r 3 m, red, 5 cm, in front of the scorekeeper's bench (+y side).
    ref = ipc.marking("referee_crease")
    assert ref.color == "red"
    minx, miny, maxx, maxy = ref.geometry.bounds
    assert (minx, maxx) == pytest.approx((-3.0, 3.0), abs=1e-6)
    assert miny == pytest.approx(15.0 - 3.0, abs=1e-6) and maxy == pytest.approx(15.0)


def test_landmarks_lie_on_their_marking(any_rink):
    assert len(any_rink.landmarks) > 150
    for name, p in any_rink.landmarks.items():
        assert p.shape == (3,)
        m = any_rink.landmark_markings[name]
        if m is None:  # 3D points off the ice (post tops)
            assert p[2] > 0, name
            continue
        assert p[2] == 0.0, name
        d = any_rink.markings_by_name[m].geometry.distance(Point(p[0], p[1]))
        assert d <= 1e-3, (name, d)


def test_landmark_examples_from_interfaces(ipc):
    lm = ipc.landmarks
    for name in ("goal_line_+x_board_+y", "blue_line_-x_far_board_-y", "centre_spot",
                 "faceoff_spot_+x_+y", "crease_+x_corner_+y", "post_base_+x_+y", "post_top_+x_+y"):
        assert name in lm
    # the goal line (x = 26) lies on the 8.5 m corner arc: y = 15 - 8.5 + sqrt(8.5^2 - 4.5^2)
    assert lm["goal_line_+x_board_+y"][1] == pytest.approx(6.5 + math.sqrt(8.5**2 - 4.5**2))
    assert lm["blue_line_-x_far_board_-y"] == pytest.approx([-52 / 6 - 0.15, -15.0, 0.0])


def test_boards_outline_on_the_ice_edge(any_rink):
    pts = any_rink.boards_outline_xy(400)
    assert pts.shape == (400, 2)
    for x, y in pts[::7]:
        on_side = abs(abs(y) - any_rink.spec.board_y_at(x)) < 1e-9
        on_end = abs(abs(x) - any_rink.spec.board_x_at(y)) < 1e-9
        assert on_side or on_end, (x, y)
        assert any_rink.ice.exterior.distance(Point(x, y)) < 2e-4
    steps = np.linalg.norm(np.diff(pts, axis=0), axis=1)
    assert steps.max() / steps.min() < 1.01  # even spacing along the perimeter


def test_markings_are_valid_and_on_the_ice(any_rink):
    for m in any_rink.markings:
        assert isinstance(m, Marking)
        assert m.geometry.geom_type in ("Polygon", "MultiPolygon"), m.name
        assert m.geometry.is_valid and not m.geometry.is_empty, m.name
        assert m.geometry.difference(any_rink.ice).area < 1e-9, m.name
        assert m.rgb == COLORS_RGB[m.color]


# ---------------------------------------------------------------- top-down image
def test_topdown_round_trip_and_orientation(ipc):
    H = ipc.topdown_from_rink(2.0)
    Hinv = ipc.rink_from_topdown(2.0)
    rng = np.random.default_rng(0)
    xy = rng.uniform([-31, -16], [31, 16], size=(50, 2))
    uv = (H @ np.c_[xy, np.ones(50)].T).T
    back = (Hinv @ uv.T).T
    assert_allclose(back[:, :2] / back[:, 2:], xy, atol=1e-9)
    # +x right, +y up (v decreases with y); 50 px per metre at 2 cm/px
    u0, v0, _ = H @ [0, 0, 1]
    u1, v1, _ = H @ [1, 1, 1]
    assert u1 - u0 == pytest.approx(50.0) and v1 - v0 == pytest.approx(-50.0)
    # outer pixel edges lie margin_m outside the boards: pixel centres at integers
    assert (H @ [-31.0, 16.0, 1])[:2] == pytest.approx([-0.5, -0.5])


def test_render_topdown_colours(ipc):
    cm = 5.0
    img = ipc.render_topdown(cm, margin_m=1.0)
    w, h = ipc.topdown_size_px(cm, 1.0)
    assert img.shape == (h, w, 3) and img.dtype == np.uint8
    H = ipc.topdown_from_rink(cm, 1.0)

    def px(x, y):
        u, v, _ = H @ [x, y, 1.0]
        return img[int(round(v)), int(round(u))]

    bgr = {k: np.array(v[::-1]) for k, v in COLORS_RGB.items()}
    assert_allclose(px(3.0, 3.0), bgr["white"])  # plain ice
    assert_allclose(px(52 / 6, 3.0), bgr["blue"])  # blue line centre
    assert_allclose(px(0.0, 3.0), bgr["red"])  # centre line
    assert_allclose(px(0.0, 0.0), bgr["blue"])  # centre spot
    assert_allclose(px(26.0, 6.0), bgr["red"])  # goal line
    assert_allclose(px(25.0, 0.0), bgr["light_blue"])  # crease fill (217 b)
    assert_allclose(px(26.5, 0.0), bgr["white"])  # inside the net: white (217 b)
    assert_allclose(px(0.0, 0.0 + 2.0), bgr["red"])  # centre line crosses the circle
    assert_allclose(px(-30.5, 0.0), bgr["margin"])  # outside the boards
