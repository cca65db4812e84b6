#!/usr/bin/env python3
"""The console and the browser device in a real headless Chromium, against a real `herald serve`.

Usage: console_test.py HERALD_BINARY [SCREENSHOT_DIR]

Starts the gateway on free ports in a temporary data directory and checks, as a person would: every console API
refuses an anonymous request; signing in; a browser device in one tab gets a token, a push sent from the send form in
another tab shows as a card within a second; clicking an action and replying shows in the delivery log; the copied
curl line returns 200 when run; the validators give the gateway's reasons for bad JWTs. Screenshots of each page go
to SCREENSHOT_DIR (docs/images refreshes the documentation's). Exits non-zero on the first failure.
"""
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as ready
from selenium.webdriver.support.ui import WebDriverWait

TOPIC = "com.example.chat"

# Every console API, as (method, path): anonymous requests to each must be refused with 401.
CONSOLE_APIS = [
    ("GET", "/v1/session"), ("GET", "/v1/events"), ("GET", "/v1/devices"), ("GET", "/v1/apps"),
    ("PUT", "/v1/apps/com.example.chat"), ("GET", "/v1/notifications/01a2025f-661a-7c6b-90ce-a0d495582c4d"),
    ("POST", "/v1/validate/jwt"), ("GET", "/v1/validate/token/" + "ab" * 32), ("POST", "/v1/send"),
    ("POST", "/v1/send/commands"), ("POST", "/v1/check"), ("GET", "/v1/send/options"), ("GET", "/v1/keys"),
    ("POST", "/v1/keys"), ("POST", "/v1/keys/import"), ("POST", "/v1/keys/TEAM123456/KEY1234567/revoke"),
    ("POST", "/v1/tokens"), ("POST", "/v1/tokens/" + "ab" * 32 + "/unregister"),
]
PAGES = ["/", "/devices", "/device", "/validators", "/dashboard", "/keys"]


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def request(method, url, token=None, body=None):
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    data = json.dumps(body).encode() if body is not None else (b"" if method in ("POST", "PUT") else None)
    req = urllib.request.Request(url, data=data, method=method, headers=headers)

    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args):
            return None

    try:
        with urllib.request.build_opener(NoRedirect).open(req, timeout=10) as reply:
            return reply.status, reply.headers, reply.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers, error.read()


class Check:
    def __init__(self):
        self.count = 0

    def __call__(self, condition, message):
        self.count += 1
        if not condition:
            raise AssertionError(message)
        print(f"ok - {message}")


