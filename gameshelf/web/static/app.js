// gameshelf in the browser: the setup form, a game seen from one seat, and the replay of a record.
// Plain JavaScript, no build step. Every text from the server is set with textContent.
"use strict";

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);

function showError(message) {
  const box = $("error");
  box.textContent = message || "";
  box.hidden = !message;
}

async function api(method, url, body, raw) {
  const init = { method, headers: {} };
  if (body !== undefined) {
    init.body = raw ? body : JSON.stringify(body);
    init.headers["content-type"] = "application/json";
  }
  const response = await fetch(url, init);
  let data = null;
  try { data = await response.json(); } catch (e) { data = { error: `the server answered ${response.status}` }; }
  if (!response.ok) {
    const err = new Error((data && data.error) || `the server answered ${response.status}`);
    err.status = response.status;
    throw err;
  }
  return data;
}

function el(tag, text, attrs) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = text;
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
  return node;
}

// ---- setup -------------------------------------------------------------------------------------------
let catalogue = [];

function currentGame() { return catalogue.find((g) => g.id === $("game").value); }

function fillPlayers() {
  const game = currentGame();
  $("game-description").textContent = game.description || "";
  const players = $("players");
  players.replaceChildren(...game.player_counts.map((n) => el("option", String(n), { value: n })));
  const options = $("options");
  options.replaceChildren(el("legend", "Options"));
  for (const opt of game.options) {
    const label = el("label", opt.name + " ");
    let input;
    if (opt.choices) {
      input = el("select");
      opt.choices.forEach((c, i) => {
        const o = el("option", JSON.stringify(c), { value: i });
        if (JSON.stringify(c) === JSON.stringify(opt.default)) o.selected = true;
        input.append(o);
      });
      input.dataset.choices = JSON.stringify(opt.choices);
    } else {
      input = el("input", null, { value: JSON.stringify(opt.default), size: 16 });
    }
    input.dataset.option = opt.name;
    label.append(input);
    if (opt.doc || opt.allowed) label.append(el("span", "  " + [opt.allowed, opt.doc].filter(Boolean).join(": "), { class: "muted" }));
    options.append(label);
  }
  options.hidden = game.options.length === 0;
  fillSeats();
}

function fillSeats() {
  const n = Number($("players").value);
  const box = $("seat-list");
  box.replaceChildren(el("legend", "Seats"));
  const fallback = currentGame().heuristic ? "heuristic" : "random";
  for (let seat = 0; seat < n; seat++) {
    const label = el("label", `player_${seat} `);
    label.append(el("input", null, { list: "agent-names", value: seat === 0 ? "human" : fallback, "data-seat": seat, size: 24 }));
    box.append(label);
  }
}

function readOptions() {
  const options = {};
  for (const input of $("options").querySelectorAll("[data-option]")) {
    if (input.dataset.choices) {
      options[input.dataset.option] = JSON.parse(input.dataset.choices)[Number(input.value)];
    } else {
      try { options[input.dataset.option] = JSON.parse(input.value); } catch (e) {
        throw new Error(`option ${input.dataset.option}: ${JSON.stringify(input.value)} is not a value (write it as JSON, e.g. [4, 4, 5, 5])`);
      }
    }
  }
  return options;
}

async function startGame(event) {
  event.preventDefault();
  showError("");
  try {
    const seats = [...$("seat-list").querySelectorAll("[data-seat]")].map((i) => i.value.trim());
    const seed = $("seed").value === "" ? null : Number($("seed").value);
    const body = { env_id: $("game").value, num_players: Number($("players").value), options: readOptions(), seats, seed };
    const made = await api("POST", "/api/games", body);
    const humans = Object.keys(made.seats);
    if (humans.length <= 1) {
      location.search = "?t=" + (humans.length ? made.seats[humans[0]] : made.watch);
      return;
    }
    const links = $("seat-links");
    links.replaceChildren(el("p", "Several people play: open each seat's link in its own tab or window."));
    for (const seat of humans) {
      const a = el("a", `player_${seat}`, { href: "?t=" + made.seats[seat], target: "_blank" });
      const p = el("p"); p.append(a); links.append(p);
    }
    const w = el("a", "watch (public view)", { href: "?t=" + made.watch, target: "_blank" });
    const p = el("p"); p.append(w); links.append(p);
    links.hidden = false;
  } catch (err) { showError(err.message); }
}

