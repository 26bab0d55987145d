"""Player bodies: sledge (IPC 300-305) and standing (sponge) geometry from a path.

Local frame of a player: ``u`` forward (the heading), ``w`` to the player's left.
A sledge has two blades mounted parallel under the seat (305), 20-30 cm apart
here; the contact point of a blade is its centre. The frame runs from the back
of the seat to the front skid (302): about 1.1 m long, 0.4 m wide at the seat.
A standing player's "blades" are the two feet (design: tracks hold the feet).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vision.sim.motion import PlayerPath
from vision.sim.scene import PlayerState

SEAT_REAR_U_M = -0.25  # back of the seat (306 a: frame within 1 cm of it)
SEAT_FRONT_U_M = 0.15
SEAT_HALF_W_M = 0.20  # 0.40 m wide seat
FRONT_U_M = 0.85  # front of the frame: total length 1.10 m
FRONT_HALF_W_M = 0.06
FRONT_SKID_U_M = 0.74  # centre of the front skid (302: mounted <= 3 cm from the front, 10-20 cm long)
STICK_Z_M = 0.02  # stick blade centre height on the ice
FOOT_LEN_M, FOOT_W_M = 0.28, 0.11

HOME_BGR = (46, 16, 200)  # "#c8102e"
AWAY_BGR = (145, 61, 11)  # "#0b3d91"

# Jersey colours of real hockey kits (B, G, R). Every clip used to wear the two above, so every
# detector and model only ever met red against navy; ``draw_kits`` gives a clip another pair.
KIT_COLOURS_BGR: dict[str, tuple[int, int, int]] = {
    "white": (240, 240, 238), "black": (28, 26, 24), "red": (46, 16, 200), "navy": (91, 38, 12),
    "royal": (160, 70, 20), "green": (48, 96, 0), "gold": (30, 180, 245), "orange": (20, 90, 240),
    "purple": (110, 40, 85), "maroon": (45, 20, 110), "sky": (225, 175, 110), "silver": (170, 168, 165),
    "teal": (125, 120, 0), "yellow": (40, 220, 250),
}
# The two kits of a game must differ plainly (leagues require it): at least this far apart in
# ``vision.teams.lab_distance`` terms (8-bit Lab, lightness weighted half).
KIT_MIN_SEPARATION = 60.0
# Share of drawn games where the visitors wear white (the NHL's road kit).
KIT_AWAY_WHITE_SHARE = 0.4


def draw_kits(seed: int) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
    """(home, away) jersey colours (B, G, R) drawn from ``KIT_COLOURS_BGR`` for ``seed``: home a
    coloured or dark kit, away white in ``KIT_AWAY_WHITE_SHARE`` of games, else any kit at least
    ``KIT_MIN_SEPARATION`` from home's. Its own random stream: a play's draws are unchanged."""
    import zlib

    from vision.teams import bgr_to_lab, lab_distance

    rng = np.random.default_rng([int(seed), zlib.crc32(b"kits")])
    names = sorted(KIT_COLOURS_BGR)
    home = KIT_COLOURS_BGR[[n for n in names if n != "white"][int(rng.integers(len(names) - 1))]]
    home_lab = bgr_to_lab(home)
    far = [n for n in names if lab_distance(bgr_to_lab(KIT_COLOURS_BGR[n]), home_lab) >= KIT_MIN_SEPARATION]
    white = rng.random() < KIT_AWAY_WHITE_SHARE
    if white and "white" in far:
        return home, KIT_COLOURS_BGR["white"]
    far = [n for n in far if n != "white"] or far
    return home, KIT_COLOURS_BGR[far[int(rng.integers(len(far)))]]


def _rot(h: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Forward and left unit vectors, each (N, 2), for headings ``h`` (N,)."""
    c, s = np.cos(h), np.sin(h)
    return np.stack([c, s], -1), np.stack([-s, c], -1)


