"""Decisions (durable, append-only), exports, evidence images, calibration and venues."""

from __future__ import annotations

import csv
import io
import json

import cv2
import numpy as np
import pytest
from rfv_service_support import ADMIN, IMAGE_FROM_RINK, JUDGE, VIEWER, puck_at, running_app
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError


def _decide(client, event_id, decision, note=""):
    r = client.post(f"/api/events/{event_id}/decisions", headers=JUDGE, json={"decision": decision, "note": note})
    assert r.status_code == 201, r.text
    return r.json()


def test_decision_survives_recreating_the_app(settings, fake, analysed, client):
    _clip, _job, events = analysed
    d1 = _decide(client, events[0]["id"], "confirm", "clear goal")
    d2 = _decide(client, events[0]["id"], "inconclusive", "second look: post hides the puck")
    client.app.state.runner.stop()
    client.app.state.database.dispose()
    with running_app(settings, fake) as c2:
        trail = c2.get(f"/api/events/{events[0]['id']}/decisions", headers=VIEWER).json()
        assert [(d["id"], d["decision"], d["note"], d["judge"]) for d in trail] == [
            (d1["id"], "confirm", "clear goal", "judge judy"),
            (d2["id"], "inconclusive", "second look: post hides the puck", "judge judy")]
        ev = c2.get(f"/api/events/{events[0]['id']}", headers=VIEWER).json()
        assert ev["decision"]["id"] == d2["id"]  # the latest decision is the event's current one
        assert c2.get(f"/api/events/{events[1]['id']}", headers=VIEWER).json()["decision"] is None


def test_audit_trail_is_append_only_in_the_database(analysed, client):
    _clip, _job, events = analysed
    _decide(client, events[0]["id"], "confirm")
    db = client.app.state.database
    for stmt in ("UPDATE decisions SET decision = 'overturn'", "DELETE FROM decisions"):
        with pytest.raises(DBAPIError, match="append-only"):
            with db.engine.begin() as conn:
                conn.execute(text(stmt))
    assert [d["decision"] for d in client.get("/api/decisions", headers=VIEWER).json()] == ["confirm"]


def test_export_csv_and_json(analysed, client):
    clip, job, events = analysed
    _decide(client, events[0]["id"], "overturn", "=HYPERLINK(\"http://x\")")
    r = client.get("/api/export/events.csv", headers=VIEWER)
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(r.text)))
    assert [(row["type"], row["verdict"], row["frame"], row["rule"]) for row in rows] == [
        ("goal", "goal", "15", "906"), ("zone_entry", "inconclusive", "6", "903 b1")]
    assert rows[0]["decision"] == "overturn" and rows[0]["decision_judge"] == "judge judy"
    assert rows[0]["decision_note"].startswith("'=")  # a formula is never handed to a spreadsheet
    assert float(rows[0]["margin_m"]) == 0.021 and float(rows[1]["margin_m"]) == -0.003
    assert json.loads(rows[0]["evidence"]) == {"puck_xy": [26.1, 0.0], "sigma_m": 0.01}
    assert rows[1]["decision"] == ""

    doc = client.get(f"/api/export/events.json?clip_id={clip['id']}", headers=VIEWER).json()
    assert [e["verdict"] for e in doc["events"]] == ["goal", "inconclusive"]
    assert doc["events"][0]["decision"] == "overturn" and doc["events"][0]["job_id"] == job["id"]

    dec = list(csv.DictReader(io.StringIO(client.get("/api/export/decisions.csv", headers=VIEWER).text)))
    assert [(d["event_id"], d["decision"], d["event_type"]) for d in dec] == [(str(events[0]["id"]), "overturn", "goal")]
    assert client.get("/api/export/decisions.json", headers=VIEWER).json()["decisions"][0]["judge"] == "judge judy"
    assert client.get("/api/export/events.xml", headers=VIEWER).status_code == 422


