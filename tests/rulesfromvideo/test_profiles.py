"""Rule profiles against the rule books' text (/work/shared/rules)."""

from __future__ import annotations

import json
from importlib import resources

import pytest

from rulesfromvideo.profiles import (
    LAYOUT_STANDARD_SIZE_M,
    ProfileError,
    RuleProfile,
    list_profiles,
    load_profile,
    load_profile_file,
    profile_from_dict,
)

IPC = "ipc-sledge"
SPONGE = "sponge-westridge"


def _raw(name: str) -> dict:
    text = resources.files("rulesfromvideo").joinpath(f"profiles/{name}.json").read_text()
    return json.loads(text)


def _get(obj, dotted: str):
    for part in dotted.split("."):
        obj = obj[int(part)] if isinstance(obj, (tuple, list)) else getattr(obj, part)
    return obj


def test_list_profiles_names_the_shipped_files():
    assert list_profiles() == [IPC, SPONGE]


@pytest.mark.parametrize(
    "profile, field, expected, clause",
    [
        # 201 "Maximum size: 61m long by 30m wide. Minimum size: 56m long by 26m wide.
        # The corners shall be rounded in the arc of a circle with a radius of 7m to 8.5m."
        (IPC, "rink.length_m.min", 56.0, "201"),
        (IPC, "rink.length_m.max", 61.0, "201"),
        (IPC, "rink.width_m.min", 26.0, "201"),
        (IPC, "rink.width_m.max", 30.0, "201"),
        (IPC, "rink.corner_radius_m.min", 7.0, "201"),
        (IPC, "rink.corner_radius_m.max", 8.5, "201"),
        (IPC, "rink.default_layout", "ipc", "201"),
        (SPONGE, "rink.default_layout", "nhl", "design: sponge on NHL rinks"),
        # 501 "Diameter- 7.62cm Thickness- 2.54cm"
        (IPC, "puck.diameter_m", 0.0762, "501"),
        (IPC, "puck.thickness_m", 0.0254, "501"),
        (IPC, "puck.radius_m", 0.0381, "501"),
        (SPONGE, "puck.diameter_m", 0.0762, "501 by analogy"),
        # 600 "three (15) minute actual time periods"
        (IPC, "periods.count", 3, "600"),
        (IPC, "periods.length_s", 900.0, "600"),
        (IPC, "periods.running_time", False, "601 a: time stops at the whistle"),
        # Westridge 1 c "two twenty (20) minute running halves. The last minute of
        # the second half will be stop time."
        (SPONGE, "periods.count", 2, "1 c"),
        (SPONGE, "periods.length_s", 1200.0, "1 c"),
        (SPONGE, "periods.running_time", True, "1 c"),
        (SPONGE, "periods.stop_time_final_s", 60.0, "1 c"),
        # 604 "each team at the numerical strength of four (4) skaters and one (1) goalkeeper"
        (IPC, "overtime.skaters", 4, "604"),
        (IPC, "overtime.goalkeepers", 1, "604"),
        # 604 five-minute (preliminary), ten-minute (playoff), fifteen-minute (gold medal)
        (IPC, "overtime.length_s", 300.0, "604"),
        (IPC, "overtime.max_length_s", 900.0, "604"),
        # 604 1 "Coincidental penalties do not affect the on-ice strength"
        (IPC, "overtime.coincidental_penalties_affect_strength", False, "604 1"),
        # Westridge 1 l "a 5 minute running time Overtime ... Teams will play 4 on 4"
        (SPONGE, "overtime.length_s", 300.0, "1 l"),
        (SPONGE, "overtime.skaters", 4, "1 l"),
        # 702 "not more than six athletes on the ice ... maximum of one goalkeeper"
        (IPC, "team_composition.skaters", 5, "702"),
        (IPC, "team_composition.goalkeepers", 1, "702"),
        (IPC, "team_composition.max_players_on_ice", 6, "702"),
        # 700 "maximum of (13) players and (2) Goalkeeper's"
        (IPC, "team_composition.max_roster_players", 13, "700"),
        (IPC, "team_composition.max_roster_goalkeepers", 2, "700"),
        # Westridge 1 g "six players on the ice ... allowed to play with four players
        # (3 and goalie or 4 and no goalie)"
        (SPONGE, "team_composition.skaters", 5, "1 g"),
        (SPONGE, "team_composition.max_players_on_ice", 6, "1 g, 2 I a"),
        (SPONGE, "team_composition.min_skaters", 3, "1 g"),
        (SPONGE, "team_composition.player_kind", "standing", "section 3: shoes"),
        (IPC, "offside.enabled", True, "903"),
        (IPC, "offside.blades_rule", "903 b1", "903 b1"),
        (IPC, "offside.puck_rule", "903 b2", "903 b2"),
        (IPC, "delayed_offside.enabled", True, "904"),
        (IPC, "delayed_offside.tag_up_rule", "904 b2", "904 b2"),
        # Westridge 1 b "No off-sides or icing will be called"
        (SPONGE, "offside.enabled", False, "1 b"),
        (SPONGE, "delayed_offside.enabled", False, "1 b"),
        (IPC, "icing.enabled", True, "905"),
        # 905 b "a team equal or superior in numerical strength"
        (IPC, "icing.requires_equal_or_superior_strength", True, "905 b"),
        (IPC, "icing.window", None, "905: any time"),
        # Westridge 1 b "icing will be called in the final minute of the second half"
        (SPONGE, "icing.enabled", True, "1 b"),
        (SPONGE, "icing.window.period", 2, "1 b"),
        (SPONGE, "icing.window.final_s", 60.0, "1 b"),
        # 218 b "extend vertically 1.22m ... 1.83m apart"; 217 c "extending vertically 1.27m"
        (IPC, "goal.goal_height_m", 1.22, "218 b"),
        (IPC, "goal.goal_post_gap_m", 1.83, "218 b"),
        (IPC, "goal.crease_height_m", 1.27, "217 c"),
        (IPC, "goal.entire_puck_across_rule", "906 1", "906 1"),
        # 907 a4 "any part of his sled or holds his stick in the goal crease when the
        # puck enters the goal"
        (IPC, "crease.mode", "no_attacker_at_goal", "907 a4"),
        (IPC, "crease.counted_parts", ("sled", "stick"), "907 a4"),
        (IPC, "crease.rule", "907 a4", "907 a4"),
        # Westridge 1 n "three (3) second limit ... in the defender's goalie's key";
        # 1 o "will begin when the offensive player's foot enters the key, not the stick"
        (SPONGE, "crease.mode", "time_limit", "1 n"),
        (SPONGE, "crease.time_limit_s", 3.0, "1 n"),
        (SPONGE, "crease.counted_parts", ("foot",), "1 o"),
        (SPONGE, "crease.requires_zone_control", True, "1 n"),
        # 1064 "The position of the goalkeeper's blades shall be the determining factor"
        (IPC, "goalkeeper_beyond_centre.rule", "1064", "1064"),
        (IPC, "goalkeeper_beyond_centre.deciding_part", "blades", "1064"),
        (SPONGE, "goalkeeper_beyond_centre.rule", "4 XI c", "4 XI c"),
        # Westridge 1 r "ahead by a fifteen (15) goal spread after half time or at any
        # point during the second half"
        (SPONGE, "mercy.enabled", True, "1 r"),
        (SPONGE, "mercy.goal_spread", 15, "1 r"),
        (SPONGE, "mercy.from_period", 2, "1 r"),
        (IPC, "mercy.enabled", False, "603 a"),
        # Westridge 1 a "There shall be no body contact"
        (SPONGE, "body_contact.allowed", False, "1 a"),
        (IPC, "body_contact.allowed", True, "1014"),
    ],
)
def test_profile_values_match_the_rule_books(profile, field, expected, clause):
    value = _get(load_profile(profile), field)
    if isinstance(expected, float):
        assert value == pytest.approx(expected), clause
    else:
        assert value == expected, clause


