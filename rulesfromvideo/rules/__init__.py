"""Rule detectors: observations in rink metres -> rule calls (never pixels)."""

from rulesfromvideo.rules.engine import EXTRA_TYPES, run_rules, split_contract

__all__ = ["run_rules", "split_contract", "EXTRA_TYPES"]
