"""Team assignment from jersey colour, matched to the colours given in GAME.json.

A player's torso pixels (foreground pixels in the torso band of its blob) are
clustered in Lab (k-means, k = 2: jersey and whatever else — numbers, arms,
stick); the larger cluster's centre is the dominant torso colour. It is
compared with each team colour from GAME.json by a Lab distance that weighs
lightness half as much as chroma (shading and exposure change lightness far
more than hue), taken to the kit's colour faded and shaded as far as fits
(``faded_kit_distance``: a jersey's pixels are greyer and darker than its kit,
never more colourful nor lighter). A team is assigned only when the nearest colour is close enough
and clearly nearer than the other team's; otherwise the answer is unknown
(None). Per-frame answers are noisy; ``TeamVote`` accumulates them per track.

When both team colours are clearly coloured and of distinct hues (red against navy,
not white against red), the hue alone decides (``HUE_*``): a jersey in its own shadow,
mixed with the dark sledge and legs under it, is darker and greyer than its kit but keeps
its hue. Seen from above, the red kits of fresh renders 747, 800, 807, 821, 822 and 842
came out dark greyish red, (L, a, b) ≈ (55-85, 145-166, 125-137), nearer the dark navy
kit than the bright red one by the Lab distance: whole tracks of home players were away
players, and one made a wrong offside call (842).

Goalkeepers are recognised by the tracker from where they play (see
``vision.tracking``), not here.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

TEAMS: tuple[str, str] = ("home", "away")
# Hue decision (``TeamClassifier.classify_color``): both kits at least HUE_MIN_KIT_CHROMA
# (8-bit Lab a*b* units; #c8102e 75, #0b3d91 55, white 0) and HUE_MIN_KIT_SEPARATION_DEG apart
# in hue; the torso colour needs HUE_MIN_CHROMA to have a hue at all, must lie within
# HUE_MAX_DEG of the nearer kit and HUE_MIN_MARGIN_DEG nearer than the other.
HUE_MIN_KIT_CHROMA = 25.0
HUE_MIN_KIT_SEPARATION_DEG = 60.0
HUE_MIN_CHROMA = 12.0
HUE_MAX_DEG = 45.0
HUE_MIN_MARGIN_DEG = 20.0
# A white kit (lightness at least ICE_LIKE_KIT_MIN_L, chroma at most ICE_LIKE_KIT_MAX_CHROMA, 8-bit
# Lab) reads as plain ice: the player detector's foreground leaves its torso out, and what is left
# of a white player's torso box (numbers, trousers, the sledge) is dark, nearer a dark kit than
# white. Against a coloured kit the team is then told by how much of the torso box is foreground
# (``PlayerDetector``): on four drawn-kit renders (purple, royal, royal and black against white,
# true camera) the coloured players' boxes were 0.57-0.99 foreground (p10 of each clip's skaters
# 0.76-0.90, goalkeepers 0.57-0.61), the white players' 0.01-0.33 (median; p90 0.15-0.50).
# Silver (#a5a8aa, 8-bit L 175) is as ice-like as white there: the ice model
# (``vision.ice.IceConfig.dark_frac`` 0.5) counts a grey pixel as ice down to half the ice's luma,
# and silver's is 0.7 of white ice's. On five drawn-kit renders (stop 51, tune31, true camera) the
# silver players' torsos read dark (median L 32-88) and 3-33 % of their verdicts were right, the
# rest unknown. ICE_LIKE_KIT_MIN_L is the 8-bit L of a grey with 0.6 of a 240 ice's luma (144).
ICE_LIKE_KIT_MIN_L = 150.0
ICE_LIKE_KIT_MAX_CHROMA = 20.0
# A jersey's measured colour is its kit's faded and shaded, never more colourful nor lighter: its
# own shadow, the dark sledge and legs in the torso band and the video's halved colour resolution
# (blending it with the ice) all move it toward grey and dark. On 42 drawn-kit renders (stop 51,
# tune31, true camera) the median torso colour of correctly read coloured kits had 0.44-1.18 of the
# kit's chroma (hue within 15 degrees) and 0.62-1.0 of its lightness; a yellow kit read at 0.47 of
# its chroma and 0.83 of its lightness was nearer silver than yellow by the plain Lab distance (1 of
# 74 verdicts right). ``faded_kit_distance`` scales the kit's chroma by whatever in [KIT_FADE_MIN, 1]
# fits best and, for a coloured kit (chroma at least KIT_SHADE_MIN_CHROMA), its lightness by whatever
# in [KIT_SHADE_MIN, 1] does. A grey kit keeps its lightness: shaded white is any grey, the sledge
# and trousers that are all that shows of a white player (white's own test is the foreground share,
# ``vision.players``).
KIT_FADE_MIN = 0.4
KIT_SHADE_MIN = 0.6
KIT_SHADE_MIN_CHROMA = 25.0
# Faded and shaded, a kit is near its jerseys' colours: of the right verdicts on those renders by
# this distance, p50 5.2, p99 15.3, the largest 40.6 (429 sampled). Twice the p99 is the farthest a
# colour may be from its kit (the plain distance needed 70): above a score bug taken for a body,
# a face-off circle's red (108, 155, 127) was 32.5 from a sky-blue kit shaded to its lightness,
# opposite that kit's hue, and made a false player of that team on a goal camera (drawn-kit render
# 1530, held out: seen after the fading rule, so it needs checking on renders made after this).
KIT_MAX_DISTANCE = 30.0


def bgr_to_lab(color_bgr: tuple[int, int, int]) -> np.ndarray:
    """A (B, G, R) 0..255 colour → (3,) float Lab in OpenCV's 8-bit scale."""
    px = np.array([[color_bgr]], dtype=np.uint8)
    return cv2.cvtColor(px, cv2.COLOR_BGR2LAB)[0, 0].astype(np.float64)


