"""Per-layout dimension tables for the rink model (metres).

Each layout (``ipc``, ``iihf``, ``nhl``) is a dict of :class:`calibration.rink.RinkSpec`
field values for its standard size plus the size ranges it accepts. Positions that
depend on the rink length (goal lines, blue lines, spots) are given as distances from
a reference line and resolved in :func:`resolve_layout`.

Sources and interpretations are listed per number below and in ``docs/rink-layouts.md``.
Conventions shared by all layouts (interpretations, see the doc):

* A line's stated position is the position of its centre line (IPC 209 "lines shall be
  marked 4 m from each end"; IIHF 2014 "measured ... to the centre of the blue line").
* Radii of circles and creases are measured to the *outside* edge of the painted line,
  so the line width lies inside the radius (IIHF crease rule: "measurements of all
  creases must be taken from the outside edge of the lines"; old NHL/USA Hockey 106:
  "the width of this line shall be included in the radius").
* A spot distance "from a blue line" is from the near edge of the blue line to the
  centre of the spot.
"""

from __future__ import annotations

FT_M = 0.3048  # one international foot in metres
IN_M = 0.0254  # one inch in metres

# Allowed sizes per layout: field -> (min, max), metres.
SIZE_RANGES_M: dict[str, dict[str, tuple[float, float]]] = {
    # IPC 201: max 61 x 30 m, min 56 x 26 m; corners r 7-8.5 m.
    "ipc": {"length_m": (56.0, 61.0), "width_m": (26.0, 30.0), "corner_radius_m": (7.0, 8.5)},
    # IIHF 2023/24 rule 1.2: 60 m long (IIHF approval needed otherwise; accept 56-61 m
    # as IPC 201, which copies the older IIHF text),
    # 26-30 m wide, corners r 7-8.5 m.
    "iihf": {"length_m": (56.0, 61.0), "width_m": (26.0, 30.0), "corner_radius_m": (7.0, 8.5)},
    # NHL Rule 1: 200 x 85 ft, corners r 28 ft. North-American community rinks are
    # commonly 185-200 ft long and 85-90 ft wide; accept that range, keeping the
    # NHL end-zone layout (goal line 11 ft and blue line 75 ft from the end boards).
    "nhl": {
        "length_m": (185 * FT_M, 200 * FT_M),
        "width_m": (85 * FT_M, 90 * FT_M),
        "corner_radius_m": (20 * FT_M, 28 * FT_M),
    },
}

# Standard values. Keys ending in "_from_end_m" / "_from_goal_line_m" / "_from_blue_line_m"
# are reference distances resolved by resolve_layout(); every other key is a RinkSpec field.
LAYOUTS: dict[str, dict[str, float | str]] = {
    "ipc": {
        "length_m": 60.0,  # 201 max 61 m; 60 m is the IIHF standard most venues have
        "width_m": 30.0,  # 201 max
        "corner_radius_m": 8.5,  # 201 (7-8.5 m); IIHF standard 8.5 m
        "goal_line_from_end_m": 4.0,  # 209
        "goal_line_width_m": 0.05,  # 209
        "blue_line_mode": "thirds",  # 210: three equal parts between the goal lines
        "blue_line_width_m": 0.30,  # 210
        "centre_line_width_m": 0.30,  # 211
        "centre_circle_radius_m": 4.5,  # 213
        "centre_spot_diameter_m": 0.30,  # 213
        "faceoff_circle_radius_m": 4.5,  # 215 d
        "faceoff_spot_diameter_m": 0.60,  # 214, 215 b
        "end_spot_from_goal_line_m": 6.0,  # "as illustrated": IIHF standard (10 m from the end boards)
        "end_spot_y_m": 7.0,  # "as illustrated": IIHF standard, 7 m either side of the long axis
        "neutral_spot_from_blue_line_m": 1.5,  # 214
        "neutral_spot_y_m": 7.0,  # "as illustrated": IIHF, in line with the end-zone spots
        "thin_line_width_m": 0.05,  # 213, 215 d, 216, 217 a
        "hash_mark_length_m": 0.60,  # "as illustrated": IIHF 2023/24 rule 1.9 (60 cm)
        "hash_mark_spacing_m": 1.70,  # IIHF 2023/24 rule 1.9: a pair 1.70 m apart (inside edges)
        "faceoff_l_offset_m": 0.30,  # IIHF 1.9: L marks start 30 cm from the spot's outer edge
        "faceoff_l_long_m": 1.20,  # IIHF 1.9: legs parallel to the side boards, 1.20 m
        "faceoff_l_gap_m": 0.45,  # IIHF 1.9: those legs 45 cm apart (inside edges)
        "faceoff_l_short_m": 0.90,  # IIHF 1.9: legs parallel to the end boards, 90 cm
        "crease_shape": "semicircle",  # 217 d
        "crease_radius_m": 1.80,  # 217 d
        "crease_side_y_m": 0.0,  # nhl only
        "crease_l_distance_m": 1.22,  # 217 d
        "crease_l_length_m": 0.15,  # 217 d
        "crease_height_m": 1.27,  # 217 c
        "goal_post_gap_m": 1.83,  # 218 b (inside)
        "goal_height_m": 1.22,  # 218 b
        "goal_post_diameter_m": 0.05,  # 218 b
        "goal_depth_m": 1.0,  # 218 c: deepest point 0.60-1.12 m; typical frame 1.0 m
        "referee_crease_radius_m": 3.0,  # 216
        "board_height_m": 1.20,  # 202: 1.17-1.22 m
        "kick_plate_height_m": 0.20,  # 203: 15-25 cm
        "trapezoid_goal_line_half_m": 0.0,  # nhl only (0 = none)
        "trapezoid_end_half_m": 0.0,
    },
}

