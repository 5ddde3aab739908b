#!/usr/bin/python3
"""`othello-zero serve` end to end in headless Chromium (Debian's chromium and
chromium-driver, driven with python3-selenium): the board's coordinates, a move and the
model's reply, hints on every legal square with the best line, the evaluation graph (one
point per move, a click goes back), undo and redo, save and load (transcript and GGF), a
position set up by hand and played from, a clock that runs out, model against model,
the analysis of a short game with a planted blunder (found with the exact solver:
tests/play/analysis_test.cpp, PlantedBlunderFixture), and a 6x6 game as white;
malformed requests and a board the model does not know get error replies while the
server keeps running. Screenshots of the page at 1280x800 and 390x844 are written to
SHOTS (under the build folder) for a person to look at.
Usage: web_test.py OTHELLO_ZERO MODEL MODEL6x6 SHOTS. Exits 77 (skipped) without
selenium or chromium."""
import json
import re
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

try:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.common.exceptions import (ElementClickInterceptedException,
                                            StaleElementReferenceException)
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select, WebDriverWait
except ImportError:
    print("python3-selenium is not installed: skipped")
    sys.exit(77)

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
DRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
if not (os.path.exists(CHROMIUM) and os.path.exists(DRIVER)):
    print("chromium or chromium-driver is not installed: skipped")
    sys.exit(77)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def request(url, data=None, method=None):
    req = urllib.request.Request(url, data=data, method=method)
    try:
        with urllib.request.urlopen(req, timeout=30) as reply:
            return reply.status, json.loads(reply.read() or b"{}")
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"{}")


def check(condition, message):
    if not condition:
        raise AssertionError(message)


def start_server(exe, model):
    """Starts `serve` on a free port and waits until it answers; returns (process, base)."""
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    server = subprocess.Popen([exe, "serve", "--model", model, "--port", str(port), "--level", "4"],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    for _ in range(100):
        try:
            if request(base + "/api/state")[0] == 200:
                return server, base
        except OSError:
            time.sleep(0.1)
    server.kill()
    raise AssertionError("the server did not start")


def stop_server(server):
    server.terminate()
    try:
        server.wait(timeout=10)
    except subprocess.TimeoutExpired:
        server.kill()


# The planted-blunder game of tests/play/analysis_test.cpp (kPlanted6): 6x6, 30 plies
# with one forced pass; ply 20 (0-based), b1, turns a win into a loss (12 empties).
PLANTED6 = "e4c5b3e3d5a3d2e6f4d1b6b5b2f3b4a4a5c1a2a6b1a1f2c2c6d6f5f6e2"
PLANTED6_PLY = 20


def new_driver():
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--window-size=1280,800"):
        options.add_argument(flag)
    return webdriver.Chrome(service=Service(DRIVER), options=options)


def viewport(driver, width, height, mobile):
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile})


