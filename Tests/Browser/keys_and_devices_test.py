#!/usr/bin/env python3
"""The console's keys and devices pages, driven and photographed in headless Chromium.

    keys_and_devices_test.py HERALD_BINARY [SCREENSHOT_DIR]   # scripts/test.sh runs it; scripts/console-screenshots.sh
                                                               # passes docs/images

Starts `herald serve` in a temporary data directory on free ports, links two devices (`herald device`; one stays
online with two apps, one leaves), signs in at /sign-in with DATA_DIR/admin-token, and through the pages: creates a
key (checking that the .p8 download arrives and is a P-256 key), imports one from a file, issues a virtual token,
revokes a key, changes an app's policy and unregisters an app. Each step's answer is checked, so a page that stops
working fails here. Writes console-keys.png and console-devices.png (1280 wide) to OUT_DIR. Needs chromium,
chromedriver and Python's selenium (Debian `chromium`, `chromium-driver`, `python3-selenium`).
"""
import glob
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

herald = os.path.abspath(sys.argv[1])
out = os.path.abspath(sys.argv[2]) if len(sys.argv) > 2 else tempfile.mkdtemp(prefix="herald-shots-")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def check(condition, what):
    if not condition:
        raise SystemExit(f"console-screenshots: {what}")


work = tempfile.mkdtemp(prefix="herald-console-")
data, downloads = os.path.join(work, "data"), os.path.join(work, "downloads")
os.makedirs(downloads)
provider, device, console = free_port(), free_port(), free_port()
base = f"http://127.0.0.1:{console}"
processes = [subprocess.Popen(
    [herald, "serve", "--data-dir", data, "--provider-port", str(provider), "--device-port", str(device), "--console-port", str(console), "--channels-port", "0", "--webpush-port", "0", "--quiet"],
    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)]
try:
    for _ in range(100):
        try:
            urllib.request.urlopen(base + "/healthz")
            break
        except OSError:
            time.sleep(0.1)
    token = open(os.path.join(data, "admin-token")).read().strip()

    def api(path):
        request = urllib.request.Request(base + path, headers={"Authorization": f"Bearer {token}"})
        return json.load(urllib.request.urlopen(request))

    def link(name, topics):
        arguments = [herald, "device", "run", "--gateway", f"https://localhost:{device}", "--ca", os.path.join(data, "tls/ca.pem"),
                     "--data-dir", os.path.join(work, name), "--json", "--presenter", "none"]
        for topic in topics:
            arguments += ["--topic", topic]
        processes.append(subprocess.Popen(arguments, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        return processes[-1]

    link("laptop", ["com.example.app", "com.example.chat"])
    phone = link("phone", ["com.example.app"])
    for _ in range(100):
        devices = api("/v1/devices")["devices"]
        if len(devices) == 2 and all(d["apps"] for d in devices):
            break
        time.sleep(0.1)
    phone.terminate()
    phone.wait()

    options = Options()
    options.binary_location = "/usr/bin/chromium"
    for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,900"]:
        options.add_argument(argument)
    browser = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    browser.execute_cdp_cmd("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": downloads})
    wait = WebDriverWait(browser, 10)
    try:
        browser.get(base + "/keys")
        browser.find_element(By.ID, "token").send_keys(token)
        browser.find_element(By.CSS_SELECTOR, "form button[type=submit]").click()
        wait.until(lambda b: b.current_url.endswith("/keys"))

        def submit(form):
            browser.find_element(By.CSS_SELECTOR, f"#{form} button[type=submit]").click()

        def shown(selector):
            wait.until(lambda b: b.find_element(By.CSS_SELECTOR, selector).is_displayed())
            return browser.find_element(By.CSS_SELECTOR, selector).text

        # Import a key from a file: only its public half leaves the browser.
        p8 = os.path.join(work, "imported.p8")
        subprocess.run(["openssl", "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", p8], check=True)
        browser.find_element(By.ID, "import-team").send_keys("TEAM123456")
        browser.find_element(By.ID, "import-key").send_keys("KEY0000001")
        browser.find_element(By.ID, "import-file").send_keys(p8)
        wait.until(lambda b: b.find_element(By.ID, "import-pem").get_attribute("value").startswith("-----BEGIN PRIVATE KEY-----"))
        submit("import")
        check("Only its public half left this browser" in shown("#import .good"), "the import did not derive the public key")
        browser.find_element(By.CSS_SELECTOR, "#keys tbody tr button").click()
        browser.switch_to.alert.accept()
        wait.until(lambda b: "revoked" in b.find_element(By.CSS_SELECTOR, "#keys tbody").text)

        # A virtual token for an app.
        browser.find_element(By.ID, "issue-topic").send_keys("com.example.app")
        submit("issue")
        wait.until(lambda b: len(b.find_element(By.ID, "issued-token").text) == 64)

        # Create a key: the .p8 arrives once, as a download.
        browser.find_element(By.ID, "create-team").send_keys("TEAM123456")
        browser.find_element(By.ID, "create-key").send_keys("KEY1234567")
        browser.find_element(By.ID, "create-topics").send_keys("com.example.app, com.example.chat")
        submit("create")
        shown("#created")
        browser.find_element(By.ID, "created-download").click()
        for _ in range(100):
            saved = glob.glob(os.path.join(downloads, "AuthKey_KEY1234567.p8"))
            if saved:
                break
            time.sleep(0.1)
        check(saved, "the .p8 was not downloaded")
        check(subprocess.run(["openssl", "pkey", "-in", saved[0], "-noout"], capture_output=True).returncode == 0, "the .p8 is not a key")
        browser.set_window_size(1280, browser.execute_script("return document.body.scrollHeight") + 120)
        browser.save_screenshot(os.path.join(out, "console-keys.png"))

        browser.set_window_size(1280, 900)
        browser.get(base + "/devices")
        wait.until(lambda b: "online" in b.find_element(By.CSS_SELECTOR, "#devices tbody").text)
        wait.until(lambda b: len(b.find_elements(By.CSS_SELECTOR, "#apps tbody form")) == 2)
        Select(browser.find_element(By.ID, "policy-1")).select_by_value("all")
        cap = browser.find_element(By.ID, "cap-1")
        cap.clear()
        cap.send_keys("50")
        browser.find_elements(By.CSS_SELECTOR, "#apps tbody form button")[1].click()
        wait.until(lambda b: b.find_elements(By.CSS_SELECTOR, "#apps tbody form [role=status]")[1].text == "Saved")
        before = len(browser.find_elements(By.CSS_SELECTOR, "#devices ul.tokens li"))
        browser.find_elements(By.CSS_SELECTOR, "#devices ul.tokens button")[-1].click()
        browser.switch_to.alert.accept()
        wait.until(lambda b: len(b.find_elements(By.CSS_SELECTOR, "#devices ul.tokens li")) == before - 1)
        browser.save_screenshot(os.path.join(out, "console-devices.png"))
        errors = [entry for entry in browser.get_log("browser") if "Content Security Policy" in entry["message"]]
        check(not errors, f"CSP violations: {errors}")
    finally:
        browser.quit()
finally:
    for process in processes:
        process.terminate()
    for process in processes:
        process.wait()
    subprocess.run(["rm", "-rf", work])
print(f"wrote {out}/console-keys.png and {out}/console-devices.png")