async function openReplay(event) {
  event.preventDefault();
  showError("");
  const file = $("record-file").files[0];
  if (!file) { showError("choose a record file first"); return; }
  try {
    const made = await api("POST", "/api/replays", await file.text(), true);
    location.search = "?r=" + made.replay;
  } catch (err) { showError(err.message); }
}

function fillAgents(agents) {
  // the names a seat or a hint may use: the built-in agents and the models this server offers
  const names = ["human", "random", "heuristic", "reference", "mcts:200", "mcts:200:heuristic", "mcts:200:reference", "mcts:1s"];
  for (const m of agents.models) names.push(`model:${m.name}`, `mcts:200:model:${m.name}`);
  const llms = agents.llms || [];
  for (const name of llms) names.push(`llm:${name}`);
  $("agent-names").replaceChildren(...names.map((n) => el("option", null, { value: n })));
  $("agent-help").textContent = "A seat is " + agents.forms + ". Models on this server: " +
    (agents.models.length ? agents.models.map((m) => `model:${m.name}` + (m.env_id ? ` (${m.env_id})` : "")).join(", ") : "none") +
    ". Language models: " + (llms.length ? llms.map((n) => `llm:${n}`).join(", ") : "none") + ".";
}

async function setup() {
  $("setup").hidden = false;
  fillAgents(await api("GET", "/api/agents"));
  catalogue = await api("GET", "/api/games");
  $("game").replaceChildren(...catalogue.map((g) => el("option", g.id, { value: g.id })));
  $("game").addEventListener("change", fillPlayers);
  $("players").addEventListener("change", fillSeats);
  $("new-game").addEventListener("submit", startGame);
  $("open-replay").addEventListener("submit", openReplay);
  fillPlayers();
}

// ---- a game ------------------------------------------------------------------------------------------
let view = null;
let busy = false;
let autoPlay = false;
const token = params.get("t");

function render(v) {
  view = v;
  $("title").textContent = `${v.env_id} - ` + (v.seat === null ? "watching" : `you are player_${v.seat}`);
  if ($("board").src !== v.image) {
    // a new position: a short fade, and the parts of the picture the last move changed are marked
    const before = $("board").src;
    $("board").classList.remove("fresh");
    void $("board").offsetWidth;
    $("board").classList.add("fresh");
    [$("board").width, $("board").height] = v.image_size;  // its shape is known before it is decoded
    $("board").src = v.image;
    markChanges(before ? v.changes : [], v.image_size);
  }
  $("text").textContent = v.text;
  let status;
  if (v.over) status = "The game is over.";
  else if (v.your_turn) status = "Your move.";
  else if (v.thinking) status = `player_${v.to_move} (${v.seats[v.to_move]}) is thinking...`;
  else status = `player_${v.to_move} (${v.seats[v.to_move]}) is to move.`;
  if (v.failure) status += ` ${v.failure}`;
  $("status").textContent = status;
  $("result").hidden = !v.result;
  if (v.result) $("result").textContent = `Result: ${v.result.words}`;
  if (v.version !== shownVersion) picked = [];
  shownVersion = v.version;
  fitPicture(v);
  drawTargets(v);
  $("move-count").textContent = v.moves.length ? `All moves (${v.moves.length})` : "Moves";
  $("moves").replaceChildren(...groupMoves(v.moves).map(([head, moves]) => {
    const group = el("div", null, { class: "move-group" });
    if (head) group.append(el("h4", head));
    const row = el("div");
    for (const m of moves) {
      const b = el("button", m.name, { class: "move", "data-action": m.action, title: `action ${m.action}` });
      b.addEventListener("click", () => send("move", { action: m.action, version: v.version }));
      row.append(b);
    }
    group.append(row);
    return group;
  }));
  $("last-move").textContent = v.log.length ? `Last: ${v.log[v.log.length - 1]}` : "";
  $("log").replaceChildren(...v.log.map((line) => el("li", line)));
  $("log").scrollTop = $("log").scrollHeight;
  $("hurry").hidden = !v.thinking;
  if (v.your_turn && turnStarted === null) turnStarted = Date.now();
  if (!v.your_turn) turnStarted = null;
  tickClock();
  $("undo").hidden = !v.can_undo;
  $("hint-box").hidden = !v.your_turn;
  $("hint-text").textContent = "";
  $("step").hidden = !v.can_step;
  $("auto").hidden = !v.can_step;
  $("record").hidden = !v.over;
  $("record").href = `/api/play/${token}/record`;
  document.body.dataset.version = v.version;
  document.body.dataset.over = v.over;
  document.body.dataset.thinking = v.thinking;
}

