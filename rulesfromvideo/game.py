"""GAME.json: what officials know before the clip (the design's contract).

Example (the design's)::

    {"rules": "ipc-sledge",
     "rink": {"layout": "ipc", "length_m": 60, "width_m": 30},
     "teams": {"home": {"color": "#c8102e", "attacks": "+x"}, "away": {"color": "#0b3d91"}},
     "strength": [{"t": 0.0, "home": 5, "away": 5}],
     "clock": {"period": 2, "remaining_s": 600.0},
     "score": {"home": 1, "away": 1}}

Required: ``rules`` and both teams' ``color``. Defaults for everything else
(also in ``docs/game-descriptor.md``):

* ``rink.layout``: the profile's ``rink.default_layout`` (``ipc`` for ipc-sledge,
  ``nhl`` for sponge-westridge).
* ``rink.length_m`` / ``rink.width_m``: the layout's standard size
  (:data:`rulesfromvideo.profiles.LAYOUT_STANDARD_SIZE_M`); each defaults on its own.
* ``teams.home.attacks``: ``"+x"``; ``teams.away.attacks``: the opposite of home's.
* ``strength``: full strength from the profile at t = 0 (ipc-sledge 5 v 5, 702; when
  ``clock.period`` is overtime, 4 v 4, 604). Before the first step, if that step is
  after t = 0, full strength applies too.
* ``clock``: period 1 with its full length remaining; ``clock.remaining_s`` alone
  defaults to the full length of the given period.
* ``score``: 0-0 (``home`` and ``away`` each default to 0).

Every error is a :class:`GameError` whose message names the field, e.g.
``teams.home.color: '#zz0000' is not a colour``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    ValidationError,
    field_validator,
    model_validator,
)

from rulesfromvideo.profiles import (
    LAYOUT_STANDARD_SIZE_M,
    ProfileError,
    RuleProfile,
    format_error,
    format_loc,
    list_profiles,
    load_profile,
)

Team = Literal["home", "away"]
Direction = Literal["+x", "-x"]

# Accepted colour names, case-insensitive: the 16 basic colour keywords of CSS
# (CSS Color Level 3, section 4.1, = HTML 4) plus "orange" (CSS 2.1) and the
# British "grey". Values are the CSS ones (X11 differs, e.g. for green/gray).
BASIC_COLOURS: dict[str, str] = {
    "black": "#000000",
    "silver": "#c0c0c0",
    "gray": "#808080",
    "grey": "#808080",
    "white": "#ffffff",
    "maroon": "#800000",
    "red": "#ff0000",
    "purple": "#800080",
    "fuchsia": "#ff00ff",
    "green": "#008000",
    "lime": "#00ff00",
    "olive": "#808000",
    "yellow": "#ffff00",
    "navy": "#000080",
    "blue": "#0000ff",
    "teal": "#008080",
    "aqua": "#00ffff",
    "orange": "#ffa500",
}

_HEX = set("0123456789abcdefABCDEF")
# A layout's standard size is matched to within 1 cm (60.96 vs 60.96 m from feet).
_STANDARD_SIZE_TOL_M = 0.01


class GameError(ValueError):
    """GAME.json is invalid; the message starts with the offending field's path."""


def parse_colour(value: str) -> tuple[int, int, int]:
    """Parse ``#rgb``, ``#rrggbb`` or a basic colour name to ``(r, g, b)``.

    Raises:
        ValueError: "'<value>' is not a colour".
    """
    if not isinstance(value, str):
        raise ValueError(f"{value!r} is not a colour")
    text = value.strip()
    hexpart = BASIC_COLOURS.get(text.lower(), text)
    if hexpart.startswith("#") and set(hexpart[1:]) <= _HEX:
        digits = hexpart[1:]
        if len(digits) == 3:
            digits = "".join(c * 2 for c in digits)
        if len(digits) == 6:
            return tuple(int(digits[i : i + 2], 16) for i in (0, 2, 4))  # type: ignore[return-value]
    raise ValueError(
        f"{value!r} is not a colour (use #rgb, #rrggbb or one of: {', '.join(BASIC_COLOURS)})"
    )


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)


class RinkInfo(_Strict):
    """``rink``: marking layout and size; None fields are filled from the profile."""

    layout: Literal["ipc", "iihf", "nhl"] | None = None
    length_m: float | None = Field(default=None, gt=0)
    width_m: float | None = Field(default=None, gt=0)


