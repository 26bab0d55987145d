// Point-click calibration of a venue's fixed camera (plain JS, loaded after app.js and using its
// helpers $, el, api, getJSON, say, state, writeHash). The user clicks a point in a clip's frame,
// then the same point on a top-down rink diagram; ≥ 4 pairs are sent to
// POST /api/venues/{id}/calibration, and the stored profile's rink lines are drawn over the frame.
// Image coordinates: px, pixel centres at integers (u = 0 is the centre of the leftmost column).
// Rink coordinates: metres, centre ice at the origin, +y up on the diagram.
"use strict";

const SVG_NS = "http://www.w3.org/2000/svg";
const SNAP_M = 0.6;  // a rink click this close to a landmark takes the landmark's exact position
const calib = { open: false, venue: null, frame: 0, img: null, imgUrl: null, rink: null, pending: null,
                pairs: [], profile: null, residuals: null, seq: 0 };

// --- small geometry ----------------------------------------------------------------------------
function inv3(m) {
  const [[a, b, c], [d, e, f], [g, h, i]] = m;
  const A = e * i - f * h, B = -(d * i - f * g), C = d * h - e * g;
  const det = a * A + b * B + c * C;
  if (!det) return null;
  return [[A / det, -(b * i - c * h) / det, (b * f - c * e) / det],
          [B / det, (a * i - c * g) / det, -(a * f - c * d) / det],
          [C / det, -(a * h - b * g) / det, (a * e - b * d) / det]];
}
// Apply a 3x3 homography to (x, y); null when the point is behind the camera (w ≤ 0).
function applyH(H, x, y) {
  const w = H[2][0] * x + H[2][1] * y + H[2][2];
  if (!(w > 1e-9)) return null;
  return [(H[0][0] * x + H[0][1] * y + H[0][2]) / w, (H[1][0] * x + H[1][1] * y + H[1][2]) / w];
}
const fmt = (v, d) => Number(v).toFixed(d);

// --- hash / open / close -----------------------------------------------------------------------
function calibHash(p) {
  if (!calib.open) return;
  p.set("calib", calib.venue ? calib.venue : "");
  p.set("cframe", calib.frame);
}

function closeCalib(rewrite = true) {
  if (!calib.open) return;
  calib.open = false;
  $("#calib-pane").hidden = true;
  document.body.classList.remove("calibrating");
  if (rewrite) writeHash();
}

async function openCalib(venueId = null, frame = null) {
  if (!state.clip) return;
  const clip = state.clip;
  state.event = null;
  $("#event-pane").hidden = true;
  calib.open = true; calib.pending = null; calib.pairs = []; calib.profile = null; calib.residuals = null;
  calib.frame = Number.isInteger(frame) ? frame : 0;
  document.body.classList.add("calibrating");
  $("#calib-pane").hidden = false;
  $("#calib-clip").textContent = clip.name;
  $("#calib-frame").value = calib.frame;
  $("#calib-frame").max = Math.max(0, (clip.n_frames || 1) - 1);
  $("#calib-result").textContent = "";
  const admin = state.me && state.me.role === "admin";
  $("#calib-add-venue").disabled = !admin;
  $("#calib-help").dataset.role = admin ? "admin" : "reader";
  try {
    const r = (clip.game && clip.game.rink) || {};
    const q = new URLSearchParams({ layout: r.layout || "ipc" });
    if (r.length_m) q.set("length_m", r.length_m);
    if (r.width_m) q.set("width_m", r.width_m);
    calib.rink = await getJSON(`/api/rink/markings?${q}`);
    drawRink();
    await loadVenues(Number.isInteger(venueId) ? venueId : clip.venue_id);
    await loadCalibFrame(calib.frame);
    await loadProfiles(true);
  } catch (e) { say("calibration: " + e.message); }
  renderPairs();
  writeHash();
}

// --- venues and stored profiles ----------------------------------------------------------------
async function loadVenues(wanted) {
  const venues = await getJSON("/api/venues");
  const sel = $("#calib-venue"); sel.replaceChildren();
  for (const v of venues) sel.append(el("option", { value: String(v.id) }, v.name));
  const ids = venues.map((v) => v.id);
  calib.venue = ids.includes(wanted) ? wanted : (ids.length ? ids[0] : null);
  if (calib.venue) sel.value = String(calib.venue);
  if (!venues.length) sel.append(el("option", { value: "" }, "(no venue yet — add one)"));
}

async function addVenue() {
  const name = $("#calib-new-venue").value.trim();
  if (!name) { say("give the new venue a name"); return; }
  try {
    const v = await (await api("/api/venues", { method: "POST", headers: { "Content-Type": "application/json" },
                                                body: JSON.stringify({ name }) })).json();
    $("#calib-new-venue").value = "";
    await loadVenues(v.id);
    await loadProfiles(false);
    say(`venue added: ${v.name}`);
    writeHash();
  } catch (e) { say("venue NOT added: " + e.message); }
}

