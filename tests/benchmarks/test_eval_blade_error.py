"""``benchmarks/eval_blade_error.py --by-motion``: the model's fit per motion class, on hand-made rows."""

from __future__ import annotations

import numpy as np
import pytest


@pytest.fixture()
def ebe(load_benchmark):
    return load_benchmark("eval_blade_error")


def _row(ex, ey, speed, S=((0.04, 0.0), (0.0, 0.01)), away=(0.0, 1.0)):
    """One ``clip_errors`` row: a camera looking along +y (along = y, across = -x)."""
    a = np.asarray(away, float)
    c = np.array([-a[1], a[0]])
    e = np.array([ex, ey])
    return [ex, ey, e @ a, e @ c, np.nan, *np.asarray(S, float).ravel(), speed, *a]


def test_motion_table_divides_each_component_by_its_own_sigma(ebe):
    # sigma x (across this view) 0.2 m, sigma y (along) 0.1 m: a moving blade 0.6 m off in x
    # is 3 sigma across and in x, and 0.05 m off in y half a sigma along.
    rows = np.array([_row(0.6, 0.05, 2.0), _row(0.1, -0.02, 2.5), _row(0.0, 0.3, 0.2)])
    table = {r["name"]: r for r in ebe.motion_table(rows)}
    moving, standing = table["moving"], table["standing"]
    assert moving["n"] == 2 and standing["n"] == 1 and table["slow"]["n"] == 0
    assert moving["x"]["sigma_cm"] == pytest.approx(20.0)
    assert moving["along"]["sigma_cm"] == pytest.approx(10.0)
    assert moving["across"]["sigma_cm"] == pytest.approx(20.0)
    assert moving["x"]["z"][2] == pytest.approx(3.0)
    assert moving["across"]["z"][2] == pytest.approx(3.0)
    assert moving["along"]["z"][2] == pytest.approx(0.5)
    # The standing blade's 0.3 m in y is 3 sigma along the view, nothing across.
    assert standing["along"]["z"][2] == pytest.approx(3.0)
    assert standing["x"]["z"][2] == pytest.approx(0.0)
    assert table["slow"]["x"] is None


def test_a_blade_without_a_previous_truth_frame_has_no_motion_class(ebe):
    rows = np.array([_row(0.2, 0.0, np.nan)])
    assert sum(r["n"] for r in ebe.motion_table(rows)) == 0
