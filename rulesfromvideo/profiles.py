"""Rule profiles: the rule book of one competition as validated data.

A profile (``rulesfromvideo/profiles/<name>.json``, shipped as package data) holds
every number and switch the rule detectors need, each with the rule clause it comes
from, so that detectors never hard-code a rule book. Two profiles ship:

* ``ipc-sledge``: IPC Ice Sledge Hockey Rules (2011), rule numbers like ``"905 d2"``.
* ``sponge-westridge``: Westridge Sponge Hockey League rules (2015-16), clauses
  cited by section, e.g. ``"1 b"`` (section 1, clause b) or ``"4 XI c"``.

Where a book is silent the profile says so in the section's ``note`` and the
``rule`` string names the rule applied by analogy.

Example:
    >>> from rulesfromvideo.profiles import load_profile
    >>> p = load_profile("ipc-sledge")
    >>> p.overtime.skaters, p.overtime.rule
    (4, '604')
"""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

Layout = Literal["ipc", "iihf", "nhl"]

FT_M = 0.3048  # one international foot in metres

# Standard size of each marking layout, metres. A layout's own standard size is
# valid under any profile (design: NHL 200 x 85 ft is a legal sledge venue even
# though 85 ft < the 26 m minimum of IPC 201). Kept equal to calibration.layouts
# (a test checks this when that module is importable).
LAYOUT_STANDARD_SIZE_M: dict[str, tuple[float, float]] = {
    "ipc": (60.0, 30.0),  # 201 range 56-61 x 26-30; 60 x 30 is the usual venue
    "iihf": (60.0, 30.0),  # IIHF 1.2
    "nhl": (200 * FT_M, 85 * FT_M),  # NHL 1.2: 200 x 85 ft
}


class ProfileError(ValueError):
    """A rule profile is unknown or its data is invalid (the message names the field)."""


class _Section(BaseModel):
    """Base of every profile section: frozen, no unknown keys."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    rule: str = Field(min_length=1, description="rule clause(s) this section implements")
    note: str | None = Field(default=None, description="interpretation where the book is silent")


class Range(BaseModel):
    """A closed interval ``[min, max]``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    min: float
    max: float

    @model_validator(mode="after")
    def _ordered(self) -> Range:
        if self.min > self.max:
            raise ValueError(f"min {self.min} > max {self.max}")
        return self

    def contains(self, value: float, tol: float = 1e-9) -> bool:
        """Whether ``min - tol <= value <= max + tol``."""
        return self.min - tol <= value <= self.max + tol


class RinkRules(_Section):
    """Rink size limits and the default marking layout (IPC 201)."""

    default_layout: Layout
    length_m: Range
    width_m: Range
    corner_radius_m: Range


class PuckRules(_Section):
    """Puck dimensions (IPC 501: "shall not exceed" 7.62 cm x 2.54 cm)."""

    diameter_m: float = Field(gt=0)
    thickness_m: float = Field(gt=0)

    @property
    def radius_m(self) -> float:
        """Half the diameter (the ``r`` of the event definitions)."""
        return self.diameter_m / 2


class PeriodRules(_Section):
    """Regulation periods (IPC 600-601; Westridge 1 c)."""

    count: int = Field(ge=1)
    length_s: float = Field(gt=0)
    running_time: bool = Field(description="clock runs through stoppages (Westridge 1 c)")
    stop_time_final_s: float = Field(
        default=0.0,
        ge=0,
        description="stop time in the last seconds of the final period (Westridge 1 c: 60)",
    )
    intermission_s: float | None = Field(default=None, ge=0)


