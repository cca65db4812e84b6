"""scripts/bench-activity.sh: a provider's Live Activity update → the activity redrawn on the notification center page.

Usage: bench-activity.py HERALD_BINARY COUNT INTERVAL_MS [widget]

Starts `herald serve`, a delivery app with NSSupportsLiveActivities and `herald device --ui-port 0`, starts one
activity by push-to-start (asking for its own token), opens the page in headless Chromium, then sends COUNT updates to
the activity's token one at a time over one HTTP/2 connection (httpx) at priority 5 (priority 10 has iOS's budget of
15 updates an hour, 120 with frequent updates, and the rest would be dropped), each timed from just before its request to
the moment the page's card shows it (a MutationObserver's wall clock, the same machine's). Prints p50, p90, p99, max.
With `widget`, the app is Examples/Delivery (its DeliveryWidget beside HERALD_BINARY): its widget extension draws each
update before the page shows it.
"""
import json, os, shutil, socket, subprocess, sys, tempfile, threading, time, urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Tests", "Browser"))
from notification_center_test import finish  # noqa: E402  (the walks' own clean-up)

import httpcore.backends.sync
import httpx
from selenium import webdriver
from selenium.webdriver.chrome.service import Service

herald, count, interval = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]) / 1000
widget = sys.argv[4:] == ["widget"]
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
APP = "com.example.delivery"
# httpx leaves Nagle's algorithm on: its HEADERS and DATA frames, written apart, would wait for the gateway's delayed
# ACK (40 ms) on every request. APNs clients that matter (and h2load, and herald send) set TCP_NODELAY; so does this.
_connect_tcp = httpcore.backends.sync.SyncBackend.connect_tcp


def _connect_tcp_without_delay(self, *args, **kwargs):
    stream = _connect_tcp(self, *args, **kwargs)
    stream._sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return stream


httpcore.backends.sync.SyncBackend.connect_tcp = _connect_tcp_without_delay

PROBE = """
window.redrawn = {};
new MutationObserver(() => {
  for (const card of document.querySelectorAll('#activities .activity')) {
    const match = card.textContent.match(/update (\\d+)/);
    if (match && !(match[1] in window.redrawn)) window.redrawn[match[1]] = Date.now();
  }
}).observe(document, { childList: true, subtree: true, characterData: true });
"""


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


events = []


def drain(process):
    """Reads the daemon's JSON lines all along: a full pipe would stall the daemon's every print."""
    for line in process.stdout:
        try:
            event = json.loads(line)
        except ValueError:
            continue
        event["_read"] = time.time() * 1000
        events.append(event)


def lines_until(process, match, timeout=30):
    deadline = time.time() + timeout
    while time.time() < deadline:
        for event in list(events):
            if match(event):
                return event
        time.sleep(0.02)
    raise SystemExit("the daemon never said it")