class TeamInfo(_Strict):
    """``teams.home`` / ``teams.away``: jersey colour and attacking direction at t = 0."""

    color: str
    attacks: Direction | None = None

    @field_validator("color")
    @classmethod
    def _is_colour(cls, v: str) -> str:
        parse_colour(v)
        return v


class Teams(_Strict):
    """``teams``."""

    home: TeamInfo
    away: TeamInfo


class StrengthStep(_Strict):
    """One step of ``strength``: skaters on the ice per team from ``t`` on."""

    t: float = Field(ge=0, description="video time, s")
    home: int = Field(ge=0)
    away: int = Field(ge=0)


class Clock(_Strict):
    """``clock``: game clock at t = 0."""

    period: int = Field(default=1, ge=1)
    remaining_s: float | None = Field(default=None, ge=0)


class Score(_Strict):
    """``score`` at t = 0."""

    home: int = Field(default=0, ge=0)
    away: int = Field(default=0, ge=0)


class GameDescriptor(_Strict):
    """A validated GAME.json with all defaults filled in.

    After validation every optional field holds its resolved value (no None left),
    so :meth:`to_dict` writes a complete descriptor that reads back identically.
    """

    rules: str
    rink: RinkInfo = Field(default_factory=RinkInfo)
    teams: Teams
    strength: list[StrengthStep] | None = None
    clock: Clock = Field(default_factory=Clock)
    score: Score = Field(default_factory=Score)

    _profile: RuleProfile = PrivateAttr()

    @field_validator("rules")
    @classmethod
    def _known_profile(cls, v: str) -> str:
        try:
            load_profile(v)
        except ProfileError as exc:
            raise ValueError(str(exc)) from None
        return v

    @model_validator(mode="after")
    def _resolve(self) -> GameDescriptor:
        profile = load_profile(self.rules)
        self._profile = profile
        problems = []
        # Each section is checked even when an earlier one failed, so that one
        # error message lists every wrong section (the first problem of each).
        for resolve in (
            lambda: self._resolve_rink(profile),
            self._resolve_teams,
            lambda: self._resolve_clock(profile),
            lambda: self._resolve_strength(profile),
        ):
            try:
                resolve()
            except ValueError as exc:
                problems.append(str(exc))
        if problems:
            raise ValueError("; ".join(problems))
        return self

    def _resolve_rink(self, profile: RuleProfile) -> None:
        rink = self.rink
        if rink.layout is None:
            rink.layout = profile.rink.default_layout
        std_length, std_width = LAYOUT_STANDARD_SIZE_M[rink.layout]
        if rink.length_m is None:
            rink.length_m = std_length
        if rink.width_m is None:
            rink.width_m = std_width
        is_standard = (
            abs(rink.length_m - std_length) <= _STANDARD_SIZE_TOL_M
            and abs(rink.width_m - std_width) <= _STANDARD_SIZE_TOL_M
        )
        if is_standard:
            return
        layout_ranges = _layout_size_ranges(rink.layout)
        for field, value, rng in (
            ("length_m", rink.length_m, profile.rink.length_m),
            ("width_m", rink.width_m, profile.rink.width_m),
        ):
            if not rng.contains(value):
                raise ValueError(
                    f"rink.{field}: {value:g} m is outside {profile.name}'s range "
                    f"{rng.min:g}-{rng.max:g} m ({profile.rink.rule}); the {rink.layout} "
                    f"standard {std_length:g} x {std_width:g} m is also accepted"
                )
            lo, hi = layout_ranges.get(field, (float("-inf"), float("inf")))
            if not lo - 1e-9 <= value <= hi + 1e-9:
                # Caught here rather than later in rink_spec(): the markings of a
                # layout only scale within its own size range.
                raise ValueError(
                    f"rink.{field}: {value:g} m is outside the {rink.layout} layout's "
                    f"range {lo:g}-{hi:g} m"
                )

    def _resolve_teams(self) -> None:
        home, away = self.teams.home, self.teams.away
        if home.attacks is None:
            home.attacks = "+x" if away.attacks is None else _opposite(away.attacks)
        if away.attacks is None:
            away.attacks = _opposite(home.attacks)
        if home.attacks == away.attacks:
            raise ValueError(
                f"teams.away.attacks: both teams attack {away.attacks!r}; "
                f"away must attack {_opposite(home.attacks)!r}"
            )
        if parse_colour(home.color) == parse_colour(away.color):
            # Westridge 1 f: same colours are resolved before the game; teams
            # cannot be told apart on video otherwise.
            raise ValueError(
                f"teams.away.color: {away.color!r} is the same colour as teams.home.color"
            )

    def _resolve_strength(self, profile: RuleProfile) -> None:
        comp = profile.team_composition
        if self.strength is None:
            full = self._full_strength(profile)
            self.strength = [StrengthStep(t=0.0, home=full, away=full)]
            return
        if not self.strength:
            raise ValueError("strength: empty list (omit the field for full strength)")
        max_skaters = comp.max_players_on_ice  # a pulled goalkeeper frees one place (702)
        prev_t = None
        for i, step in enumerate(self.strength):
            if prev_t is not None and step.t <= prev_t:
                raise ValueError(
                    f"strength[{i}].t: {step.t:g} s is not after the previous step's {prev_t:g} s"
                )
            prev_t = step.t
            for team in ("home", "away"):
                n = getattr(step, team)
                if n > max_skaters:
                    raise ValueError(
                        f"strength[{i}].{team}: {n} skaters exceed the {max_skaters} players "
                        f"allowed on the ice ({comp.rule})"
                    )
                if n < comp.min_skaters:
                    raise ValueError(
                        f"strength[{i}].{team}: {n} skaters is below the minimum "
                        f"{comp.min_skaters} ({profile.name})"
                    )

    def _full_strength(self, profile: RuleProfile) -> int:
        # 604: overtime is played four skaters a side; regulation per 702.
        if self.clock.period > profile.periods.count:
            return profile.overtime.skaters
        return profile.team_composition.skaters

    def _resolve_clock(self, profile: RuleProfile) -> None:
        try:
            max_len = profile.period_length_s(self.clock.period)
        except ValueError as exc:
            raise ValueError(f"clock.period: {exc}") from None
        if self.clock.remaining_s is None:
            self.clock.remaining_s = profile.standard_period_length_s(self.clock.period)
        elif self.clock.remaining_s > max_len:
            raise ValueError(
                f"clock.remaining_s: {self.clock.remaining_s:g} s exceeds the period "
                f"length {max_len:g} s ({profile.periods.rule})"
            )

    # ---- construction -------------------------------------------------------

    @classmethod
    def from_dict(cls, data: Any) -> GameDescriptor:
        """Validate a GAME.json object.

        Raises:
            GameError: naming the bad field (all problems found, joined by "; ").
        """
        if not isinstance(data, dict):
            raise GameError(f"GAME.json must be a JSON object, not {type(data).__name__}")
        try:
            return cls.model_validate(data)
        except ValidationError as exc:
            raise GameError(_format_game_error(exc)) from None

    @classmethod
    def from_file(cls, path: str | Path) -> GameDescriptor:
        """Read and validate GAME.json.

        Raises:
            GameError: unreadable file, invalid JSON (with line and column), or a bad field.
        """
        path = Path(path)
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise GameError(f"cannot read {path}: {exc.strerror or exc}") from None
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise GameError(
                f"{path}: not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})"
            ) from None
        return cls.from_dict(data)

    def to_dict(self) -> dict:
        """The complete descriptor (defaults filled) as a GAME.json object."""
        return self.model_dump(mode="json")

    # ---- queries ------------------------------------------------------------

    @property
    def profile(self) -> RuleProfile:
        """The loaded rule profile named by ``rules``."""
        return self._profile

    def attack_dir(self, team: str) -> int:
        """+1 when ``team`` attacks +x (at t = 0), else -1."""
        return 1 if self._team(team).attacks == "+x" else -1

    def defending_end(self, team: str) -> int:
        """The end (+1 / -1, the sign of its goal line's x) whose goal ``team`` defends."""
        return -self.attack_dir(team)

    def strength_at(self, t: float) -> tuple[int, int]:
        """Skaters on the ice ``(home, away)`` at video time ``t`` (step function).

        A step at ``t_i`` applies from ``t_i`` inclusive. Before the first step, full
        strength from the profile applies (702: 5; in overtime, 604: 4).
        """
        full = self._full_strength(self._profile)
        current = (full, full)
        for step in self.strength or ():
            if step.t > t:
                break
            current = (step.home, step.away)
        return current

    def is_shorthanded(self, team: str, t: float) -> bool:
        """Whether ``team`` has fewer skaters than its opponent at ``t`` (905 C).

        905 C counts only penalties; GAME.json has skater counts alone, so a team
        facing an extra attacker (pulled goalkeeper) also reads as shorthanded.
        """
        home, away = self.strength_at(t)
        self._team(team)
        return home < away if team == "home" else away < home

    def lead(self, team: str) -> int:
        """``team``'s goals minus its opponent's at t = 0 (Westridge 1 b, 1 r)."""
        self._team(team)
        diff = self.score.home - self.score.away
        return diff if team == "home" else -diff

    def team_color_bgr(self, team: str) -> tuple[int, int, int]:
        """The team's jersey colour as an OpenCV ``(b, g, r)`` tuple of 0-255 ints."""
        r, g, b = parse_colour(self._team(team).color)
        return (b, g, r)

    def clock_at(self, t: float) -> tuple[int, float]:
        """Game clock ``(period, remaining_s)`` at video time ``t``, assuming running time.

        The clock runs down from ``clock.remaining_s`` at t = 0 and stops at 0 at the
        end of the period: the clip does not say when the next period starts. With
        stop time (IPC 601 a; the sponge league's last minute, Westridge 1 c) the
        true remaining time is never less than this estimate, so "in the final
        minute" is still decided correctly until the period ends.

        Raises:
            ValueError: ``t`` is negative.
        """
        if t < 0:
            raise ValueError(f"t must be >= 0 (video time), got {t}")
        return (self.clock.period, max(0.0, float(self.clock.remaining_s) - t))

    def rink_spec(self):
        """The rink as ``calibration.rink.RinkSpec.for_layout(layout, length_m, width_m)``.

        Raises:
            GameError: the calibration module rejects the size (its message follows "rink: ").
        """
        from calibration.rink import RinkSpec  # lazy: calibration depends on nothing here

        try:
            return RinkSpec.for_layout(
                self.rink.layout, length_m=self.rink.length_m, width_m=self.rink.width_m
            )
        except ValueError as exc:
            raise GameError(f"rink: {exc}") from None

    @staticmethod
    def opponent(team: str) -> str:
        """``"away"`` for ``"home"`` and vice versa."""
        if team not in ("home", "away"):
            raise ValueError(f"team must be 'home' or 'away', got {team!r}")
        return "away" if team == "home" else "home"

    def _team(self, team: str) -> TeamInfo:
        if team == "home":
            return self.teams.home
        if team == "away":
            return self.teams.away
        raise ValueError(f"team must be 'home' or 'away', got {team!r}")