class Page:
    """The page in the browser, with the waits and reads the checks need. The page
    redraws its board and lists from each reply, so elements are found afresh for each
    action and read through JavaScript, and waits retry on a stale element."""

    def __init__(self, driver):
        self.d = driver
        self.wait = WebDriverWait(driver, 90, ignored_exceptions=(StaleElementReferenceException,
                                                                  ElementClickInterceptedException))

    def open(self, base, cells):
        self.d.get(base + "/")
        self.wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, ".cell")) == cells)

    def els(self, selector):
        return self.d.find_elements(By.CSS_SELECTOR, selector)

    def click(self, selector, index=0):
        """Clicks the index-th element matching `selector`, found again if it was redrawn."""
        def attempt(d):
            elements = self.els(selector)
            if len(elements) <= index or not elements[index].is_enabled():
                return False
            elements[index].click()
            return True
        self.wait.until(attempt)

    def texts(self, selector):
        return self.d.execute_script(
            "return [...document.querySelectorAll(arguments[0])].map(e => e.textContent)", selector)

    def attrs(self, selector, name):
        return self.d.execute_script(
            "return [...document.querySelectorAll(arguments[0])].map(e => e.getAttribute(arguments[1]))",
            selector, name)

    def count(self, selector):
        return self.d.execute_script("return document.querySelectorAll(arguments[0]).length", selector)

    def open_details(self, section):
        if not self.d.execute_script(f"return document.getElementById('{section}').open"):
            self.click(f"#{section} summary")

    def select(self, selector, text=None, value=None):
        s = Select(self.d.find_element(By.CSS_SELECTOR, selector))
        if text is not None:
            s.select_by_visible_text(text)
        else:
            s.select_by_value(value)

    def moves(self):
        """The plies played so far (the line's moves up to the current one)."""
        return self.texts("#moves .mv:not(.future)")

    def legal(self):
        return sorted(self.attrs(".cell.legal", "data-square"))

    def status(self):
        return self.texts("#status")[0]

    def value(self, selector):
        return self.d.execute_script("return document.querySelector(arguments[0]).value", selector)

    def idle(self):
        """The page has nothing in flight and the model is not to move."""
        return self.d.execute_script("return busy === 0 && !thinking && aiTimer === null && "
                                     "state !== null && !state.ai_to_move")

    def wait_idle(self):
        self.wait.until(lambda d: self.idle())

    def new_game(self, mode="human-ai", color="black", level="2", clock="none", speed=None):
        self.open_details("new-game")
        self.select("#mode", value=mode)
        self.select("#color", text=color)
        self.select("#level", text=level)
        self.select("#clock", text=clock)
        if speed:
            self.select("#speed", text=speed)
        asked = self.d.execute_script("return requestSeq")
        self.click("#new")
        # The new game's reply is on the page (not the last game's, still shown before).
        self.wait.until(lambda d: d.execute_script("return appliedSeq > arguments[0]", asked))


def check_board_and_move(page):
    cols, rows = page.texts("#board .coord.col"), page.texts("#board .coord.row")
    check(cols == list("abcdefgh") and rows == [str(i) for i in range(1, 9)], (cols, rows))
    check(page.legal() == ["c4", "d3", "e6", "f5"], "legal-move markers at the start")
    check(page.texts("#black-count") == ["2"], "disc count")
    # A move: the model answers, the last move is marked, the counts and list update.
    page.click("[data-square='f5']")
    page.wait.until(lambda d: len(page.moves()) == 2 and page.idle())
    moves = page.moves()
    check(moves[0] == "f5", moves)
    last = page.attrs(".cell.last", "data-square")
    check(last == [moves[1]], (last, moves))
    black, white = int(page.texts("#black-count")[0]), int(page.texts("#white-count")[0])
    check(black + white == 6, (black, white))
    check("AI played" in page.texts("#ai")[0], "the AI's evaluation")
    check(page.value("#transcript") == "f5" + moves[1], "transcript")
    check(page.count("#graph .point") == 2, "one graph point per move")


def check_hints(page):
    page.click("#hint")
    page.wait.until(lambda d: page.count(".cell .eval") == page.count(".cell.legal") > 0)
    values = page.texts(".cell.legal .eval")
    check(len(values) == page.count(".cell.legal"), "a value on every legal square")
    for text in values:
        check(re.fullmatch(r"[+\u2212\u00b1]\d+(\.\d)?", text), f"hint value '{text}'")
    check(all("win " in t for t in page.attrs(".cell.legal", "title")), "win probability on hover")
    check(page.count(".eval.best") == 1, "the best move is highlighted")
    check(page.count("#hint-list div") == page.count(".cell.legal"), "the hint list")
    page.click("#show-pv")
    page.wait.until(lambda d: page.count(".pv-step") > 0)
    check(page.texts(".cell.best .pv-step") == ["1"], "the best line starts at the best move")
    # Hints shown by themselves at every turn from now on.
    page.click("#show-hints")


def play_moves(page, count):
    """Plays the first legal move `count` times (the model answering), checking the graph."""
    for _ in range(count):
        page.wait.until(lambda d: page.idle() and page.count(".cell.legal") > 0)
        before = len(page.moves())
        page.click(".cell.legal")
        page.wait.until(lambda d: (len(page.moves()) >= before + 2 and page.idle()) or
                        page.status().startswith("Game over"))
        points, moves = page.count("#graph .point"), len(page.moves())
        check(points == moves, f"graph points {points} for {moves} moves")