function rms(a) { return a.length ? Math.sqrt(a.reduce((s, r) => s + r * r, 0) / a.length) : NaN; }

async function loadProfiles(selectNewest) {
  const ul = $("#calib-profiles"); ul.replaceChildren();
  if (!calib.venue) { updateSubmit(); return; }
  const rows = await getJSON(`/api/venues/${calib.venue}/camera-profiles`);
  for (const p of rows) {
    const res = p.profile.residuals_px || [];
    const li = el("li", { "data-profile-id": p.id },
                  `#${p.id} ${p.name} · ${res.length} pairs · RMS ${fmt(rms(res), 2)} px · ${p.width}×${p.height} · `
                  + `updated ${p.updated_at.replace("T", " ").slice(0, 19)}`);
    li.addEventListener("click", () => selectProfile(p, true));
    ul.append(li);
  }
  if (!rows.length) ul.append(el("li", { class: "small" }, "no stored profile for this venue"));
  else if (selectNewest) {
    const newest = rows.reduce((a, b) => (b.updated_at > a.updated_at || (b.updated_at === a.updated_at && b.id > a.id) ? b : a));
    selectProfile(newest, true);
  }
  updateSubmit();
}

// Show a stored profile: its result, its lines over the frame, and (when asked) its pairs for editing.
function selectProfile(p, loadPairs) {
  calib.profile = p;
  document.querySelectorAll("#calib-profiles li").forEach((li) => li.classList.toggle("selected", +li.dataset.profileId === p.id));
  const prof = p.profile;
  calib.residuals = prof.residuals_px || null;
  if (loadPairs) {
    calib.pairs = (prof.xy_image_px || []).map((uv, i) => ({ image_px: uv, rink_m: prof.xy_rink_m[i],
                                                               landmark: landmarkAt(prof.xy_rink_m[i], 1e-3) }));
    calib.pending = null;
    $("#calib-name").value = p.name;
    $("#calib-goal-end").value = prof.goal_end == null ? "" : String(prof.goal_end);
  }
  const res = prof.residuals_px || [];
  const inl = (prof.inliers || []).filter(Boolean).length;
  const r = $("#calib-result");
  r.dataset.profileId = p.id;
  r.textContent = `profile #${p.id} “${p.name}”: reprojection error RMS ${fmt(rms(res), 2)} px, max `
    + `${fmt(Math.max(...res, 0), 2)} px over ${res.length} pairs (${inl} RANSAC inliers); back on the ice RMS `
    + `${fmt(rms(prof.residuals_m || []), 3)} m`;
  renderPairs(); drawCanvas(); drawRinkPairs();
}

// --- the frame ---------------------------------------------------------------------------------
async function loadCalibFrame(n) {
  const clip = state.clip;
  n = Math.max(0, Math.min(Math.max(0, (clip.n_frames || 1) - 1), n | 0));
  calib.frame = n; $("#calib-frame").value = n;
  const seq = ++calib.seq;
  const blob = await (await api(`/api/clips/${clip.id}/frames/${n}.png?layers=none`)).blob();
  if (seq !== calib.seq) return;
  const url = URL.createObjectURL(blob);
  const img = new Image();
  await new Promise((ok, bad) => { img.onload = ok; img.onerror = () => bad(new Error("frame did not decode")); img.src = url; });
  if (seq !== calib.seq) { URL.revokeObjectURL(url); return; }
  if (calib.imgUrl) URL.revokeObjectURL(calib.imgUrl);
  calib.img = img; calib.imgUrl = url;
  const cv = $("#calib-canvas");
  cv.width = img.naturalWidth; cv.height = img.naturalHeight;
  cv.dataset.frame = n;
  applyZoom(); drawCanvas();
  writeHash();
}

function applyZoom() {
  const cv = $("#calib-canvas"), z = $("#calib-zoom").value;
  cv.style.width = z === "fit" ? "100%" : `${cv.width * Number(z)}px`;
}

// Image px of a click: pixel centres at integers.
function canvasPoint(ev) {
  const cv = $("#calib-canvas"), r = cv.getBoundingClientRect();
  return [((ev.clientX - r.left) * cv.width) / r.width - 0.5, ((ev.clientY - r.top) * cv.height) / r.height - 0.5];
}

