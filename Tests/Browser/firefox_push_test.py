#!/usr/bin/env python3
"""A real Firefox ESR's Push API through Herald (docs/web-push.md § Firefox): headless Firefox with
`dom.push.serverURL` on Herald's Web Push port subscribes from a page on localhost, pywebpush sends to the endpoint it
got, and the page's service worker receives the text Firefox decrypted. Also: a message sent while Firefox is offline
arrives when it is back; unsubscribe makes the endpoint answer 410.

Usage: firefox_push_test.py HERALD_BINARY [SCREENSHOT_DIR]   (the page, as webpush-firefox.png)
       firefox_push_test.py HERALD_BINARY --latency N           (instead: N pushes one after another, each from
                                                                 pywebpush's POST to the service worker's event; p50/p99)
Run with a Python that has Tests/Clients/requirements-webpush.txt (pywebpush, marionette_driver); needs firefox-esr.
"""
import base64
import functools
import http.server
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time

from cryptography.hazmat.primitives import serialization
from marionette_driver.marionette import Marionette
from py_vapid import Vapid
from pywebpush import WebPushException, webpush

PAGE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "webpush-page")


class Check:
    failures = 0

    def __call__(self, condition, what):
        print(("ok - " if condition else "not ok - ") + what, flush=True)
        if not condition:
            Check.failures += 1


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait(condition, timeout, what):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.1)
    raise SystemExit(f"timed out waiting for {what}")


def start_gateway(herald, work):
    ready = os.path.join(work, "ready.json")
    # Plaintext, so Firefox reaches the push port as ws:// (dom.push.testing.allowInsecureServerURL); with TLS it
    # would need Herald's CA in its profile (docs/web-push.md says how).
    serve = subprocess.Popen([herald, "serve", "--ephemeral", "--plaintext", "--quiet", "--ready-file", ready],
                             stdout=subprocess.DEVNULL, stderr=open(os.path.join(work, "serve.log"), "w"))
    wait(lambda: os.path.exists(ready), 20, "herald serve's ready file")
    with open(ready) as file:
        return serve, json.load(file)


class QuietPageHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *arguments):
        pass


def serve_page(port):
    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), functools.partial(QuietPageHandler, directory=PAGE))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def start_firefox(work, push_url, marionette_port):
    profile = os.path.join(work, "profile")
    os.makedirs(profile, exist_ok=True)
    preferences = {
        "dom.push.serverURL": push_url,
        "dom.push.testing.allowInsecureServerURL": True,
        "dom.push.connection.enabled": True,  # Marionette turns it off unless the profile sets it
        "permissions.default.desktop-notification": 1,  # headless Firefox asks no one
        "dom.push.maxQuotaPerSubscription": 100000,  # pushes without a notification would use up the quota
        "marionette.port": marionette_port,
        "browser.shell.checkDefaultBrowser": False,
        "datareporting.policy.dataSubmissionEnabled": False,
        "browser.aboutwelcome.enabled": False,
        "app.update.disabledForTesting": True,
    }
    with open(os.path.join(profile, "user.js"), "w") as file:
        for name, value in preferences.items():
            file.write(f"user_pref({json.dumps(name)}, {json.dumps(value)});\n")
    firefox = subprocess.Popen(["firefox-esr", "--headless", "--marionette", "-remote-allow-system-access", "--no-remote", "--profile", profile],
                               stdout=open(os.path.join(work, "firefox.log"), "w"), stderr=subprocess.STDOUT)

    def reachable():
        try:
            socket.create_connection(("127.0.0.1", marionette_port), timeout=0.5).close()
            return True
        except OSError:
            return False

    wait(reachable, 60, "Firefox's Marionette port")
    client = Marionette(host="127.0.0.1", port=marionette_port)
    client.start_session()
    return firefox, client


def main():
    herald = os.path.abspath(sys.argv[1])
    latency = int(sys.argv[3]) if len(sys.argv) > 3 and sys.argv[2] == "--latency" else None
    screenshot = os.path.join(sys.argv[2], "webpush-firefox.png") if len(sys.argv) > 2 and latency is None else None
    if not shutil.which("firefox-esr"):
        raise SystemExit("firefox-esr is not installed (apt-get install firefox-esr)")
    check = Check()
    with tempfile.TemporaryDirectory() as work:
        serve, ready = start_gateway(herald, work)
        page_port = free_port()
        page = serve_page(page_port)
        firefox = None
        try:
            push_url = "ws://localhost:%d/" % ready["webPushPort"]
            firefox, client = start_firefox(work, push_url, free_port())
            if latency:
                measure(ready, client, page_port, latency)
            else:
                run(herald, ready, client, page_port, screenshot, check)
            client.delete_session()
        finally:
            if firefox:
                firefox.terminate()
                firefox.wait(timeout=30)
            page.shutdown()
            serve.terminate()
            serve.wait(timeout=30)
    if Check.failures:
        raise SystemExit(f"{Check.failures} check(s) failed")


