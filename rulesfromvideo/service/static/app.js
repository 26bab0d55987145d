// rulesfromvideo review UI: plain JS, no build step. Talks only to this server's /api.
// The token lives in sessionStorage (gone when the tab closes) and travels only in the
// Authorization header; images are fetched with it and shown as blob: URLs.
"use strict";

const $ = (sel) => document.querySelector(sel);
const state = { token: sessionStorage.getItem("rfv-token") || "", me: null, clip: null, events: [], event: null,
                frame: 0, frameUrl: null, zoomUrl: null, seq: 0 };

function say(msg) { $("#status").textContent = msg || ""; }

async function api(path, opts = {}) {
  const headers = Object.assign({}, opts.headers || {}, { Authorization: "Bearer " + state.token });
  const r = await fetch(path, Object.assign({}, opts, { headers }));
  if (!r.ok) {
    let detail = r.statusText;
    try { const j = await r.json(); detail = typeof j.detail === "string" ? j.detail : JSON.stringify(j.detail); } catch (e) {}
    const err = new Error(`${r.status}: ${detail}`); err.status = r.status; throw err;
  }
  return r;
}
const getJSON = async (path) => (await api(path)).json();

function el(tag, attrs = {}, ...children) {
  const n = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") n.className = v; else if (k.startsWith("data-")) n.setAttribute(k, v); else n[k] = v;
  }
  for (const c of children) n.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return n;
}

function readHash() {
  const p = new URLSearchParams(location.hash.slice(1));
  return { clip: parseInt(p.get("clip") || "", 10), event: parseInt(p.get("event") || "", 10),
           frame: parseInt(p.get("frame") || "", 10), calib: p.has("calib"),
           calibVenue: parseInt(p.get("calib") || "", 10), calibFrame: parseInt(p.get("cframe") || "", 10) };
}
function writeHash() {
  const p = new URLSearchParams();
  if (state.clip) p.set("clip", state.clip.id);
  if (state.event) { p.set("event", state.event.id); p.set("frame", state.frame); }
  if (typeof calibHash === "function") calibHash(p);
  history.replaceState(null, "", "#" + p.toString());
}

// --- sign in -------------------------------------------------------------------------------
async function signIn(token) {
  state.token = token.trim();
  try {
    state.me = await getJSON("/api/me");
  } catch (e) {
    state.me = null; $("#whoami").textContent = ""; say("sign-in failed: " + e.message); return false;
  }
  sessionStorage.setItem("rfv-token", state.token);
  $("#whoami").textContent = `${state.me.name} (${state.me.role})`;
  document.body.classList.toggle("readonly", state.me.role !== "judge");
  $("#decide-note").textContent = state.me.role === "judge" ? "" : "Only a judge can record decisions.";
  say("");
  return true;
}

// --- clips -----------------------------------------------------------------------------------
async function loadClips() {
  const clips = await getJSON("/api/clips");
  const ul = $("#clips"); ul.replaceChildren();
  for (const c of clips) {
    const job = c.latest_job;
    const st = job ? (job.state === "running" ? `running ${Math.round(100 * job.progress)} %` : job.state) : "not analysed";
    const li = el("li", { "data-clip-id": c.id }, el("div", {}, c.name),
                  el("div", { class: "small" }, `${c.n_frames} frames · ${c.fps.toFixed(2)} fps · ${st}`));
    if (job && job.state === "failed") li.append(el("div", { class: "small" }, job.message));
    if (state.me && state.me.role === "admin" && (!job || ["failed", "cancelled", "succeeded"].includes(job.state))) {
      const b = el("button", { type: "button", class: "analyse" }, job ? "re-analyse" : "analyse");
      b.addEventListener("click", async (ev) => {
        ev.stopPropagation();
        try { await api(`/api/clips/${c.id}/jobs`, { method: "POST" }); say("analysis queued"); loadClips(); }
        catch (e) { say(e.message); }
      });
      li.append(b);
    }
    li.addEventListener("click", () => openClip(c.id));
    if (state.clip && state.clip.id === c.id) li.classList.add("selected");
    ul.append(li);
  }
  return clips;
}

const VERDICT_CLASS = (v) => "v-" + String(v).replace(/[^a-z_]/g, "");