function drawCanvas() {
  const cv = $("#calib-canvas"), ctx = cv.getContext("2d");
  ctx.clearRect(0, 0, cv.width, cv.height);
  if (calib.img) ctx.drawImage(calib.img, 0, 0);
  let nLines = 0;
  const H = calib.profile && calib.profile.profile.H_rink_from_image ? inv3(calib.profile.profile.H_rink_from_image) : null;
  if (H && calib.rink && $("#calib-show-lines").checked) {
    ctx.lineWidth = Math.max(1, cv.width / 800);
    const polys = [{ color: "#ffd400", line: calib.rink.boards.concat([calib.rink.boards[0]]) }];
    for (const m of calib.rink.markings) {
      if (m.kind === "crease_fill") continue;
      for (const line of m.polylines) polys.push({ color: `rgb(${m.rgb.join(",")})`, line });
    }
    for (const { color, line } of polys) {
      ctx.strokeStyle = color; ctx.beginPath();
      let down = false, drawn = false;
      for (const [x, y] of line) {
        const q = applyH(H, x, y);
        if (!q || Math.abs(q[0]) > 1e5 || Math.abs(q[1]) > 1e5) { down = false; continue; }
        // +0.5: canvas pixel i spans [i, i+1), our pixel centres are integers
        if (down) { ctx.lineTo(q[0] + 0.5, q[1] + 0.5); drawn = true; } else ctx.moveTo(q[0] + 0.5, q[1] + 0.5);
        down = true;
      }
      ctx.stroke();
      if (drawn) nLines += 1;
    }
  }
  cv.dataset.lines = nLines;
  const mark = (u, v, label, color) => {
    const r = Math.max(4, cv.width / 250);
    ctx.strokeStyle = color; ctx.lineWidth = Math.max(1.5, cv.width / 600);
    ctx.beginPath(); ctx.arc(u + 0.5, v + 0.5, r, 0, 2 * Math.PI);
    ctx.moveTo(u + 0.5 - 2 * r, v + 0.5); ctx.lineTo(u + 0.5 + 2 * r, v + 0.5);
    ctx.moveTo(u + 0.5, v + 0.5 - 2 * r); ctx.lineTo(u + 0.5, v + 0.5 + 2 * r); ctx.stroke();
    ctx.fillStyle = color; ctx.font = `${Math.round(3 * r)}px sans-serif`; ctx.fillText(label, u + 2 * r, v - r);
  };
  calib.pairs.forEach((p, i) => mark(p.image_px[0], p.image_px[1], String(i + 1), "#00e0ff"));
  if (calib.pending) mark(calib.pending[0], calib.pending[1], "?", "#ff3030");
}

// --- the rink diagram --------------------------------------------------------------------------
function svgEl(tag, attrs) {
  const n = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs)) n.setAttribute(k, v);
  return n;
}

function drawRink() {
  const rk = calib.rink, svg = $("#calib-rink");
  const L = rk.length_m, W = rk.width_m, pad = 1;
  svg.replaceChildren();
  svg.setAttribute("viewBox", `${-L / 2 - pad} ${-W / 2 - pad} ${L + 2 * pad} ${W + 2 * pad}`);
  const g = svgEl("g", { id: "calib-rink-m", transform: "scale(1,-1)" });  // rink metres, +y up
  const path = (pts) => pts.map((p, i) => `${i ? "L" : "M"}${p[0]} ${p[1]}`).join("") + "Z";
  g.append(svgEl("path", { d: path(rk.boards), fill: "#fbfdff", stroke: "#333", "stroke-width": 0.15 }));
  for (const m of rk.markings) {
    g.append(svgEl("path", { d: m.polylines.map(path).join(""), fill: `rgb(${m.rgb.join(",")})`, "fill-rule": "evenodd",
                             "data-marking": m.name }));
  }
  for (const [name, [x, y]] of Object.entries(rk.landmarks)) {
    const c = svgEl("circle", { cx: x, cy: y, r: 0.18, class: "landmark", "data-landmark": name });
    c.append(svgEl("title", {})); c.lastChild.textContent = name;
    g.append(c);
  }
  g.append(svgEl("g", { id: "calib-rink-pairs" }));
  svg.append(g);
}

// Rink metres of a click on the diagram.
function rinkPoint(ev) {
  const g = $("#calib-rink-m"), svg = $("#calib-rink");
  const pt = svg.createSVGPoint(); pt.x = ev.clientX; pt.y = ev.clientY;
  const q = pt.matrixTransform(g.getScreenCTM().inverse());
  return [q.x, q.y];
}

function landmarkAt(xy, radius) {
  let best = null, bestD = radius;
  for (const [name, [x, y]] of Object.entries(calib.rink ? calib.rink.landmarks : {})) {
    const d = Math.hypot(x - xy[0], y - xy[1]);
    if (d <= bestD) { best = name; bestD = d; }
  }
  return best;
}

function drawRinkPairs() {
  const g = $("#calib-rink-pairs");
  if (!g) return;
  g.replaceChildren();
  calib.pairs.forEach((p, i) => {
    const [x, y] = p.rink_m;
    g.append(svgEl("circle", { cx: x, cy: y, r: 0.45, class: "pair", "data-pair": i }));
    const t = svgEl("text", { x: x + 0.6, y: -y - 0.4, transform: "scale(1,-1)", class: "pair-label" });
    t.textContent = String(i + 1);
    g.append(t);
  });
}