def test_export_keeps_only_the_newest_run_unless_asked(analysed, client):
    from rfv_service_support import wait_job

    clip, _job, _events = analysed
    job2 = client.post(f"/api/clips/{clip['id']}/jobs", headers=ADMIN).json()
    wait_job(client, job2["id"])
    assert len(client.get("/api/export/events.json", headers=VIEWER).json()["events"]) == 2
    assert len(client.get("/api/export/events.json?all_jobs=true", headers=VIEWER).json()["events"]) == 4


def _png(r) -> np.ndarray:
    assert r.status_code == 200, r.text
    assert r.headers["content-type"] == "image/png"
    img = cv2.imdecode(np.frombuffer(r.content, np.uint8), cv2.IMREAD_COLOR)
    assert img is not None
    return img


def _px(xy_rink):
    u, v, w = IMAGE_FROM_RINK @ np.array([xy_rink[0], xy_rink[1], 1.0])
    return int(round(u / w)), int(round(v / w))


def test_event_frame_png_has_the_overlay_where_the_homography_puts_it(analysed, client):
    _clip, _job, events = analysed
    goal = events[0]
    bare = _png(client.get(f"/api/events/{goal['id']}/frame.png?layers=none", headers=VIEWER))
    assert bare.shape == (240, 320, 3)
    assert abs(float(bare.mean()) - 8 * 15) < 6  # frame 15 of the fixture video has grey level 120
    drawn = _png(client.get(f"/api/events/{goal['id']}/frame.png", headers=VIEWER))
    u, v = _px((puck_at(15)["x"], 0.0))
    ring = drawn[v - 10 : v + 11, u - 10 : u + 11].astype(int)
    assert ((ring[..., 1] > 200) & (ring[..., 0] < 80) & (ring[..., 2] < 80)).any()  # green circle = measured puck
    puck_only = _png(client.get(f"/api/events/{goal['id']}/frame.png?layers=puck", headers=VIEWER))
    # The +x goal line (x = 26 m) is drawn in yellow only with the lines layer.
    gu, _ = _px((26.0, 0.0))
    col = slice(gu - 1, gu + 2)
    yellow = lambda img: ((img[30:60, col, 2] > 200) & (img[30:60, col, 1] > 200) & (img[30:60, col, 0] < 90)).any()
    assert yellow(drawn) and not yellow(puck_only)


def test_frames_step_and_unknown_calibration(analysed, client):
    clip, _job, _events = analysed
    means = [float(_png(client.get(f"/api/clips/{clip['id']}/frames/{n}.png?layers=none", headers=VIEWER)).mean())
             for n in (3, 4, 5, 4)]
    assert means[0] < means[1] < means[2] and means[3] == means[1]
    img = _png(client.get(f"/api/clips/{clip['id']}/frames/20.png", headers=VIEWER))  # no calibration on frame 20
    assert (img[20:45, 20:300, 2] > 200).any()  # red "calibration unknown" text
    assert client.get(f"/api/clips/{clip['id']}/frames/99.png", headers=VIEWER).status_code == 404
    assert client.get(f"/api/clips/{clip['id']}/frames/3.png?layers=smoke", headers=VIEWER).status_code == 422