@pytest.mark.parametrize(
    "name, clause",
    [
        ("goal", "905 d1"),  # "If the puck enters the goal"
        ("shorthanded", "905 d2"),  # "offending team is Short Handed"
        ("touched_by_opponent", "905 d3"),  # "touches any part of an opposing player"
        ("faceoff", "905 d4"),  # "iced directly from a player participating in a face-off"
        ("opponent_could_play", "905 d5"),  # "able to play the puck"
        ("goalkeeper_moved", "905 d6"),  # "goalkeeper leaves his goal crease"
    ],
)
def test_ipc_icing_exceptions_cite_905_d(name, clause):
    exc = load_profile(IPC).icing.exception(name)
    assert exc is not None and exc.rule == clause and exc.text


def test_ipc_icing_has_exactly_the_six_905_d_exceptions():
    assert [e.rule for e in load_profile(IPC).icing.exceptions] == [
        f"905 d{i}" for i in range(1, 7)
    ]


def test_sponge_icing_exceptions_are_only_those_of_1_b():
    # 1 b "The only exceptions would be if the leading team is shorthanded at the
    # time, or if there is a three (3) or more goal lead."
    icing = load_profile(SPONGE).icing
    assert [e.name for e in icing.exceptions] == ["leading_team_shorthanded", "lead"]
    assert all(e.rule == "1 b" for e in icing.exceptions)
    assert icing.exception("lead").min_lead_goals == 3
    assert icing.exception("goal") is None  # 905 d1 is not part of the sponge book