async function openClip(clipId, eventId = null, frame = null) {
  const [clip, evs] = await Promise.all([getJSON(`/api/clips/${clipId}`), getJSON(`/api/clips/${clipId}/events`)]);
  state.clip = clip; state.events = evs.events; state.event = null;
  document.querySelectorAll("#clips li").forEach((li) => li.classList.toggle("selected", +li.dataset.clipId === clipId));
  $("#clip-pane").hidden = false; $("#event-pane").hidden = true;
  if (typeof closeCalib === "function") closeCalib(false);
  $("#clip-title").textContent = clip.name;
  const duration = Math.max(clip.n_frames / (clip.fps || 30), ...state.events.map((e) => e.t), 0.001);
  const tl = $("#timeline"); tl.replaceChildren();
  const ol = $("#events"); ol.replaceChildren();
  for (const e of state.events) {
    const tick = el("span", { class: "tick " + VERDICT_CLASS(e.verdict), title: `${e.type}: ${e.verdict} @ ${e.t.toFixed(2)} s`,
                              "data-event-id": e.id });
    tick.style.left = `${(100 * e.t) / duration}%`;
    tick.addEventListener("click", () => openEvent(e.id));
    tl.append(tick);
    const dec = e.decision ? ` · judged: ${e.decision.decision}` : "";
    const li = el("li", { class: "event", "data-event-id": e.id },
                  el("span", { class: "badge " + VERDICT_CLASS(e.verdict) }, e.verdict), " ", e.type,
                  el("div", { class: "small" }, `t ${e.t.toFixed(3)} s · frame ${e.frame} · ${e.team || "–"} · ` +
                     `margin ${e.margin_m == null ? "–" : (100 * e.margin_m).toFixed(1) + " cm"}${dec}`));
    li.addEventListener("click", () => openEvent(e.id));
    ol.append(li);
  }
  if (!state.events.length) {
    const job = clip.latest_job;
    ol.append(el("li", { class: "small" }, job ? `no events (${job.state}: ${job.message})` : "not analysed yet"));
  }
  writeHash();
  if (eventId) await openEvent(eventId, frame);
}

// --- event, player, zoom --------------------------------------------------------------------
function layers() {
  const on = ["lines", "puck", "blades"].filter((l) => $("#layer-" + l).checked);
  return on.length ? on.join(",") : "none";
}

async function openEvent(eventId, frame = null) {
  const e = state.events.find((x) => x.id === eventId) || (await getJSON(`/api/events/${eventId}`));
  state.event = e;
  if (typeof closeCalib === "function") closeCalib(false);
  document.querySelectorAll("#events li").forEach((li) => li.classList.toggle("selected", +li.dataset.eventId === eventId));
  $("#event-pane").hidden = false;
  $("#event-title").textContent = `${e.type} — ${e.verdict} (${e.team || "–"})`;
  const sigma = e.evidence && e.evidence.sigma_m != null ? ` ± ${(100 * e.evidence.sigma_m).toFixed(1)} cm` : "";
  $("#event-facts").textContent = `rule ${e.rule || "–"} · t ${e.t.toFixed(3)} s · decisive frame ${e.frame} · margin ` +
    `${e.margin_m == null ? "–" : (100 * e.margin_m).toFixed(1) + " cm"}${sigma} · confidence ` +
    `${e.confidence == null ? "–" : e.confidence.toFixed(2)}`;
  $("#zoom-img").hidden = true; $("#zoom-msg").textContent = "";
  await showFrame(Number.isInteger(frame) ? frame : e.frame);
  await loadAudit();
}

async function showFrame(n) {
  if (!state.clip) return;
  const last = Math.max(0, (state.clip.n_frames || 1) - 1);
  n = Math.max(0, Math.min(last, n));
  state.frame = n;
  const seq = ++state.seq;  // only the newest request paints, however the answers arrive
  $("#frame-no").value = n; $("#frame-no").textContent = n;
  $("#frame-t").textContent = (n / (state.clip.fps || 30)).toFixed(3);
  const job = state.event ? `&job_id=${state.event.job_id}` : "";
  try {
    const blob = await (await api(`/api/clips/${state.clip.id}/frames/${n}.png?layers=${layers()}${job}`)).blob();
    if (seq !== state.seq) return;
    if (state.frameUrl) URL.revokeObjectURL(state.frameUrl);
    state.frameUrl = URL.createObjectURL(blob);
    const img = $("#frame-img");
    img.dataset.frame = n;
    img.src = state.frameUrl;
    say("");
  } catch (e) { if (seq === state.seq) say(`frame ${n}: ${e.message}`); }
  writeHash();
}

