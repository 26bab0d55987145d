"""GAME.json descriptor: the design's contract, documented defaults, field-naming errors."""

from __future__ import annotations

import copy
import json

import pytest

from rulesfromvideo.game import BASIC_COLOURS, GameDescriptor, GameError, load_game, parse_colour

FT_M = 0.3048

# The design's example, verbatim.
DESIGN_EXAMPLE = {
    "rules": "ipc-sledge",
    "rink": {"layout": "ipc", "length_m": 60, "width_m": 30},
    "teams": {"home": {"color": "#c8102e", "attacks": "+x"}, "away": {"color": "#0b3d91"}},
    "strength": [{"t": 0.0, "home": 5, "away": 5}],
    "clock": {"period": 2, "remaining_s": 600.0},
    "score": {"home": 1, "away": 1},
}

MINIMAL_IPC = {"rules": "ipc-sledge", "teams": {"home": {"color": "red"}, "away": {"color": "blue"}}}
MINIMAL_SPONGE = {**MINIMAL_IPC, "rules": "sponge-westridge"}


def game(**overrides) -> GameDescriptor:
    data = copy.deepcopy(MINIMAL_IPC)
    data.update(overrides)
    return GameDescriptor.from_dict(data)


def test_design_example_parses():
    g = GameDescriptor.from_dict(DESIGN_EXAMPLE)
    assert g.rules == "ipc-sledge"
    assert (g.rink.layout, g.rink.length_m, g.rink.width_m) == ("ipc", 60.0, 30.0)
    assert g.teams.away.attacks == "-x"
    assert g.clock.period == 2 and g.clock.remaining_s == 600.0
    assert (g.score.home, g.score.away) == (1, 1)
    assert g.profile.name == "ipc-sledge"


def test_from_file_and_load_game(tmp_path):
    path = tmp_path / "game.json"
    path.write_text(json.dumps(DESIGN_EXAMPLE))
    assert load_game(path) == GameDescriptor.from_file(path) == GameDescriptor.from_dict(DESIGN_EXAMPLE)


@pytest.mark.parametrize(
    "data",
    [DESIGN_EXAMPLE, MINIMAL_IPC, MINIMAL_SPONGE],
    ids=["design", "minimal-ipc", "minimal-sponge"],
)
def test_to_dict_round_trips(data):
    g = GameDescriptor.from_dict(data)
    d = g.to_dict()
    assert GameDescriptor.from_dict(d) == g
    assert GameDescriptor.from_dict(json.loads(json.dumps(d))).to_dict() == d


def test_to_dict_of_a_complete_descriptor_is_the_input():
    full = copy.deepcopy(DESIGN_EXAMPLE)
    full["teams"]["away"]["attacks"] = "-x"
    assert GameDescriptor.from_dict(full).to_dict() == full


# ---- documented defaults (docs/game-descriptor.md) ----------------------------


@pytest.mark.parametrize(
    "data, field, expected",
    [
        # rink.layout: the profile's default layout
        (MINIMAL_IPC, "rink.layout", "ipc"),
        (MINIMAL_SPONGE, "rink.layout", "nhl"),
        # rink size: the layout's standard (IPC 201 range; NHL 1.2: 200 x 85 ft)
        (MINIMAL_IPC, "rink.length_m", 60.0),
        (MINIMAL_IPC, "rink.width_m", 30.0),
        (MINIMAL_SPONGE, "rink.length_m", 200 * FT_M),
        (MINIMAL_SPONGE, "rink.width_m", 85 * FT_M),
        ({**MINIMAL_IPC, "rink": {"layout": "nhl"}}, "rink.length_m", 200 * FT_M),
        ({**MINIMAL_IPC, "rink": {"layout": "iihf"}}, "rink.width_m", 30.0),
        ({**MINIMAL_IPC, "rink": {"length_m": 58.0}}, "rink.width_m", 30.0),
        # attacking directions
        (MINIMAL_IPC, "teams.home.attacks", "+x"),
        (MINIMAL_IPC, "teams.away.attacks", "-x"),
        (
            {**MINIMAL_IPC, "teams": {"home": {"color": "red", "attacks": "-x"}, "away": {"color": "blue"}}},
            "teams.away.attacks",
            "+x",
        ),
        (
            {**MINIMAL_IPC, "teams": {"home": {"color": "red"}, "away": {"color": "blue", "attacks": "+x"}}},
            "teams.home.attacks",
            "-x",
        ),
        # clock: period 1, full length (IPC 600: 15 min; Westridge 1 c: 20 min)
        (MINIMAL_IPC, "clock.period", 1),
        (MINIMAL_IPC, "clock.remaining_s", 900.0),
        (MINIMAL_SPONGE, "clock.remaining_s", 1200.0),
        ({**MINIMAL_IPC, "clock": {"period": 3}}, "clock.remaining_s", 900.0),
        ({**MINIMAL_IPC, "clock": {"period": 4}}, "clock.remaining_s", 300.0),  # 604 overtime
        # score 0-0
        (MINIMAL_IPC, "score.home", 0),
        (MINIMAL_IPC, "score.away", 0),
        ({**MINIMAL_IPC, "score": {"home": 2}}, "score.away", 0),
    ],
)
def test_defaults(data, field, expected):
    value = GameDescriptor.from_dict(data)
    for part in field.split("."):
        value = getattr(value, part)
    assert value == (pytest.approx(expected) if isinstance(expected, float) else expected)


