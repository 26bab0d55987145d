"""The state of a simulated scene at one instant, in rink metres.

A `Play` (see `vision.sim.plays`) produces a `SceneState` for any time; the
renderer turns it into pixels and the truth writer into `truth.json`. Nothing
here knows about cameras or rules.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass
class PuckState:
    """The puck at one instant.

    Attributes:
        xyz_rink_m: (3,) centre of the puck, metres; z = 0.0127 when flat on the ice
            (half its thickness), larger when airborne.
        last_touch: id of the player who touched it last, or None.
    """

    xyz_rink_m: np.ndarray
    last_touch: int | None = None


@dataclass
class PlayerState:
    """One player (sledge hockey: a player on a sledge; sponge: a standing player).

    Attributes:
        id: track id, stable for the whole play.
        team: "home" | "away".
        role: "skater" | "goalkeeper".
        kind: "sledge" | "standing".
        xy_rink_m: (2,) seat centre (sledge) or body centre (standing), metres.
        heading_rad: direction the player faces, radians from +x towards +y.
        blades_rink_m: (2, 2) contact points of the two blades (left, right), or
            the two feet for standing players, metres.
        footprint_rink_m: (N, 2) polygon of the sledge (or feet) on the ice, metres.
        stick_blade_rink_m: (3,) the blade of the puck-handling stick, metres.
        number: jersey number.
        color_bgr: jersey colour (B, G, R) 0..255.
    """

    id: int
    team: str
    role: str
    kind: str
    xy_rink_m: np.ndarray
    heading_rad: float
    blades_rink_m: np.ndarray
    footprint_rink_m: np.ndarray
    stick_blade_rink_m: np.ndarray
    number: int
    color_bgr: tuple[int, int, int]


@dataclass
class SceneState:
    """Everything on the ice at time `t` (seconds from the start of the clip)."""

    t: float
    puck: PuckState | None
    players: list[PlayerState] = field(default_factory=list)
