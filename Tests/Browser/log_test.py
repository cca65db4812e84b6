#!/usr/bin/env python3
"""The delivery log page in headless Chromium against a real `herald serve`, checked step by step, and its screenshot.

    log_test.py HERALD_BINARY [SCREENSHOT_DIR]   # scripts/test.sh runs it; scripts/console-screenshots.sh passes docs/images

Needs chromium, chromedriver and Python's selenium (Debian's chromium, chromium-driver, python3-selenium). A linked device (`herald device run`) takes one notification, goes offline and is sent three more (one
replaced by the next under the latest policy, one with apns-expiration 0); a virtual token gets one. The page must
list them with their states, open a timeline with Enter, show a notification sent while it is open at the top, search
by a token prefix with ?q= in its address (and ignore a live notification that does not match), and say what to type
for a search it cannot read. Any step that does not happen fails the script.
"""
import json, os, socket, subprocess, sys, tempfile, time, urllib.request
from selenium import webdriver
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait



def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


herald = os.path.abspath(sys.argv[1])
shot = os.path.join(sys.argv[2] if len(sys.argv) > 2 else tempfile.mkdtemp(prefix="herald-shots-"), "console-log.png")
provider_port, device_port, console_port = free_port(), free_port(), free_port()
work = tempfile.mkdtemp(prefix="herald-log-page.")
data = f"{work}/data"


def herald_run(*arguments):
    return subprocess.run([herald, *arguments], check=True, capture_output=True, text=True).stdout.strip()


def send(device, text, *extra):
    with open(f"{work}/payload.json", "w") as payload:
        json.dump({"aps": {"alert": text}}, payload)
    herald_run("send", "--gateway", f"https://localhost:{provider_port}", "--ca", f"{data}/tls/ca.pem", "--p8", f"{work}/key.p8",
               "--key-id", "KEY1234567", "--team-id", "TEAM123456", "--topic", "com.example.app", "--device", device, *extra,
               f"{work}/payload.json")


def entries(browser):
    return [row.text for row in browser.find_elements(By.CSS_SELECTOR, "#log tr.entry")]


processes = []
try:
    herald_run("keys", "create", "--data-dir", data, "--team-id", "TEAM123456", "--key-id", "KEY1234567", "--out", f"{work}/key.p8")
    virtual = herald_run("tokens", "issue", "--data-dir", data, "--topic", "com.example.app")
    processes.append(subprocess.Popen([herald, "serve", "--data-dir", data, "--provider-port", str(provider_port), "--device-port",
                                       str(device_port), "--console-port", str(console_port), "--channels-port", "0", "--webpush-port", "0", "--quiet"], stderr=subprocess.DEVNULL))
    for _ in range(100):
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{console_port}/healthz")
            break
        except OSError:
            time.sleep(0.1)
    admin_token = open(f"{data}/admin-token").read().strip()

    device = subprocess.Popen([herald, "device", "run", "--gateway", f"https://localhost:{device_port}", "--ca", f"{data}/tls/ca.pem",
                               "--data-dir", f"{work}/device", "--topic", "com.example.app", "--json", "--presenter", "none"],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                              env={**os.environ, "HERALD_AUTHORIZATION": "grant"})
    processes.append(device)
    linked = next(event["deviceToken"] for event in map(json.loads, device.stdout) if event.get("event") == "registered")
    send(linked, "Delivered at once")
    time.sleep(1)
    device.terminate()
    device.wait()
    time.sleep(1)
    send(linked, "Kept while offline", "--collapse-id", "score")
    send(linked, "The newest, kept instead")
    send(linked, "Now or never", "--expiration", "0")
    send(virtual, "For a virtual device")

    options = webdriver.ChromeOptions()
    for flag in ["--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1280,900"]:
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    browser = webdriver.Chrome(options=options)
    wait = WebDriverWait(browser, 10)
    try:
        browser.get(f"http://127.0.0.1:{console_port}/log")
        assert "/sign-in" in browser.current_url, browser.current_url
        browser.find_element(By.NAME, "token").send_keys(admin_token + Keys.ENTER)
        wait.until(lambda b: b.current_url.endswith("/log") and len(entries(b)) == 5)
        states = [row.find_elements(By.TAG_NAME, "td")[-1].text for row in browser.find_elements(By.CSS_SELECTOR, "#log tr.entry")]
        assert states == ["stored: virtual device", "discarded: expired", "stored: offline", "replaced", "delivered"], states

        # The keyboard opens the replaced notification's timeline.
        browser.execute_script("arguments[0].focus()", browser.find_elements(By.CSS_SELECTOR, "#log tr.entry")[3])
        browser.switch_to.active_element.send_keys(Keys.ENTER)
        wait.until(lambda b: len(b.find_elements(By.CSS_SELECTOR, "#log tr.timeline ol.steps li")) == 3)
        timeline = browser.find_element(By.CSS_SELECTOR, "#log tr.timeline").text
        assert "Replaced by a newer notification" in timeline and "storage policy is latest" in timeline, timeline

        # Live: a notification sent now appears at the top.
        send(virtual, "Arrived while watching")
        wait.until(lambda b: len(entries(b)) == 6)
        browser.save_screenshot(shot)

        # A search by the virtual token's first digits: linkable, and only its notifications, live ones included.
        box = browser.find_element(By.ID, "q")
        box.send_keys(virtual[:6] + Keys.ENTER)
        wait.until(lambda b: b.current_url.endswith(f"/log?q={virtual[:6]}") and len(entries(b)) == 2)
        send(linked, "Not for this search")
        send(virtual, "For this search")
        wait.until(lambda b: len(entries(b)) == 3)
        time.sleep(1)
        assert len(entries(browser)) == 3, entries(browser)

        browser.get(f"http://127.0.0.1:{console_port}/log?q=hello")
        wait.until(lambda b: b.find_element(By.ID, "status").text)
        assert "search by an apns-id" in browser.find_element(By.ID, "status").text
        errors = [entry for entry in browser.get_log("browser") if entry["level"] == "SEVERE" and "q=hello" not in entry["message"]]
        assert not errors, errors
        print(f"the delivery log page works; screenshot: {shot}")
    finally:
        browser.quit()
finally:
    for process in processes:
        if process.poll() is None:
            process.terminate()
            process.wait()
    subprocess.run(["rm", "-rf", work])