@pytest.mark.parametrize("data, full", [(MINIMAL_IPC, 5), (MINIMAL_SPONGE, 5)])
def test_strength_defaults_to_full_strength_at_t0(data, full):
    # IPC 702: six athletes incl. one goalkeeper -> 5 skaters; Westridge 1 g: six players.
    g = GameDescriptor.from_dict(data)
    assert g.to_dict()["strength"] == [{"t": 0.0, "home": full, "away": full}]
    assert g.strength_at(0.0) == g.strength_at(1e6) == (full, full)


# ---- errors name the field ----------------------------------------------------


def _with(path: str, value, base=None) -> dict:
    data = copy.deepcopy(base or MINIMAL_IPC)
    node = data
    keys = path.split(".")
    for k in keys[:-1]:
        node = node.setdefault(k, {})
    node[keys[-1]] = value
    return data


BAD = [
    # (descriptor, message prefix naming the field, what else must appear)
    (_with("rules", "ipc-sledge-2026"), "rules:", "known: ipc-sledge, sponge-westridge"),
    (_with("rules", 7), "rules:", ""),
    (_with("teams.home.color", "#zz0000"), "teams.home.color: '#zz0000' is not a colour", ""),
    (_with("teams.away.color", "#12345"), "teams.away.color:", "not a colour"),
    (_with("teams.away.color", "bleu"), "teams.away.color:", "not a colour"),
    (_with("teams.away.color", 255), "teams.away.color:", ""),
    (_with("teams.away.color", "red"), "teams.away.color:", "same colour"),  # Westridge 1 f
    (_with("teams.away.attacks", "+x", base=_with("teams.home.attacks", "+x")),
     "teams.away.attacks:", "both teams attack '+x'"),
    (_with("teams.away.attacks", "-x", base=_with("teams.home.attacks", "-x")),
     "teams.away.attacks:", "both teams attack '-x'"),
    (_with("teams.home.attacks", "x"), "teams.home.attacks:", ""),
    (_with("teams.home.colour", "red"), "teams.home.colour: unknown field", "allowed: color, attacks"),
    (_with("venue", "arena"), "venue: unknown field", "allowed: rules, rink"),
    (_with("rink.size", 60), "rink.size: unknown field", "layout, length_m, width_m"),
    (_with("rink.layout", "olympic"), "rink.layout:", ""),
    # IPC 201: minimum 56 x 26 m, maximum 61 x 30 m
    (_with("rink.width_m", 20.0), "rink.width_m: 20 m is outside ipc-sledge's range 26-30 m", "201"),
    (_with("rink.length_m", 62.0), "rink.length_m: 62 m is outside", "201"),
    (_with("rink.length_m", 55.0), "rink.length_m:", "56-61"),
    (_with("rink.length_m", -1.0), "rink.length_m:", "greater than 0"),
    (_with("rink.length_m", "long"), "rink.length_m:", ""),
    (_with("strength", [{"t": 1.0, "home": 5, "away": 5}, {"t": 0.5, "home": 5, "away": 4}]),
     "strength[1].t: 0.5 s is not after", ""),
    (_with("strength", [{"t": 0.0, "home": 5, "away": 5}, {"t": 0.0, "home": 5, "away": 4}]),
     "strength[1].t:", "not after"),
    (_with("strength", [{"t": -1.0, "home": 5, "away": 5}]), "strength[0].t:", ""),
    (_with("strength", [{"t": 0.0, "home": -1, "away": 5}]), "strength[0].home:", ""),
    (_with("strength", [{"t": 0.0, "home": 5, "away": 7}]), "strength[0].away: 7 skaters exceed", "702"),
    (_with("strength", [{"t": 0.0, "home": 2, "away": 5}]), "strength[0].home: 2 skaters is below", ""),
    (_with("strength", [{"t": 0.0, "home": 5}]), "strength[0].away: Field required", ""),
    (_with("strength", [{"t": 0.0, "home": 5, "away": 5, "goalies": 1}]), "strength[0].goalies: unknown field", ""),
    (_with("strength", []), "strength: empty list", ""),
    (_with("strength", {"t": 0}), "strength:", ""),
    (_with("clock.period", 0), "clock.period:", ""),
    (_with("clock.period", 5), "clock.period: period 5 does not exist", ""),
    (_with("clock.remaining_s", 901.0), "clock.remaining_s: 901 s exceeds the period length 900 s", ""),
    (_with("clock.remaining_s", -5.0), "clock.remaining_s:", ""),
    (_with("score.home", -1), "score.home:", ""),
    (_with("score.draw", 1), "score.draw: unknown field", ""),
    ({"rules": "ipc-sledge"}, "teams: Field required", ""),
    ({"teams": MINIMAL_IPC["teams"]}, "rules: Field required", ""),
    (_with("teams.home", {"attacks": "+x"}), "teams.home.color: Field required", ""),
    (_with("rink.width_m", 19.0, base=MINIMAL_SPONGE), "rink.width_m:", "sponge-westridge"),
    (_with("clock.remaining_s", 1300.0, base=MINIMAL_SPONGE), "clock.remaining_s:", "1 c"),
]