@pytest.mark.parametrize(
    "regulation_end, overtime_start, clause",
    [
        ((5, 5), (4, 4), "604: four (4) skaters"),
        ((5, 4), (4, 3), "604 4: 5-on-4 ... overtime begins at 4-on-3"),
        ((4, 5), (3, 4), "604 4, mirrored"),
        ((5, 3), (5, 3), "604 5: 5-on-3 ... commence the overtime with 5-on-3"),
        ((3, 3), (3, 3), "604 6: 3-on-3, overtime starts 3-on-3"),
        ((4, 4), (4, 4), "604 7: 4-on-4 with players in the box starts 4-on-4"),
    ],
)
def test_ipc_overtime_start_strength_604(regulation_end, overtime_start, clause):
    ot = load_profile(IPC).overtime
    assert ot.start_strength(*regulation_end, full_strength=5) == overtime_start, clause


@pytest.mark.parametrize(
    "advantage, strength, clause",
    [
        (0, (4, 4), "604: four (4) skaters each"),
        (1, (4, 3), "604 1: penalized in overtime, the teams will play 4-on-3"),
        (2, (5, 3), "604 2: offending team three (3), non-offending a fifth skater"),
        (3, (5, 3), "604 2: never below three skaters"),
    ],
)
def test_ipc_overtime_strength_after_penalties_604(advantage, strength, clause):
    assert load_profile(IPC).overtime.stoppage_strength(advantage) == strength, clause


def test_every_section_cites_a_rule():
    for name in list_profiles():
        profile = load_profile(name)
        for section in RuleProfile.model_fields:
            value = getattr(profile, section)
            if hasattr(value, "rule"):
                assert value.rule.strip(), f"{name}.{section}"


def test_period_lengths_include_overtime():
    ipc = load_profile(IPC)
    assert ipc.period_length_s(3) == 900.0
    assert ipc.period_length_s(4) == 900.0  # 604: up to 15 min (gold medal final)
    assert ipc.standard_period_length_s(4) == 300.0  # preliminary round overtime
    with pytest.raises(ValueError, match="period 5 does not exist"):
        ipc.period_length_s(5)


def test_unknown_profile_lists_the_known_ones():
    with pytest.raises(ProfileError) as info:
        load_profile("ipc")
    assert "'ipc'" in str(info.value)
    assert "ipc-sledge" in str(info.value) and "sponge-westridge" in str(info.value)


@pytest.mark.parametrize(
    "mutate, field",
    [
        (lambda d: d["puck"].pop("diameter_m"), "puck.diameter_m"),
        (lambda d: d["rink"]["length_m"].update(min=70.0), "rink.length_m"),
        (lambda d: d["icing"]["exceptions"][0].update(rule=""), "icing.exceptions[0].rule"),
        (lambda d: d["icing"]["exceptions"][1].update(name="nope"), "icing.exceptions[1].name"),
        (lambda d: d["overtime"].update(skaters="four"), "overtime.skaters"),
        (lambda d: d["crease"].update(time_limit_s=3.0), "crease"),
        (lambda d: d["goal"].update(goal_width_m=1.83), "goal.goal_width_m"),
        (lambda d: d["rink"].update(default_layout="sponge"), "rink.default_layout"),
        (lambda d: d["mercy"].update(enabled=True), "mercy"),
    ],
)
def test_profile_validation_errors_name_the_field(mutate, field):
    data = _raw(IPC)
    mutate(data)
    with pytest.raises(ProfileError) as info:
        profile_from_dict(data, source="test")
    assert str(info.value).startswith(f"profile test: {field}")


def test_profile_from_file(tmp_path):
    path = tmp_path / "league.json"
    data = _raw(SPONGE)
    path.write_text(json.dumps(data))
    assert load_profile_file(path) == load_profile(SPONGE)
    path.write_text("{ not json")
    with pytest.raises(ProfileError, match="league.json"):
        load_profile_file(path)


def test_profiles_are_frozen():
    with pytest.raises(Exception):
        load_profile(IPC).puck.diameter_m = 0.1  # type: ignore[misc]


def test_standard_sizes_match_the_calibration_layouts():
    layouts = pytest.importorskip("calibration.layouts")
    for layout, (length, width) in LAYOUT_STANDARD_SIZE_M.items():
        assert layouts.LAYOUTS[layout]["length_m"] == pytest.approx(length)
        assert layouts.LAYOUTS[layout]["width_m"] == pytest.approx(width)
