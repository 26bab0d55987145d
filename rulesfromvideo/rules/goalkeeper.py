"""Goalkeeper beyond the centre red line (IPC 1064; Westridge 4 XI c).

1064: a goalkeeper who participates in the play beyond the centre red line gets a
minor penalty; "the position of the goalkeeper's blades shall be the determining
factor". Participating = touching the puck. Beyond the line = both blades
completely past the far edge of the centre line into the opponents' half (read
like 903 b1): depth = ``min over blades of dir * x_blade - centre_w / 2`` with
``dir`` the goalkeeper's team's attacking direction (> 0: beyond).

Events (type ``goalkeeper_beyond_centre``, not a contract type): at each touch by
a goalkeeper whose depth exceeds ``-k sigma``: verdict ``penalty`` (decisively
beyond) or ``inconclusive``. Touches clearly in his own half give no event.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from rulesfromvideo.rules.common import K_SIGMA, blade_sigma, make_event
from rulesfromvideo.rules.context import RuleContext


def detect_goalkeeper_beyond_centre(ctx: RuleContext) -> list[dict[str, Any]]:
    rules = ctx.profile.goalkeeper_beyond_centre
    if not rules.enabled:
        return []
    obs = ctx.obs
    half = ctx.centre_half_width_m
    out = []
    for f in obs.touch_frames():
        k = int(obs.touch_player[f])
        if obs.player_role[k] != "goalkeeper":
            continue
        team = str(obs.player_team[k])
        end = ctx.attack[team]
        b = obs.blades_rink_m[k, f]
        sig = blade_sigma(obs, f, k, (1.0, 0.0))
        ev: dict[str, Any] = {"player": obs.player_ids[k], "decisive_frame": int(obs.frame[f]),
                              "blades_rink_m": b, "centre_line_half_width_m": half,
                              "penalty": rules.penalty}
        rule = "1064" if ctx.profile.name.startswith("ipc") else f"Westridge {rules.rule}"
        if not np.isfinite(b).all():
            continue
        depth = float(np.min(end * b[:, 0] - half))
        if depth <= -K_SIGMA * sig:
            continue
        verdict = "penalty" if depth >= K_SIGMA * sig else "inconclusive"
        out.append(make_event(obs, "goalkeeper_beyond_centre", float(obs.t_s[f]), team, verdict,
                              depth, sig, rule, ev))
    return out
