"""One run of scripts/bench-center.sh: LISTED notifications delivered, then CHANGES more while the page watches."""
import json, os, shutil, socket, statistics, subprocess, sys, tempfile, time, urllib.request

from selenium import webdriver
from selenium.webdriver.chrome.service import Service

herald, listed, changes = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
TOPIC = "com.example.bench"

# Records every page message on arrival (before the page's own listener) and, for each, when the list changed and
# when the next frame was drawn.
PROBE = """
window.benchMessages = [];
const NativeWebSocket = window.WebSocket;
window.WebSocket = function (...args) {
  const socket = new NativeWebSocket(...args);
  socket.addEventListener("message", (event) => {
    const message = JSON.parse(event.data);
    const record = { type: message.type, bytes: event.data.length, received: performance.now(), count: message.notifications?.length };
    window.benchMessages.push(record);
    window.benchPending = record;
    requestAnimationFrame(() => setTimeout(() => { record.drawn = performance.now(); }));
  });
  return socket;
};
new MutationObserver(() => { if (window.benchPending) { window.benchPending.changed = performance.now(); window.benchPending = null; } })
  .observe(document, { childList: true, subtree: true });
"""


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run(arguments, **kwargs):
    return subprocess.run([herald] + arguments, check=True, capture_output=True, text=True, **kwargs)


work = tempfile.mkdtemp(prefix="herald-bench-center-")
processes = []
try:
    gateway, device = os.path.join(work, "gateway"), os.path.join(work, "device")
    provider, device_port, console = free_port(), free_port(), free_port()
    run(["keys", "create", "--data-dir", gateway, "--team-id", "BENCHTEAM1", "--key-id", "BENCHKEY01", "--out", os.path.join(work, "key.p8")])
    processes.append(subprocess.Popen([herald, "serve", "--data-dir", gateway, "--provider-port", str(provider), "--device-port", str(device_port),
                                       "--console-port", str(console), "--channels-port", "0", "--webpush-port", "0", "--quiet"], stderr=subprocess.DEVNULL))
    deadline = time.time() + 30
    while time.time() < deadline:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{console}/healthz", timeout=1)
            break
        except OSError:
            time.sleep(0.05)
    daemon = subprocess.Popen([herald, "device", "--gateway", f"https://localhost:{device_port}", "--ca", os.path.join(gateway, "tls", "ca.pem"),
                               "--topic", TOPIC, "--data-dir", device, "--ui-port", "0", "--json"],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    processes.append(daemon)
    token = page = None
    while token is None or page is None:
        line = daemon.stdout.readline()
        if not line:
            sys.exit("herald device ended before it registered")
        event = json.loads(line)
        token = event.get("deviceToken", token) if event.get("event") == "registered" else token
        page = event.get("url", page) if event.get("event") == "notificationCenter" else page

    def send(count):
        run(["send", "--gateway", f"https://localhost:{provider}", "--ca", os.path.join(gateway, "tls", "ca.pem"), "--p8", os.path.join(work, "key.p8"),
             "--key-id", "BENCHKEY01", "--team-id", "BENCHTEAM1", "--topic", TOPIC, "--device", token, "--count", str(count), "-"],
            input='{"aps":{"alert":{"title":"Order shipped","body":"Your parcel is on its way and arrives tomorrow."}}}')
        shown = 0
        while shown < count:  # the daemon prints each as presented
            line = daemon.stdout.readline()
            if not line:
                sys.exit("herald device ended")
            shown += json.loads(line).get("event") == "notification"

    send(listed)
    options = webdriver.ChromeOptions()
    for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=520,900"]:
        options.add_argument(argument)
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    driver = webdriver.Chrome(service=Service(shutil.which("chromedriver") or "/usr/bin/chromedriver"), options=options)
    try:
        driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": PROBE})
        driver.get(page)
        listed_now = lambda: driver.execute_script(
            "const m = window.benchMessages.find((m) => m.type === 'notifications'); return m && m.drawn ? m.count : -1;")
        deadline = time.time() + 60
        while listed_now() < 0 and time.time() < deadline:
            time.sleep(0.05)
        if listed_now() != listed:
            sys.exit(f"the page lists {listed_now()} of {listed}")
        for _ in range(changes):
            before = len(driver.execute_script("return window.benchMessages"))
            send(1)
            deadline = time.time() + 10
            while time.time() < deadline and not driver.execute_script(
                    f"const m = window.benchMessages.slice({before}); return m.length > 0 && m.every((r) => r.drawn);"):
                time.sleep(0.02)
        messages = driver.execute_script("return window.benchMessages")
    finally:
        driver.quit()

    def report(label, records):
        if not records:
            print(f"  {label}: none")
            return
        sizes = [r["bytes"] for r in records]
        changed = [r["changed"] - r["received"] for r in records if "changed" in r]
        drawn = [r["drawn"] - r["received"] for r in records if "drawn" in r]
        print(f"  {label} ×{len(records)}: {statistics.median(sizes):,.0f} bytes; list changed after median {statistics.median(changed):.1f} ms "
              f"(worst {max(changed):.1f}), drawn after median {statistics.median(drawn):.1f} ms (worst {max(drawn):.1f})")

    print(f"{listed} notifications listed, then {changes} more one at a time:")
    report("the whole list, once on connecting", [m for m in messages if m["type"] == "notifications"])
    report("one change (presented)", [m for m in messages if m["type"] == "presented"])
finally:
    for process in processes:
        process.terminate()
    for process in processes:
        process.wait()
    shutil.rmtree(work, ignore_errors=True)
