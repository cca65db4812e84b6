#!/usr/bin/env python3
"""The console's Web Push page and web pushes in the delivery log, in headless Chromium against a real `herald serve`.

    webpush_console_test.py HERALD_BINARY [SCREENSHOT_DIR]   # scripts/test.sh runs it; scripts/console-screenshots.sh passes docs/images

A virtual subscriber (`herald webpush subscribe`) gets a message from `herald webpush send`: the log lists it as push
type webpush, and its timeline shows the sender's VAPID subject, urgency, TTL, topic and the text decrypted with the
subscriber's keys. A message with a `sub` Apple refuses (`mailto:…@localhost`) is answered 403 BadJwtToken: the Web Push
page lists it, live, with the check that failed; its form checks a pasted header and names the rule it breaks. Any
step that does not happen fails the script.
"""
import json, os, subprocess, sys, tempfile, time, urllib.request
from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

from notification_center_test import free_port

herald = os.path.abspath(sys.argv[1])
shots = sys.argv[2] if len(sys.argv) > 2 else tempfile.mkdtemp(prefix="herald-shots-")
console_port, push_port = free_port(), free_port()
work = tempfile.mkdtemp(prefix="herald-webpush-page.")
data = f"{work}/data"


def herald_run(*arguments, check=True):
    return subprocess.run([herald, *arguments], check=check, capture_output=True, text=True)


def send(text, subject, *options):
    with open(f"{work}/message.txt", "w") as message:
        message.write(text)
    return herald_run("webpush", "send", f"{work}/subscription.json", "--vapid", f"{work}/vapid.pem", "--subject", subject,
                      "--ca", f"{data}/tls/ca.pem", *options, f"{work}/message.txt", check=False)


