// The page's script: draws the board and the panel from GET /api/state and sends the
// person's actions to the JSON API of play/web_api.h. No outside resources: it works offline.
"use strict";
let state = null;
let hints = {};

function $(id) { return document.getElementById(id); }

async function api(path, body) {
  const options = body === undefined ? {} :
      { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) };
  const reply = await fetch(path, options);
  const data = await reply.json();
  if (!reply.ok) throw new Error(data.error || reply.statusText);
  return data;
}

function squareName(index, size) {
  return String.fromCharCode(97 + index % size) + (Math.floor(index / size) + 1);
}

function render() {
  const size = state.size;
  const board = $("board");
  board.style.gridTemplateColumns = `repeat(${size}, 48px)`;
  board.innerHTML = "";
  for (let i = 0; i < size * size; i++) {
    const name = squareName(i, size);
    const cell = document.createElement("div");
    cell.className = "cell";
    cell.dataset.square = name;
    const piece = state.board[i];
    if (piece !== "-") {
      const disc = document.createElement("div");
      disc.className = "disc " + (piece === "X" ? "black" : "white");
      cell.appendChild(disc);
    }
    if (state.legal.includes(name)) {
      cell.classList.add("legal");
      cell.addEventListener("click", () => play(name));
      if (hints[name]) {
        const e = document.createElement("div");
        e.className = "eval" + (hints[name].best ? " best" : "");
        e.textContent = Math.round(100 * hints[name].win) + "%";
        e.title = `win ${Math.round(100 * hints[name].win)}%, discs ${hints[name].discs.toFixed(1)}`;
        cell.appendChild(e);
      }
    }
    if (name === state.last_move) cell.classList.add("last");
    board.appendChild(cell);
  }
  $("black-count").textContent = state.black;
  $("white-count").textContent = state.white;
  $("status").textContent = state.over ? "Game over: " + state.result :
      (state.to_move === state.human ? "Your move (" + state.human + ")" : "The AI is thinking");
  $("ai").textContent = state.ai;
  $("pass").textContent = state.pass;
  $("moves").textContent = state.moves.map((m, i) => (i % 2 ? "" : (i / 2 + 1) + ". ") + m).join(" ");
  $("transcript").value = state.transcript;
  $("undo").disabled = !state.can_undo;
  $("redo").disabled = !state.can_redo;
  $("hint").disabled = state.legal.length === 0;
}

async function run(action) {
  $("error").textContent = "";
  try {
    await action();
  } catch (e) {
    $("error").textContent = e.message;
  }
  render();
}

function play(move) {
  run(async () => { hints = {}; state = await api("/api/move", { move }); });
}

$("hint").addEventListener("click", () => run(async () => {
  const reply = await api("/api/hints", {});
  hints = {};
  reply.hints.forEach((h, i) => { hints[h.move] = { win: h.win, discs: h.discs, best: i === 0 }; });
}));
$("undo").addEventListener("click", () => run(async () => { hints = {}; state = await api("/api/undo", {}); }));
$("redo").addEventListener("click", () => run(async () => { hints = {}; state = await api("/api/redo", {}); }));
$("new").addEventListener("click", () => run(async () => {
  hints = {};
  state = await api("/api/new", { size: Number($("size").value), start: $("start").value,
                                  color: $("color").value, level: Number($("level").value) });
}));
$("copy").addEventListener("click", () => {
  $("transcript").select();
  if (navigator.clipboard) navigator.clipboard.writeText($("transcript").value).catch(() => {});
});

for (let level = 1; level <= 10; level++) {
  const option = document.createElement("option");
  option.textContent = level;
  $("level").appendChild(option);
}
run(async () => {
  state = await api("/api/state");
  // The sizes the model plays (a model knows one board size).
  for (const size of state.sizes) {
    const option = document.createElement("option");
    option.textContent = size;
    $("size").appendChild(option);
  }
  $("level").value = state.level;
  $("size").value = state.size;
});