@dataclass
class Player:
    """A simulated player: identity, body dimensions and path.

    Attributes:
        id, team, role ("skater" | "goalkeeper"), kind ("sledge" | "standing"), number.
        path: the seat (or body) centre path.
        blade_gap_m: lateral distance between the blade centres (305), metres.
        stick_u_m, stick_w_m: stick blade position in the player frame, metres
            (forward, left); a left-handed carry has ``stick_w_m`` > 0.
        color_bgr: jersey colour.
    """

    id: int
    team: str
    role: str
    kind: str
    number: int
    path: PlayerPath
    blade_gap_m: float = 0.25
    stick_u_m: float = 1.05
    stick_w_m: float = 0.30
    color_bgr: tuple[int, int, int] = HOME_BGR

    def stick(self, t) -> np.ndarray:
        """Stick blade (N, 3) at times ``t`` (N,), metres."""
        t = np.atleast_1d(np.asarray(t, float))
        f, l = _rot(self.path.heading(t))
        xy = self.path.xy(t).reshape(-1, 2) + self.stick_u_m * f + self.stick_w_m * l
        return np.column_stack([xy, np.full(len(t), STICK_Z_M)])

    def seat_for_stick(self, stick_xy: np.ndarray, heading_rad: float) -> np.ndarray:
        """(2,) seat centre that puts the stick blade at ``stick_xy`` with this heading."""
        f, l = _rot(np.array([heading_rad]))
        return np.asarray(stick_xy, float) - self.stick_u_m * f[0] - self.stick_w_m * l[0]

    def blades(self, t) -> np.ndarray:
        """(N, 2, 2) blade contact points (left, right) at times ``t`` (N,), metres."""
        t = np.atleast_1d(np.asarray(t, float))
        _, l = _rot(self.path.heading(t))
        c = self.path.xy(t).reshape(-1, 2)
        half = self.blade_gap_m / 2.0
        return np.stack([c + half * l, c - half * l], axis=1)

    def footprint(self, t: float) -> np.ndarray:
        """(M, 2) polygon of the sledge frame (or both feet) on the ice at ``t``, metres."""
        h = float(self.path.heading(t))
        f, l = _rot(np.array([h]))
        f, l = f[0], l[0]
        c = self.path.xy(t)
        if self.kind == "standing":
            half = self.blade_gap_m / 2.0
            uw = [(-FOOT_LEN_M / 2, half + FOOT_W_M / 2), (FOOT_LEN_M / 2, half + FOOT_W_M / 2),
                  (FOOT_LEN_M / 2, -half - FOOT_W_M / 2), (-FOOT_LEN_M / 2, -half - FOOT_W_M / 2)]
        else:
            uw = [(SEAT_REAR_U_M, SEAT_HALF_W_M), (SEAT_FRONT_U_M, SEAT_HALF_W_M), (FRONT_U_M, FRONT_HALF_W_M),
                  (FRONT_U_M, -FRONT_HALF_W_M), (SEAT_FRONT_U_M, -SEAT_HALF_W_M), (SEAT_REAR_U_M, -SEAT_HALF_W_M)]
        return np.array([c + u * f + w * l for u, w in uw])

    def front_skid(self, t: float) -> np.ndarray:
        """(2,) centre of the front skid (sledge) or the body front (standing), metres."""
        f, _ = _rot(np.array([float(self.path.heading(t))]))
        u = FRONT_SKID_U_M if self.kind == "sledge" else FOOT_LEN_M / 2
        return self.path.xy(t) + u * f[0]

    def state(self, t: float) -> PlayerState:
        """The :class:`PlayerState` at ``t``."""
        return PlayerState(
            id=self.id,
            team=self.team,
            role=self.role,
            kind=self.kind,
            xy_rink_m=np.asarray(self.path.xy(t), float),
            heading_rad=float(self.path.heading(t)),
            blades_rink_m=self.blades(t)[0],
            footprint_rink_m=self.footprint(t),
            stick_blade_rink_m=self.stick(t)[0],
            number=self.number,
            color_bgr=self.color_bgr,
        )