server = None
try:
    key = herald_run("webpush", "vapid", "--out", f"{work}/vapid.pem").stdout.strip()
    subscription = herald_run("webpush", "subscribe", "--data-dir", data, "--gateway", f"https://localhost:{push_port}",
                              "--application-server-key", key, "--app", "shop.example.com").stdout
    with open(f"{work}/subscription.json", "w") as file:
        file.write(subscription)
    token = json.loads(subscription)["endpoint"].rsplit("/", 1)[1]
    server = subprocess.Popen([herald, "serve", "--data-dir", data, "--provider-port", "0", "--device-port", "0",
                               "--console-port", str(console_port), "--channels-port", "0", "--webpush-port", str(push_port),
                               "--quiet"], stderr=subprocess.DEVNULL)
    for _ in range(100):
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{console_port}/healthz")
            break
        except OSError:
            time.sleep(0.1)
    admin_token = open(f"{data}/admin-token").read().strip()
    accepted = send('{"title":"Order 42 shipped","body":"Arrives Tuesday"}', "mailto:orders@shop.example.com",
                    "--urgency", "high", "--topic", "order42x", "--ttl", "3600")
    assert accepted.returncode == 0 and accepted.stdout.startswith("201 Created"), accepted.stdout + accepted.stderr

    options = webdriver.ChromeOptions()
    for flag in ["--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1280,1100"]:
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    browser = webdriver.Chrome(options=options)
    wait = WebDriverWait(browser, 10, ignored_exceptions=[StaleElementReferenceException])
    try:
        browser.get(f"http://127.0.0.1:{console_port}/webpush")
        browser.find_element(By.NAME, "token").send_keys(admin_token + Keys.ENTER)
        wait.until(lambda b: b.current_url.endswith("/webpush") and b.find_element(By.ID, "origin").get_attribute("value"))
        assert browser.find_element(By.ID, "origin").get_attribute("value") == f"https://localhost:{push_port}"

        # A refusal appears as it happens, with the check that failed.
        refused = send("x", "mailto:orders@localhost")
        assert refused.returncode == 1 and "403 BadJwtToken" in refused.stderr, refused.stderr
        wait.until(lambda b: "403 BadJwtToken" in b.find_element(By.ID, "refusals").text)
        table = browser.find_element(By.ID, "refusals").text
        assert "public domain" in table and "mailto:orders@localhost" in table and token[:12] in table, table

        # The form: a pasted curl command whose JWT names localhost is refused for its sub; a bare JWT's claims are
        # checked; a header whose key is not one is named as such.
        curl = send("x", "mailto:orders@localhost", "--dry-run", f"{work}/body.bin").stdout.strip()
        assert curl.startswith("curl ") and "vapid t=" in curl, curl
        checker = browser.find_element(By.ID, "authorization")
        checker.send_keys(curl)
        browser.find_element(By.CSS_SELECTOR, "#check button[type=submit]").click()
        wait.until(lambda b: "403 BadJwtToken" in b.find_element(By.ID, "verdict").text and "public domain" in b.find_element(By.ID, "verdict").text)
        jwt = curl.split("vapid t=")[1].split(",")[0]
        checker.clear()
        checker.send_keys(jwt)
        browser.find_element(By.CSS_SELECTOR, "#check button[type=submit]").click()
        wait.until(lambda b: "403 BadJwtToken" in b.find_element(By.ID, "verdict").text)
        checker.clear()
        checker.send_keys("vapid t=not.a.jwt, k=BAD")
        browser.find_element(By.CSS_SELECTOR, "#check button[type=submit]").click()
        wait.until(lambda b: "BadVapidPublicKey" in b.find_element(By.ID, "verdict").text)
        browser.save_screenshot(os.path.join(shots, "console-webpush.png"))

        # The delivery log: the message is a webpush entry with what its request said and its text.
        browser.get(f"http://127.0.0.1:{console_port}/log?q={token[:8]}")
        wait.until(lambda b: b.find_elements(By.CSS_SELECTOR, "#log tr.entry"))
        row = browser.find_element(By.CSS_SELECTOR, "#log tr.entry")
        assert "webpush" in row.text, row.text
        row.click()
        wait.until(lambda b: "Arrives Tuesday" in b.find_element(By.CSS_SELECTOR, "#log tr.timeline").text)
        timeline = browser.find_element(By.CSS_SELECTOR, "#log tr.timeline").text
        for expected in ["mailto:orders@shop.example.com", "high", "3600 s", "order42x", "Order 42 shipped", "answered 201",
                         "virtual subscriber"]:
            assert expected in timeline, (expected, timeline)
        browser.save_screenshot(os.path.join(shots, "console-log-webpush.png"))

        # The browser device subscribes over its link; a message to its endpoint shows as a card with what the push
        # service saw of it (its keys are nowhere: encrypted for keys made up here, as the gateway cannot tell).
        browser.get(f"http://127.0.0.1:{console_port}/device")
        wait.until(lambda b: "Online" in b.find_element(By.ID, "link-state").text)
        browser.find_element(By.ID, "webpush-subscribe").click()
        wait.until(lambda b: "/push/" in b.find_element(By.ID, "webpush-endpoint").text)
        endpoint = browser.find_element(By.ID, "webpush-endpoint").text.strip()
        assert endpoint.startswith(f"https://localhost:{push_port}/push/"), endpoint
        with open(f"{work}/device-subscription.json", "w") as file:
            json.dump(dict(json.loads(subscription), endpoint=endpoint), file)
        with open(f"{work}/message.txt", "w") as message:
            message.write("for the browser device")
        sent = herald_run("webpush", "send", f"{work}/device-subscription.json", "--vapid", f"{work}/vapid.pem", "--subject",
                          "mailto:orders@shop.example.com", "--ca", f"{data}/tls/ca.pem", "--topic", "order42x", f"{work}/message.txt",
                          check=False)
        assert sent.returncode == 0, sent.stderr
        wait.until(lambda b: "Web Push message" in b.find_element(By.ID, "cards").text)
        card = browser.find_element(By.ID, "cards").text
        assert "encrypted end to end" in card and "topic order42x" in card and "web.browser-device" in card.lower(), card
        browser.save_screenshot(os.path.join(shots, "device-webpush.png"))
        assert "for the browser device" not in card, "the browser device has no keys: the text stays encrypted"
        errors = [entry for entry in browser.get_log("browser") if entry["level"] == "SEVERE"]
        assert not errors, errors
        print(f"the Web Push page and the log's web pushes work; screenshots in {shots}")
    finally:
        browser.quit()
finally:
    if server and server.poll() is None:
        server.terminate()
        server.wait()
    subprocess.run(["rm", "-rf", work])