def load_game(path: str | Path) -> GameDescriptor:
    """Read and validate GAME.json (same as :meth:`GameDescriptor.from_file`)."""
    return GameDescriptor.from_file(path)


def _layout_size_ranges(layout: str) -> dict[str, tuple[float, float]]:
    """The layout's own size ranges from ``calibration.layouts``, or {} without it."""
    try:
        from calibration.layouts import SIZE_RANGES_M
    except ImportError:
        return {}
    return dict(SIZE_RANGES_M.get(layout, {}))


def _opposite(direction: str) -> str:
    return "-x" if direction == "+x" else "+x"


def _allowed_fields(loc: tuple) -> list[str] | None:
    """Field names allowed where an unknown key was found (``loc`` ends at that key)."""
    model: Any = GameDescriptor
    for item in loc[:-1]:
        if isinstance(item, int):
            continue
        field = model.model_fields.get(item)
        if field is None:
            return None
        ann = field.annotation
        # Unwrap Optional[...] / list[...] to the nested model.
        candidates = [ann, *getattr(ann, "__args__", ())]
        nested = None
        for c in candidates:
            for cc in (c, *getattr(c, "__args__", ())):
                if isinstance(cc, type) and issubclass(cc, BaseModel):
                    nested = cc
        if nested is None:
            return None
        model = nested
    return list(model.model_fields)


def _format_game_error(exc: ValidationError) -> str:
    parts = []
    for err in exc.errors():
        loc = tuple(err.get("loc", ()))
        if err.get("type") == "extra_forbidden":
            allowed = _allowed_fields(loc)
            hint = f" (allowed: {', '.join(allowed)})" if allowed else ""
            parts.append(f"{format_loc(loc)}: unknown field{hint}")
        else:
            parts.append(format_error(err))
    return "; ".join(parts)


__all__ = [
    "BASIC_COLOURS",
    "GameDescriptor",
    "GameError",
    "load_game",
    "list_profiles",
    "parse_colour",
]
