// The page's script: draws the board, the clocks, the evaluation graph and the panel from
// the JSON API of play/web_api.h (README: "The web page's JSON API") and sends the
// person's actions to it. No outside resources: it works offline.
"use strict";

let state = null;        // GET /api/state (the newest reply)
let hints = null;        // {key, byMove, best, pv, list}: POST /api/hints for one position
let analysis = null;     // GET /api/analysis
let editing = null;      // the set-up board being edited: an array of "X", "O", "-"
let busy = 0;            // requests in flight
let requestSeq = 0, appliedSeq = 0;  // replies applied in the order they were asked
let aiTimer = null;      // the next model move (model-vs-model waits between moves)
let thinking = false;    // a model move is being searched: its clock runs on the page
let clockBase = null;    // {black, white, running, at}: the clocks at the last reply
let flagAsked = false;   // a clock reached zero on the page: the server was asked
let analysisTimer = null;

function $(id) { return document.getElementById(id); }

function el(tag, className, text) {
  const e = document.createElement(tag);
  if (className) e.className = className;
  if (text !== undefined) e.textContent = text;
  return e;
}

async function api(path, body) {
  const options = body === undefined ? {} :
      { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) };
  const reply = await fetch(path, options);
  const data = await reply.json();
  if (!reply.ok) throw new Error(data.error || reply.statusText);
  return data;
}

// A request whose reply is the game's state; older replies never overwrite newer ones.
async function call(path, body) {
  const seq = ++requestSeq;
  const reply = await api(path, body);
  if (seq > appliedSeq) {
    appliedSeq = seq;
    state = reply;
    clockBase = state.clock ? { ...state.clock, at: performance.now() } : null;
    flagAsked = false;
  }
  return reply;
}

async function run(action) {
  $("error").textContent = "";
  busy++;
  try {
    await action();
  } catch (e) {
    $("error").textContent = e.message;
    try { await call("/api/state"); } catch (ignored) { /* the server is gone: keep the page */ }
  } finally {
    busy--;
  }
  render();
}

function squareName(index, size) {
  return String.fromCharCode(97 + index % size) + (Math.floor(index / size) + 1);
}

function formatDiscs(d) { return (d > 0 ? "+" : d < 0 ? "\u2212" : "\u00b1") + Math.abs(d).toFixed(Math.abs(d) < 10 ? 1 : 0); }
function percent(p) { return Math.round(100 * p) + "%"; }
function positionKey() { return state.board + state.to_move + state.ply; }

// The analysis's ply records, when it analysed this game's line (same moves so far).
function analysisOfLine() {
  if (!analysis || !analysis.plies.length || !state) return null;
  if (analysis.start_board !== state.start_board) return null;
  for (let i = 0; i < analysis.moves.length && i < state.line.length; i++) {
    if (analysis.moves[i] !== state.line[i]) return null;
  }
  const byPly = {};
  analysis.plies.forEach(p => { byPly[p.ply] = p; });
  return byPly;
}

// ------------------------------------------------------------- drawing

function render() {
  if (!state) return;
  renderBoard();
  renderPanel();
  renderClocks();
  renderGraph();
  renderMoves();
  renderHintList();
  renderAnalysis();
  scheduleAi();
  autoHints();
}

function renderBoard() {
  const size = state.size;
  const board = $("board");
  const discs = editing || state.board.split("");
  const shown = hints && hints.key === positionKey() && !editing ? hints : null;
  board.style.setProperty("--n", size);
  board.className = (editing ? "editing" : "") + (state.over ? " over" : "");
  board.innerHTML = "";
  board.appendChild(el("div", "corner"));
  for (let c = 0; c < size; c++) board.appendChild(el("div", "coord col", String.fromCharCode(97 + c)));
  const pvStep = {};
  if (shown && $("show-pv").checked) shown.pv.forEach((m, i) => { if (!(m in pvStep)) pvStep[m] = i + 1; });
  for (let r = 0; r < size; r++) {
    board.appendChild(el("div", "coord row", String(r + 1)));
    for (let c = 0; c < size; c++) board.appendChild(cellFor(r * size + c, discs, shown, pvStep));
  }
}