def subscribe(client, page_port):
    """Opens the page, which subscribes with a fresh VAPID key: the key, and the page's state reader."""
    vapid = Vapid()
    vapid.generate_keys()
    key = base64.urlsafe_b64encode(vapid.public_key.public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)).rstrip(b"=").decode()
    client.navigate(f"http://localhost:{page_port}/index.html?key={key}")
    page = lambda: client.execute_script("return JSON.parse(JSON.stringify(window.wrappedJSObject.herald || null))")
    return vapid, page


def measure(ready, client, page_port, count):
    """Push → service worker latency: each push sent when the one before arrived (pywebpush over HTTP/1.1 with TLS off,
    Herald's commit, the WebSocket, Firefox's decryption, the service worker's postMessage to the page)."""
    vapid, page = subscribe(client, page_port)
    subscription = wait(lambda: (page() or {}).get("subscription"), 40, "the page's subscription")
    import requests
    session = requests.Session()
    times = []
    for index in range(count):
        text = f"push {index}"
        start = time.monotonic()
        webpush(subscription, text, vapid_private_key=vapid, vapid_claims={"sub": "mailto:ops@example.com"}, ttl=60, timeout=10,
                requests_session=session)
        while not client.execute_script("return window.wrappedJSObject.herald.received.some((m) => m.text === arguments[0])",
                                        script_args=[text]):
            time.sleep(0.002)
        times.append((time.monotonic() - start) * 1000)
    times.sort()
    pick = lambda q: times[min(len(times) - 1, int(q * len(times)))]
    print(f"push -> service worker: p50 {pick(0.5):.1f} ms, p99 {pick(0.99):.1f} ms, max {times[-1]:.1f} ms over {count} pushes")


def run(herald, ready, client, page_port, screenshot, check):
    vapid, page = subscribe(client, page_port)
    state = wait(lambda: (lambda s: s if s and (s["subscription"] or s["error"]) else None)(page()), 40, "the page's subscription")
    check(state["error"] is None, "Firefox subscribes through Herald: " + str(state["error"]))
    subscription = state["subscription"]
    web_push = ready["webPush"]
    check(subscription["endpoint"].startswith(web_push + "/push/"), "its endpoint is on Herald's Web Push port: " + subscription["endpoint"])

    def send(text, **options):
        return webpush(subscription, text, vapid_private_key=vapid, vapid_claims={"sub": "mailto:ops@example.com"}, ttl=600,
                       timeout=10, **options)

    def received(text, timeout=20):
        """Whether the page's service worker got `text` within `timeout` seconds."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if any(message["text"] == text for message in page()["received"]):
                return True
            time.sleep(0.1)
        return False

    start = time.monotonic()
    check(send("Your order has shipped").status_code == 201, "pywebpush: 201")
    arrived = received("Your order has shipped")
    print(f"# push → service worker: {1000 * (time.monotonic() - start):.0f} ms", flush=True)
    check(arrived, "the service worker gets the text Firefox decrypted")
    send("Ünïcödé ✓ and a second one")
    check(received("Ünïcödé ✓ and a second one"), "a second message, not ASCII, arrives intact")
    token = subscription["endpoint"].rsplit("/", 1)[1]

    def states():
        lines = subprocess.run([herald, "webpush", "show", "--data-dir", ready["dataDir"], "--json", token],
                               capture_output=True, text=True).stdout.splitlines()
        return [json.loads(line)["state"] for line in lines]

    check(wait(lambda: states() and all(state == "delivered" for state in states()), 10, "deliveries recorded"),
          "both are marked delivered in the delivery log (Firefox acknowledged them)")

    # Offline: the message is kept and sent when Firefox is back (its hello names the same uaid).
    client.set_context(client.CONTEXT_CHROME)
    client.execute_script("Services.io.offline = true;")
    time.sleep(1)
    check(send("Sent while you were offline").status_code == 201, "a message to an offline Firefox is accepted")
    check(states()[0] == "pending", "it waits in the store while Firefox is away")
    client.execute_script("Services.io.offline = false;")
    client.set_context(client.CONTEXT_CONTENT)
    check(received("Sent while you were offline", timeout=60), "it arrives once Firefox is back online")
    if screenshot:
        with open(screenshot, "wb") as file:
            file.write(base64.b64decode(client.screenshot(full=False)))

    # Unsubscribe: the endpoint answers 410 from then on.
    check(client.execute_async_script("window.wrappedJSObject.unsubscribe().then(arguments[0])") is True, "unsubscribe() resolves true")
    try:
        send("after unsubscribe")
        check(False, "after unsubscribe the endpoint answers 410 Unregistered (it answered 201)")
    except WebPushException as error:
        check(error.response.status_code == 410 and error.response.json().get("reason") == "Unregistered",
              "after unsubscribe the endpoint answers 410 Unregistered")


if __name__ == "__main__":
    main()