class OvertimeRules(_Section):
    """Overtime length and on-ice strength (IPC 604; Westridge 1 l).

    Strengths are skater counts (the goalkeeper is not counted), as in GAME.json's
    ``strength``.
    """

    enabled: bool
    length_s: float = Field(gt=0, description="default overtime length")
    other_lengths_s: dict[str, float] = Field(
        default_factory=dict, description="lengths for other game kinds (604: playoff, final)"
    )
    skaters: int = Field(ge=1, description="skaters per side at full overtime strength")
    goalkeepers: int = Field(ge=0)
    strength_by_advantage: dict[int, tuple[int, int]] = Field(
        default_factory=dict,
        description="man advantage -> (non-offending, offending) skaters (604 1, 2, 3)",
    )
    coincidental_penalties_affect_strength: bool = True
    equal_shorthanded_carryover_kept: bool = Field(
        default=False,
        description="regulation ending level but below full strength keeps it (604 6, 7)",
    )
    adjust_at_first_stoppage: bool = Field(
        default=False,
        description="strength re-adjusted to the table at the first stoppage (604 3, 5, 6, 7)",
    )
    clauses: dict[str, str] = Field(default_factory=dict, description="clause -> summary")
    stop_time_final_s: float = Field(default=0.0, ge=0)

    @property
    def max_length_s(self) -> float:
        """The longest overtime any game kind may play."""
        return max([self.length_s, *self.other_lengths_s.values()])

    def stoppage_strength(self, advantage: int) -> tuple[int, int]:
        """On-ice strength after a stoppage for a given man advantage (604 1-3).

        Args:
            advantage: how many more penalised players the offending side has (>= 0).

        Returns:
            ``(non_offending, offending)`` skater counts.
        """
        if advantage < 0:
            raise ValueError("advantage must be >= 0")
        if not self.strength_by_advantage:
            return (self.skaters, max(self.skaters - advantage, 0))
        top = max(self.strength_by_advantage)
        return self.strength_by_advantage[min(advantage, top)]

    def start_strength(self, home: int, away: int, full_strength: int) -> tuple[int, int]:
        """Strength at the start of overtime given the strength at the end of regulation.

        Implements 604 4-7: a one-man advantage becomes 4-on-3 (604 4), 5-on-3 stays
        (604 5), and level but shorthanded strength (3-on-3, 4-on-4) stays (604 6, 7).
        A profile without ``strength_by_advantage`` (the Westridge book is silent)
        starts level at ``skaters`` a side, and otherwise gives the stronger side
        ``skaters`` and the weaker side ``skaters`` minus the difference.

        Args:
            home: home skaters on the ice when regulation ended.
            away: away skaters on the ice when regulation ended.
            full_strength: regulation full strength (team_composition.skaters).

        Returns:
            ``(home, away)`` skater counts.
        """
        if home == away:
            if home >= full_strength or not self.equal_shorthanded_carryover_kept:
                return (self.skaters, self.skaters)
            return (home, away)
        adv = abs(home - away)
        top = max(self.strength_by_advantage) if self.strength_by_advantage else 0
        if adv >= top and top > 0:
            # 604 5: a two-man advantage carries over as it stands.
            strong, weak = max(home, away), min(home, away)
        else:
            strong, weak = self.stoppage_strength(adv)
        return (strong, weak) if home > away else (weak, strong)


class TeamComposition(_Section):
    """Players on the ice (IPC 700-702; Westridge 1 g, 2 I a).

    ``skaters`` is full strength, not counting the goalkeeper.
    """

    skaters: int = Field(ge=1)
    goalkeepers: int = Field(ge=0)
    max_players_on_ice: int = Field(ge=1, description="including the goalkeeper")
    min_skaters: int = Field(ge=0, description="fewest skaters a team may be reduced to")
    max_roster_players: int | None = Field(default=None, ge=1)
    max_roster_goalkeepers: int | None = Field(default=None, ge=0)
    player_kind: Literal["sledge", "standing"] = Field(
        description="sledge: blades are sledge blades; standing: blades are feet"
    )

    @model_validator(mode="after")
    def _consistent(self) -> TeamComposition:
        if self.skaters + self.goalkeepers > self.max_players_on_ice:
            raise ValueError("skaters + goalkeepers exceeds max_players_on_ice")
        if self.min_skaters > self.skaters:
            raise ValueError("min_skaters exceeds skaters")
        return self


class OffsideRules(_Section):
    """Offside (IPC 903). Disabled in the sponge league (Westridge 1 b)."""

    enabled: bool
    blades_rule: str | None = Field(default=None, description="903 b1: both blades over")
    puck_rule: str | None = Field(default=None, description="903 b2: puck completely across")
    exemptions: dict[str, str] = Field(
        default_factory=dict, description="exemption name -> clause (903 b3, d, e)"
    )


class DelayedOffsideRules(_Section):
    """Delayed offside (IPC 904)."""

    enabled: bool
    tag_up_rule: str | None = Field(default=None, description="904 b2: blade contact with the line")