function cellFor(index, discs, shown, pvStep) {
  const name = squareName(index, state.size);
  const cell = el("div", "cell");
  cell.dataset.square = name;
  cell.setAttribute("role", "gridcell");
  if (discs[index] !== "-") cell.appendChild(el("div", "disc " + (discs[index] === "X" ? "black" : "white")));
  if (editing) {
    cell.addEventListener("click", () => editSquare(index));
    return cell;
  }
  if (name === state.last_move) cell.classList.add("last");
  if (state.legal.includes(name)) {
    cell.classList.add("legal");
    cell.addEventListener("click", () => play(name));
    const h = shown && shown.byMove[name];
    if (h) {
      cell.classList.add("hinted");
      if (name === shown.best) cell.classList.add("best");
      const e = el("div", "eval" + (name === shown.best ? " best" : ""), formatDiscs(h.discs));
      cell.title = `${name}: discs ${formatDiscs(h.discs)}${h.exact ? " (exact)" : ""}, ` +
                   `win ${percent(h.win)}, ${h.visits} playouts`;
      cell.appendChild(e);
    }
  }
  if (pvStep[name]) cell.appendChild(el("span", "pv-step", String(pvStep[name])));
  return cell;
}

function statusText() {
  if (editing) return "Setting up a position: click squares, then Play or Analyse from here";
  if (state.over) return "Game over: " + state.result;
  const side = state.to_move;
  if (state.paused) return `Paused at move ${state.ply} (${side} to move)` +
      (state.players[side] === "ai" ? ": Resume lets the model play" : "");
  if (state.players[side] === "ai") return state.mode === "ai-ai" ? `The model plays ${side}: thinking` : "The AI is thinking";
  return state.mode === "human-ai" ? `Your move (${state.human})` : `${side[0].toUpperCase() + side.slice(1)} to move`;
}

function renderPanel() {
  $("black-count").textContent = state.black;
  $("white-count").textContent = state.white;
  $("status").textContent = statusText();
  $("ai").textContent = state.ai;
  $("pass").textContent = state.pass;
  $("transcript").value = state.transcript;
  $("undo").disabled = !state.can_undo;
  $("redo").disabled = !state.can_redo;
  $("hint").disabled = state.over || state.legal.length === 0 && state.players[state.to_move] === "human";
  const anyAi = state.players.black === "ai" || state.players.white === "ai";
  $("pause").disabled = state.over || !anyAi;
  $("pause").textContent = state.paused ? "Resume" : "Pause";
  $("custom-clock").hidden = $("clock").value !== "custom";
}

function clockSeconds(side, now) {
  if (!clockBase) return 0;
  const runs = clockBase.running === side || (thinking && state.to_move === side && !state.over);
  return Math.max(0, clockBase[side] - (runs ? (now - clockBase.at) / 1000 : 0));
}

function formatClock(seconds) {
  if (seconds < 10) return seconds.toFixed(1);
  const s = Math.floor(seconds);
  return Math.floor(s / 60) + ":" + String(s % 60).padStart(2, "0");
}

function renderClocks() {
  $("clocks").hidden = !state.clock;
  if (!state.clock) return;
  const now = performance.now();
  for (const side of ["black", "white"]) {
    const left = clockSeconds(side, now);
    const box = $("clock-" + side);
    box.querySelector(".time").textContent = formatClock(left);
    const running = !state.over && (clockBase.running === side || (thinking && state.to_move === side));
    box.classList.toggle("running", running);
    box.classList.toggle("low", left < 10);
    box.classList.toggle("flagged", state.clock.flagged === side);
    // A clock that reached zero here: the server decides (and ends the game).
    if (running && left <= 0 && !flagAsked && busy === 0) {
      flagAsked = true;
      run(() => call("/api/state"));
    }
  }
}