@pytest.mark.parametrize("data, prefix, detail", BAD)
def test_bad_descriptor_errors_name_the_field(data, prefix, detail):
    with pytest.raises(GameError) as info:
        GameDescriptor.from_dict(data)
    msg = str(info.value)
    assert msg.startswith(prefix), msg
    assert detail in msg
    assert isinstance(info.value, ValueError)


def test_problems_in_several_sections_are_all_reported():
    data = _with("rink.width_m", 20.0)
    data["clock"] = {"period": 1, "remaining_s": 2000.0}
    data["strength"] = [{"t": 0.0, "home": 9, "away": 5}]
    msg = str(pytest.raises(GameError, GameDescriptor.from_dict, data).value)
    assert msg.startswith("rink.width_m:")
    assert "; clock.remaining_s:" in msg and "; strength[0].home:" in msg


def test_several_problems_are_all_reported():
    data = _with("teams.home.color", "nope")
    data["score"] = {"home": -1}
    msg = str(pytest.raises(GameError, GameDescriptor.from_dict, data).value)
    assert "teams.home.color" in msg and "score.home" in msg


@pytest.mark.parametrize(
    "content, expected",
    [("{ not json", "not valid JSON"), ("[1, 2]", "must be a JSON object")],
)
def test_bad_files(tmp_path, content, expected):
    path = tmp_path / "game.json"
    path.write_text(content)
    with pytest.raises(GameError, match=expected):
        load_game(path)


def test_missing_file(tmp_path):
    with pytest.raises(GameError, match="cannot read"):
        load_game(tmp_path / "absent.json")


# ---- rink sizes ---------------------------------------------------------------


@pytest.mark.parametrize(
    "rules, layout, length, width, why",
    [
        ("ipc-sledge", "ipc", 56.0, 26.0, "201 minimum"),
        ("ipc-sledge", "ipc", 61.0, 30.0, "201 maximum"),
        ("ipc-sledge", "iihf", 60.0, 30.0, "IIHF standard"),
        # NHL 200 x 85 ft: 85 ft = 25.91 m < the 26 m of 201, valid as the layout's standard
        ("ipc-sledge", "nhl", 200 * FT_M, 85 * FT_M, "layout standard under any profile"),
        ("ipc-sledge", "nhl", 60.96, 25.91, "standard size to the centimetre"),
        ("sponge-westridge", "nhl", 200 * FT_M, 85 * FT_M, "sponge default"),
        ("sponge-westridge", "ipc", 60.0, 30.0, "layout standard"),
    ],
)
def test_valid_rink_sizes(rules, layout, length, width, why):
    g = GameDescriptor.from_dict(
        {**MINIMAL_IPC, "rules": rules, "rink": {"layout": layout, "length_m": length, "width_m": width}}
    )
    assert (g.rink.length_m, g.rink.width_m) == (length, width), why


