#!/usr/bin/python3
"""`othello-zero serve` end to end in headless Chromium (Debian's chromium and
chromium-driver, driven with python3-selenium): play a move and get the AI's reply,
evaluate the legal moves, undo and redo, read the transcript, and with a 6x6 model start a
6x6 game as white; malformed HTTP requests, and a board the model does not know, get error
replies while the server keeps running.
Usage: web_test.py OTHELLO_ZERO MODEL MODEL6x6. Exits 77 (skipped) without selenium or
chromium."""
import json
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


def main():
    exe, model, model6 = sys.argv[1], sys.argv[2], sys.argv[3]
    server, base = start_server(exe, model)
    servers = [server]
    driver = None
    try:
        # Bad requests: error replies, and the server keeps serving.
        status, body = request(base + "/api/move", b'{"move":', "POST")
        check(status == 400 and "malformed JSON" in body["error"], (status, body))
        status, body = request(base + "/api/move", b'{"move":"z9"}', "POST")
        check(status == 400 and "z9" in body["error"], (status, body))
        status, body = request(base + "/api/new", b'{"size": 7}', "POST")
        check(status == 400 and "size 7" in body["error"], (status, body))
        status, body = request(base + "/api/new", b'{"size": 6}', "POST")
        check(status == 400 and "trained for 8x8, not 6x6" in body["error"], (status, body))
        status, body = request(base + "/api/state")
        check(body["sizes"] == [8], body)
        status, body = request(base + "/nowhere")
        check(status == 404, (status, body))
        status, body = request(base + "/api/state", b"{}", "POST")
        check(status == 405, (status, body))
        check(request(base + "/api/state")[0] == 200, "the server stopped answering")

        options = webdriver.ChromeOptions()
        options.binary_location = CHROMIUM
        for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"):
            options.add_argument(flag)
        driver = webdriver.Chrome(service=Service(DRIVER), options=options)
        wait = WebDriverWait(driver, 60)
        driver.get(base + "/")
        wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, ".cell")) == 64)
        legal = driver.find_elements(By.CSS_SELECTOR, ".cell.legal")
        check(sorted(c.get_attribute("data-square") for c in legal) == ["c4", "d3", "e6", "f5"],
              "legal-move markers at the start")
        check(driver.find_element(By.ID, "black-count").text == "2", "disc count")

        # A move: the AI answers, the last move is marked, the counts and list update.
        driver.find_element(By.CSS_SELECTOR, "[data-square='f5']").click()
        wait.until(lambda d: len(d.find_element(By.ID, "moves").text.split()) == 3)  # "1. f5 xx"
        moves = driver.find_element(By.ID, "moves").text.split()
        check(moves[:2] == ["1.", "f5"], moves)
        last = driver.find_element(By.CSS_SELECTOR, ".cell.last").get_attribute("data-square")
        check(last == moves[2], (last, moves))
        black = int(driver.find_element(By.ID, "black-count").text)
        white = int(driver.find_element(By.ID, "white-count").text)
        check(black + white == 6, (black, white))
        check("AI played" in driver.find_element(By.ID, "ai").text, "the AI's evaluation")
        check(driver.find_element(By.ID, "transcript").get_attribute("value") == "f5" + moves[2],
              "transcript")

        # Evaluations of every legal move.
        driver.find_element(By.ID, "hint").click()
        wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, ".cell .eval")) ==
                   len(d.find_elements(By.CSS_SELECTOR, ".cell.legal")) > 0)
        check(driver.find_elements(By.CSS_SELECTOR, ".eval.best"), "the best move is marked")

        # Undo back to the start, redo forward again.
        driver.find_element(By.ID, "undo").click()
        wait.until(lambda d: d.find_element(By.ID, "moves").text == "")
        check(driver.find_element(By.ID, "white-count").text == "2", "undo restores the board")
        driver.find_element(By.ID, "redo").click()
        wait.until(lambda d: len(d.find_element(By.ID, "moves").text.split()) == 3)

        # With a 6x6 model, a new 6x6 game as white: the AI opens.
        server6, base6 = start_server(exe, model6)
        servers.append(server6)
        driver.get(base6 + "/")
        wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, ".cell")) == 36)
        sizes = [o.text for o in Select(driver.find_element(By.ID, "size")).options]
        check(sizes == ["6"], sizes)
        Select(driver.find_element(By.ID, "color")).select_by_visible_text("white")
        driver.find_element(By.ID, "new").click()
        wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, ".cell")) == 36 and
                   len(d.find_element(By.ID, "moves").text.split()) == 2)
        check("Your move (white)" in driver.find_element(By.ID, "status").text, "status line")
        check(len(driver.find_elements(By.CSS_SELECTOR, ".cell.legal")) > 0, "legal moves on 6x6")
        print("web page: move, AI reply, hints, undo/redo, new 6x6 game, bad requests: ok")
    finally:
        if driver:
            driver.quit()
        for s in servers:
            stop_server(s)


if __name__ == "__main__":
    main()