work = tempfile.mkdtemp(prefix="herald-bench-activity-")
processes, driver = [], None
try:
    run = lambda *arguments: subprocess.run([herald, *arguments], check=True, capture_output=True, text=True)
    gateway, device = os.path.join(work, "gateway"), os.path.join(work, "device")
    provider, device_port, console = free_port(), free_port(), free_port()
    key = os.path.join(work, "key.p8")
    run("keys", "create", "--data-dir", gateway, "--team-id", "BENCHTEAM1", "--key-id", "BENCHKEY01", "--topic", APP, "--out", key)
    processes.append(subprocess.Popen([herald, "serve", "--data-dir", gateway, "--provider-port", str(provider), "--device-port", str(device_port),
                                       "--console-port", str(console), "--channels-port", "0", "--webpush-port", "0", "--quiet"], stderr=subprocess.DEVNULL))
    for _ in range(300):
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{console}/healthz", timeout=1)
            break
        except OSError:
            time.sleep(0.05)
    if widget:
        run("apps", "install", os.path.join(ROOT, "Examples", "Delivery", "Delivery.app"), "--executable-dir", os.path.dirname(herald),
            "--data-dir", device)
    else:
        bundle = os.path.join(work, "Delivery.app")
        os.makedirs(bundle)
        with open(os.path.join(bundle, "Info.plist"), "w") as file:
            file.write(f'<?xml version="1.0"?><plist version="1.0"><dict><key>CFBundleIdentifier</key><string>{APP}</string>'
                       '<key>CFBundleExecutable</key><string>app</string><key>NSSupportsLiveActivities</key><true/></dict></plist>')
        with open(os.path.join(bundle, "app"), "w") as file:
            file.write("#!/bin/sh\n")
        os.chmod(os.path.join(bundle, "app"), 0o755)
        run("apps", "install", bundle, "--data-dir", device)
    ca = os.path.join(gateway, "tls", "ca.pem")
    daemon = subprocess.Popen([herald, "device", "--gateway", f"https://localhost:{device_port}", "--ca", ca, "--data-dir", device,
                               "--ui-port", "0", "--json"], stdout=subprocess.PIPE, stderr=open(os.path.join(work, "device.log"), "w"), text=True)
    processes.append(daemon)
    threading.Thread(target=drain, args=(daemon,), daemon=True).start()
    page = lines_until(daemon, lambda e: e.get("event") == "notificationCenter")["url"]
    push_to_start = lines_until(daemon, lambda e: e.get("kind") == "pushToStart")["deviceToken"]
    jwt = run("jwt", "--p8", key, "--key-id", "BENCHKEY01", "--team-id", "BENCHTEAM1").stdout.strip()
    client = httpx.Client(http2=True, verify=ca, base_url=f"https://localhost:{provider}")
    headers = {"authorization": f"bearer {jwt}", "apns-topic": APP + ".push-type.liveactivity", "apns-push-type": "liveactivity",
               "apns-priority": "5"}
    now = int(time.time())

    def push(token, aps):
        reply = client.post(f"/3/device/{token}", headers=headers, content=json.dumps({"aps": aps}))
        if reply.status_code != 200:
            raise SystemExit(f"the push got {reply.status_code} {reply.text}")

    push(push_to_start, {"event": "start", "timestamp": now, "attributes-type": "DeliveryAttributes", "attributes": {"name": "Order"},
                         "content-state": {"progress": 0, "status": "update 0", "eta": "soon"}, "alert": "Started", "input-push-token": 1})
    token = lines_until(daemon, lambda e: e.get("kind") == "activity")["deviceToken"]

    options = webdriver.ChromeOptions()
    for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage"]:
        options.add_argument(argument)
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    driver = webdriver.Chrome(service=Service(shutil.which("chromedriver") or "/usr/bin/chromedriver"), options=options)
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": PROBE})
    driver.get(page)
    deadline = time.time() + 20
    while time.time() < deadline and not driver.execute_script("return document.querySelector('#activities .activity') !== null"):
        time.sleep(0.05)

    sent, answered = {}, {}
    for index in range(1, count + 1):
        sent[index] = time.time() * 1000
        push(token, {"event": "update", "timestamp": now + index, "content-state": {"progress": index / count, "status": f"update {index}", "eta": "soon"}})
        answered[index] = time.time() * 1000 - sent[index]
        # One round trip to the page: it answers once the card shows this update (or after 10 s).
        redrawn = driver.execute_async_script(
            "const [index, done] = arguments; const start = Date.now();"
            "(function wait() { if (index in window.redrawn || Date.now() - start > 10000) done(index in window.redrawn); else setTimeout(wait, 1); })();",
            str(index))
        if not redrawn:
            raise SystemExit(f"update {index} was not redrawn within 10 s; the daemon said:\n" + open(os.path.join(work, "device.log")).read()[-2000:])
        time.sleep(interval)
    redrawn = driver.execute_script("return window.redrawn")
    latencies = sorted(redrawn[str(i)] - sent[i] for i in range(1, count + 1) if str(i) in redrawn)
    if len(latencies) < count:
        raise SystemExit(f"only {len(latencies)} of {count} updates were redrawn")
    at = lambda q: latencies[min(len(latencies) - 1, int(q * len(latencies)))]
    daemon_seen = {}
    for event in events:
        status = (event.get("state") or {}).get("status", "")
        if event.get("event") == "activity" and status.startswith("update "):
            daemon_seen.setdefault(int(status.split()[1]), event["_read"])
    to_daemon = sorted(daemon_seen[i] - sent[i] for i in range(1, count + 1) if i in daemon_seen)
    answers = sorted(answered.values())
    print(f"(the provider's answer: p50 {answers[len(answers) // 2]:.1f} ms)")
    if to_daemon:
        print(f"(of which push → the daemon's JSON line read here: p50 {to_daemon[len(to_daemon) // 2]:.1f} ms)")
    problems = [line.strip() for line in open(os.path.join(work, "device.log")) if "widget" in line]
    if problems:
        print(f"(the daemon said, {len(problems)} times: {problems[0][:400]})")
    print(f"push → activity redrawn on the page{' by its widget extension' if widget else ''}, {count} updates: p50 {at(0.5):.1f} ms, p90 {at(0.9):.1f} ms, "
          f"p99 {at(0.99):.1f} ms, max {latencies[-1]:.1f} ms")
finally:
    finish(driver, processes, work, failed=False)