async function showZoom(target) {
  if (!state.event) return;
  try {
    const q = `target=${target}&frame=${state.frame}&layers=${layers()}`;
    const blob = await (await api(`/api/events/${state.event.id}/zoom.png?${q}`)).blob();
    if (state.zoomUrl) URL.revokeObjectURL(state.zoomUrl);
    state.zoomUrl = URL.createObjectURL(blob);
    $("#zoom-img").src = state.zoomUrl; $("#zoom-img").hidden = false; $("#zoom-msg").textContent = "";
  } catch (e) { $("#zoom-img").hidden = true; $("#zoom-msg").textContent = e.message; }
}

// --- decisions and audit trail -------------------------------------------------------------
async function loadAudit() {
  const rows = await getJSON(`/api/events/${state.event.id}/decisions`);
  const tb = $("#audit tbody"); tb.replaceChildren();
  for (const d of rows) {
    tb.append(el("tr", { "data-decision-id": d.id }, el("td", {}, d.id), el("td", {}, d.created_at.replace("T", " ").slice(0, 19)),
                 el("td", {}, d.judge), el("td", { class: "decision" }, d.decision), el("td", {}, d.note)));
  }
  if (!rows.length) tb.append(el("tr", {}, el("td", { colSpan: 5, class: "small" }, "no decision yet")));
}

async function decide(kind) {
  if (!state.event) return;
  const note = $("#note").value;
  try {
    await api(`/api/events/${state.event.id}/decisions`, {
      method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ decision: kind, note }) });
    $("#note").value = "";
    say(`decision recorded: ${kind}`);
    await loadAudit();
    const evs = await getJSON(`/api/clips/${state.clip.id}/events`);
    state.events = evs.events;
  } catch (e) { say("decision NOT recorded: " + e.message); }
}

// --- wiring ----------------------------------------------------------------------------------
$("#signin-form").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  if (await signIn($("#token").value)) { $("#token").value = ""; await start(); }
});
$("#refresh-clips").addEventListener("click", () => loadClips().catch((e) => say(e.message)));
$("#prev-frame").addEventListener("click", () => showFrame(state.frame - 1));
$("#next-frame").addEventListener("click", () => showFrame(state.frame + 1));
$("#back-10").addEventListener("click", () => showFrame(state.frame - 10));
$("#fwd-10").addEventListener("click", () => showFrame(state.frame + 10));
$("#to-event").addEventListener("click", () => state.event && showFrame(state.event.frame));
for (const l of ["lines", "puck", "blades"]) $("#layer-" + l).addEventListener("change", () => showFrame(state.frame));
$("#zoom-puck").addEventListener("click", () => showZoom("puck"));
$("#zoom-goal").addEventListener("click", () => showZoom("goal_line"));
$("#zoom-blue").addEventListener("click", () => showZoom("blue_line"));
for (const k of ["confirm", "overturn", "inconclusive"]) $("#decide-" + k).addEventListener("click", () => decide(k));
document.addEventListener("keydown", (ev) => {
  if (ev.target.tagName === "TEXTAREA" || ev.target.tagName === "INPUT" || !state.event) return;
  if (ev.key === "ArrowRight") showFrame(state.frame + 1);
  if (ev.key === "ArrowLeft") showFrame(state.frame - 1);
});

async function start() {
  try {
    await loadClips();
    const h = readHash();
    if (Number.isInteger(h.clip)) await openClip(h.clip, Number.isInteger(h.event) ? h.event : null, h.frame);
    if (Number.isInteger(h.clip) && h.calib && typeof openCalib === "function") await openCalib(h.calibVenue, h.calibFrame);
  } catch (e) { say(e.message); }
}

(async () => { if (state.token && (await signIn(state.token))) await start(); })();
