"""Live overlay feed endpoints: per-frame overlay data on a WebSocket, rule events as server-sent events.

WebSocket authentication: an `Authorization: Bearer TOKEN` header (scripts,
overlay machines) or, for browsers, which cannot set headers on a WebSocket,
a first text message `{"token": "TOKEN"}` within 5 s. Tokens are never
accepted in the URL, where access logs would record them.
"""

from __future__ import annotations

import asyncio
import json
import time

from fastapi import APIRouter, Depends, HTTPException, Request, WebSocket, WebSocketDisconnect
from fastapi.responses import StreamingResponse

from rulesfromvideo.service.auth import READ_ROLES, Principal, reader

router = APIRouter(prefix="/api/live", tags=["live"])


def _feed(app):
    feed = getattr(app.state, "live_feed", None)
    return feed


@router.get("/status", summary="The live feed's counters and latency (read → sent, ms)")
def live_status(request: Request, _: Principal = Depends(reader)) -> dict:
    feed = _feed(request.app)
    if feed is None:
        raise HTTPException(404, "no live feed runs on this server (start one with `rulesfromvideo live SOURCE`)")
    return feed.status()


async def _ws_principal(ws: WebSocket) -> Principal | None:
    tokens = ws.app.state.tokens
    auth = ws.headers.get("authorization", "")
    if auth.lower().startswith("bearer "):
        return tokens.lookup(auth[7:].strip())
    try:
        first = await asyncio.wait_for(ws.receive_text(), timeout=5.0)
        token = json.loads(first).get("token")
    except (asyncio.TimeoutError, ValueError, AttributeError, WebSocketDisconnect):
        return None
    return tokens.lookup(token) if isinstance(token, str) else None


@router.websocket("/ws")
async def live_ws(ws: WebSocket) -> None:
    """One JSON message per processed frame (see `live.overlay_message`), then `{"type": "end"}`."""
    await ws.accept()
    who = await _ws_principal(ws)
    if who is None or who.role not in READ_ROLES:
        await ws.close(code=4401, reason="unauthorized")
        return
    feed = _feed(ws.app)
    if feed is None:
        await ws.close(code=4404, reason="no live feed on this server")
        return
    sub = feed.subscribe("ws")
    try:
        while True:
            payload, t_read = await sub.queue.get()
            await ws.send_text(payload)
            if t_read is None:
                break
            feed.stats.latency_s.append(time.perf_counter() - t_read)
            feed.stats.messages_sent += 1
    except (WebSocketDisconnect, RuntimeError):
        pass
    finally:
        feed.unsubscribe(sub)
    try:
        await ws.close()
    except RuntimeError:
        pass


@router.get("/events", summary="Rule events as server-sent events (text/event-stream)")
async def live_events(request: Request, _: Principal = Depends(reader)) -> StreamingResponse:
    feed = _feed(request.app)
    if feed is None:
        raise HTTPException(404, "no live feed runs on this server")
    sub = feed.subscribe("sse")

    async def stream():
        try:
            yield ": connected\n\n"
            while True:
                try:
                    kind, data = await asyncio.wait_for(sub.queue.get(), timeout=15.0)
                except asyncio.TimeoutError:
                    yield ": keep-alive\n\n"  # proxies close idle streams
                    continue
                yield f"event: {kind}\ndata: {data}\n\n"
                if kind == "end":
                    break
        finally:
            feed.unsubscribe(sub)

    return StreamingResponse(stream(), media_type="text/event-stream",
                             headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})