def test_zoom_crops(analysed, client):
    _clip, _job, events = analysed
    goal = events[0]
    z = _png(client.get(f"/api/events/{goal['id']}/zoom.png?target=puck&half=20&zoom=4", headers=VIEWER))
    assert z.shape == (160, 160, 3)
    centre = z[70:90, 70:90].astype(int)
    assert ((centre[..., 1] > 200) & (centre[..., 0] < 80) & (centre[..., 2] < 80)).any() or \
        ((centre[..., 0] > 200) & (centre[..., 2] > 200)).any()
    gl = _png(client.get(f"/api/events/{goal['id']}/zoom.png?target=goal_line&half=30&zoom=2", headers=VIEWER))
    assert gl.shape == (120, 120, 3)
    # The goal line crosses the crop's centre column vertically (yellow).
    mid = gl[:, 56:64]
    assert ((mid[..., 2] > 200) & (mid[..., 1] > 200) & (mid[..., 0] < 90)).sum() > 20
    bl = client.get(f"/api/events/{goal['id']}/zoom.png?target=blue_line&end=-x", headers=VIEWER)
    assert bl.status_code == 200
    pt = client.get(f"/api/events/{goal['id']}/zoom.png?target=point", headers=VIEWER)
    assert pt.status_code == 422
    nocal = client.get(f"/api/events/{goal['id']}/zoom.png?frame=20", headers=VIEWER)
    assert nocal.status_code == 409 and "no calibration" in nocal.json()["detail"]


def _pairs(points_rink):
    return [{"image_px": list(_px(p)), "rink_m": list(p)} for p in points_rink]


def test_manual_calibration_stores_a_venue_profile(client):
    venue = client.post("/api/venues", headers=ADMIN, json={"name": "Westridge Arena"}).json()
    body = {"name": "main cam", "width": 320, "height": 240,
            "pairs": _pairs([(-26.0, -15.0), (26.0, -15.0), (26.0, 15.0), (-26.0, 15.0), (0.0, 0.0)])}
    r = client.post(f"/api/venues/{venue['id']}/calibration", headers=ADMIN, json=body)
    assert r.status_code == 201, r.text
    prof = r.json()
    assert prof["venue_id"] == venue["id"] and prof["name"] == "main cam"
    H = np.array(prof["profile"]["H_rink_from_image"])
    np.testing.assert_allclose(H / H[2, 2], np.linalg.inv(IMAGE_FROM_RINK), atol=1e-6)
    assert max(prof["profile"]["residuals_px"]) < 1e-6
    listed = client.get(f"/api/venues/{venue['id']}/camera-profiles", headers=VIEWER).json()
    assert [p["id"] for p in listed] == [prof["id"]]

    collinear = {**body, "pairs": _pairs([(x, 0.0) for x in (-20.0, -10.0, 0.0, 10.0, 20.0)])}
    r = client.post(f"/api/venues/{venue['id']}/calibration", headers=ADMIN, json=collinear)
    assert r.status_code == 422 and "collinear" in r.json()["detail"]
    r = client.post(f"/api/venues/{venue['id']}/calibration", headers=ADMIN, json={**body, "pairs": body["pairs"][:3]})
    assert r.status_code == 422
    both = {**body, "pairs": [{**p, "landmark": "centre_spot"} for p in body["pairs"]]}
    assert client.post(f"/api/venues/{venue['id']}/calibration", headers=ADMIN, json=both).status_code == 422
    assert client.post(f"/api/venues/{venue['id']}/calibration", headers=JUDGE, json=body).status_code == 403


def test_calibration_by_landmark_names(client):
    from calibration.rink import RinkModel, RinkSpec

    rink = RinkModel(RinkSpec.for_layout("ipc"))
    names = ["goal_line_+x_board_+y", "goal_line_+x_board_-y", "goal_line_-x_board_+y", "goal_line_-x_board_-y",
             "centre_spot"]
    venue = client.post("/api/venues", headers=ADMIN, json={"name": "Arena 2"}).json()
    pairs = [{"image_px": list(_px(rink.landmarks[n][:2])), "landmark": n} for n in names]
    r = client.post(f"/api/venues/{venue['id']}/calibration", headers=ADMIN,
                    json={"name": "cam", "width": 320, "height": 240, "pairs": pairs})
    assert r.status_code == 201, r.text
    assert max(r.json()["profile"]["residuals_m"]) < 0.2  # pixel rounding at 5 px/m
    pairs[0]["landmark"] = "nowhere"
    r = client.post(f"/api/venues/{venue['id']}/calibration", headers=ADMIN,
                    json={"name": "cam", "width": 320, "height": 240, "pairs": pairs})
    assert r.status_code == 422 and "nowhere" in r.json()["detail"]