def test_size_outside_the_layouts_own_range():
    # Within sponge-westridge's range but the ipc markings only exist for 56-61 m (201).
    pytest.importorskip("calibration.layouts")
    with pytest.raises(GameError, match=r"^rink\.length_m: 50 m is outside the ipc layout's range"):
        GameDescriptor.from_dict({**MINIMAL_SPONGE, "rink": {"layout": "ipc", "length_m": 50.0}})


def test_nhl_community_width_is_outside_ipc_201():
    # 190 x 85 ft is not NHL-standard, and 85 ft is narrower than 201's 26 m minimum.
    with pytest.raises(GameError, match=r"^rink\.width_m: .*201"):
        GameDescriptor.from_dict(
            {**MINIMAL_IPC, "rink": {"layout": "nhl", "length_m": 190 * FT_M, "width_m": 85 * FT_M}}
        )


# ---- colours ------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, rgb",
    [
        ("#c8102e", (200, 16, 46)),
        ("#C8102E", (200, 16, 46)),
        ("#f00", (255, 0, 0)),
        ("#0b3d91", (11, 61, 145)),
        ("red", (255, 0, 0)),
        ("Navy", (0, 0, 128)),
        ("green", (0, 128, 0)),  # the CSS value, not X11's #00ff00
        ("grey", (128, 128, 128)),
        ("orange", (255, 165, 0)),
        (" white ", (255, 255, 255)),
    ],
)
def test_parse_colour(text, rgb):
    assert parse_colour(text) == rgb


@pytest.mark.parametrize("text", ["#zz0000", "#12", "#1234", "c8102e", "rouge", "", "#", "rgb(1,2,3)"])
def test_parse_colour_rejects(text):
    with pytest.raises(ValueError, match="is not a colour"):
        parse_colour(text)


def test_every_basic_colour_name_parses():
    assert len(BASIC_COLOURS) == 18  # 16 CSS basic keywords + orange + grey
    for name, hexcode in BASIC_COLOURS.items():
        assert parse_colour(name) == parse_colour(hexcode)


def test_team_color_bgr_is_opencv_order():
    g = GameDescriptor.from_dict(DESIGN_EXAMPLE)
    assert g.team_color_bgr("home") == (46, 16, 200)
    assert g.team_color_bgr("away") == (145, 61, 11)
    with pytest.raises(ValueError):
        g.team_color_bgr("visitors")


# ---- directions, strength, clock ---------------------------------------------


@pytest.mark.parametrize(
    "home_attacks, team, attack_dir, defending_end",
    [("+x", "home", 1, -1), ("+x", "away", -1, 1), ("-x", "home", -1, 1), ("-x", "away", 1, -1)],
)
def test_attack_dir_and_defending_end(home_attacks, team, attack_dir, defending_end):
    g = game(teams={"home": {"color": "red", "attacks": home_attacks}, "away": {"color": "blue"}})
    assert g.attack_dir(team) == attack_dir
    assert g.defending_end(team) == defending_end


PENALTY_STRENGTH = [
    {"t": 0.0, "home": 5, "away": 5},
    {"t": 10.0, "home": 4, "away": 5},  # home minor
    {"t": 20.0, "home": 4, "away": 4},  # away minor: level, nobody shorthanded
    {"t": 30.0, "home": 3, "away": 4},
    {"t": 40.0, "home": 5, "away": 5},
]