def check_undo_graph_redo(page):
    moves = page.moves()
    page.click("#undo")
    page.wait.until(lambda d: len(page.moves()) == len(moves) - 2)
    check(page.count("#graph .point") == len(moves), "the graph keeps the undone moves")
    page.click("#redo")
    page.wait.until(lambda d: page.moves() == moves)
    # A click on the graph goes back to that position (reviewing: the model waits).
    page.click("#graph .point", index=1)
    page.wait.until(lambda d: len(page.moves()) == 2)
    check("Paused" in page.status() or "Your move" in page.status(), page.status())
    page.click("#moves .mv", index=len(moves) - 1)
    page.wait.until(lambda d: page.moves() == moves)


def set_text(page, selector, text):
    page.d.execute_script("document.querySelector(arguments[0]).value = arguments[1]", selector, text)


def check_save_load(page):
    moves = page.moves()
    page.open_details("save")
    for button, prefix in (("#save-ggf", "(;GM[Othello]"), ("#save-transcript", moves[0])):
        set_text(page, "#game-text", "")
        page.click(button)
        page.wait.until(lambda d: page.value("#game-text").startswith(prefix))
        saved = page.value("#game-text")
        page.new_game(mode="human-human")
        page.wait.until(lambda d: page.moves() == [])
        set_text(page, "#game-text", saved)
        page.click("#load")
        page.wait.until(lambda d: page.moves() == moves)


def check_setup(page):
    """The standard centre and a corner chance at h8 placed by hand, black to move."""
    page.open_details("setup")
    page.click("#setup-edit")
    page.click("#setup-clear")
    page.wait.until(lambda d: page.count(".disc") == 0)
    page.click("#setup-standard")
    for brush, square in (("X", "h6"), ("O", "h7")):
        page.click(f"input[name=brush][value='{brush}']")
        page.click(f"[data-square='{square}']")
    page.select("#setup-to-move", text="black")
    page.open_details("new-game")
    page.select("#mode", value="human-ai")
    page.select("#color", text="black")
    page.select("#clock", text="none")
    page.click("#setup-play")
    page.wait.until(lambda d: page.legal() == ["c4", "d3", "e6", "f5", "h8"])
    check(page.count(".disc") == 6, "the set-up discs")
    page.click("[data-square='h8']")
    page.wait.until(lambda d: page.moves()[:1] == ["h8"] and page.idle())
    check(page.count("[data-square='h7'] .disc.black") == 1, "h8 flipped h7")
    start = page.d.execute_script("return state.start_board")
    check(start.count("X") == 3 and start.count("O") == 3, start)


def check_clock(page):
    """A 3-second bank: the person's clock runs out and the game ends."""
    page.open_details("new-game")
    page.select("#clock", value="custom")
    set_text(page, "#clock-minutes", "0.05")
    set_text(page, "#clock-increment", "0")
    page.new_game(mode="human-ai", color="black", clock="custom\u2026")
    page.wait.until(lambda d: "running" in page.attrs("#clock-black", "class")[0])
    page.wait.until(lambda d: "ran out of time" in page.status())
    check("You ran out of time" in page.status(), page.status())
    check("flagged" in page.attrs("#clock-black", "class")[0], "the flagged clock")
    check(page.legal() == [], "no moves after the flag")


def check_model_against_model(page):
    page.new_game(mode="ai-ai", level="1", speed="fast")
    page.wait.until(lambda d: page.status().startswith("Game over"))
    check(page.count("#graph .point") == len(page.moves()) >= 30, "a whole game watched")


