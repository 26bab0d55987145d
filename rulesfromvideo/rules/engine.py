"""Run every rule of the game's profile over the observations.

``run_rules(obs, game, rink) -> list[dict]``: events in the design's
``events.json`` format, sorted by ``t``. Contract types: ``zone_entry`` (903),
``icing`` (905 / Westridge 1 b), ``goal`` (906), ``crease`` (907 a4). Extra rule
outputs with their own types (docs/rules.md): ``delayed_offside`` (904),
``goalkeeper_beyond_centre`` (1064 / Westridge 4 XI c), ``key_3s`` (Westridge 1 n, o),
``mercy`` (Westridge 1 r).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rulesfromvideo.observations import Observations
from rulesfromvideo.rules.common import CONTRACT_TYPES
from rulesfromvideo.rules.context import RuleContext
from rulesfromvideo.rules.crease import crease_at_goal, detect_key_violations
from rulesfromvideo.rules.delayed_offside import delayed_offside
from rulesfromvideo.rules.goal import detect_goals
from rulesfromvideo.rules.goalkeeper import detect_goalkeeper_beyond_centre
from rulesfromvideo.rules.icing import detect_icings
from rulesfromvideo.rules.mercy import detect_mercy, score_timeline
from rulesfromvideo.rules.offside import detect_zone_entries

EXTRA_TYPES = ("delayed_offside", "goalkeeper_beyond_centre", "key_3s", "mercy")


def run_rules(obs: Observations, game, rink, prior_goals: Sequence[dict[str, Any]] = ()) -> list[dict[str, Any]]:
    """All rule events of one clip.

    Args:
        obs: the observations (rink metres).
        game: ``rulesfromvideo.game.GameDescriptor`` (profile, attack directions,
            strength, clock, score).
        rink: ``calibration.rink.RinkModel`` of the game's rink.
        prior_goals: ``goal`` events called before ``obs`` starts (an earlier window of the
            same video, ``rules.windows``): they count in the score (sponge icing, mercy)
            and are not returned.

    Returns:
        Events sorted by ``t`` (then type); contract types first at equal t.
    """
    ctx = RuleContext.build(obs, game, rink)
    prof = ctx.profile
    events: list[dict[str, Any]] = []
    goals = detect_goals(ctx)
    events += goals
    if prof.crease.mode == "no_attacker_at_goal":  # 907 a4; the sponge key is timed instead
        for g in goals:
            if g["verdict"] in ("goal", "inconclusive"):
                events.append(crease_at_goal(ctx, g))
    counted_goals = [*prior_goals, *goals]  # the score reads earlier windows' goals too
    score_at = score_timeline(game, counted_goals)
    events += detect_icings(ctx, goals, score_at)
    if prof.offside.enabled:
        entries = detect_zone_entries(ctx)
        events += entries
        if prof.delayed_offside.enabled:
            for e in entries:
                if e["verdict"] == "offside":
                    events += delayed_offside(ctx, e, ctx.attack[e["team"]])
    events += detect_goalkeeper_beyond_centre(ctx)
    events += detect_key_violations(ctx)
    events += detect_mercy(ctx, counted_goals)
    order = {t: i for i, t in enumerate(CONTRACT_TYPES + EXTRA_TYPES)}
    events.sort(key=lambda e: (e["t"], order.get(e["type"], 99)))
    return events


def split_contract(events: list[dict[str, Any]]) -> tuple[list[dict], list[dict]]:
    """(contract-type events, extra-type events)."""
    a = [e for e in events if e["type"] in CONTRACT_TYPES]
    b = [e for e in events if e["type"] not in CONTRACT_TYPES]
    return a, b
