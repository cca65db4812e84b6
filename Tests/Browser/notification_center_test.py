#!/usr/bin/env python3
"""The device's notification center page and content extensions, in a real headless Chromium.

Usage: notification_center_test.py HERALD_BINARY [SCREENSHOT_DIR]

Runs a real `herald serve` and a real `herald device --ui-port 0` with the podcast example installed (its app, its
service extension and its content extension, from the build directory) and an app whose content extension crashes.
Then, as a person would: a new episode pushed with `herald send` is listed on the page; expanding it runs the
podcast's content extension, whose view shows the episode's text and cover; "Later" (answered .doNotDismiss) redraws
the view and the app is not told; "Listen" (.dismissAndForwardAction) closes the view, the card goes and the app's
delegate gets the response; the crashing extension falls back to the default view, which says why. Also: the page
answers only with the device's secret, at loopback names, and its WebSocket only to its own origin. Screenshots go
to SCREENSHOT_DIR. Exits non-zero on the first failure.
"""
import json
import os
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
import zlib

from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as ready
from selenium.webdriver.support.ui import WebDriverWait

PODCAST = "com.example.podcast"
CRASHY = "com.example.crashy"
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def get(url, headers=None):
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers or {}), timeout=10) as reply:
            return reply.status, reply.headers, reply.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers, error.read()


