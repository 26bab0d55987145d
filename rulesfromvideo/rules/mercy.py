"""Mercy rule (Westridge 1 r): a 15-goal spread after half time ends the game.

1 r: "If one team is ahead by a fifteen (15) goal spread after half time or at any
point during the second half the game will be called." The score is GAME.json's
score at t = 0 plus the goals detected in the clip (``goal`` events with verdict
``goal``; in a long video judged in windows, ``rules.windows``, also those of earlier windows); "after half time" is ``period >= mercy.from_period`` from
``game.clock_at``, or the end of the first half (remaining 0).

Event (type ``mercy``, not a contract type): ``game_called`` at the first instant
the spread reaches the limit in that window (the goal that makes it, or t = 0 when
the clip starts so). ``margin_m`` is None (the call is counted in goals:
``evidence.spread``); confidence is the lowest confidence of the goals counted.
"""

from __future__ import annotations

from typing import Any

from rulesfromvideo.rules.common import make_event
from rulesfromvideo.rules.context import RuleContext


def score_timeline(game, goals: list[dict[str, Any]]):
    """Callable t -> {"home", "away"}: score at t=0 plus the goals (verdict goal) at or before t."""
    base = {"home": int(game.score.home), "away": int(game.score.away)}
    scored = sorted((g["t"], g["team"]) for g in goals if g["type"] == "goal" and g["verdict"] == "goal")

    def at(t: float) -> dict[str, int]:
        s = dict(base)
        for tg, team in scored:
            if tg <= t:
                s[team] += 1
        return s
    return at


def detect_mercy(ctx: RuleContext, goals: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The mercy call, if any; ``goals`` are the clip's goal events and, in windowed mode,
    those of earlier windows (``rules.windows``)."""
    rules = ctx.profile.mercy
    if not rules.enabled or not rules.goal_spread:
        return []
    obs = ctx.obs
    score = score_timeline(ctx.game, goals)
    counted = [g for g in goals if g["type"] == "goal" and g["verdict"] == "goal"]
    instants = [float(obs.t_s[0])] + sorted(g["t"] for g in counted if g["t"] >= float(obs.t_s[0]))
    for t in instants:
        period, remaining = ctx.game.clock_at(t)
        after_half = period >= int(rules.from_period or 2) or (
            period == int(rules.from_period or 2) - 1 and remaining <= 0)
        s = score(t)
        spread = s["home"] - s["away"]
        if after_half and abs(spread) >= rules.goal_spread:
            team = "home" if spread > 0 else "away"
            conf = min([g["confidence"] for g in counted if g["t"] <= t] or [1.0])
            ev = {"score": s, "spread": abs(spread), "limit": rules.goal_spread,
                  "clock": {"period": period, "remaining_s": remaining},
                  "goals_counted": [g["t"] for g in counted if g["t"] <= t]}
            return [make_event(obs, "mercy", t, team, "game_called", None, 0.0,
                               f"Westridge {rules.rule}", ev, conf=conf)]
    return []