// --- pairs -------------------------------------------------------------------------------------
function renderPairs() {
  const tb = $("#calib-pairs tbody"); tb.replaceChildren();
  calib.pairs.forEach((p, i) => {
    const res = calib.residuals && calib.residuals.length === calib.pairs.length ? fmt(calib.residuals[i], 2) : "–";
    const del = el("button", { type: "button", class: "del", title: "delete this pair" }, "delete");
    del.addEventListener("click", () => {
      calib.pairs.splice(i, 1); calib.residuals = null; renderPairs(); drawCanvas(); drawRinkPairs();
    });
    tb.append(el("tr", { "data-pair": i }, el("td", {}, i + 1),
                 el("td", {}, `${fmt(p.image_px[0], 1)}, ${fmt(p.image_px[1], 1)}`),
                 el("td", {}, `${fmt(p.rink_m[0], 2)}, ${fmt(p.rink_m[1], 2)}`),
                 el("td", {}, p.landmark || "–"), el("td", { class: "residual" }, res), el("td", {}, del)));
  });
  if (!calib.pairs.length) tb.append(el("tr", {}, el("td", { colSpan: 6, class: "small" }, "no pairs yet")));
  $("#calib-pending").textContent = calib.pending ? `${fmt(calib.pending[0], 1)}, ${fmt(calib.pending[1], 1)} px — now click it on the rink` : "–";
  updateSubmit();
}

function updateSubmit() {
  const admin = state.me && state.me.role === "admin";
  const b = $("#calib-submit");
  b.disabled = !admin || !calib.venue || calib.pairs.length < 4;
  b.textContent = calib.pairs.length < 4 ? `fit and store profile (${calib.pairs.length}/4 pairs)` : "fit and store profile";
  b.title = !admin ? "only an admin can store camera profiles" : !calib.venue ? "add or pick a venue first" : "";
}

async function submitCalib() {
  const cv = $("#calib-canvas");
  const goal = $("#calib-goal-end").value;
  const body = { name: $("#calib-name").value.trim() || "fixed camera", width: cv.width, height: cv.height,
                 pairs: calib.pairs.map((p) => ({ image_px: p.image_px, rink_m: p.rink_m })) };
  if (goal) body.goal_end = Number(goal);
  if (state.clip.game && state.clip.game.rink) body.rink = state.clip.game.rink;
  try {
    const prof = await (await api(`/api/venues/${calib.venue}/calibration`, {
      method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) })).json();
    say(`camera profile stored: #${prof.id}`);
    await loadProfiles(false);
    selectProfile(prof, false);
  } catch (e) { say("profile NOT stored: " + e.message); $("#calib-result").textContent = e.message; }
}

// --- wiring ------------------------------------------------------------------------------------
$("#open-calib").addEventListener("click", () => openCalib(null, 0));
$("#calib-close").addEventListener("click", () => closeCalib(true));
$("#calib-add-venue").addEventListener("click", addVenue);
$("#calib-venue").addEventListener("change", async () => {
  calib.venue = parseInt($("#calib-venue").value, 10) || null;
  calib.profile = null; $("#calib-result").textContent = "";
  try { await loadProfiles(false); } catch (e) { say(e.message); }
  drawCanvas(); writeHash();
});
$("#calib-frame").addEventListener("change", () => loadCalibFrame(parseInt($("#calib-frame").value, 10) || 0).catch((e) => say(e.message)));
$("#calib-zoom").addEventListener("change", applyZoom);
$("#calib-show-lines").addEventListener("change", drawCanvas);
$("#calib-canvas").addEventListener("click", (ev) => {
  if (!calib.img) return;
  calib.pending = canvasPoint(ev);
  renderPairs(); drawCanvas();
});
$("#calib-rink").addEventListener("click", (ev) => {
  if (!calib.rink) return;
  if (!calib.pending) { say("click the point in the frame first, then on the rink"); return; }
  let xy = rinkPoint(ev);
  const lm = $("#calib-snap").checked ? landmarkAt(xy, SNAP_M) : null;
  if (lm) xy = calib.rink.landmarks[lm].slice();
  calib.pairs.push({ image_px: calib.pending, rink_m: xy, landmark: lm });
  calib.pending = null; calib.residuals = null;
  say("");
  renderPairs(); drawCanvas(); drawRinkPairs();
});
$("#calib-submit").addEventListener("click", submitCalib);
$("#calib-clear").addEventListener("click", () => {
  calib.pairs = []; calib.pending = null; calib.residuals = null; renderPairs(); drawCanvas(); drawRinkPairs();
});
