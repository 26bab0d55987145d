"""Roles, and bad inputs answered with the right status (never a 500)."""

from __future__ import annotations

import json
import os

import pytest
from rfv_service_support import ADMIN, BROADCAST, GAME, JUDGE, VIEWER, make_video, upload

from rulesfromvideo.service.auth import get_principal, Principal


def test_no_token_is_401_with_bearer_challenge(client):
    r = client.get("/api/clips")
    assert r.status_code == 401
    assert r.headers["www-authenticate"] == "Bearer"


def test_unknown_token_is_401_and_not_echoed(client):
    r = client.get("/api/clips", headers={"Authorization": "Bearer not-a-real-token"})
    assert r.status_code == 401
    assert "not-a-real-token" not in r.text


@pytest.mark.parametrize("headers", [VIEWER, BROADCAST, ADMIN])
def test_only_a_judge_may_record_a_decision(analysed, client, headers):
    _clip, _job, events = analysed
    r = client.post(f"/api/events/{events[0]['id']}/decisions", headers=headers, json={"decision": "confirm"})
    assert r.status_code == 403
    assert client.get(f"/api/events/{events[0]['id']}/decisions", headers=VIEWER).json() == []


def test_judge_records_decision_signed_with_name(analysed, client):
    _clip, _job, events = analysed
    r = client.post(f"/api/events/{events[0]['id']}/decisions", headers=JUDGE,
                    json={"decision": "overturn", "note": "puck on the line"})
    assert r.status_code == 201
    assert r.json()["judge"] == "judge judy"
    assert r.json()["decision"] == "overturn"


@pytest.mark.parametrize("headers", [VIEWER, JUDGE, BROADCAST])
def test_registration_and_jobs_need_admin(client, video, headers):
    assert upload(client, video, headers=headers).status_code == 403
    assert client.post("/api/venues", headers=headers, json={"name": "x"}).status_code == 403


def test_dependency_override_of_auth(settings, fake, video):
    """Tests (and embedders) can replace authentication through dependency_overrides."""
    from rfv_service_support import running_app

    with running_app(settings, fake) as c:
        c.app.dependency_overrides[get_principal] = lambda: Principal("robot", "viewer")
        assert c.get("/api/clips").status_code == 200
        assert upload(c, video, headers={}).status_code == 403


def test_upload_of_a_text_file_is_415(client, tmp_path):
    p = tmp_path / "notes.mp4"
    p.write_text("this is not a video at all, just text pretending\n" * 10)
    r = upload(client, p)
    assert r.status_code == 415
    assert "not a video" in r.json()["detail"]


def test_upload_of_a_png_is_415(client, tmp_path):
    import cv2
    import numpy as np

    p = tmp_path / "frame.png"
    cv2.imwrite(str(p), np.zeros((8, 8, 3), np.uint8))
    assert upload(client, p).status_code == 415


def test_upload_with_video_signature_but_garbage_is_422(client, tmp_path):
    p = tmp_path / "broken.mp4"
    p.write_bytes(b"\x00\x00\x00\x18ftypisom" + os.urandom(4000))
    r = upload(client, p)
    assert r.status_code == 422
    assert r.json()["detail"].startswith("broken.mp4: ")
    assert str(tmp_path) not in r.json()["detail"]  # no server paths in messages
    assert list((tmp_path / "data" / "uploads").glob("*")) == []  # refused uploads leave nothing behind


def test_truncated_video_is_refused(client, tmp_path):
    good = make_video(tmp_path / "good.mp4")
    cut = tmp_path / "cut.mp4"
    cut.write_bytes(good.read_bytes()[:600])
    assert upload(client, cut).status_code == 422


def test_oversized_upload_is_413(client, tmp_path):
    p = tmp_path / "big.mp4"
    p.write_bytes(b"\x00\x00\x00\x18ftypisom" + b"\0" * 1_200_000)  # limit is 1 MB in these tests
    r = upload(client, p)
    assert r.status_code == 413
    assert list((tmp_path / "data" / "uploads").glob("*")) == []


def test_oversized_chunked_upload_is_413(client, tmp_path):
    """No Content-Length: the body is counted as it streams."""
    boundary = "rfvboundary"

    def body():
        yield (f"--{boundary}\r\nContent-Disposition: form-data; name=\"game\"\r\n\r\n{json.dumps(GAME)}\r\n"
               f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"x.mp4\"\r\n"
               "Content-Type: video/mp4\r\n\r\n").encode()
        for _ in range(20):
            yield b"\0" * 100_000
        yield f"\r\n--{boundary}--\r\n".encode()

    r = client.post("/api/clips", headers={**ADMIN, "Content-Type": f"multipart/form-data; boundary={boundary}"},
                    content=body())
    assert r.status_code == 413


def test_upload_with_malformed_game_json_is_422(client, video):
    with open(video, "rb") as fh:
        r = client.post("/api/clips", headers=ADMIN, files={"file": ("c.mp4", fh, "video/mp4")},
                        data={"game": "{not json"})
    assert r.status_code == 422
    assert "game is not valid JSON" in r.json()["detail"]


def test_upload_with_bad_game_field_names_it(client, video):
    bad = {**GAME, "rules": "calvinball"}
    r = upload(client, video, game=bad)
    assert r.status_code == 422
    assert "rules" in r.json()["detail"]


