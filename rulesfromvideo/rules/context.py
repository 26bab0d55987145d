"""What every detector needs: observations, the game, and the rink's line edges.

Line semantics (design, 206, 501): ``end = +1 | -1`` is the end a team attacks;
``dir`` below is that sign. Positions are compared with ``dir * x`` so that one
code path serves both ends (and the mirror property holds by construction).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from shapely.geometry import Polygon

from rulesfromvideo.observations import Observations
from rulesfromvideo.rules.common import PUCK_RADIUS_M


@dataclass
class RuleContext:
    """Observations with the game and rink they belong to.

    Attributes:
        obs: the observations.
        game: a ``rulesfromvideo.game.GameDescriptor``.
        rink: a ``calibration.rink.RinkModel``.
        attack: {"home": +1 | -1, "away": ...} the end each team attacks.
        puck_radius_m: from the profile (501: 3.81 cm).
        faceoff_spots_xy: (S, 2) face-off spot centres, m (212-215).
    """

    obs: Observations
    game: object
    rink: object
    attack: dict[str, int] = field(default_factory=dict)
    puck_radius_m: float = PUCK_RADIUS_M
    faceoff_spots_xy: np.ndarray | None = None
    cache: dict = field(default_factory=dict)

    @classmethod
    def build(cls, obs: Observations, game, rink) -> RuleContext:
        attack = {t: int(game.attack_dir(t)) for t in ("home", "away")}
        try:
            r = float(game.profile.puck.radius_m)
        except AttributeError:
            r = PUCK_RADIUS_M
        spots = [v[:2] for k, v in rink.landmarks.items()
                 if k == "centre_spot" or k.startswith(("faceoff_spot_", "neutral_spot_"))]
        return cls(obs=obs, game=game, rink=rink, attack=attack, puck_radius_m=r,
                   faceoff_spots_xy=np.array(spots, float).reshape(-1, 2))

    @property
    def profile(self):
        return self.game.profile

    def team_attacking(self, end: int) -> str:
        return "home" if self.attack["home"] == end else "away"

    def skaters_on_ice(self, team: str, t_s: float) -> int:
        """``team``'s skaters on the ice at ``t_s`` (s): GAME.json ``strength`` (702)."""
        return int(self.game.strength_at(float(t_s))[0 if team == "home" else 1])

    @staticmethod
    def opponent(team: str) -> str:
        return "away" if team == "home" else "home"

    def blue_far_x(self, end: int) -> float:
        """Attacking-zone edge of the blue line at ``end``, m."""
        return float(self.rink.blue_line_edges_x(end)[1])

    def blue_near_x(self, end: int) -> float:
        """Neutral-zone edge of the blue line at ``end``, m."""
        return float(self.rink.blue_line_edges_x(end)[0])

    def goal_inner_x(self, end: int) -> float:
        return float(self.rink.goal_line_edges_x(end)[0])

    def goal_outer_x(self, end: int) -> float:
        return float(self.rink.goal_line_edges_x(end)[1])

    @property
    def centre_half_width_m(self) -> float:
        lo, hi = self.rink.centre_line_edges_x()
        return float(hi - lo) / 2.0

    @property
    def post_inner_y_m(self) -> float:
        return float(self.rink.goal_posts_y()[1])

    @property
    def goal_depth_m(self) -> float:
        """The goal frame's depth behind the goal line's centre, m (218 c)."""
        return float(self.rink.spec.goal_depth_m)

    @property
    def goal_height_m(self) -> float:
        try:
            return float(self.profile.goal.goal_height_m)
        except AttributeError:
            return float(self.rink.spec.goal_height_m)

    def crease(self, end: int) -> Polygon:
        return self.rink.crease(end)

    def puck_x_signed(self, end: int) -> np.ndarray:
        """(F,) ``end * x_puck``, m (NaN when absent)."""
        return end * self.obs.puck_xy_rink_m[:, 0]

    def rearm_m(self) -> float:
        """Hysteresis for re-crossings: well above the smoothed noise, at least 2 cm."""
        return float(max(0.02, 3.0 * np.nanmedian(self.obs.sigma_random_m)))