def test_venue_and_profile_crud(client):
    v = client.post("/api/venues", headers=ADMIN, json={"name": "Rink A", "notes": "north end"}).json()
    assert client.post("/api/venues", headers=ADMIN, json={"name": "Rink A"}).status_code == 409
    assert client.patch(f"/api/venues/{v['id']}", headers=ADMIN, json={"notes": "south"}).json()["notes"] == "south"
    body = {"name": "cam", "width": 320, "height": 240,
            "pairs": _pairs([(-20.0, -10.0), (20.0, -10.0), (20.0, 10.0), (-20.0, 10.0)])}
    prof = client.post(f"/api/venues/{v['id']}/calibration", headers=ADMIN, json=body).json()
    doc = prof["profile"]
    doc["name"] = "cam renamed"
    r = client.put(f"/api/camera-profiles/{prof['id']}", headers=ADMIN, json={"profile": doc})
    assert r.status_code == 200 and r.json()["name"] == "cam renamed"
    r = client.post(f"/api/venues/{v['id']}/camera-profiles", headers=ADMIN, json={"profile": {"nonsense": 1}})
    assert r.status_code == 422
    r = client.post(f"/api/venues/{v['id']}/camera-profiles", headers=ADMIN, json={"profile": doc})
    assert r.status_code == 201
    assert len(client.get(f"/api/venues/{v['id']}/camera-profiles", headers=VIEWER).json()) == 2
    assert client.delete(f"/api/camera-profiles/{prof['id']}", headers=ADMIN).status_code == 204
    assert client.get(f"/api/camera-profiles/{prof['id']}", headers=VIEWER).status_code == 404
    assert client.delete(f"/api/venues/{v['id']}", headers=VIEWER).status_code == 403
    assert client.delete(f"/api/venues/{v['id']}", headers=ADMIN).status_code == 204
    assert client.get("/api/venues", headers=VIEWER).json() == []


def test_clip_with_camera_profile_hands_it_to_the_analysis(client, fake, video):
    from rfv_service_support import upload, wait_job

    v = client.post("/api/venues", headers=ADMIN, json={"name": "Rink B"}).json()
    body = {"name": "cam", "width": 320, "height": 240, "goal_end": 1,
            "pairs": _pairs([(-20.0, -10.0), (20.0, -10.0), (20.0, 10.0), (-20.0, 10.0)])}
    prof = client.post(f"/api/venues/{v['id']}/calibration", headers=ADMIN, json=body).json()
    clip = upload(client, video, venue_id=v["id"], camera_profile_id=prof["id"]).json()
    assert clip["camera_profile_id"] == prof["id"]
    job = wait_job(client, client.post(f"/api/clips/{clip['id']}/jobs", headers=ADMIN).json()["id"])
    assert job["state"] == "succeeded"
    assert fake.profiles[-1]["goal_end"] == 1 and fake.profiles[-1]["name"] == "cam"
    assert upload(client, video, camera_profile_id=999).status_code == 422


def test_clip_list_shows_each_clips_newest_job(client, fake, tmp_path):
    from rfv_service_support import make_video, upload, wait_job

    ids = []
    for k in range(3):
        clip = upload(client, make_video(tmp_path / f"c{k}.mp4")).json()
        for _ in range(k):  # clip k gets k jobs
            wait_job(client, client.post(f"/api/clips/{clip['id']}/jobs", headers=ADMIN).json()["id"])
        ids.append(clip["id"])
    listed = {c["id"]: c["latest_job"] for c in client.get("/api/clips", headers=VIEWER).json()}
    assert listed[ids[0]] is None
    jobs = client.get("/api/jobs", headers=VIEWER).json()
    for cid in ids[1:]:
        assert listed[cid]["id"] == max(j["id"] for j in jobs if j["clip_id"] == cid)