def cover_png(path, size=240):
    """An episode cover: a diagonal gradient, as a real PNG file."""
    rows = b"".join(
        b"\x00" + b"".join(bytes((40 + x // 2, 90 + (x + y) // 5, 200 - y // 3)) for x in range(size)) for y in range(size))
    chunk = lambda kind, data: struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    with open(path, "wb") as file:
        file.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", size, size, 8, 2, 0, 0, 0))
                   + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


def crashy_bundle(directory):
    """An app whose content extension prints a line and crashes with SIGSEGV before drawing."""
    app = os.path.join(directory, "Crashy.app")
    appex = os.path.join(app, "PlugIns", "View.appex")
    os.makedirs(appex)
    plist = lambda entries: ('<?xml version="1.0" encoding="UTF-8"?>\n<plist version="1.0"><dict>' + entries + "</dict></plist>\n")
    with open(os.path.join(app, "Info.plist"), "w") as file:
        file.write(plist(f"<key>CFBundleIdentifier</key><string>{CRASHY}</string><key>CFBundleExecutable</key><string>crashy</string>"
                         "<key>CFBundleDisplayName</key><string>Crashy</string>"))
    with open(os.path.join(appex, "Info.plist"), "w") as file:
        file.write(plist(f"<key>CFBundleIdentifier</key><string>{CRASHY}.View</string><key>CFBundleExecutable</key><string>view</string>"
                         "<key>NSExtension</key><dict><key>NSExtensionPointIdentifier</key>"
                         "<string>com.apple.usernotifications.content-extension</string><key>NSExtensionAttributes</key><dict>"
                         "<key>UNNotificationExtensionCategory</key><string>alarm</string></dict></dict>"))
    for path, script in [(os.path.join(app, "crashy"), "sleep 1\n"), (os.path.join(appex, "view"), "echo 'about to draw' >&2\nkill -SEGV $$\n")]:
        with open(path, "w") as file:
            file.write("#!/bin/sh\n" + script)
        os.chmod(path, 0o755)
    return app


def finish(driver, processes, work, failed):
    """Stops the browser and the processes (newest first), prints the gateway's and the daemon's logs after a failure,
    and removes the work directory: the end of every walk."""
    if driver:
        driver.quit()
    for process in reversed(processes):
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
    for name in ["serve.log", "device.log"]:
        path = os.path.join(work, name)
        if failed and os.path.exists(path):
            print(f"--- {name}\n" + open(path).read()[-4000:])
    shutil.rmtree(work, ignore_errors=True)


class Check:
    def __call__(self, condition, message):
        if not condition:
            raise AssertionError(message)
        print(f"ok - {message}")


class Lines:
    """A process's standard output, one JSON object per line, read as it comes."""

    def __init__(self, process):
        self.lines = []
        self.lock = threading.Lock()
        threading.Thread(target=self.read, args=(process,), daemon=True).start()

    def read(self, process):
        for line in process.stdout:
            try:
                with self.lock:
                    self.lines.append(json.loads(line))
            except ValueError:
                pass

    def wait(self, match, timeout=20):
        deadline = time.time() + timeout
        while time.time() < deadline:
            with self.lock:
                for line in self.lines:
                    if match(line):
                        return line
            time.sleep(0.05)
        raise AssertionError(f"no line matched within {timeout} s; saw {self.lines}")


def main():
    herald = os.path.abspath(sys.argv[1])
    built = os.path.dirname(herald)
    shots = sys.argv[2] if len(sys.argv) > 2 else tempfile.mkdtemp(prefix="herald-shots-")
    os.makedirs(shots, exist_ok=True)
    work = tempfile.mkdtemp(prefix="herald-center-")
    gateway_data, device_data = os.path.join(work, "gateway"), os.path.join(work, "device")
    ports = {"provider": free_port(), "device": free_port(), "console": free_port()}
    check = Check()
    processes = []
    driver = None
    run = lambda *arguments: subprocess.run([herald, *arguments], check=True, capture_output=True, text=True)
    try:
        gateway = subprocess.Popen(
            [herald, "serve", "--data-dir", gateway_data, "--provider-port", str(ports["provider"]), "--device-port",
             str(ports["device"]), "--console-port", str(ports["console"]), "--channels-port", "0", "--webpush-port", "0"],
            stdout=open(os.path.join(work, "serve.log"), "w"), stderr=subprocess.STDOUT)
        processes.append(gateway)
        ca = os.path.join(gateway_data, "tls", "ca.pem")
        for _ in range(100):
            try:
                if os.path.exists(ca) and get(f"http://127.0.0.1:{ports['console']}/healthz")[0] == 200:
                    break
            except OSError:
                pass
            time.sleep(0.1)
        key = os.path.join(work, "key.p8")
        run("keys", "create", "--data-dir", gateway_data, "--team-id", "TEAM123456", "--key-id", "KEY1234567", "--topic", PODCAST,
            "--topic", CRASHY, "--out", key)
        run("apps", "install", os.path.join(ROOT, "Examples/Podcast/Podcast.app"), "--executable-dir", built, "--data-dir", device_data)
        run("apps", "install", crashy_bundle(work), "--data-dir", device_data)
        for app in [PODCAST, CRASHY]:
            run("device", "settings", "--app", app, "--allow", "--data-dir", device_data)
        device = subprocess.Popen(
            [herald, "device", "--gateway", f"https://localhost:{ports['device']}", "--ca", ca, "--data-dir", device_data, "--json",
             "--ui-port", "0"], stdout=subprocess.PIPE, stderr=open(os.path.join(work, "device.log"), "w"), text=True)
        processes.append(device)
        lines = Lines(device)
        page = lines.wait(lambda line: line.get("event") == "notificationCenter")["url"]
        # The podcast app runs once, as a person starts it after installing: it registers its category's actions.
        subprocess.run([os.path.join(built, "PodcastApp")], env={**os.environ, "HERALD_DATA_DIR": device_data, "PODCAST_LIFETIME": "0.5"},
                       check=True, capture_output=True, timeout=60)
        tokens = {app: lines.wait(lambda line, app=app: line.get("event") == "registered" and line.get("topic") == app)["deviceToken"]
                  for app in [PODCAST, CRASHY]}

        def send(app, payload, collapse_id):
            path = os.path.join(work, f"{collapse_id}.json")
            with open(path, "w") as file:
                json.dump(payload, file)
            run("send", "--gateway", f"https://localhost:{ports['provider']}", "--ca", ca, "--p8", key, "--key-id", "KEY1234567",
                "--team-id", "TEAM123456", "--topic", app, "--device", tokens[app], "--collapse-id", collapse_id, path)
            lines.wait(lambda line: line.get("event") == "notification" and line.get("identifier") == collapse_id)

        # ---- the page answers only its owner ----
        secret_path = page.split("127.0.0.1:")[1].split("/", 1)[1]
        port = int(page.split("127.0.0.1:")[1].split("/")[0])
        check(page.startswith("http://127.0.0.1:") and len(secret_path.strip("/")) >= 40, f"the daemon prints the page's address with its secret ({page})")
        check(get(f"http://127.0.0.1:{port}/")[0] == 404, "without the secret the page is not found")
        check(get(f"http://127.0.0.1:{port}/{'x' * 43}/")[0] == 404, "a wrong secret is not found either")
        status, headers, _ = get(page, headers={"Host": f"attacker.example:{port}"})
        check(status == 403, f"a name other than a loopback one is refused (DNS rebinding) ({status})")
        status, headers, body = get(page)
        check(status == 200 and "script-src 'self'" in headers["Content-Security-Policy"] and headers["Referrer-Policy"] == "no-referrer",
              "the page is served with its content security policy and no referrer")
        check(get(page + "live")[0] == 426, "the live connection is a WebSocket only")
        with socket.create_connection(("127.0.0.1", port)) as raw:
            raw.sendall((f"GET /{secret_path}live HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                         "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\nOrigin: http://evil.example\r\n\r\n").encode())
            answer = raw.recv(1024).decode(errors="replace")
        check(not answer.startswith("HTTP/1.1 101"), f"a WebSocket from another origin is refused ({answer.splitlines()[0]})")

        # ---- a new episode, listed and expanded through the podcast's content extension ----
        cover = os.path.join(work, "cover.png")
        cover_png(cover)
        send(PODCAST, {"aps": {"alert": {"title": "New episode", "body": "Episode 12: the one about push"}, "mutable-content": 1,
                               "category": "new-episode"}, "podcast-guest": "Ada Lovelace", "podcast-image": "file://" + cover}, "episode-12")
        send(CRASHY, {"aps": {"alert": {"title": "Wake up", "body": "It is 7:00"}, "category": "alarm"}}, "alarm-7")

        options = webdriver.ChromeOptions()
        for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=520,900"]:
            options.add_argument(argument)
        options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
        driver = webdriver.Chrome(service=Service(shutil.which("chromedriver") or "/usr/bin/chromedriver"), options=options)
        wait = WebDriverWait(driver, 10, ignored_exceptions=[StaleElementReferenceException])
        driver.get(page)
        episode = wait.until(ready.presence_of_element_located((By.CSS_SELECTOR, f'.card[data-app="{PODCAST}"][data-id="episode-12"]')))
        check("New episode with Ada Lovelace" in episode.text, "the episode is listed, with the title its service extension wrote")
        check(wait.until(lambda d: d.execute_script("const i = document.querySelector('.card .thumb'); return i && i.complete && i.naturalWidth > 0;")), "the card's cover loads from the daemon")
        driver.save_screenshot(os.path.join(shots, "notification-center.png"))

        started = time.time()
        episode.click()
        view = wait.until(ready.visibility_of_element_located((By.CSS_SELECTOR, "#expanded .extension-view")))
        check("Episode 12: the one about push" in view.text, f"the extension's view shows the body ({time.time() - started:.2f} s after the click)")
        check(wait.until(lambda d: d.execute_script("const i = document.querySelector('#expanded .v-image'); return i && i.complete && i.naturalWidth == 240;")), "the extension's view shows the cover the service extension attached")
        check(not driver.find_elements(By.CSS_SELECTOR, "#expanded .default"), "UNNotificationExtensionDefaultContentHidden: only the extension's view")
        view_size = "const r = document.querySelector('#expanded .extension-view').getBoundingClientRect(); return [r.height, r.width];"
        sheet_width = driver.execute_script("return document.querySelector('#expanded').getBoundingClientRect().width;")
        height, width = driver.execute_script(view_size)
        check(round(height) == 300 and width >= sheet_width - 1, f"preferredContentSize 300 high: the view is {height:.0f} px high, as wide as the sheet ({width:.0f} of {sheet_width:.0f} px)")
        driver.save_screenshot(os.path.join(shots, "content-extension-expanded.png"))

        driver.find_element(By.CSS_SELECTOR, '#expanded .actions button[data-action="later"]').click()
        check(wait.until(lambda d: "Saved for later. We'll remind you tonight." in d.find_element(By.CSS_SELECTOR, "#expanded .extension-view").text), "Later (.doNotDismiss): the view redraws and stays up")
        height, width = driver.execute_script(view_size)
        check(round(height) == 60, f"preferredContentSize set again after Later (60 high): the view is {height:.0f} px high")
        driver.save_screenshot(os.path.join(shots, "content-extension-later.png"))
        app_log = os.path.join(device_data, "device", "logs", f"{PODCAST}.log")
        time.sleep(0.5)
        told = open(app_log).read() if os.path.exists(app_log) else ""
        check("later" not in told and driver.find_elements(By.CSS_SELECTOR, f'.card[data-id="episode-12"]'),
              "the app's delegate is not told of Later, and the notification stays listed")

        driver.find_element(By.CSS_SELECTOR, '#expanded .actions button[data-action="listen"]').click()
        wait.until(lambda d: d.find_element(By.ID, "sheet").get_attribute("hidden") is not None)
        check(wait.until(lambda d: not d.find_elements(By.CSS_SELECTOR, '.card[data-id="episode-12"]')), "Listen (.dismissAndForwardAction): the view closes and the card goes")
        deadline = time.time() + 20
        while time.time() < deadline and "Playing the episode with Ada Lovelace" not in (open(app_log).read() if os.path.exists(app_log) else ""):
            time.sleep(0.2)
        check("Playing the episode with Ada Lovelace" in open(app_log).read(), "the app's delegate gets the Listen response (the daemon launched it)")

        # ---- an extension that crashes: the default view, and the page says why ----
        driver.find_element(By.CSS_SELECTOR, f'.card[data-app="{CRASHY}"]').click()
        failure = wait.until(ready.visibility_of_element_located((By.CSS_SELECTOR, "#expanded .failure")))
        check("crashed (signal 11, SIGSEGV)" in failure.text, f"a crashing extension: the page says so ({failure.text})")
        check("It is 7:00" in driver.find_element(By.CSS_SELECTOR, "#expanded .default").text, "and shows the notification's default view")
        driver.save_screenshot(os.path.join(shots, "content-extension-crashed.png"))
        driver.find_element(By.CSS_SELECTOR, "#expanded header .close").click()
        wait.until(lambda d: d.find_element(By.ID, "sheet").get_attribute("hidden") is not None)

        # ---- the address of one notification opens it expanded (the desktop's Show action) ----
        send(PODCAST, {"aps": {"alert": {"title": "New episode", "body": "Episode 13: badges"}, "category": "new-episode"}}, "episode-13")
        driver.get(page + f"#{PODCAST}/episode-13")
        view = wait.until(ready.visibility_of_element_located((By.CSS_SELECTOR, "#expanded .extension-view")))
        check("Episode 13: badges" in view.text, "the page's address with #APP/ID opens that notification expanded")
        driver.find_element(By.CSS_SELECTOR, "#expanded header .close").click()

        # ---- grouping (iOS 12): a thread's notifications stack; the line under the stack counts and names the rest ----
        for number, (who, count) in enumerate([("Alice", 1), ("Bob", 2), ("Alice", 1)]):
            send(CRASHY, {"aps": {"alert": {"title": who, "body": f"Message {number}", "summary-arg": who, "summary-arg-count": count},
                                  "thread-id": "chat-1"}}, f"chat-{number}")
        chat = f'.group[data-app="{CRASHY}"][data-thread="chat-1"]'
        line = wait.until(lambda d: d.find_element(By.CSS_SELECTOR, chat + " .stack-line"))
        check(len(driver.find_elements(By.CSS_SELECTOR, chat + " .card")) == 1 and "Message 2" in driver.find_element(By.CSS_SELECTOR, chat + " .card").text,
              "a thread's three notifications are one stack showing the newest")
        check(line.text == "3 more notifications from Bob and Alice", f"the line counts summary-arg-count and names summary-arg ({line.text})")
        check(driver.find_elements(By.CSS_SELECTOR, f'.group[data-app="{CRASHY}"][data-thread=""] .card[data-id="alarm-7"]'),
              "the app's notification without a thread is a group of its own")
        driver.execute_script("arguments[0].scrollIntoView({block: 'start'});", driver.find_element(By.CSS_SELECTOR, chat))
        driver.save_screenshot(os.path.join(shots, "notification-center-grouped.png"))
        line.click()
        wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, chat + " .card")) == 3)
        check([card.get_attribute("data-id") for card in driver.find_elements(By.CSS_SELECTOR, chat + " .card")] == ["chat-2", "chat-1", "chat-0"],
              "clicking the line opens the group, newest first")
        driver.find_element(By.XPATH, f"//section[@data-thread='chat-1']//button[text()='Show less']").click()
        check(wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, chat + " .card")) == 1), "Show less stacks it again")
        driver.find_element(By.CSS_SELECTOR, chat + " .stack-line").click()
        driver.find_element(By.XPATH, f"//section[@data-thread='chat-1']//button[text()='Clear']").click()
        check(wait.until(lambda d: not d.find_elements(By.CSS_SELECTOR, chat)), "Clear dismisses the whole group")

        # ---- the Focus (iOS 15) at the top of the page, and the scheduled summary: notifications wait, then arrive as one ----
        run("device", "focus", "on", "--name", "Work", "--data-dir", device_data)
        chip = wait.until(lambda d: d.find_element(By.ID, "focus") if d.find_element(By.ID, "focus").is_displayed() else None)
        check(chip.text == "☾ Work · on", f"the page shows the Focus that is on ({chip.text})")
        run("device", "summary", "on", "--add", CRASHY, "--data-dir", device_data)
        digest = [("Weekly report ready", 0.2), ("Your parcel is at the door", 0.9), ("New comment on your photo", 0.5)]
        for number, (title, relevance) in enumerate(digest):
            path = os.path.join(work, f"digest-{number}.json")
            with open(path, "w") as file:
                json.dump({"aps": {"alert": {"title": title, "body": "From the last hours"}, "relevance-score": relevance,
                                   "thread-id": "digest"}}, file)
            run("send", "--gateway", f"https://localhost:{ports['provider']}", "--ca", ca, "--p8", key, "--key-id", "KEY1234567",
                "--team-id", "TEAM123456", "--topic", CRASHY, "--device", tokens[CRASHY], "--collapse-id", f"digest-{number}", path)
        deadline = time.time() + 20
        while time.time() < deadline and json.loads(run("device", "summary", "--json", "--data-dir", device_data).stdout)["waiting"] < 3:
            time.sleep(0.1)
        check(not driver.find_elements(By.CSS_SELECTOR, '.card[data-id^="digest-"]'), "the summary's notifications wait: not listed yet")
        run("device", "summary", "off", "--data-dir", device_data)
        summary = wait.until(lambda d: d.find_element(By.ID, "summary") if d.find_element(By.ID, "summary").is_displayed() else None)
        highlights = [h.find_element(By.TAG_NAME, "strong").text for h in summary.find_elements(By.CSS_SELECTOR, ".highlight")]
        check(summary.text.startswith("Your ") and "3 notifications" in summary.text, f"the summary arrives as one ({summary.text.splitlines()[:2]})")
        check(highlights == ["Your parcel is at the door", "New comment on your photo", "Weekly report ready"],
              f"most relevant first ({highlights})")
        tagged = wait.until(lambda d: d.find_element(By.CSS_SELECTOR, '.group[data-thread="digest"] .card .tag'))
        check("Scheduled Summary" in tagged.text, "its notifications are listed, tagged with the summary")
        driver.execute_script("window.scrollTo(0, 0)")
        driver.save_screenshot(os.path.join(shots, "notification-center-summary.png"))
        run("device", "focus", "off", "--data-dir", device_data)
        check(wait.until(lambda d: not d.find_element(By.ID, "focus").is_displayed()), "the Focus chip goes when the Focus is off")

        # ---- a long list: a group draws its newest 50 cards, the rest a page at a time; a change redraws one group ----
        path = os.path.join(work, "many.json")
        with open(path, "w") as file:
            json.dump({"aps": {"alert": {"title": "Parcel", "body": "On its way"}}}, file)
        run("send", "--gateway", f"https://localhost:{ports['provider']}", "--ca", ca, "--p8", key, "--key-id", "KEY1234567",
            "--team-id", "TEAM123456", "--topic", CRASHY, "--device", tokens[CRASHY], "--count", "60", path)
        parcels = f'.group[data-app="{CRASHY}"][data-thread=""]'
        line = wait.until(lambda d: d.find_element(By.CSS_SELECTOR, parcels + " .stack-line") if "60 more" in d.find_element(By.CSS_SELECTOR, parcels).text else None)
        check(line.text == "60 more notifications", f"61 notifications of one app without a thread: one stack ({line.text})")
        first = driver.find_element(By.CSS_SELECTOR, parcels)
        send(PODCAST, {"aps": {"alert": {"title": "New episode", "body": "Episode 14: pages"}, "category": "new-episode"}}, "episode-14")
        wait.until(lambda d: "Episode 14: pages" in d.find_element(By.CSS_SELECTOR, ".group").text)
        podcast = driver.find_element(By.CSS_SELECTOR, ".group")
        check("1 more notification" == podcast.find_element(By.CSS_SELECTOR, ".stack-line").text and first.is_displayed(),
              "a new episode goes first, stacked on the last one; the other groups stay as they were drawn")
        driver.find_element(By.CSS_SELECTOR, parcels + " .stack-line").click()
        more = wait.until(lambda d: d.find_element(By.CSS_SELECTOR, parcels + " .group-more"))
        check(len(driver.find_elements(By.CSS_SELECTOR, parcels + " .card")) == 50 and more.text == "Show 11 more of 61",
              f"the open group draws 50 cards and a button for the rest ({more.text})")
        more.click()
        wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, parcels + " .card")) == 61)
        check(not driver.find_elements(By.CSS_SELECTOR, parcels + " .group-more"), "Show more draws the rest (61 cards)")
        print("notification center: all checks passed")
    finally:
        finish(driver, processes, work, failed=sys.exc_info()[0] is not None)


if __name__ == "__main__":
    main()