function renderGraph() {
  const svg = $("graph");
  const W = 600, H = 160, pad = 8;
  const points = state.graph;
  const marks = analysisOfLine() || {};
  const scale = Math.max(8, ...points.map(p => Math.ceil(Math.abs(p.discs))));
  const x = i => points.length === 1 ? W / 2 : pad + i * (W - 2 * pad) / (points.length - 1);
  const y = d => H / 2 - d / scale * (H / 2 - pad);
  const ns = "http://www.w3.org/2000/svg";
  svg.innerHTML = "";
  const axis = document.createElementNS(ns, "line");
  axis.setAttribute("class", "axis");
  Object.entries({ x1: 0, x2: W, y1: H / 2, y2: H / 2 }).forEach(([k, v]) => axis.setAttribute(k, v));
  svg.appendChild(axis);
  const line = document.createElementNS(ns, "polyline");
  line.setAttribute("class", "line");
  line.setAttribute("points", points.map((p, i) => `${x(i)},${y(p.discs)}`).join(" "));
  svg.appendChild(line);
  points.forEach((p, i) => {
    const dot = document.createElementNS(ns, "circle");
    const mark = marks[p.ply - 1] && marks[p.ply - 1].mark;
    dot.setAttribute("class", "point" + (p.ply === state.ply ? " current" : p.ply > state.ply ? " future" : "") +
                     (mark ? " " + mark : ""));
    dot.setAttribute("cx", x(i));
    dot.setAttribute("cy", y(p.discs));
    dot.setAttribute("r", p.ply === state.ply || mark ? 5 : 3.5);
    dot.dataset.ply = p.ply;
    const title = document.createElementNS(ns, "title");
    title.textContent = `${p.ply}. ${p.move}: black ${formatDiscs(p.discs)}${p.exact ? " (exact)" : ""}, ` +
                        `black wins ${percent(p.win)}` + (mark ? `, ${mark}` : "");
    dot.appendChild(title);
    dot.addEventListener("click", () => goTo(p.ply));
    svg.appendChild(dot);
  });
}

function renderMoves() {
  const list = $("moves");
  const marks = analysisOfLine() || {};
  list.innerHTML = "";
  state.line.forEach((m, i) => {
    if (i % 2 === 0) list.appendChild(document.createTextNode((i ? " " : "") + (i / 2 + 1) + ". "));
    else list.appendChild(document.createTextNode(" "));
    const a = marks[i];
    const span = el("span", "mv" + (i + 1 === state.ply ? " current" : i + 1 > state.ply ? " future" : "") +
                    (a && a.mark ? " " + a.mark : ""), m);
    span.dataset.ply = i + 1;
    if (a && a.mark) span.title = `${a.mark}: loses ${a.loss.toFixed(1)} discs (best ${a.best})`;
    span.addEventListener("click", () => goTo(i + 1));
    list.appendChild(span);
  });
}

function renderHintList() {
  const box = $("hint-list");
  box.innerHTML = "";
  if (!hints || hints.key !== positionKey() || editing) return;
  hints.list.forEach(h => {
    box.appendChild(el("div", h.move === hints.best ? "best" : "",
        `${h.move.padEnd(4)} ${formatDiscs(h.discs).padStart(6)}${h.exact ? " exact" : "      "}` +
        `  win ${percent(h.win).padStart(4)}  ${h.visits} playouts`));
  });
  if ($("show-pv").checked && hints.pv.length) box.appendChild(el("div", "pv", "Best line: " + hints.pv.join(" ")));
}