IcingExceptionName = Literal[
    "goal",
    "shorthanded",
    "touched_by_opponent",
    "faceoff",
    "opponent_could_play",
    "goalkeeper_moved",
    "leading_team_shorthanded",
    "lead",
]


class IcingException(BaseModel):
    """One reason icing is not called ("waved off"), with its clause.

    The names are the ``evidence`` values of waved-off icing events.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: IcingExceptionName
    rule: str = Field(min_length=1)
    text: str = Field(min_length=1, description="the clause, quoted or summarised")
    min_lead_goals: int | None = Field(default=None, ge=1, description="only for name 'lead'")

    @model_validator(mode="after")
    def _lead_needs_goals(self) -> IcingException:
        if (self.name == "lead") != (self.min_lead_goals is not None):
            raise ValueError("min_lead_goals is required for name 'lead' and only for it")
        return self


class IcingWindow(BaseModel):
    """When icing is called at all (Westridge 1 b: "the final minute of the second half")."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    period: int = Field(ge=1)
    final_s: float = Field(gt=0, description="icing only while remaining_s <= final_s")


class IcingRules(_Section):
    """Icing (IPC 905; Westridge 1 b)."""

    enabled: bool
    halves_divided_by: Literal["centre_red_line"] = "centre_red_line"  # 905 a
    requires_equal_or_superior_strength: bool = Field(
        description="905 b: only a team equal or superior in strength can ice"
    )
    window: IcingWindow | None = Field(default=None, description="None: icing at any time")
    exceptions: tuple[IcingException, ...] = ()

    @model_validator(mode="after")
    def _unique(self) -> IcingRules:
        names = [e.name for e in self.exceptions]
        if len(names) != len(set(names)):
            raise ValueError(f"duplicate exception names in {names}")
        return self

    def exception(self, name: str) -> IcingException | None:
        """The exception with that name, or None when this profile has none."""
        return next((e for e in self.exceptions if e.name == name), None)


class GoalRules(_Section):
    """Goal geometry and definition (IPC 906, 907, 217 c, 218 b)."""

    entire_puck_across_rule: str = Field(description="906 1")
    disallow_rule: str = Field(description="907")
    goal_height_m: float = Field(gt=0, description="218 b: 1.22 m")
    goal_post_gap_m: float = Field(gt=0, description="218 b: 1.83 m inside")
    crease_height_m: float = Field(gt=0, description="217 c: 1.27 m")


class CreaseRules(_Section):
    """Attackers in the goal crease / key.

    * ``mode == "no_attacker_at_goal"`` (IPC 907 a4): no goal if any part of an
      attacker's sled (or stick) is in the crease when the puck enters the goal.
    * ``mode == "time_limit"`` (Westridge 1 n, o): an attacker may stay in the
      defender's key at most ``time_limit_s`` while his team controls the puck in
      the defender's zone, counted from the foot entering (not the stick).
    """

    mode: Literal["no_attacker_at_goal", "time_limit"]
    counted_parts: tuple[str, ...] = Field(description="body parts that occupy the crease")
    time_limit_s: float | None = Field(default=None, gt=0)
    count_starts: str | None = Field(default=None, description="what starts the count (1 o)")
    requires_zone_control: bool = False
    exemptions: dict[str, str] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _limit_iff_time_mode(self) -> CreaseRules:
        if (self.mode == "time_limit") != (self.time_limit_s is not None):
            raise ValueError("time_limit_s is required for mode 'time_limit' and only for it")
        return self


class GoalkeeperCentreLineRules(_Section):
    """Goalkeeper playing the puck beyond the centre red line (IPC 1064; Westridge 4 XI c)."""

    enabled: bool
    deciding_part: Literal["blades", "feet"] = Field(description="1064: the blades decide")
    penalty: str


class MercyRules(_Section):
    """Game called on a goal spread (Westridge 1 r)."""

    enabled: bool
    goal_spread: int | None = Field(default=None, ge=1)
    from_period: int | None = Field(
        default=None, ge=1, description="applies from half time, i.e. from this period on"
    )

    @model_validator(mode="after")
    def _complete(self) -> MercyRules:
        if self.enabled and (self.goal_spread is None or self.from_period is None):
            raise ValueError("an enabled mercy rule needs goal_spread and from_period")
        return self


class BodyContactRules(_Section):
    """Whether body checks are legal (Westridge 1 a, 6 IV a: none at all)."""

    allowed: bool
    penalty: str | None = None


