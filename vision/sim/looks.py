"""Appearance parameters of a simulated venue and broadcast (``Look``).

Every number that changes how a rendered frame looks, and nothing that changes
the geometry the truth records, lives here. ``Look.random(rng)`` draws them
widely so that detectors trained on the renders do not learn one arena.

Held-out looks: the seeds in ``HELD_OUT_LOOK_SEEDS`` (named in ``HELD_OUT_LOOKS``)
are reserved for evaluation; nobody tunes thresholds or trains on them.
``Look.random`` draws from a generator and never checks seeds; use
``training_look(i)`` for a training stream that skips them.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

BGR = tuple[int, int, int]

# Evaluation-only looks, by name. Do not tune on these.
HELD_OUT_LOOKS: dict[str, int] = {
    "heldout_dim_community_rink": 910_001,
    "heldout_warm_tv_arena": 910_002,
    "heldout_cold_glassless": 910_003,
}
HELD_OUT_LOOK_SEEDS: tuple[int, ...] = tuple(HELD_OUT_LOOKS.values())

_AD_WORDS = (
    "NORDIC", "ARCTIC", "POLAR", "SLEDGE", "VOLTA", "KRONA", "ZENITH", "ORBIT", "PIKE",
    "FJORD", "TUNDRA", "HELIX", "NOVA", "BOREAL", "GLACIER", "AURORA", "SUMMIT", "EMBER",
    "BOLT", "RINKSIDE", "FROST", "LYNX", "VIKING", "COMET", "MAPLE", "ALPINE", "ONYX",
)
_TEAM_ABBR = ("HEL", "OSL", "STO", "CPH", "TOR", "MTL", "BOS", "NYR", "CHI", "DET", "PRG", "BER",
              "KOR", "JPN", "USA", "CAN", "NOR", "SWE", "ITA", "GER", "CZE", "RUS", "EST", "FIN")


def _bgr(v: np.ndarray) -> BGR:
    return tuple(int(c) for c in np.clip(np.round(v), 0, 255))


@dataclass
class Logo:
    """One logo painted in the ice (under the lines).

    Attributes:
        kind: "text" | "circle" | "ring" | "box" | "diamond".
        text: the text of a "text" logo.
        xy_rink_m: (2,) centre, metres.
        size_m: overall width, metres.
        angle_deg: rotation in the ice plane.
        color_bgr: main colour.
        color2_bgr: secondary colour (outline / fill).
        alpha: opacity under the ice surface (0..1).
    """

    kind: str
    text: str
    xy_rink_m: tuple[float, float]
    size_m: float
    angle_deg: float
    color_bgr: BGR
    color2_bgr: BGR
    alpha: float


@dataclass
class Look:
    """Appearance of a venue, its lighting and the broadcast feed (no geometry).

    Colours are BGR 0..255; lengths metres; ``*_gain`` multiply pixel values.
    """

    # Ice and paint
    ice_bgr: BGR = (243, 244, 238)
    ice_mottle: float = 6.0  # std of low-frequency brightness variation, grey levels
    scratch_count: int = 1500
    scratch_strength: float = 14.0  # grey levels brighter/darker
    snow_amount: float = 0.5  # 0..1: snow patches along the boards and in the creases
    red_paint_bgr: BGR = (46, 16, 200)
    blue_paint_bgr: BGR = (145, 61, 11)
    crease_fill_bgr: BGR = (230, 190, 120)
    paint_fade: float = 0.1  # 0..1 mix of paint towards the ice colour
    logos: list[Logo] = field(default_factory=list)
    # Ceiling lights reflected in the ice
    light_rows: int = 3
    light_cols: int = 6
    light_height_m: float = 14.0
    reflection_strength: float = 40.0  # grey levels at the centre of a reflection
    reflection_size_m: float = 1.2  # blob radius on the (mirrored) light, metres
    # Boards, glass, stands
    board_height_m: float = 1.2  # 1.17-1.22 (IPC 202)
    kick_plate_height_m: float = 0.2  # 0.15-0.25 (IPC 203)
    board_bgr: BGR = (236, 236, 232)
    kick_plate_bgr: BGR = (60, 200, 235)
    cap_rail_bgr: BGR = (40, 40, 40)
    ad_panel_m: float = 3.5  # panel length along the boards
    ad_fraction: float = 0.7  # share of panels carrying an ad
    ad_colors: list[BGR] = field(default_factory=lambda: [(180, 40, 20), (20, 20, 200), (30, 140, 30), (20, 20, 20)])
    ad_words: list[str] = field(default_factory=lambda: list(_AD_WORDS[:8]))
    glass: bool = True
    glass_height_side_m: float = 1.6
    glass_height_end_m: float = 2.4
    glass_alpha: float = 0.10
    glass_tint_bgr: BGR = (225, 230, 220)
    stanchion_spacing_m: float = 2.0
    glass_reflection: float = 0.25  # strength of the diagonal reflection streaks
    crowd_density: float = 0.8  # 0..1 occupied seats
    crowd_brightness: float = 0.6
    stands_bgr: BGR = (50, 45, 45)
    stands_rise_m: float = 9.0
    stands_depth_m: float = 14.0
    # Players' kit not given by the scene
    pants_bgr: BGR = (30, 30, 30)
    sledge_bgr: BGR = (160, 160, 165)
    stick_bgr: BGR = (25, 25, 25)
    helmet_same_as_jersey: bool = True
    # Camera and lighting
    gain: float = 1.0
    white_balance: tuple[float, float, float] = (1.0, 1.0, 1.0)  # B, G, R gains
    vignetting: float = 0.2  # 0..1 darkening at the image corners
    shutter_frac: float = 0.5  # exposure / frame interval (motion blur length)
    pan_blur: bool = True
    puck_blur: bool = True
    noise_sigma: float = 2.0  # grey levels
    # Broadcast graphics
    score_bug: bool = True
    score_bug_corner: str = "tl"  # "tl" | "tr" | "bl" | "br"
    home_abbr: str = "HOM"
    away_abbr: str = "AWY"
    home_score: int = 0
    away_score: int = 0
    period: int = 1
    clock_s: float = 900.0
    score_bug_bgr: BGR = (40, 30, 20)

    @classmethod
    def random(cls, rng: np.random.Generator, length_m: float = 60.0, width_m: float = 30.0) -> "Look":
        """A widely randomised look. ``length_m``/``width_m`` place the ice logos."""
        ice_base = rng.uniform(228, 252)
        # Ice: near white, cool (B ≥ G ≥ R) by a random amount, sometimes slightly warm.
        cool = rng.uniform(-0.3, 1.0)
        tint = np.array([4.0, 0.0, -6.0]) * cool + rng.normal(0, 1.5, 3)
        red = np.array([46, 16, 200]) + rng.normal(0, 1, 3) * np.array([10, 8, 25])
        blue = np.array([165, 55, 5]) + rng.normal(0, 1, 3) * np.array([20, 12, 5])
        blue[1] = min(blue[1], 0.5 * blue[0])
        hue_ads = [_bgr(rng.uniform(0, 255, 3) * rng.uniform(0.4, 1.0)) for _ in range(rng.integers(3, 8))]
        n_logos = int(rng.integers(0, 5))
        logos = []
        for i in range(n_logos):
            where = rng.integers(0, 3)
            if where == 0:  # centre ice
                xy = (float(rng.uniform(-1.5, 1.5)), float(rng.uniform(-1.0, 1.0)))
                size = float(rng.uniform(3.0, 7.0))
            else:  # neutral zone, either side of centre
                sx = rng.choice([-1.0, 1.0])
                # between the centre circle and the blue lines (~L/7), inside the side boards
                x_max = max(3.5, length_m / 7.0)
                y_max = max(2.5, width_m / 2.0 - 4.0)
                xy = (float(sx * rng.uniform(3.0, x_max)), float(rng.choice([-1.0, 1.0]) * rng.uniform(2.0, y_max)))
                size = float(rng.uniform(2.0, 5.0))
            kind = str(rng.choice(["text", "text", "circle", "ring", "box", "diamond"]))
            logos.append(
                Logo(
                    kind=kind,
                    text=str(rng.choice(_AD_WORDS)),
                    xy_rink_m=xy,
                    size_m=size,
                    angle_deg=float(rng.choice([0.0, 90.0, rng.uniform(-30, 30)])),
                    color_bgr=_bgr(rng.uniform(0, 255, 3)),
                    color2_bgr=_bgr(rng.uniform(0, 255, 3)),
                    alpha=float(rng.uniform(0.35, 0.85)),
                )
            )
        home, away = rng.choice(_TEAM_ABBR, size=2, replace=False)
        cool = rng.uniform(-1, 1)  # camera colour temperature: + bluish, − warm
        wb = (1.0 + 0.08 * cool + rng.normal(0, 0.02), 1.0 + rng.normal(0, 0.02), 1.0 - 0.08 * cool + rng.normal(0, 0.02))
        board_grey = rng.uniform(200, 250)
        return cls(
            ice_bgr=_bgr(ice_base + tint),
            ice_mottle=float(rng.uniform(2, 10)),
            scratch_count=int(rng.integers(300, 4000)),
            scratch_strength=float(rng.uniform(5, 22)),
            snow_amount=float(rng.uniform(0, 1)),
            red_paint_bgr=_bgr(red),
            blue_paint_bgr=_bgr(blue),
            crease_fill_bgr=_bgr(np.array([230, 190, 120]) + rng.normal(0, 1, 3) * np.array([15, 20, 30])),
            paint_fade=float(rng.uniform(0.0, 0.35)),
            logos=logos,
            light_rows=int(rng.integers(2, 5)),
            light_cols=int(rng.integers(3, 9)),
            light_height_m=float(rng.uniform(10, 20)),
            reflection_strength=float(rng.uniform(0, 45)),
            reflection_size_m=float(rng.uniform(0.5, 2.5)),
            board_height_m=float(rng.uniform(1.17, 1.22)),
            kick_plate_height_m=float(rng.uniform(0.15, 0.25)),
            board_bgr=_bgr(board_grey + rng.normal(0, 4, 3)),
            kick_plate_bgr=_bgr(np.array([50, 200, 235]) + rng.normal(0, 1, 3) * np.array([20, 25, 15])),
            cap_rail_bgr=_bgr(rng.uniform(20, 90, 3) if rng.random() < 0.7 else rng.uniform(150, 230, 3)),
            ad_panel_m=float(rng.uniform(2.5, 5.0)),
            ad_fraction=float(rng.uniform(0.2, 1.0)),
            ad_colors=hue_ads,
            ad_words=[str(w) for w in rng.choice(_AD_WORDS, size=8, replace=False)],
            glass=bool(rng.random() < 0.85),
            glass_height_side_m=float(rng.uniform(0.9, 2.0)),
            glass_height_end_m=float(rng.uniform(1.8, 2.6)),
            glass_alpha=float(rng.uniform(0.04, 0.18)),
            glass_tint_bgr=_bgr(np.array([220, 228, 215]) + rng.normal(0, 8, 3)),
            stanchion_spacing_m=float(rng.uniform(1.5, 2.5)),
            glass_reflection=float(rng.uniform(0.0, 0.5)),
            crowd_density=float(rng.uniform(0.1, 1.0)),
            crowd_brightness=float(rng.uniform(0.3, 0.9)),
            stands_bgr=_bgr(rng.uniform(20, 110, 3)),
            stands_rise_m=float(rng.uniform(6, 14)),
            stands_depth_m=float(rng.uniform(10, 20)),
            pants_bgr=_bgr(rng.uniform(10, 60, 3)),
            sledge_bgr=_bgr(rng.uniform(60, 200) + rng.normal(0, 10, 3)),
            stick_bgr=_bgr(rng.uniform(10, 80, 3) if rng.random() < 0.8 else rng.uniform(150, 240, 3)),
            helmet_same_as_jersey=bool(rng.random() < 0.6),
            gain=float(rng.uniform(0.75, 1.15)),
            white_balance=tuple(float(v) for v in wb),
            vignetting=float(rng.uniform(0.0, 0.45)),
            shutter_frac=float(rng.uniform(0.1, 1.0)),
            pan_blur=bool(rng.random() < 0.8),
            puck_blur=bool(rng.random() < 0.9),
            noise_sigma=float(rng.uniform(0.5, 5.0)),
            score_bug=bool(rng.random() < 0.6),
            score_bug_corner=str(rng.choice(["tl", "tr", "bl", "br"], p=[0.55, 0.2, 0.15, 0.1])),
            home_abbr=str(home),
            away_abbr=str(away),
            home_score=int(rng.integers(0, 6)),
            away_score=int(rng.integers(0, 6)),
            period=int(rng.integers(1, 4)),
            clock_s=float(rng.uniform(0, 900)),
            score_bug_bgr=_bgr(rng.uniform(10, 120, 3)),
        )

    @classmethod
    def from_seed(cls, seed: int, length_m: float = 60.0, width_m: float = 30.0) -> "Look":
        """``Look.random(np.random.default_rng(seed))``."""
        return cls.random(np.random.default_rng(int(seed)), length_m, width_m)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict of every parameter."""
        return asdict(self)


def held_out_look(name: str) -> Look:
    """One of the named evaluation looks (``HELD_OUT_LOOKS``)."""
    if name not in HELD_OUT_LOOKS:
        raise KeyError(f"held_out_look: unknown look {name!r}; known: {sorted(HELD_OUT_LOOKS)}")
    return Look.from_seed(HELD_OUT_LOOKS[name])


def training_look(i: int) -> Look:
    """The i-th look of the training stream (seeds 0, 1, 2, … skipping the held-out seeds)."""
    seed = int(i)
    while seed in HELD_OUT_LOOK_SEEDS:
        seed += 1_000_000
    return Look.from_seed(seed)