// ---- moves by clicking on the board ------------------------------------------------------------------
// view.targets: for each legal move, the boxes of the picture to click (in any order; a box twice for two
// of its cards or steps). Boxes clicked so far stay marked; a move is sent once it is the only one the
// clicks can still make, or confirmed when a longer one could follow; Cancel clears the clicks.
let picked = [];
let shownVersion = null;

const boxKey = (box) => box.join(",");

function tally(keys) {
  const counts = new Map();
  for (const k of keys) counts.set(k, (counts.get(k) || 0) + 1);
  return counts;
}

function stillPossible(v) {
  const chosen = tally(picked);
  return v.targets.filter((t) => {
    const need = tally(t.clicks.map(boxKey));
    for (const [k, n] of chosen) if ((need.get(k) || 0) < n) return false;
    return true;
  });
}

function drawTargets(v) {
  const layer = $("targets");
  layer.replaceChildren();
  const possible = v.your_turn ? stillPossible(v) : [];
  const chosen = tally(picked);
  const boxes = new Map();
  for (const t of possible) {
    const need = tally(t.clicks.map(boxKey));
    for (const box of t.clicks) {
      const k = boxKey(box);
      const entry = boxes.get(k) || { box, legal: false, names: new Set() };
      if ((need.get(k) || 0) > (chosen.get(k) || 0)) { entry.legal = true; entry.names.add(t.name); }
      boxes.set(k, entry);
    }
  }
  const [w, h] = v.image_size;
  for (const [k, entry] of boxes) {
    const count = chosen.get(k) || 0;
    if (!entry.legal && !count) continue;
    const label = entry.legal ? [...entry.names].slice(0, 8).join(" | ") : "chosen";
    const b = el("button", count > 1 ? `x${count}` : count ? "\u2713" : "", {
      class: "target" + (entry.legal ? " legal" : "") + (count ? " picked" : ""), "data-box": k, title: label, "aria-label": label,
    });
    const [x0, y0, x1, y1] = entry.box;
    Object.assign(b.style, { left: `${(100 * x0) / w}%`, top: `${(100 * y0) / h}%`, width: `${(100 * (x1 - x0)) / w}%`, height: `${(100 * (y1 - y0)) / h}%` });
    if (entry.legal) b.addEventListener("click", () => clickBox(k));
    else b.tabIndex = -1;
    layer.append(b);
  }
  const complete = possible.find((t) => t.clicks.length === picked.length);
  $("confirm").hidden = !(complete && picked.length);
  $("confirm").textContent = complete ? `Play ${complete.name}` : "";
  $("confirm").onclick = complete ? () => { picked = []; send("move", { action: complete.action, version: v.version }); } : null;
  $("cancel").hidden = picked.length === 0;
  $("choice").textContent = picked.length ? `${possible.length} move${possible.length === 1 ? "" : "s"} fit your clicks` : "";
  document.body.dataset.targets = String(layer.querySelectorAll(".target.legal").length);
  document.body.dataset.picked = String(picked.length);
  revealTargets();
}

// ---- the picture's scale: on a narrow screen, parts to click of 44 px or more, panned in a frame ---------
const MIN_TARGET = 44;  // a finger's width, with room to spare over 40
const NARROW = 700;
let zoom = 1;       // the scale on a narrow screen: only grows during a game, so the picture does not jump
let wholeBoard = false;

