// The page served by `othello-zero serve`: plain HTML, CSS and JavaScript talking to
// the JSON API of web_api.h. No outside resources: it works offline.
#include "play/web_api.h"

namespace othello::play {

const char* WebPageHtml() {
  return R"HTML(<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>othello-zero</title>
<style>
  body { font-family: sans-serif; margin: 1em; background: #f4f4f0; color: #222; }
  main { display: flex; flex-wrap: wrap; gap: 1.5em; }
  #board { display: grid; gap: 2px; background: #114411; padding: 2px; border-radius: 4px; }
  .cell { width: 48px; height: 48px; background: #1d7a32; position: relative; cursor: default; }
  .cell.legal { cursor: pointer; }
  .cell.legal::after { content: ""; position: absolute; left: 19px; top: 19px; width: 10px;
                       height: 10px; border-radius: 50%; background: rgba(0,0,0,0.35); }
  .cell.last { box-shadow: inset 0 0 0 3px #f0c419; }
  .disc { position: absolute; left: 5px; top: 5px; width: 38px; height: 38px; border-radius: 50%; }
  .disc.black { background: #111; }
  .disc.white { background: #fafafa; }
  .eval { position: absolute; inset: 0; display: flex; align-items: center; justify-content: center;
          font-size: 12px; color: #fff; font-weight: bold; }
  .eval.best { color: #ffe066; }
  #panel { min-width: 18em; max-width: 26em; }
  #status { font-weight: bold; margin: 0.5em 0; }
  #moves { font-family: monospace; word-wrap: break-word; }
  button, select { margin: 0.2em 0.2em 0.2em 0; }
  #error { color: #b00020; min-height: 1.2em; }
  #transcript { width: 100%; font-family: monospace; }
</style>
</head>
<body>
<h1>othello-zero</h1>
<main>
  <div id="board" aria-label="board"></div>
  <div id="panel">
    <div>Black (X) <span id="black-count">2</span> &ndash; White (O) <span id="white-count">2</span></div>
    <div id="status"></div>
    <div id="ai"></div>
    <div id="pass"></div>
    <div id="error" role="alert"></div>
    <div>
      <button id="hint">Evaluate moves</button>
      <button id="undo">Undo</button>
      <button id="redo">Redo</button>
    </div>
    <fieldset>
      <legend>New game</legend>
      <label>Size <select id="size"></select></label>
      <label>Start <select id="start"><option>standard</option><option>reversi</option><option>random</option><option>handicap</option></select></label>
      <label>You play <select id="color"><option>black</option><option>white</option></select></label>
      <label>Level <select id="level"></select></label>
      <button id="new">New game</button>
    </fieldset>
    <h3>Moves</h3>
    <div id="moves"></div>
    <h3>Transcript</h3>
    <input id="transcript" readonly> <button id="copy">Copy</button>
  </div>
</main>
<script>
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
</script>
</body>
</html>
)HTML";
}

}  // namespace othello::play