# IIHF: same marking sizes as IPC (the IPC book copies the IIHF 2010 text), but blue
# lines 22.86 m (75 ft) from the end boards to the line centre on 58-60 m rinks (IIHF
# rule book 2014-18 rule 17 and Finnish federation note of 30.7.2014:
# shorter rinks scale the distance by length/60). Boards: ideal 1.07 m (IIHF 1.3).
LAYOUTS["iihf"] = {
    **LAYOUTS["ipc"],
    "blue_line_mode": "from_end",
    "blue_line_from_end_m": 22.86,
    "board_height_m": 1.07,
}

# NHL Official Rules, Rule 1 (rink) and Rule 2 (goal); imperial numbers converted exactly
# (1 ft = 0.3048 m). Every value is corroborated by the NHL table of the sportyR/sportypy
# rink library (data-raw/surface-dimensions.json); rule sub-numbers are not cited because
# they moved between editions.
LAYOUTS["nhl"] = {
    **LAYOUTS["ipc"],
    "length_m": 200 * FT_M,  # 200 x 85 ft
    "width_m": 85 * FT_M,
    "corner_radius_m": 28 * FT_M,
    "goal_line_from_end_m": 11 * FT_M,
    "goal_line_width_m": 2 * IN_M,
    "blue_line_mode": "from_end",
    "blue_line_from_end_m": 75 * FT_M,  # zones 75 ft from the end boards to the line centre
    "blue_line_width_m": 12 * IN_M,
    "centre_line_width_m": 12 * IN_M,
    "centre_circle_radius_m": 15 * FT_M,
    "centre_spot_diameter_m": 12 * IN_M,
    "faceoff_circle_radius_m": 15 * FT_M,
    "faceoff_spot_diameter_m": 2 * FT_M,
    "end_spot_from_goal_line_m": 20 * FT_M,
    "end_spot_y_m": 22 * FT_M,  # 44 ft apart
    "neutral_spot_from_blue_line_m": 5 * FT_M,
    "neutral_spot_y_m": 22 * FT_M,  # 44 ft apart
    "thin_line_width_m": 2 * IN_M,
    "hash_mark_length_m": 2 * FT_M,
    "hash_mark_spacing_m": 5 * FT_M + 7 * IN_M,  # inside edges (5 ft 11 in outside)
    "faceoff_l_offset_m": 1 * FT_M,  # IIHF 1.9 copies these L marks in metric
    "faceoff_l_long_m": 4 * FT_M,
    "faceoff_l_gap_m": 18 * IN_M,  # inside edges; IIHF 45 cm
    "faceoff_l_short_m": 3 * FT_M,
    "crease_shape": "nhl",
    "crease_radius_m": 6 * FT_M,  # arc radius, centred on the goal centre
    "crease_side_y_m": 4 * FT_M,  # straight sides 4 ft from the centre (8 ft outside), 4.5 ft long
    "crease_l_distance_m": 4 * FT_M,  # L marks 4 ft out from the goal line
    "crease_l_length_m": 5 * IN_M,
    "crease_height_m": 1.27,  # crease extends to the top of the frame: 4 ft + tube, as IPC 217 c
    "goal_post_gap_m": 6 * FT_M,
    "goal_height_m": 4 * FT_M,
    "goal_post_diameter_m": 2.375 * IN_M,  # 2 3/8 in tube
    "goal_depth_m": 40 * IN_M,  # deepest point not more than 40 in
    "referee_crease_radius_m": 10 * FT_M,
    "board_height_m": 42 * IN_M,  # 40-48 in, ideal 42 in
    "kick_plate_height_m": 10 * IN_M,  # light-yellow kick plate; height not stated, typical 10 in
    "trapezoid_goal_line_half_m": 11 * FT_M,  # 22 ft wide at the goal line
    "trapezoid_end_half_m": 14 * FT_M,  # 28 ft wide at the end boards
}


def resolve_layout(layout: str, length_m: float, width_m: float) -> dict[str, float | str]:
    """Return RinkSpec field values for ``layout`` at the given size.

    Args:
        layout: ``"ipc"``, ``"iihf"`` or ``"nhl"``.
        length_m: rink length, metres.
        width_m: rink width, metres.

    Returns:
        dict of RinkSpec field name -> value (metres, or str for shapes).
    """
    t = dict(LAYOUTS[layout])
    half_l = length_m / 2.0
    goal_x = half_l - float(t.pop("goal_line_from_end_m"))
    mode = t.pop("blue_line_mode")
    if mode == "thirds":
        # 210: the ice between the two goal lines (centre to centre) in three equal parts.
        blue_x = 2.0 * goal_x / 6.0
        t.pop("blue_line_from_end_m", None)
    else:
        from_end = float(t.pop("blue_line_from_end_m"))
        if layout == "iihf" and length_m < 58.0:
            from_end *= length_m / 60.0  # IIHF national rule for short rinks (see module doc)
        blue_x = half_l - from_end
    end_spot_x = goal_x - float(t.pop("end_spot_from_goal_line_m"))
    neutral_spot_x = blue_x - float(t["blue_line_width_m"]) / 2.0 - float(
        t.pop("neutral_spot_from_blue_line_m"))
    t.update(
        layout=layout,
        length_m=float(length_m),
        width_m=float(width_m),
        goal_line_x_m=goal_x,
        blue_line_x_m=blue_x,
        end_spot_x_m=end_spot_x,
        neutral_spot_x_m=neutral_spot_x,
    )
    return t
