"""Rule detectors: observations in rink metres -> rule calls (never pixels).

`run_rules`, `split_contract` and `EXTRA_TYPES` (from `engine`) are imported on
first use (PEP 562): every `rulesfromvideo` command imports `rules.cli` to build
its parser, and the engine's imports (SciPy's signal package) cost about a second.
"""

from __future__ import annotations

from typing import Any

__all__ = ["run_rules", "split_contract", "EXTRA_TYPES"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from rulesfromvideo.rules import engine

        return getattr(engine, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