def main():
    herald = os.path.abspath(sys.argv[1])
    shots = sys.argv[2] if len(sys.argv) > 2 else tempfile.mkdtemp(prefix="herald-shots-")
    os.makedirs(shots, exist_ok=True)
    data = tempfile.mkdtemp(prefix="herald-browser-")
    ports = {"provider": free_port(), "device": free_port(), "console": free_port()}
    log = open(os.path.join(data, "serve.log"), "w")
    gateway = subprocess.Popen(
        [herald, "serve", "--data-dir", data, "--provider-port", str(ports["provider"]), "--device-port",
         str(ports["device"]), "--console-port", str(ports["console"]), "--channels-port", "0", "--webpush-port", "0"], stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{ports['console']}"
    check = Check()
    driver = None
    try:
        for _ in range(100):
            try:
                if request("GET", base + "/healthz")[0] == 200:
                    break
            except OSError:
                pass
            time.sleep(0.1)
        admin = open(os.path.join(data, "admin-token")).read().strip()

        for method, path in CONSOLE_APIS:
            status = request(method, base + path)[0]
            check(status == 401, f"anonymous {method} {path} is refused ({status})")
        for page in PAGES:
            status, headers, _ = request("GET", base + page)
            check(status == 303 and headers["Location"].startswith("/sign-in"), f"anonymous {page} goes to sign-in")

        options = webdriver.ChromeOptions()
        for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,1000"]:
            options.add_argument(argument)
        options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
        driver = webdriver.Chrome(service=Service(shutil.which("chromedriver") or "/usr/bin/chromedriver"), options=options)
        # Pages redraw their tables as messages arrive: an element read in between is stale, and is read again.
        wait = WebDriverWait(driver, 10, ignored_exceptions=[StaleElementReferenceException])
        find = driver.find_element

        driver.get(base + "/sign-in")
        driver.save_screenshot(os.path.join(shots, "console-sign-in.png"))
        find(By.ID, "token").send_keys("not the token")
        find(By.CSS_SELECTOR, "button[type=submit]").click()
        wait.until(ready.visibility_of_element_located((By.ID, "failed")))
        check("neither the admin token" in find(By.ID, "failed").text, "a wrong token is said on the form")
        driver.get(base + "/device")
        find(By.ID, "token").send_keys(admin)
        find(By.CSS_SELECTOR, "button[type=submit]").click()
        wait.until(ready.url_to_be(base + "/device"))
        check(True, "signing in returns to the page asked for (/device)")

        # The browser device: online, an app registered, its token shown.
        wait.until(ready.text_to_be_present_in_element((By.ID, "link-state"), "Online"))
        find(By.ID, "topic").send_keys(TOPIC)
        find(By.CSS_SELECTOR, "#add-app button").click()
        wait.until(lambda d: len(d.find_element(By.CSS_SELECTOR, "#apps td.token > div:first-child").text) == 64)
        device_token = find(By.CSS_SELECTOR, "#apps td.token > div:first-child").text
        check(True, f"the browser device got a token for {TOPIC}")
        devices = json.loads(request("GET", base + "/v1/devices", token=admin)[2])["devices"]
        check(any(d["browser"] and d["online"] and d["apps"][0]["deviceToken"] == device_token for d in devices if d["apps"]),
              "the devices list marks the browser device, online, with its token")
        device_tab = driver.current_window_handle

        # The send form in a second tab.
        driver.switch_to.new_window("tab")
        send_tab = driver.current_window_handle
        driver.get(base + "/")
        wait.until(lambda d: d.find_element(By.ID, "check").text.startswith("Valid"))
        find(By.ID, "deviceToken").send_keys(device_token)
        find(By.ID, "topic").send_keys(TOPIC)
        payload = find(By.ID, "payload")
        payload.clear()
        payload.send_keys('{"aps":{"alert":{"title":"Ada","subtitle":"Lunch","body":"Are we still on for 12:30?"},'
                          '"category":"MESSAGE"}}')
        find(By.ID, "collapseID").send_keys("lunch")
        clicked_at = driver.execute_script("return Date.now()")
        find(By.ID, "submit").click()
        wait.until(ready.text_to_be_present_in_element((By.ID, "outcome"), "Accepted"))
        outcome = find(By.ID, "outcome").text
        unique_id = outcome.split("apns-unique-id")[1].split()[0]
        check("200" in outcome, f"the send form's push is accepted ({unique_id})")

        # The card on the device, within a second of the click.
        driver.switch_to.window(device_tab)
        card = wait.until(ready.presence_of_element_located((By.CSS_SELECTOR, '.card[data-identifier="lunch"]')))
        elapsed = int(card.get_attribute("data-shown-at")) - clicked_at
        check(elapsed < 1000, f"the card shows on the browser device {elapsed} ms after the click")
        check("Are we still on for 12:30?" in card.text and "Ada" in card.text, "the card shows title and body")

        # The same collapse id again: the card is replaced, not added.
        driver.switch_to.window(send_tab)
        payload = find(By.ID, "payload")
        payload.clear()
        payload.send_keys('{"aps":{"alert":{"title":"Ada","subtitle":"Lunch","body":"Make it 13:00?"},"category":"MESSAGE"}}')
        find(By.ID, "submit").click()
        wait.until(ready.text_to_be_present_in_element((By.ID, "outcome"), "Accepted"))
        unique_id = find(By.ID, "outcome").text.split("apns-unique-id")[1].split()[0]
        driver.switch_to.window(device_tab)
        wait.until(lambda d: "13:00" in d.find_element(By.CSS_SELECTOR, '.card[data-identifier="lunch"]').text)
        check(len(driver.find_elements(By.CSS_SELECTOR, ".card")) == 1, "a notification with the same collapse id replaces the card")
        card = find(By.CSS_SELECTOR, '.card[data-identifier="lunch"]')
        card.click()
        wait.until(lambda d: d.find_element(By.CSS_SELECTOR, ".card .actions").is_displayed())
        driver.save_screenshot(os.path.join(shots, "console-browser-device.png"))
        find(By.XPATH, '//div[@class="actions"]/button[text()="Reply"]').click()
        find(By.CSS_SELECTOR, ".card .reply input").send_keys("Yes, see you there")
        find(By.CSS_SELECTOR, ".card .reply button").click()
        wait.until(lambda d: not d.find_elements(By.CSS_SELECTOR, '.card[data-identifier="lunch"]'))

        # Two messages of one thread stack on the device as iOS 12 groups them: the newest, and a line for the rest.
        def send_from_form(payload, collapse_id):
            """Sends `payload` with the send form in the other tab and waits for the gateway's 200."""
            driver.switch_to.window(send_tab)
            field = find(By.ID, "payload")
            field.clear()
            field.send_keys(payload)
            collapse = find(By.ID, "collapseID")
            collapse.clear()
            collapse.send_keys(collapse_id)
            before = find(By.ID, "outcome").text
            find(By.ID, "submit").click()
            wait.until(lambda d: d.find_element(By.ID, "outcome").text != before and "Accepted" in d.find_element(By.ID, "outcome").text)

        for number, who in enumerate(["Bob", "Carol"]):
            send_from_form('{"aps":{"alert":{"title":"%s","body":"Message %d","summary-arg":"%s"},"thread-id":"team"}}' % (who, number, who),
                           f"team-{number}")
        driver.switch_to.window(device_tab)
        line = wait.until(lambda d: d.find_element(By.CSS_SELECTOR, ".stack-line"))
        visible = [card.get_attribute("data-identifier") for card in driver.find_elements(By.CSS_SELECTOR, ".card") if card.is_displayed()]
        check(line.text == "1 more notification from Bob" and visible == ["team-1"], f"a thread's two cards stack ({line.text}, {visible})")
        line.click()
        check(wait.until(lambda d: len([c for c in d.find_elements(By.CSS_SELECTOR, ".card") if c.is_displayed()]) == 2),
              "clicking the line opens the group")

        # The device's Focus: an active notification is silenced (listed, tagged), a time-sensitive one breaks through.
        find(By.ID, "focus").click()
        for level in ["active", "time-sensitive"]:
            send_from_form('{"aps":{"alert":{"title":"Focus test","body":"%s"},"interruption-level":"%s"}}' % (level, level), f"focus-{level}")
        driver.switch_to.window(device_tab)
        silenced = wait.until(lambda d: d.find_element(By.CSS_SELECTOR, '.card[data-identifier="focus-active"] .tag'))
        urgent = wait.until(lambda d: d.find_element(By.CSS_SELECTOR, '.card[data-identifier="focus-time-sensitive"] .tag'))
        # (The two are one stack: the older card is hidden, so its text is read from the document.)
        silenced, urgent = silenced.get_attribute("textContent"), urgent.get_attribute("textContent")
        check(silenced == "Silenced by Do Not Disturb" and urgent == "Time Sensitive",
              f"the Focus silences the active one and lets the time-sensitive one through ({silenced}; {urgent})")
        find(By.ID, "focus").click()

        # The device's scheduled summary: active notifications wait for it, a time-sensitive one comes at once; turned
        # off, it delivers what it held as one summary, most relevant first.
        find(By.ID, "summary").click()
        for name, extra in [("digest-low", '"relevance-score":0.1'), ("digest-high", '"relevance-score":0.9'), ("digest-now", '"interruption-level":"time-sensitive"')]:
            send_from_form('{"aps":{"alert":{"title":"%s","body":"summary test"},%s}}' % (name, extra), name)
        driver.switch_to.window(device_tab)
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, '.card[data-identifier="digest-now"]'))
        check(not driver.find_elements(By.CSS_SELECTOR, '.card[data-identifier^="digest-low"], .card[data-identifier^="digest-high"]'),
              "while the summary is on, active notifications wait; the time-sensitive one is shown")
        find(By.ID, "summary").click()
        card = wait.until(lambda d: d.find_element(By.ID, "summary-card") if d.find_element(By.ID, "summary-card").is_displayed() else None)
        highlights = [h.find_element(By.TAG_NAME, "strong").text for h in card.find_elements(By.CSS_SELECTOR, ".highlight")]
        check("2 notifications" in card.text and highlights == ["digest-high", "digest-low"], f"turned off, it delivers them as one summary ({highlights})")
        check(wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, '.card[data-identifier^="digest-"]')) == 3), "and lists them")
        driver.save_screenshot(os.path.join(shots, "console-browser-device-summary.png"))

        # The reply in the delivery log: the page finds the notification and its timeline says what was answered.
        driver.get(f"{base}/log?q={unique_id}")
        row = wait.until(ready.element_to_be_clickable((By.CSS_SELECTOR, "#log tbody tr")))
        row.click()
        wait.until(lambda d: "Yes, see you there" in d.find_element(By.ID, "log").text)
        check("REPLY" in find(By.ID, "log").text, "the reply is in the delivery log's timeline")
        driver.save_screenshot(os.path.join(shots, "console-log-response.png"))
        driver.get(base + "/device")  # the device again, online for the token validator below
        wait.until(ready.text_to_be_present_in_element((By.ID, "link-state"), "Online"))

        # Back on the send form: the same request as a curl line, run; then a broken payload, flagged live.
        driver.switch_to.window(send_tab)
        find(By.ID, "copy-curl").click()
        wait.until(lambda d: d.find_element(By.ID, "command-text").text.startswith("curl"))
        curl = find(By.ID, "command-text").text
        run = subprocess.run(["bash", "-c", curl], capture_output=True, text=True, timeout=30)
        check(run.stdout.startswith("HTTP/2 200"), f"the copied curl line gets 200 when run ({run.stdout[:40]!r})")

        # A broken payload is flagged live, with where the error is.
        payload = find(By.ID, "payload")
        payload.send_keys(Keys_BACKSPACE * 2)
        wait.until(lambda d: "line 1" in d.find_element(By.ID, "check").text)
        check("BadPayload" in find(By.ID, "check").text, "a broken payload is flagged with its line and column")
        driver.save_screenshot(os.path.join(shots, "console-send.png"))

        # The validators give the provider API's reasons.
        demo = os.path.join(data, "quickstart", "development", "AuthKey_DEMOKEY001.p8")
        now = int(time.time())
        jwt = lambda issued: subprocess.run(
            [herald, "jwt", "generate", "--p8", demo, "--key-id", "DEMOKEY001", "--team-id", "DEMOTEAM01",
             "--issued-at", str(issued)], capture_output=True, text=True, check=True).stdout.strip()
        driver.get(base + "/validators")
        for token, expected in [(jwt(now), "200"), (jwt(now - 3700), "403 ExpiredProviderToken"),
                                (jwt(now + 3600), "403 InvalidProviderToken"), ("not.a.jwt", "403 InvalidProviderToken")]:
            box = wait.until(ready.presence_of_element_located((By.ID, "jwt")))
            box.clear()
            box.send_keys(token)
            find(By.CSS_SELECTOR, "#jwt-form button").click()
            wait.until(lambda d: d.find_element(By.ID, "jwt-result").text.startswith(expected))
            check(True, f"the JWT validator answers {expected}")
            if expected.endswith("ExpiredProviderToken"):
                driver.save_screenshot(os.path.join(shots, "console-validators.png"))
        find(By.ID, "device-token").send_keys(device_token)
        find(By.CSS_SELECTOR, "#token-form button").click()
        wait.until(lambda d: TOPIC in d.find_element(By.ID, "token-result").text)
        check("online" in find(By.ID, "token-result").text, "the token validator names the app and the online device")

        # Some traffic for the metrics: the curl line again and again, and pushes to a token nobody has.
        traffic = subprocess.Popen(["bash", "-c", f"for i in $(seq 60); do {curl} "
                                    f">/dev/null; {curl.replace(device_token, 'ab' * 32)} >/dev/null; sleep 0.05; done"])
        driver.get(base + "/dashboard")
        time.sleep(3)
        driver.save_screenshot(os.path.join(shots, "console-metrics.png"))
        traffic.wait(timeout=60)
        check("200 accepted" in find(By.ID, "answers").text and "BadDeviceToken" in find(By.ID, "answers").text,
              "the metrics page shows answers by reason")

        driver.set_window_size(390, 844)
        driver.get(base + "/device")
        wait.until(ready.text_to_be_present_in_element((By.ID, "link-state"), "Online"))
        driver.save_screenshot(os.path.join(shots, "console-browser-device-phone.png"))
        print(f"{check.count} checks passed; screenshots in {shots}")
    except Exception:
        log.flush()
        print(open(os.path.join(data, "serve.log")).read()[-3000:], file=sys.stderr)
        if driver:
            for entry in driver.get_log("browser"):
                print("browser:", entry, file=sys.stderr)
        raise
    finally:
        if driver:
            driver.quit()
        gateway.terminate()
        gateway.wait(timeout=20)
        shutil.rmtree(data, ignore_errors=True)


Keys_BACKSPACE = "\ue003"

if __name__ == "__main__":
    main()