function renderAnalysis() {
  const a = analysis;
  const running = a && a.state === "running";
  $("analysis-cancel").disabled = !running;
  $("analysis-progress").hidden = !a || a.state === "none";
  if (!a || a.state === "none") return;
  $("analysis-progress").max = Math.max(1, a.total);
  $("analysis-progress").value = a.done;
  $("analysis-status").textContent =
      running ? `Analysing: ${a.done}/${a.total} positions` :
      a.state === "done" ? `Analysis done: ${a.total} positions, ${a.visits} playouts each (exact from ${a.exact_empties} empties), ${a.seconds.toFixed(1)} s` :
      a.state === "cancelled" ? `Analysis cancelled after ${a.done}/${a.total} positions` :
      "Analysis failed: " + (a.error || "unknown error");
  const t = a.totals;
  const side = s => `${s}: ${t[s].loss.toFixed(1)} discs lost, ${t[s].blunders} blunders, ` +
                    `${t[s].mistakes} mistakes, ${t[s].inaccuracies} inaccuracies`;
  $("analysis-summary").textContent = a.plies.length ? side("black") + "; " + side("white") : "";
  const body = $("analysis-table").querySelector("tbody");
  body.innerHTML = "";
  a.plies.filter(p => !p.pass).forEach(p => {
    const row = el("tr", p.mark);
    [String(p.ply + 1), p.color, p.move, p.best, p.loss > 0 ? "\u2212" + p.loss.toFixed(1) : "0",
     p.mark + (p.exact ? " (exact)" : "")]
        .forEach(text => row.appendChild(el("td", "", text)));
    row.addEventListener("click", () => goTo(p.ply));
    body.appendChild(row);
  });
  $("analysis-table").hidden = a.plies.length === 0;
}

// ------------------------------------------------------------- the model's moves, hints

function scheduleAi() {
  if (!state || !state.ai_to_move || editing || aiTimer || busy || thinking) return;
  const delay = state.mode === "ai-ai" ? Number($("speed").value) : 0;
  aiTimer = setTimeout(() => {
    aiTimer = null;
    if (!state.ai_to_move || busy) return render();
    thinking = true;
    renderClocks();
    run(async () => {
      try { await call("/api/step", {}); } finally { thinking = false; }
    });
  }, delay);
}

async function fetchHints() {
  const key = positionKey();
  const reply = await api("/api/hints", {});
  const byMove = {};
  reply.hints.forEach(h => { byMove[h.move] = h; });
  hints = { key, byMove, best: reply.best, pv: reply.pv, list: reply.hints };
}

function autoHints() {
  if (!$("show-hints").checked || editing || busy || state.over || !state.legal.length) return;
  if (hints && hints.key === positionKey()) return;
  run(fetchHints);
}

// ------------------------------------------------------------- actions

function play(move) {
  run(async () => { await call("/api/move", { move, reply: false }); });
}

function goTo(ply) {
  run(async () => { await call("/api/goto", { ply }); });
}

function newGameBody() {
  const body = { mode: $("mode").value, color: $("color").value, level: Number($("level").value),
                 size: Number($("size").value), start: $("start").value, wait: true };
  const clock = $("clock").value;
  if (clock === "custom") {
    body.time = Number($("clock-minutes").value) * 60;
    body.increment = Number($("clock-increment").value);
  } else if (clock) {
    const [time, increment] = clock.split("+").map(Number);
    Object.assign(body, { time, increment });
  }
  return body;
}

function download(name, text) {
  const link = el("a");
  link.href = URL.createObjectURL(new Blob([text], { type: "text/plain" }));
  link.download = name;
  document.body.appendChild(link);
  link.click();
  setTimeout(() => { URL.revokeObjectURL(link.href); link.remove(); }, 1000);
}

async function save(kind) {
  const game = await api("/api/game");
  const text = kind === "ggf" ? game.ggf : game.transcript;
  $("game-text").value = text;
  download(kind === "ggf" ? "othello-zero.ggf" : "othello-zero.txt", text + "\n");
  if (kind !== "ggf" && !game.transcript_complete) {
    $("error").textContent = "This game does not start from the standard position: save it as GGF to keep its start.";
  }
}

