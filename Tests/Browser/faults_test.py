#!/usr/bin/env python3
"""The console's fault rules page in headless Chromium against a real `herald serve`, and its screenshot.

    faults_test.py HERALD_BINARY [SCREENSHOT_DIR]   # scripts/test.sh runs it; scripts/console-screenshots.sh passes docs/images

Adds a rule with the page's form (429 for one token), sees it listed; a provider's push to that token gets 429 and the
rule's count of taken requests goes up, while another token's push gets 200; a rule added from the shell (`herald
faults add`) appears within the page's refresh; the delivery log shows the taken request as faulted, with what the
rule did in its timeline; Remove takes a rule away. Any step that does not happen fails the script.
"""
import json, os, subprocess, sys, tempfile, time, urllib.request
from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select, WebDriverWait

from notification_center_test import free_port

herald = os.path.abspath(sys.argv[1])
shots = sys.argv[2] if len(sys.argv) > 2 else tempfile.mkdtemp(prefix="herald-shots-")
provider_port, console_port = free_port(), free_port()
work = tempfile.mkdtemp(prefix="herald-faults-page.")
data = f"{work}/data"


def herald_run(*arguments):
    return subprocess.run([herald, *arguments], check=True, capture_output=True, text=True).stdout.strip()


def send(device):
    with open(f"{work}/payload.json", "w") as payload:
        json.dump({"aps": {"alert": "hello"}}, payload)
    reply = subprocess.run([herald, "send", "--gateway", f"https://localhost:{provider_port}", "--ca", f"{data}/tls/ca.pem", "--p8",
                            f"{work}/key.p8", "--key-id", "KEY1234567", "--team-id", "TEAM123456", "--topic", "com.example.app",
                            "--device", device, f"{work}/payload.json"], capture_output=True, text=True)
    return reply.stdout.splitlines()[0] if reply.stdout else reply.stderr


def rules(browser):
    return [row.text for row in browser.find_elements(By.CSS_SELECTOR, "#rules tbody tr[data-id]")]


server = None
try:
    herald_run("keys", "create", "--data-dir", data, "--team-id", "TEAM123456", "--key-id", "KEY1234567", "--out", f"{work}/key.p8")
    taken = herald_run("tokens", "issue", "--data-dir", data, "--topic", "com.example.app")
    spared = herald_run("tokens", "issue", "--data-dir", data, "--topic", "com.example.app")
    server = subprocess.Popen([herald, "serve", "--data-dir", data, "--provider-port", str(provider_port), "--device-port", "0",
                               "--console-port", str(console_port), "--channels-port", "0", "--webpush-port", "0", "--quiet"], stderr=subprocess.DEVNULL)
    for _ in range(100):
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{console_port}/healthz")
            break
        except OSError:
            time.sleep(0.1)
    admin_token = open(f"{data}/admin-token").read().strip()

    options = webdriver.ChromeOptions()
    for flag in ["--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1280,1100"]:
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    browser = webdriver.Chrome(options=options)
    # The list is redrawn every few seconds: an element read while it is replaced is read again.
    wait = WebDriverWait(browser, 10, ignored_exceptions=[StaleElementReferenceException])
    try:
        browser.get(f"http://127.0.0.1:{console_port}/faults")
        browser.find_element(By.NAME, "token").send_keys(admin_token + Keys.ENTER)
        wait.until(lambda b: b.current_url.endswith("/faults") and b.find_elements(By.CSS_SELECTOR, "#rules tbody td.empty"))
        assert browser.find_element(By.ID, "honoured").get_attribute("hidden") is not None, "a development gateway honours rules"

        # The form: 429 TooManyRequests for one token.
        browser.find_element(By.ID, "match-token").send_keys(taken)
        Select(browser.find_element(By.ID, "answer")).select_by_value("429/TooManyRequests")
        browser.find_element(By.CSS_SELECTOR, "#add button[type=submit]").click()
        wait.until(lambda b: "in force now" in b.find_element(By.ID, "add-answer").text)
        wait.until(lambda b: len(rules(b)) == 1)
        wait.until(lambda b: "answer 429 TooManyRequests" in rules(b)[0] and f"token {taken}" in rules(b)[0] and "every one" in rules(b)[0])

        assert send(taken) == "status: 429", "the rule answers for its token"
        assert send(spared) == "status: 200", "another token is not taken"
        browser.find_element(By.ID, "refresh").click()
        # herald send tries a 429 again, as APNs asks: each try was taken.
        wait.until(lambda b: int(b.find_element(By.CSS_SELECTOR, "#rules tbody tr[data-id] td[data-label=Taken]").text or 0) >= 1)

        # A rule from the shell appears within the page's own refresh.
        shell_rule = herald_run("faults", "add", "--data-dir", data, "--topic", "com.example.app", "--share", "10", "--seed", "3",
                                "--goaway", "Shutdown", "--goaway-after", "5")
        WebDriverWait(browser, 12, ignored_exceptions=[StaleElementReferenceException]).until(lambda b: any(shell_rule in text for text in rules(b)))
        wait.until(lambda b: any("GOAWAY Shutdown after 5 more" in text and "10% (seed 3)" in text for text in rules(b)))
        browser.save_screenshot(os.path.join(shots, "console-faults.png"))

        # The delivery log: the taken request is faulted, with what the rule did.
        browser.get(f"http://127.0.0.1:{console_port}/log?q={taken[:8]}")
        wait.until(lambda b: b.find_elements(By.CSS_SELECTOR, "#log tr.entry"))
        row = browser.find_element(By.CSS_SELECTOR, "#log tr.entry")
        assert "faulted" in row.text, row.text
        row.click()
        wait.until(lambda b: b.find_elements(By.CSS_SELECTOR, "#log tr.timeline ol.steps li"))
        timeline = browser.find_element(By.CSS_SELECTOR, "#log tr.timeline").text
        assert "Taken by a fault rule: answered 429 TooManyRequests" in timeline and "Never delivered" in timeline, timeline
        browser.save_screenshot(os.path.join(shots, "console-log-faulted.png"))

        # Remove takes a rule away.
        browser.get(f"http://127.0.0.1:{console_port}/faults")
        wait.until(lambda b: len(rules(b)) == 2)
        browser.find_element(By.CSS_SELECTOR, f"#rules tr[data-id='{shell_rule}'] button").click()
        wait.until(lambda b: len(rules(b)) == 1)
        assert herald_run("faults", "list", "--data-dir", data, "--json").count("\n") == 0, "one rule left in the store"
        errors = [entry for entry in browser.get_log("browser") if entry["level"] == "SEVERE"]
        assert not errors, errors
        print(f"the fault rules page works; screenshots in {shots}")
    finally:
        browser.quit()
finally:
    if server and server.poll() is None:
        server.terminate()
        server.wait()
    subprocess.run(["rm", "-rf", work])