@pytest.mark.parametrize(
    "t, strength, home_sh, away_sh",
    [
        (0.0, (5, 5), False, False),
        (9.999, (5, 5), False, False),
        (10.0, (4, 5), True, False),  # a step applies from its t inclusive
        (15.0, (4, 5), True, False),
        (20.0, (4, 4), False, False),  # 905 C: shorthanded = below the opponents' strength
        (35.0, (3, 4), True, False),
        (40.0, (5, 5), False, False),
        (1e9, (5, 5), False, False),
    ],
)
def test_strength_step_function_and_shorthanded(t, strength, home_sh, away_sh):
    g = game(strength=PENALTY_STRENGTH)
    assert g.strength_at(t) == strength
    assert g.is_shorthanded("home", t) is home_sh
    assert g.is_shorthanded("away", t) is away_sh


def test_overtime_defaults_to_four_skaters_604():
    # 604 "each team at the numerical strength of four (4) skaters and one (1) goalkeeper"
    g = game(clock={"period": 4})
    assert g.strength_at(0.0) == (4, 4)
    assert g.to_dict()["strength"] == [{"t": 0.0, "home": 4, "away": 4}]
    late = game(clock={"period": 4}, strength=[{"t": 3.0, "home": 4, "away": 3}])
    assert late.strength_at(1.0) == (4, 4) and late.strength_at(3.0) == (4, 3)


@pytest.mark.parametrize(
    "score, home_lead, away_lead",
    [({"home": 1, "away": 1}, 0, 0), ({"home": 5, "away": 2}, 3, -3), ({"away": 15}, -15, 15)],
)
def test_lead(score, home_lead, away_lead):
    # Westridge 1 b: icing waved off with "a three (3) or more goal lead"; 1 r: 15-goal spread.
    g = GameDescriptor.from_dict({**MINIMAL_SPONGE, "score": score})
    assert (g.lead("home"), g.lead("away")) == (home_lead, away_lead)


def test_strength_before_a_late_first_step_is_full_strength():
    g = game(strength=[{"t": 5.0, "home": 4, "away": 5}])
    assert g.strength_at(0.0) == (5, 5)
    assert g.strength_at(5.0) == (4, 5)


def test_pulled_goalkeeper_allows_six_skaters():
    # 702: six athletes; a goalkeeper may be substituted by a player.
    assert game(strength=[{"t": 0.0, "home": 6, "away": 5}]).strength_at(0.0) == (6, 5)


@pytest.mark.parametrize(
    "clock, t, expected",
    [
        ({"period": 2, "remaining_s": 600.0}, 0.0, (2, 600.0)),
        ({"period": 2, "remaining_s": 600.0}, 12.5, (2, 587.5)),
        ({"period": 2, "remaining_s": 600.0}, 600.0, (2, 0.0)),
        ({"period": 2, "remaining_s": 600.0}, 700.0, (2, 0.0)),  # stops at the period's end
        ({"period": 1}, 60.0, (1, 1140.0)),
    ],
)
def test_clock_at_running_time(clock, t, expected):
    g = GameDescriptor.from_dict({**MINIMAL_SPONGE, "clock": clock})
    assert g.clock_at(t) == pytest.approx(expected)


def test_clock_at_final_minute_of_second_half_sponge_1_b():
    # Westridge 1 b: icing only "in the final minute of the second half".
    g = GameDescriptor.from_dict({**MINIMAL_SPONGE, "clock": {"period": 2, "remaining_s": 90.0}})
    window = g.profile.icing.window
    in_window = [g.clock_at(t)[1] <= window.final_s and g.clock_at(t)[0] == window.period for t in (0, 29.9, 30.0, 60)]
    assert in_window == [False, False, True, True]


def test_clock_at_rejects_negative_time():
    with pytest.raises(ValueError):
        game().clock_at(-1.0)


def test_opponent():
    assert GameDescriptor.opponent("home") == "away"
    assert GameDescriptor.opponent("away") == "home"
    with pytest.raises(ValueError):
        GameDescriptor.opponent("ref")


# ---- rink spec (calibration.rink, when present) -------------------------------


def test_rink_spec_uses_the_descriptor_size():
    rink = pytest.importorskip("calibration.rink")
    spec = GameDescriptor.from_dict(DESIGN_EXAMPLE).rink_spec()
    assert isinstance(spec, rink.RinkSpec)
    assert (spec.layout, spec.length_m, spec.width_m) == ("ipc", 60.0, 30.0)
    sponge = GameDescriptor.from_dict(MINIMAL_SPONGE).rink_spec()
    assert sponge.layout == "nhl"
    assert sponge.width_m == pytest.approx(85 * FT_M)