function pollAnalysis() {
  clearTimeout(analysisTimer);
  if (!analysis || analysis.state !== "running") return;
  analysisTimer = setTimeout(async () => {
    try {
      analysis = await api("/api/analysis");
    } catch (e) {
      $("error").textContent = e.message;
      return;
    }
    renderAnalysis();  // the board is left alone: it may be in use
    renderMoves();
    renderGraph();
    pollAnalysis();
  }, 300);
}

function startAnalysis(body) {
  run(async () => {
    body.visits = Number($("analysis-visits").value);
    analysis = await api("/api/analysis", body);
    await call("/api/state");
    pollAnalysis();
  });
}

function standardBoard(size) {
  const board = Array(size * size).fill("-");
  const d = size / 2;
  board[(d - 1) * size + d - 1] = "O";
  board[(d - 1) * size + d] = "X";
  board[d * size + d - 1] = "X";
  board[d * size + d] = "O";
  return board;
}

function editSquare(index) {
  editing[index] = document.querySelector("input[name=brush]:checked").value;
  render();
}

function startFromSetup(body) {
  const board = editing;
  body.board = board.join("");
  body.to_move = $("setup-to-move").value;
  run(async () => {
    editing = null;
    hints = null;
    try {
      await call("/api/new", body);
    } catch (e) {
      editing = board;  // keep the position being set up
      throw e;
    }
  });
}

function bind(id, handler) { $(id).addEventListener("click", handler); }

bind("hint", () => run(fetchHints));
$("show-hints").addEventListener("change", render);
$("show-pv").addEventListener("change", render);
$("clock").addEventListener("change", render);
bind("undo", () => run(async () => { await call("/api/undo", {}); }));
bind("redo", () => run(async () => { await call("/api/redo", {}); }));
bind("pause", () => run(async () => { await call("/api/pause", { paused: !state.paused }); }));
bind("new", () => run(async () => { editing = null; await call("/api/new", newGameBody()); }));
bind("copy", () => {
  $("transcript").select();
  if (navigator.clipboard) navigator.clipboard.writeText($("transcript").value).catch(() => {});
});
bind("save-transcript", () => run(() => save("transcript")));
bind("save-ggf", () => run(() => save("ggf")));
bind("load", () => run(async () => { await call("/api/load", { game: $("game-text").value }); }));
$("load-file").addEventListener("change", () => {
  const file = $("load-file").files[0];
  if (!file) return;
  file.text().then(text => {
    $("game-text").value = text;
    run(async () => { await call("/api/load", { game: text }); });
  });
});
bind("analyse-current", () => startAnalysis({}));
bind("analyse-pasted", () => startAnalysis({ game: $("game-text").value }));
bind("analysis-cancel", () => run(async () => { analysis = await api("/api/analysis/cancel", {}); }));
bind("setup-edit", () => { editing = state.board.split(""); $("setup-to-move").value = state.to_move || "black"; render(); });
bind("setup-clear", () => { editing = Array(state.size * state.size).fill("-"); render(); });
bind("setup-standard", () => { editing = standardBoard(state.size); render(); });
bind("setup-cancel", () => { editing = null; render(); });
bind("setup-play", () => { if (editing) startFromSetup(newGameBody()); });
bind("setup-analyse", () => {
  if (!editing) return;
  $("show-hints").checked = true;
  startFromSetup({ ...newGameBody(), mode: "human-human" });
});

setInterval(() => { if (state && state.clock) renderClocks(); }, 100);

for (let level = 1; level <= 10; level++) $("level").appendChild(el("option", "", String(level)));
run(async () => {
  await call("/api/state");
  for (const size of state.sizes) $("size").appendChild(el("option", "", String(size)));
  $("level").value = state.level;
  $("size").value = state.size;
  $("mode").value = state.mode;
  $("color").value = state.human;
  analysis = await api("/api/analysis");
  pollAnalysis();
});