def lab_distance(a: np.ndarray, b: np.ndarray, l_weight: float = 0.5) -> np.ndarray:
    """Lab distance with lightness weighted by ``l_weight`` (8-bit Lab; last axis = L, a, b)."""
    d = np.asarray(a, dtype=np.float64) - np.asarray(b, dtype=np.float64)
    return np.sqrt(l_weight * d[..., 0] ** 2 + d[..., 1] ** 2 + d[..., 2] ** 2)


def faded_kit_distance(lab: np.ndarray, kit_lab: np.ndarray) -> float:
    """``lab_distance`` from a measured colour to a kit's colour faded and shaded as far as fits:
    the kit's chroma scaled by the factor in [``KIT_FADE_MIN``, 1] nearest the measurement's and,
    for a coloured kit, its lightness by the factor in [``KIT_SHADE_MIN``, 1] nearest it.

    Args:
        lab: (3,) measured colour, 8-bit Lab.
        kit_lab: (3,) the kit's colour, 8-bit Lab (a grey kit has no chroma to fade).
    """
    m, k = np.asarray(lab, dtype=np.float64), np.asarray(kit_lab, dtype=np.float64)
    c_m, c_k = m[1:] - 128.0, k[1:] - 128.0
    n2 = float(c_k @ c_k)
    # The least-squares scale of the kit's chroma onto the measurement's, kept to the range.
    alpha = 1.0 if n2 < 1e-9 else float(np.clip((c_m @ c_k) / n2, KIT_FADE_MIN, 1.0))
    beta = 1.0
    if np.sqrt(n2) >= KIT_SHADE_MIN_CHROMA:
        beta = float(np.clip(m[0] / max(k[0], 1.0), KIT_SHADE_MIN, 1.0))
    return float(lab_distance(m, np.array([beta * k[0], 128.0 + alpha * c_k[0], 128.0 + alpha * c_k[1]])))