def screenshots(page, shots):
    os.makedirs(shots, exist_ok=True)
    for width, height, mobile in ((1280, 800, False), (390, 844, True)):
        viewport(page.d, width, height, mobile)
        page.d.execute_script("window.scrollTo(0, 0)")
        time.sleep(0.5)
        right = page.d.execute_script("return document.getElementById('board').getBoundingClientRect().right")
        check(right <= width, f"the board fits a {width}-pixel window ({right})")
        path = os.path.join(shots, f"web-{width}x{height}.png")
        page.d.save_screenshot(path)
        check(os.path.getsize(path) > 1000, path)
        print("screenshot:", path)
    page.d.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def check_planted_blunder(page):
    """The analysis of a pasted 6x6 game marks the planted blunder, with progress."""
    page.open_details("analysis")
    page.open_details("save")
    set_text(page, "#game-text", PLANTED6)
    page.click("#analyse-pasted")
    page.wait.until(lambda d: "Analysis done" in page.texts("#analysis-status")[0])
    progress = page.d.execute_script("const p = document.getElementById('analysis-progress'); return [p.value, p.max]")
    check(progress[0] == progress[1] == 31, f"the progress bar is full: {progress}")
    rows = page.d.execute_script("return [...document.querySelectorAll('#analysis-table tr.blunder')]"
                                 ".map(tr => [...tr.cells].map(td => td.textContent))")
    check(any(r[0] == str(PLANTED6_PLY + 1) and r[2] == "b1" and "exact" in r[5] for r in rows), rows)
    ply = PLANTED6_PLY + 1
    check("blunder" in page.attrs(f"#moves .mv[data-ply='{ply}']", "class")[0], "the blunder in the move list")
    check("blunder" in page.attrs(f"#graph .point[data-ply='{ply}']", "class")[0], "the blunder on the graph")
    check(page.count("#graph .point") == 30, "the graph of the loaded game")
    summary = page.texts("#analysis-summary")[0]
    check("blunder" in summary, summary)


def check_six_by_six(page):
    sizes = page.texts("#size option")
    check(sizes == ["6"], sizes)
    page.new_game(mode="human-ai", color="white")
    page.wait.until(lambda d: len(page.moves()) == 1 and page.idle())
    check("Your move (white)" in page.status(), page.status())
    check(page.count(".cell.legal") > 0, "legal moves on 6x6")
    cols = page.texts("#board .coord.col")
    check(cols == list("abcdef"), cols)
    play_moves(page, 2)


def check_bad_requests(base):
    status, body = request(base + "/api/move", b'{"move":', "POST")
    check(status == 400 and "malformed JSON" in body["error"], (status, body))
    status, body = request(base + "/api/move", b'{"move":"z9"}', "POST")
    check(status == 400 and "z9" in body["error"], (status, body))
    status, body = request(base + "/api/new", b'{"size": 7}', "POST")
    check(status == 400 and "size 7" in body["error"], (status, body))
    status, body = request(base + "/api/new", b'{"size": 6}', "POST")
    check(status == 400 and "trained for 8x8, not 6x6" in body["error"], (status, body))
    status, body = request(base + "/api/analysis", b'{"visits": 1000001}', "POST")
    check(status == 400 and "'visits' must be from 1 to 1000000" in body["error"], (status, body))
    status, body = request(base + "/api/load", b'{"game": "f5f5"}', "POST")
    check(status == 400 and "transcript" in body["error"], (status, body))
    status, body = request(base + "/api/state")
    check(body["sizes"] == [8], body)
    status, body = request(base + "/nowhere")
    check(status == 404, (status, body))
    status, body = request(base + "/api/state", b"{}", "POST")
    check(status == 405, (status, body))
    check(request(base + "/api/state")[0] == 200, "the server stopped answering")


def main():
    exe, model, model6, shots = sys.argv[1:5]
    server, base = start_server(exe, model)
    servers = [server]
    driver = None
    try:
        check_bad_requests(base)
        driver = new_driver()
        page = Page(driver)
        page.open(base, 64)
        check_board_and_move(page)
        check_hints(page)
        play_moves(page, 3)
        check_undo_graph_redo(page)
        screenshots(page, shots)
        check_save_load(page)
        check_setup(page)
        check_clock(page)
        check_model_against_model(page)

        server6, base6 = start_server(exe, model6)
        servers.append(server6)
        page.open(base6, 36)
        check_planted_blunder(page)
        check_six_by_six(page)
        print("web page: coordinates, move and reply, hints and best line, graph, undo/redo/goto, "
              "save/load, set-up, clock, model vs model, analysis of a planted blunder, 6x6, "
              "screenshots, bad requests: ok")
    finally:
        if driver:
            driver.quit()
        for s in servers:
            stop_server(s)


if __name__ == "__main__":
    main()