function fitPicture(v) {
  const frame = $("frame"), picture = $("picture");
  const [w] = v.image_size;
  let least = Infinity;
  for (const t of v.targets) for (const [x0, y0, x1, y1] of t.clicks) least = Math.min(least, x1 - x0, y1 - y0);
  zoom = Math.min(4, Math.max(zoom, MIN_TARGET / least));
  const narrow = frame.clientWidth < NARROW;
  const scale = narrow && !wholeBoard ? Math.max(zoom, frame.clientWidth / w) : null;
  frame.classList.toggle("zoomed", scale !== null);
  picture.style.width = scale === null ? "" : `${Math.ceil(w * scale)}px`;
  $("zoom").hidden = !narrow;
  $("zoom").textContent = wholeBoard ? "Zoom in" : "Whole board";
}

function revealTargets() {
  // pan the frame to the parts to click when none of them is in sight
  const frame = $("frame");
  const rects = [...$("targets").querySelectorAll(".target.legal")].map((b) => b.getBoundingClientRect());
  if (!rects.length || !frame.classList.contains("zoomed")) return;
  const f = frame.getBoundingClientRect();
  if (rects.some((r) => r.left >= f.left && r.right <= f.right && r.top >= f.top && r.bottom <= f.bottom)) return;
  const mid = (lo, hi) => (Math.min(...rects.map(lo)) + Math.max(...rects.map(hi))) / 2;
  frame.scrollLeft += mid((r) => r.left, (r) => r.right) - (f.left + f.right) / 2;
  frame.scrollTop += mid((r) => r.top, (r) => r.bottom) - (f.top + f.bottom) / 2;
}

function clickBox(key) {
  if (busy || !view) return;
  picked.push(key);
  const possible = stillPossible(view);
  const complete = possible.find((t) => t.clicks.length === picked.length);
  if (complete && possible.length === 1) {
    picked = [];
    send("move", { action: complete.action, version: view.version });
    return;
  }
  drawTargets(view);
}