class RuleProfile(BaseModel):
    """One competition's rules as data; every section cites its clauses.

    Attributes:
        name: profile name (the file stem), e.g. ``"ipc-sledge"``.
        title: the rule book it is taken from.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*$")
    title: str
    rink: RinkRules
    puck: PuckRules
    periods: PeriodRules
    overtime: OvertimeRules
    team_composition: TeamComposition
    offside: OffsideRules
    delayed_offside: DelayedOffsideRules
    icing: IcingRules
    goal: GoalRules
    crease: CreaseRules
    goalkeeper_beyond_centre: GoalkeeperCentreLineRules
    mercy: MercyRules
    body_contact: BodyContactRules

    def period_length_s(self, period: int) -> float:
        """Length of a period; periods after ``periods.count`` are overtime.

        Raises:
            ValueError: the period does not exist in this profile.
        """
        if 1 <= period <= self.periods.count:
            return self.periods.length_s
        if period == self.periods.count + 1 and self.overtime.enabled:
            return self.overtime.max_length_s
        raise ValueError(
            f"period {period} does not exist under {self.name} "
            f"({self.periods.count} periods{' + overtime' if self.overtime.enabled else ''})"
        )

    def standard_period_length_s(self, period: int) -> float:
        """Full length of a period as started (overtime: its default length)."""
        self.period_length_s(period)  # raises for a period that does not exist
        if period <= self.periods.count:
            return self.periods.length_s
        return self.overtime.length_s


def format_validation_error(exc: ValidationError) -> str:
    """Render a pydantic error as ``"field.path[i]: message"`` parts joined by ``"; "``."""
    return "; ".join(format_error(err) for err in exc.errors())


def format_error(err: dict) -> str:
    """Render one pydantic error dict as ``"field.path[i]: message"``."""
    loc = format_loc(err.get("loc", ()))
    msg = err.get("msg", "invalid")
    if err.get("type") == "value_error":
        # Our own validators' messages; drop pydantic's "Value error, " prefix.
        msg = str(err.get("ctx", {}).get("error", msg))
    elif err.get("type") == "extra_forbidden":
        msg = "unknown field"
    return f"{loc}: {msg}" if loc else msg


def format_loc(loc: tuple | list) -> str:
    """``("strength", 1, "t")`` -> ``"strength[1].t"``."""
    out = ""
    for item in loc:
        if isinstance(item, int):
            out += f"[{item}]"
        else:
            out += f".{item}" if out else str(item)
    return out


def _profiles_dir():
    return resources.files("rulesfromvideo").joinpath("profiles")


def list_profiles() -> list[str]:
    """Names of the profiles shipped with the package, sorted."""
    return sorted(
        entry.name[: -len(".json")]
        for entry in _profiles_dir().iterdir()
        if entry.name.endswith(".json")
    )


def profile_from_dict(data: dict, source: str = "<dict>") -> RuleProfile:
    """Validate profile data.

    Raises:
        ProfileError: naming the source and the bad field, e.g.
            ``"profile ipc-sledge: icing.exceptions[0].rule: Field required"``.
    """
    try:
        return RuleProfile.model_validate(data)
    except ValidationError as exc:
        raise ProfileError(f"profile {source}: {format_validation_error(exc)}") from None


def load_profile_file(path: str | Path) -> RuleProfile:
    """Load and validate a profile from a JSON file (e.g. a league's own profile)."""
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise ProfileError(f"profile {path}: {exc}") from None
    return profile_from_dict(data, source=str(path))


@lru_cache(maxsize=None)
def load_profile(name: str) -> RuleProfile:
    """Load a packaged profile by name (profiles are frozen, so the cache is safe).

    Args:
        name: e.g. ``"ipc-sledge"`` or ``"sponge-westridge"``.

    Raises:
        ProfileError: unknown name (the message lists the known ones) or invalid data.
    """
    known = list_profiles()
    if name not in known:
        raise ProfileError(f"unknown profile {name!r} (known: {', '.join(known)})")
    text = _profiles_dir().joinpath(f"{name}.json").read_text(encoding="utf-8")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ProfileError(f"profile {name}: {exc}") from None
    profile = profile_from_dict(data, source=name)
    if profile.name != name:
        raise ProfileError(f"profile {name}: name: {profile.name!r} does not match the file name")
    return profile
