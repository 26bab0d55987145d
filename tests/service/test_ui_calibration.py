"""Point-click calibration in the review UI (headless Debian Chromium via Python playwright), and its
read-only rink geometry endpoint (plain API test, no browser).

The browser test uploads the embedded sample clip (`rulesfromvideo/data/sample`, simulator
footage with exact ground truth), clicks image–rink pairs whose image points come from the true
frame-0 homography `H_image_from_rink` of `truth.json` (so the truth is exact up to where a click
lands: Chromium reports whole CSS pixels, 1 CSS px = 1 image px at 100 % zoom), stores the profile
through the UI, and checks the stored `H_rink_from_image` against the truth on held-out ice points.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import httpx
import numpy as np
import pytest
from rfv_service_support import ADMIN, CHROMIUM, TOKENS, VIEWER, serving, signed_in_page

from calibration.rink import RinkModel, RinkSpec

SAMPLE = Path(__file__).resolve().parents[2] / "rulesfromvideo" / "data" / "sample"
N_PAIRS = 8
# Held-out ice points (not clicked) must map back within this of the truth, m. Click positions are
# whole pixels, so image points are off by up to ~0.5 px; the far side of the sample's broadcast view
# is ~7 cm per px, so 0.15 m leaves room for that and no more.
HELD_OUT_TOL_M = 0.15
needs_chromium = pytest.mark.skipif(not os.path.exists(CHROMIUM), reason=f"{CHROMIUM} is missing (apt-get install chromium)")


def apply_h(h: np.ndarray, xy: np.ndarray) -> np.ndarray:
    """(N, 2) points through a 3×3 homography."""
    p = np.c_[xy, np.ones(len(xy))] @ np.asarray(h, float).T
    return p[:, :2] / p[:, 2:3]


# --- the read-only rink geometry endpoint (no browser) ------------------------------------------

def test_rink_markings_endpoint_matches_the_rink_model(client):
    spec = RinkSpec.for_layout("ipc")
    r = client.get("/api/rink/markings", headers=VIEWER)
    assert r.status_code == 200
    d = r.json()
    assert (d["length_m"], d["width_m"]) == (60.0, 30.0)
    assert d["landmarks"]["centre_spot"] == [0.0, 0.0]
    assert d["landmarks"]["goal_line_+x_board_+y"][0] == pytest.approx(spec.goal_line_x_m, abs=1e-4)
    assert all(len(v) == 2 for v in d["landmarks"].values())  # ice points only, no post tops
    goal = next(m for m in d["markings"] if m["name"] == "goal_line_+x")
    xs = [x for line in goal["polylines"] for x, _ in line]
    lo, hi = spec.goal_line_edges_x(+1)
    assert min(xs) == pytest.approx(lo, abs=0.006) and max(xs) == pytest.approx(hi, abs=0.006)
    boards = np.asarray(d["boards"])
    assert boards[:, 0].max() == pytest.approx(30.0, abs=1e-3) and boards[:, 1].max() == pytest.approx(15.0, abs=1e-3)
    small = client.get("/api/rink/markings?layout=ipc&length_m=56&width_m=26", headers=VIEWER).json()
    assert np.asarray(small["boards"])[:, 0].max() == pytest.approx(28.0, abs=1e-3)
    r = client.get("/api/rink/markings?layout=ipc&length_m=50", headers=VIEWER)
    assert r.status_code == 422 and "length_m" in r.json()["detail"]
    assert client.get("/api/rink/markings?layout=curling", headers=VIEWER).status_code == 422
    assert client.get("/api/rink/markings").status_code == 401


# --- the browser test ----------------------------------------------------------------------------

@pytest.fixture
def sample_server(tmp_path):
    pytest.importorskip("uvicorn")
    from rulesfromvideo.service.settings import Settings

    settings = Settings(data_dir=tmp_path / "data", database_url=f"sqlite:///{tmp_path / 'ui.db'}", tokens=TOKENS)
    with serving(settings) as (base, _app), httpx.Client(base_url=base, timeout=30) as http:
        with open(SAMPLE / "clip.mp4", "rb") as fh:
            r = http.post("/api/clips", headers=ADMIN, files={"file": ("sample.mp4", fh, "video/mp4")},
                          data={"game": (SAMPLE / "game.json").read_text(), "name": "sample offside pass"})
        assert r.status_code == 201, r.text
        yield base, r.json(), http


def _pairs_and_held_out() -> tuple[np.ndarray, list[str], np.ndarray, np.ndarray]:
    """Truth frame-0 H, N_PAIRS well-spread in-view landmarks to click, held-out ice points (rink m, image px)."""
    truth = json.loads((SAMPLE / "truth.json").read_text())
    image_from_rink = np.asarray(truth["frames"][0]["H_image_from_rink"], float)
    w, h = truth["width"], truth["height"]
    rink = RinkModel(RinkSpec.for_layout(**truth["rink"]))
    ice = {k: v[:2] for k, v in rink.landmarks.items() if abs(v[2]) < 1e-9}
    names = sorted(ice)
    xy = np.asarray([ice[k] for k in names])
    # isolated landmarks only (nothing else within 1.5 m), so a click on the diagram is unambiguous
    d = np.linalg.norm(xy[:, None] - xy[None], axis=2) + np.eye(len(xy)) * 1e9
    uv = apply_h(image_from_rink, xy)
    ok = (d.min(axis=1) > 1.5) & (uv[:, 0] > 40) & (uv[:, 0] < w - 40) & (uv[:, 1] > 40) & (uv[:, 1] < h - 40)
    cand = [i for i in range(len(names)) if ok[i]]
    assert len(cand) >= N_PAIRS, f"only {len(cand)} clickable landmarks in view"
    chosen = [max(cand, key=lambda i: np.linalg.norm(uv[i] - [w / 2, h / 2]))]  # farthest-point spread in the image
    while len(chosen) < N_PAIRS:
        chosen.append(max((i for i in cand if i not in chosen),
                          key=lambda i: min(np.linalg.norm(uv[i] - uv[j]) for j in chosen)))
    # held out: a grid of ice points inside the view, none of them clicked
    gx, gy = np.meshgrid(np.linspace(-28, 28, 57), np.linspace(-14, 14, 29))
    grid = np.c_[gx.ravel(), gy.ravel()]
    guv = apply_h(image_from_rink, grid)
    inside = (guv[:, 0] > 20) & (guv[:, 0] < w - 20) & (guv[:, 1] > 20) & (guv[:, 1] < h - 20)
    return image_from_rink, [names[i] for i in chosen], grid[inside], guv[inside]


@needs_chromium
def test_point_click_calibration_stores_the_true_homography(sample_server, tmp_path):
    sync_api = pytest.importorskip("playwright.sync_api")
    base, clip, http = sample_server
    image_from_rink, names, held_rink_m, held_image_px = _pairs_and_held_out()
    assert len(held_rink_m) > 50
    with sync_api.sync_playwright() as pw, \
            signed_in_page(pw, base, ADMIN, "ada (admin)", {"width": 1600, "height": 1000}) as (page, errors):
        page.click(f"#clips li[data-clip-id='{clip['id']}']")
        page.click("#open-calib")
        page.wait_for_function("() => document.querySelector('#calib-canvas').dataset.frame === '0'"
                               " && document.querySelector('#calib-canvas').width === 1280")
        assert page.locator("#calib-rink circle.landmark").count() > 100
        page.fill("#calib-new-venue", "Sample arena")
        page.click("#calib-add-venue")
        page.wait_for_selector("#calib-venue option:has-text('Sample arena')", state="attached")  # an <option> is never 'visible'
        canvas = page.locator("#calib-canvas")
        box = canvas.bounding_box()
        scale = box["width"] / 1280  # CSS px per image px (1 at 100 % zoom)
        assert scale == pytest.approx(1.0, abs=1e-3)

        def click_pair(u: float, v: float, landmark: str) -> None:
            # A mouse event lands on a whole CSS pixel: click the one whose centre is nearest.
            canvas.click(position={"x": round((u + 0.5) * scale), "y": round((v + 0.5) * scale)})
            page.wait_for_function("() => document.querySelector('#calib-pending').textContent !== '–'")
            page.click(f"#calib-rink circle[data-landmark='{landmark}']")

        uv_truth = apply_h(image_from_rink, np.asarray(
            [json.loads(page.evaluate(f"JSON.stringify(calib.rink.landmarks['{n}'])")) for n in names]))
        for i, (name, (u, v)) in enumerate(zip(names, uv_truth)):
            if i == 3:
                assert page.is_disabled("#calib-submit")  # 3 pairs are not enough
            click_pair(u, v, name)
            page.wait_for_selector(f"#calib-pairs tbody tr[data-pair='{i}']")
        # a wrong pair, then delete it
        click_pair(640, 360, names[0])
        assert page.locator("#calib-pairs tbody tr[data-pair]").count() == N_PAIRS + 1
        page.click(f"#calib-pairs tbody tr[data-pair='{N_PAIRS}'] button.del")
        assert page.locator("#calib-pairs tbody tr[data-pair]").count() == N_PAIRS
        landmarks = page.locator("#calib-pairs tbody tr[data-pair] td:nth-child(4)").all_text_contents()
        assert landmarks == names
        clicked = np.asarray(page.evaluate("calib.pairs.map(p => p.image_px)"))
        assert np.abs(clicked - uv_truth).max() <= 0.51  # whole-pixel clicks

        page.fill("#calib-name", "sample broadcast cam")
        page.click("#calib-submit")
        page.wait_for_selector("#calib-result:has-text('reprojection error RMS')")
        page.wait_for_function("() => +document.querySelector('#calib-canvas').dataset.lines > 20")
        assert page.locator("#calib-pairs td.residual").all_text_contents()[0] != "–"
        page.screenshot(path=str(tmp_path / "calibration.png"), full_page=True)

        venues = http.get("/api/venues", headers=ADMIN).json()
        assert [v["name"] for v in venues] == ["Sample arena"]
        profiles = http.get(f"/api/venues/{venues[0]['id']}/camera-profiles", headers=ADMIN).json()
        assert len(profiles) == 1 and profiles[0]["name"] == "sample broadcast cam"
        prof = profiles[0]
        assert (prof["width"], prof["height"]) == (1280, 720)
        rink_from_image = np.asarray(prof["profile"]["H_rink_from_image"])
        err_m = np.linalg.norm(apply_h(rink_from_image, held_image_px) - held_rink_m, axis=1)
        assert err_m.max() < HELD_OUT_TOL_M, f"held-out error max {err_m.max():.3f} m"
        assert max(prof["profile"]["residuals_px"]) < 1.0

        page.reload()
        page.wait_for_selector(f"#calib-result[data-profile-id='{prof['id']}']:has-text('reprojection error RMS')")
        page.wait_for_function("() => +document.querySelector('#calib-canvas').dataset.lines > 20")
        assert page.locator("#calib-pairs tbody tr[data-pair]").count() == N_PAIRS
        assert page.locator(f"#calib-profiles li[data-profile-id='{prof['id']}'].selected").count() == 1
        assert errors == []
    print(f"held-out ice points: {len(err_m)}, error mean {err_m.mean():.4f} m, max {err_m.max():.4f} m")