function groupMoves(moves) {
  // the move list, grouped by the first word of the move names ("play", "group", "replace", ...)
  const groups = new Map();
  for (const m of moves) {
    const head = m.name.split(/[\s:(]/)[0];
    if (!groups.has(head)) groups.set(head, []);
    groups.get(head).push(m);
  }
  if (groups.size > 12) return [["", moves]];
  return [...groups.entries()].map(([head, ms]) => [groups.size > 1 ? head : "", ms]);
}

// ---- what the last move changed: the server's boxes, marked on a new position and fading out ----------------
function markChanges(boxes, size) {
  const layer = $("changes");
  const [w, h] = size;
  layer.replaceChildren(...boxes.map(([x0, y0, x1, y1]) => {
    const mark = el("div", null, { class: "changed" });
    Object.assign(mark.style, { left: `${(100 * x0) / w}%`, top: `${(100 * y0) / h}%`, width: `${(100 * (x1 - x0)) / w}%`, height: `${(100 * (y1 - y0)) / h}%` });
    return mark;
  }));
  document.body.dataset.changes = String(boxes.length);
}

// ---- the move timer (off by default): the time spent on your current turn ----------------------------
let turnStarted = null;

function tickClock() {
  const on = $("timer").checked && turnStarted !== null;
  $("clock").hidden = !on;
  if (!on) return;
  const seconds = Math.floor((Date.now() - turnStarted) / 1000);
  $("clock").textContent = `your turn: ${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitForAgents() {
  // searching agents move on the server's workers: look again until they are done
  while (view && view.thinking) {
    await sleep(300);
    const v = await api("GET", `/api/play/${token}`);
    if (v.version !== view.version || v.thinking !== view.thinking) render(v);
  }
}

async function send(action, body) {
  if (busy) return;
  busy = true;
  showError("");
  for (const b of document.querySelectorAll("#play button:not(#hurry)")) b.disabled = true;
  try {
    render(await api("POST", `/api/play/${token}/${action}`, body));
    await waitForAgents();
  } catch (err) {
    showError(err.message);
    autoPlay = false;
    try { render(await api("GET", `/api/play/${token}`)); } catch (e) { /* keep the message */ }
  } finally {
    busy = false;
    for (const b of document.querySelectorAll("#play button")) b.disabled = false;
  }
  if (autoPlay && view && view.can_step) setTimeout(() => send("step", { version: view.version }), 300);
  else autoPlay = false;
}

async function hint() {
  showError("");
  $("hint").disabled = true;  // one hint at a time (the server works out one per game)
  try {
    const h = await api("POST", `/api/play/${token}/hint`, { agent: $("hint-agent").value.trim() });
    $("hint-text").textContent = `${h.agent} suggests: ${h.name}`;
    for (const b of document.querySelectorAll("button.move")) b.classList.toggle("hinted", Number(b.dataset.action) === h.action);
  } catch (err) { showError(err.message); } finally { $("hint").disabled = false; }
}

async function play() {
  $("play").hidden = false;
  $("undo").addEventListener("click", () => send("undo", { version: view.version }));
  $("step").addEventListener("click", () => send("step", { version: view.version }));
  $("auto").addEventListener("click", () => { autoPlay = true; send("step", { version: view.version }); });
  $("hint").addEventListener("click", hint);
  $("cancel").addEventListener("click", () => { picked = []; drawTargets(view); });
  $("hurry").addEventListener("click", async () => {
    try { render(await api("POST", `/api/play/${token}/hurry`, {})); } catch (err) { showError(err.message); }
  });
  $("timer").addEventListener("change", tickClock);
  $("zoom").addEventListener("click", () => { wholeBoard = !wholeBoard; fitPicture(view); drawTargets(view); });
  window.addEventListener("resize", () => { if (view) { fitPicture(view); drawTargets(view); } });
  setInterval(tickClock, 1000);
  try { render(await api("GET", `/api/play/${token}`)); } catch (err) { showError(err.message); return; }
  // agents thinking, or another person (another tab) to move: look again (every 0.3 s while agents think,
  // every two seconds while a person does) until it is our turn
  for (;;) {
    await sleep(view && view.thinking ? 300 : 2000);
    if (busy || !view || view.over || view.your_turn || view.can_step) continue;
    try {
      const v = await api("GET", `/api/play/${token}`);
      if (v.version !== view.version || v.thinking !== view.thinking) render(v);
    } catch (err) { /* the next look will tell */ }
  }
}

// ---- a replay ----------------------------------------------------------------------------------------
const replayToken = params.get("r");
let replay = null;

async function showStep(step) {
  showError("");
  const seat = $("replay-seat").value;
  try {
    replay = await api("GET", `/api/replays/${replayToken}?step=${step}` + (seat === "" ? "" : `&seat=${seat}`));
  } catch (err) { showError(err.message); return; }
  $("title").textContent = `${replay.env_id} - replay`;
  $("replay-board").src = replay.image;
  $("replay-text").textContent = replay.text;
  $("replay-step").max = replay.length;
  $("replay-step").value = replay.step;
  let status = `step ${replay.step} of ${replay.length}`;
  if (replay.over) status += ` - over, returns ${JSON.stringify(replay.returns)}`;
  $("replay-status").textContent = status;
  $("replay-log").replaceChildren(...replay.log.map((line) => el("li", line)));
  $("replay-log").scrollTop = $("replay-log").scrollHeight;
  document.body.dataset.step = replay.step;
  if ($("replay-seat").options.length === 0) {
    $("replay-seat").append(el("option", "public", { value: "" }));
    for (let s = 0; s < replay.num_players; s++) $("replay-seat").append(el("option", `player_${s}`, { value: s }));
  }
}

async function replayPage() {
  $("replay").hidden = false;
  const at = () => (replay ? replay.step : 0);
  $("first").addEventListener("click", () => showStep(0));
  $("prev").addEventListener("click", () => showStep(Math.max(0, at() - 1)));
  $("next").addEventListener("click", () => showStep(Math.min(replay.length, at() + 1)));
  $("last").addEventListener("click", () => showStep(replay.length));
  $("replay-step").addEventListener("change", () => showStep(Number($("replay-step").value)));
  $("replay-seat").addEventListener("change", () => showStep(at()));
  await showStep(0);
}

window.addEventListener("DOMContentLoaded", () => {
  const start = token ? play : replayToken ? replayPage : setup;
  start().catch((err) => showError(err.message));
});