@dataclass
class TeamAssignment:
    """One player's colour verdict in one frame.

    Attributes:
        team: "home" | "away" | None (ambiguous or no torso pixels).
        confidence: in [0, 1]: (d_other - d_best) / (d_other + d_best), 0 when None.
        dominant_lab: (3,) dominant torso colour (8-bit Lab), or None.
        distances: team → distance of the dominant colour to that team's colour (``faded_kit_distance``).
        by_absence: the verdict rests on no jersey showing where one should (a white kit read as
            plain ice, ``vision.players.PlayerDetector``) on a blob that may not be a body (seen
            from above): it says which team a player is, not that the blob is one (paint, a logo
            or a shadow shows no jersey either).
    """

    team: str | None
    confidence: float
    dominant_lab: np.ndarray | None
    distances: dict[str, float] = field(default_factory=dict)
    by_absence: bool = False


class TeamClassifier:
    """Match torso colours to the two team colours.

    Args:
        team_colors_bgr: {"home": (b, g, r), "away": (b, g, r)} from GAME.json.
        max_distance: a dominant colour farther than this from every team colour is unknown
            (``faded_kit_distance``, 8-bit Lab units with half-weighted L; ``KIT_MAX_DISTANCE``).
        min_margin: the nearest team must be nearer than the other by this much.
        min_pixels: fewer torso pixels than this → unknown.
    """

    def __init__(
        self,
        team_colors_bgr: dict[str, tuple[int, int, int]],
        max_distance: float = KIT_MAX_DISTANCE,
        min_margin: float = 12.0,
        min_pixels: int = 12,
    ) -> None:
        self.team_lab = {team: bgr_to_lab(c) for team, c in team_colors_bgr.items()}
        self.max_distance = max_distance
        self.min_margin = min_margin
        self.min_pixels = min_pixels
        self.team_hue_deg = {team: _hue_deg(lab) for team, lab in self.team_lab.items()}
        kits = list(self.team_lab.values())
        self._hue_decides = len(kits) == 2 and all(_chroma(k) >= HUE_MIN_KIT_CHROMA for k in kits) and \
            _hue_gap_deg(*self.team_hue_deg.values()) >= HUE_MIN_KIT_SEPARATION_DEG
        white = [t for t, lab in self.team_lab.items() if is_ice_like_kit(lab)]
        #: The team in white when exactly one team is (its torsos read as plain ice), else None.
        self.ice_like_team: str | None = white[0] if len(white) == 1 and len(self.team_lab) == 2 else None

    def _classify_hue(self, dominant_lab: np.ndarray, dist: dict[str, float]) -> TeamAssignment:
        if _chroma(dominant_lab) < HUE_MIN_CHROMA:
            return TeamAssignment(None, 0.0, dominant_lab, dist)
        hue = _hue_deg(dominant_lab)
        gap = {team: _hue_gap_deg(hue, h) for team, h in self.team_hue_deg.items()}
        best, other = sorted(gap, key=gap.get)
        if gap[best] > HUE_MAX_DEG or gap[other] - gap[best] < HUE_MIN_MARGIN_DEG:
            return TeamAssignment(None, 0.0, dominant_lab, dist)
        conf = float((gap[other] - gap[best]) / (gap[other] + gap[best]))
        return TeamAssignment(best, conf, dominant_lab, dist)

    @staticmethod
    def dominant_color(pixels_lab: np.ndarray) -> np.ndarray | None:
        """(N, 3) Lab pixels → (3,) centre of the larger of two k-means clusters (None when N < 2)."""
        pix = np.asarray(pixels_lab, dtype=np.float32).reshape(-1, 3)
        if len(pix) < 2:
            return None
        if len(pix) > 400:  # plenty for two clusters; keeps k-means cheap
            pix = pix[np.linspace(0, len(pix) - 1, 400).astype(np.int64)]
        if np.all(np.ptp(pix, axis=0) < 4.0):
            return pix.mean(axis=0).astype(np.float64)
        criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 10, 1.0)
        # Deterministic start (cv2.KMEANS_PP_CENTERS draws from cv2's RNG): initial labels
        # split the pixels at their median lightness.
        order = np.argsort(pix[:, 0])
        init = np.zeros(len(pix), np.int32)
        init[order[len(order) // 2 :]] = 1
        _, labels, centres = cv2.kmeans(pix, 2, init.reshape(-1, 1), criteria, 1, cv2.KMEANS_USE_INITIAL_LABELS)
        counts = np.bincount(labels.reshape(-1), minlength=2)
        return centres[int(np.argmax(counts))].astype(np.float64)

    def classify_pixels(self, pixels_lab: np.ndarray) -> TeamAssignment:
        """Team of a torso from its (N, 3) Lab pixels."""
        pix = np.asarray(pixels_lab).reshape(-1, 3)
        if len(pix) < self.min_pixels:
            return TeamAssignment(None, 0.0, None)
        dom = self.dominant_color(pix)
        if dom is None:
            return TeamAssignment(None, 0.0, None)
        return self.classify_color(dom)

    def classify_color(self, dominant_lab: np.ndarray) -> TeamAssignment:
        """Team of a dominant (3,) Lab colour: by hue between two coloured kits of distinct hues
        (module doc), else by the distance to each kit faded as far as fits (``faded_kit_distance``)."""
        dist = {team: faded_kit_distance(dominant_lab, ref) for team, ref in self.team_lab.items()}
        if self._hue_decides:
            return self._classify_hue(dominant_lab, dist)
        ranked = sorted(dist, key=dist.get)
        best = ranked[0]
        d1 = dist[best]
        d2 = dist[ranked[1]] if len(ranked) > 1 else np.inf
        if d1 > self.max_distance or d2 - d1 < self.min_margin:
            return TeamAssignment(None, 0.0, dominant_lab, dist)
        conf = float((d2 - d1) / (d2 + d1)) if np.isfinite(d2) else 1.0
        return TeamAssignment(best, conf, dominant_lab, dist)


def is_ice_like_kit(lab: np.ndarray) -> bool:
    """Whether an 8-bit Lab kit colour is light and grey enough to read as plain ice, white or
    silver (``ICE_LIKE_KIT_*``)."""
    return bool(lab[0] >= ICE_LIKE_KIT_MIN_L and _chroma(lab) <= ICE_LIKE_KIT_MAX_CHROMA)


def _chroma(lab: np.ndarray) -> float:
    """Chroma of an 8-bit Lab colour (a*, b* centred on 128)."""
    return float(np.hypot(lab[1] - 128.0, lab[2] - 128.0))


def _hue_deg(lab: np.ndarray) -> float:
    """Hue angle of an 8-bit Lab colour, degrees in (-180, 180]."""
    return float(np.degrees(np.arctan2(lab[2] - 128.0, lab[1] - 128.0)))


def _hue_gap_deg(h1: float, h2: float) -> float:
    """Angle between two hues, degrees in [0, 180]."""
    d = abs(h1 - h2) % 360.0
    return min(d, 360.0 - d)


@dataclass
class TeamVote:
    """Confidence-weighted votes of one track's per-frame team verdicts.

    Attributes:
        weights: team → summed confidence.
        min_weight: the leading team needs at least this much summed confidence ...
        min_share: ... and this share of all votes, else the track's team is unknown.
    """

    weights: dict[str, float] = field(default_factory=lambda: {t: 0.0 for t in TEAMS})
    min_weight: float = 0.3
    min_share: float = 0.7

    def add(self, a: TeamAssignment) -> None:
        if a.team is not None:
            self.weights[a.team] = self.weights.get(a.team, 0.0) + a.confidence

    @property
    def team(self) -> str | None:
        total = sum(self.weights.values())
        if total <= 0:
            return None
        best = max(self.weights, key=self.weights.get)
        w = self.weights[best]
        return best if w >= self.min_weight and w / total >= self.min_share else None