def test_upload_without_file_is_422(client):
    r = client.post("/api/clips", headers=ADMIN, data={"game": json.dumps(GAME)})
    assert r.status_code == 422


def test_valid_upload_is_described(client, video):
    r = upload(client, video, name="period 2 goal")
    assert r.status_code == 201, r.text
    c = r.json()
    assert (c["name"], c["width"], c["height"], c["fps"], c["uploaded"]) == ("period 2 goal", 320, 240, 30.0, True)
    assert c["n_frames"] == 30
    assert "path" not in c  # server paths are not disclosed


@pytest.mark.parametrize("path,status", [
    ("../secret.mp4", 400),
    ("a/../../secret.mp4", 400),
    ("/etc/passwd", 400),
    ("", 400),
    ("a\\..\\b.mp4", 400),
    ("missing.mp4", 404),
])
def test_path_registration_refuses_traversal(client, path, status):
    r = client.post("/api/clips/register-path", headers=ADMIN, json={"path": path, "game": GAME})
    assert r.status_code == status, r.text


def test_path_registration_refuses_symlink_escape(client, settings, tmp_path):
    outside = make_video(tmp_path / "outside.mp4")
    (settings.media_root / "link.mp4").symlink_to(outside)
    (settings.media_root / "dir").symlink_to(tmp_path)
    for p in ("link.mp4", "dir/outside.mp4"):
        r = client.post("/api/clips/register-path", headers=ADMIN, json={"path": p, "game": GAME})
        assert r.status_code == 403, r.text


def test_path_registration_inside_media_root(client, settings):
    sub = settings.media_root / "2026" / "westridge"
    sub.mkdir(parents=True)
    make_video(sub / "g1.mp4")
    r = client.post("/api/clips/register-path", headers=ADMIN, json={"path": "2026/westridge/g1.mp4", "game": GAME})
    assert r.status_code == 201, r.text
    assert r.json()["uploaded"] is False
    (settings.media_root / "notes.txt").write_text("hello" * 100)
    r = client.post("/api/clips/register-path", headers=ADMIN, json={"path": "notes.txt", "game": GAME})
    assert r.status_code == 415


def test_malformed_json_body_is_422(analysed, client):
    _clip, _job, events = analysed
    url = f"/api/events/{events[0]['id']}/decisions"
    r = client.post(url, headers={**JUDGE, "Content-Type": "application/json"}, content=b'{"decision": "confirm"')
    assert r.status_code == 422
    assert client.post(url, headers=JUDGE, json={"decision": "maybe"}).status_code == 422
    assert client.post(url, headers=JUDGE, json={"decision": "confirm", "extra": 1}).status_code == 422
    assert client.post(url, headers=JUDGE, json={"decision": "confirm", "note": "x" * 5000}).status_code == 422
    assert client.post(url, headers=JUDGE, json=["confirm"]).status_code == 422
    assert client.get(url, headers=VIEWER).json() == []


def test_unknown_ids_are_404(client):
    assert client.get("/api/clips/999", headers=VIEWER).status_code == 404
    assert client.get("/api/events/999", headers=VIEWER).status_code == 404
    assert client.post("/api/events/999/decisions", headers=JUDGE, json={"decision": "confirm"}).status_code == 404
    assert client.post("/api/clips/999/jobs", headers=ADMIN).status_code == 404


def test_openapi_published(client):
    spec = client.get("/openapi.json").json()
    paths = spec["paths"]
    for p in ("/api/clips", "/api/clips/{clip_id}/jobs", "/api/jobs/{job_id}/cancel", "/api/jobs/{job_id}/retry",
              "/api/events/{event_id}/decisions", "/api/events/{event_id}/zoom.png",
              "/api/venues/{venue_id}/calibration", "/api/export/events.{fmt}", "/api/live/events"):
        assert p in paths, p
    assert "HTTPBearer" in json.dumps(spec["components"]["securitySchemes"])


def test_cors_is_closed_by_default(client):
    r = client.options("/api/clips", headers={"Origin": "https://evil.example", "Access-Control-Request-Method": "GET"})
    assert "access-control-allow-origin" not in r.headers


def test_cors_allows_configured_origin(settings, fake):
    from rfv_service_support import running_app

    settings.cors_origins = ["https://review.example"]
    with running_app(settings, fake) as c:
        r = c.get("/api/health", headers={"Origin": "https://review.example"})
        assert r.headers["access-control-allow-origin"] == "https://review.example"
        r = c.get("/api/health", headers={"Origin": "https://evil.example"})
        assert "access-control-allow-origin" not in r.headers


def test_tokens_never_logged(analysed, client, caplog):
    caplog.set_level("DEBUG")
    _clip, _job, events = analysed
    client.post(f"/api/events/{events[0]['id']}/decisions", headers=JUDGE, json={"decision": "confirm"})
    client.get("/api/clips", headers={"Authorization": "Bearer wrong-secret"})
    import logging

    logging.getLogger("rulesfromvideo.service").info("header was Bearer tok-judge")
    text = caplog.text
    assert "judge judy" in text
    for secret in ("tok-judge", "tok-admin", "wrong-secret"):
        assert secret not in text
    assert "tok-" not in repr(client.app.state.settings)
