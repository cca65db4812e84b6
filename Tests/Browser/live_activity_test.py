#!/usr/bin/env python3
"""Live Activities on the device's notification center page, in a real headless Chromium.

Usage: live_activity_test.py HERALD_BINARY [SCREENSHOT_DIR]

Runs a real `herald serve` and a real `herald device --ui-port 0` with a delivery app that declares
NSSupportsLiveActivities. Then, as a provider would, with `herald send --live-activity`: a start to the app's
push-to-start token (asking for the activity's own token) shows a Live Activity above the notifications, with its
title, values and progress; an update to the activity's token redraws the same card in place; a stale date marks it
outdated; an end with a dismissal date a few seconds ahead keeps it, marked ended, until then, and then it goes. With
the delivery example installed in its place, its widget extension draws the card (its labels and progress bar), again
on an update.
Then the console's Live Activities page (signed in with DATA_DIR/admin-token) lists the device's push-to-start token
with its pushes and the channel made with `herald channels create`, and its forms start an activity and broadcast
on the channel through the provider API. Screenshots go to SCREENSHOT_DIR (live-activity-page.png,
live-activity-widget.png, console-live-activities.png). Exits non-zero on the first failure.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as ready
from selenium.webdriver.support.ui import WebDriverWait

from notification_center_test import Check, Lines, finish, free_port, get

DELIVERY = "com.example.delivery"
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def delivery_bundle(directory):
    """An app with Live Activities; it never needs to run (its activities start by push)."""
    app = os.path.join(directory, "Delivery.app")
    os.makedirs(app)
    with open(os.path.join(app, "Info.plist"), "w") as file:
        file.write('<?xml version="1.0" encoding="UTF-8"?>\n<plist version="1.0"><dict>'
                   f"<key>CFBundleIdentifier</key><string>{DELIVERY}</string><key>CFBundleExecutable</key><string>delivery</string>"
                   "<key>CFBundleDisplayName</key><string>Delivery</string><key>NSSupportsLiveActivities</key><true/></dict></plist>\n")
    with open(os.path.join(app, "delivery"), "w") as file:
        file.write("#!/bin/sh\nsleep 1\n")
    os.chmod(os.path.join(app, "delivery"), 0o755)
    return app


def main():
    herald = os.path.abspath(sys.argv[1])
    shots = sys.argv[2] if len(sys.argv) > 2 else tempfile.mkdtemp(prefix="herald-shots-")
    os.makedirs(shots, exist_ok=True)
    work = tempfile.mkdtemp(prefix="herald-activity-")
    gateway_data, device_data = os.path.join(work, "gateway"), os.path.join(work, "device")
    ports = {"provider": free_port(), "device": free_port(), "console": free_port(), "channels": free_port()}
    check = Check()
    processes = []
    driver = None
    run = lambda *arguments: subprocess.run([herald, *arguments], check=True, capture_output=True, text=True)
    try:
        processes.append(subprocess.Popen(
            [herald, "serve", "--data-dir", gateway_data, "--provider-port", str(ports["provider"]), "--device-port",
             str(ports["device"]), "--console-port", str(ports["console"]), "--channels-port", str(ports["channels"]), "--webpush-port", "0"],
            stdout=open(os.path.join(work, "serve.log"), "w"), stderr=subprocess.STDOUT))
        ca = os.path.join(gateway_data, "tls", "ca.pem")
        for _ in range(100):
            try:
                if os.path.exists(ca) and get(f"http://127.0.0.1:{ports['console']}/healthz")[0] == 200:
                    break
            except OSError:
                pass
            time.sleep(0.1)
        key = os.path.join(work, "key.p8")
        run("keys", "create", "--data-dir", gateway_data, "--team-id", "TEAM123456", "--key-id", "KEY1234567", "--topic", DELIVERY, "--out", key)
        run("apps", "install", delivery_bundle(work), "--data-dir", device_data)
        device = subprocess.Popen(
            [herald, "device", "--gateway", f"https://localhost:{ports['device']}", "--ca", ca, "--data-dir", device_data, "--json",
             "--ui-port", "0"], stdout=subprocess.PIPE, stderr=open(os.path.join(work, "device.log"), "w"), text=True)
        processes.append(device)
        lines = Lines(device)
        page = lines.wait(lambda line: line.get("event") == "notificationCenter")["url"]
        push_to_start = lines.wait(lambda line: line.get("event") == "registered" and line.get("kind") == "pushToStart")["deviceToken"]
        now = int(time.time())

        def send(event, token, aps, *flags):
            path = os.path.join(work, f"{event}-{time.time()}.json")
            with open(path, "w") as file:
                json.dump({"aps": aps}, file)
            run("send", "--gateway", f"https://localhost:{ports['provider']}", "--ca", ca, "--p8", key, "--key-id", "KEY1234567",
                "--team-id", "TEAM123456", "--topic", DELIVERY, "--device", token, "--live-activity", event, *flags, path)

        options = webdriver.ChromeOptions()
        for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=520,640"]:
            options.add_argument(argument)
        options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
        driver = webdriver.Chrome(service=Service(shutil.which("chromedriver") or "/usr/bin/chromedriver"), options=options)
        wait = WebDriverWait(driver, 10, ignored_exceptions=[StaleElementReferenceException])
        driver.get(page)
        wait.until(lambda d: d.find_element(By.ID, "state").text == "Live")
        check(not driver.find_element(By.ID, "activities").is_displayed(), "no Live Activities: no section")

        # ---- started by a push to the push-to-start token ----
        send("start", push_to_start, {"timestamp": now, "attributes": {"name": "Order #4417", "store": "Corner Bakery"},
                                      "content-state": {"progress": 0.3, "status": "Baking", "eta": "12 min"},
                                      "alert": {"title": "Your order is in the oven", "body": "About 12 minutes"}, "input-push-token": 1},
             "--attributes-type", "DeliveryAttributes")
        card = wait.until(ready.visibility_of_element_located((By.CSS_SELECTOR, "#activities .activity")))
        check("Order #4417" in card.text and "Baking" in card.text and "Corner Bakery" in card.text, f"the activity shows its title and values ({card.text!r})")
        width = lambda: driver.execute_script("return document.querySelector('#activities .fill').style.width")
        check(width() == "30%", f"its progress bar is at 30% ({width()})")
        check("Your order is in the oven" in card.text, "the start's alert shows on it")
        token = lines.wait(lambda line: line.get("event") == "registered" and line.get("kind") == "activity")["deviceToken"]

        # ---- updated by its own token: the same card, redrawn ----
        send("update", token, {"timestamp": now + 1, "content-state": {"progress": 0.7, "status": "Out for delivery", "eta": "4 min"}})
        wait.until(lambda d: "Out for delivery" in d.find_element(By.CSS_SELECTOR, "#activities .activity").text)
        check(len(driver.find_elements(By.CSS_SELECTOR, "#activities .activity")) == 1 and width() == "70%",
              "an update redraws the one card in place (70%)")
        driver.save_screenshot(os.path.join(shots, "live-activity-page.png"))

        # ---- a stale date passes: outdated ----
        send("update", token, {"timestamp": now + 2, "content-state": {"progress": 0.8, "status": "Around the corner", "eta": "1 min"}},
             "--stale-date", str(int(time.time()) + 1))
        wait.until(lambda d: "Outdated" in d.find_element(By.CSS_SELECTOR, "#activities .activity").text)
        check("stale" in driver.find_element(By.CSS_SELECTOR, "#activities .activity").get_attribute("class"), "past its stale date it shows as outdated")

        # ---- ended, kept until its dismissal date, then gone ----
        send("end", token, {"timestamp": now + 3, "content-state": {"progress": 1, "status": "Delivered", "eta": "now"}},
             "--dismissal-date", str(int(time.time()) + 3))
        wait.until(lambda d: "Ended" in d.find_element(By.CSS_SELECTOR, "#activities .activity").text)
        check("Delivered" in driver.find_element(By.CSS_SELECTOR, "#activities .activity").text and width() == "100%", "the end shows its final state, marked ended")
        WebDriverWait(driver, 15).until(lambda d: not d.find_elements(By.CSS_SELECTOR, "#activities .activity"))
        check(not driver.find_element(By.ID, "activities").is_displayed(), "at its dismissal date it goes, and the section with it")
        lines.wait(lambda line: line.get("event") == "unregistered" and line.get("kind") == "activity")

        # ---- the delivery example's widget extension draws the card instead ----
        run("apps", "install", os.path.join(ROOT, "Examples", "Delivery", "Delivery.app"), "--executable-dir", os.path.dirname(herald),
            "--data-dir", device_data)
        send("start", push_to_start, {"timestamp": now + 4, "attributes": {"name": "Order #4418"},
                                      "content-state": {"progress": 0.4, "status": "Baking", "eta": "in 9 min"},
                                      "alert": {"title": "Your order is in the oven", "body": "About 9 minutes"}, "input-push-token": 1},
             "--attributes-type", "DeliveryAttributes")
        drawn = wait.until(ready.visibility_of_element_located((By.CSS_SELECTOR, "#activities .activity .activity-view")))
        labels = lambda: [label.text for label in driver.find_elements(By.CSS_SELECTOR, "#activities .activity-view .v-label")]
        bar = lambda: float(driver.find_element(By.CSS_SELECTOR, "#activities .activity-view progress").get_attribute("value"))
        check(labels() == ["Order #4418", "Baking", "Arriving in 9 min"] and abs(bar() - 0.4) < 0.01,
              f"the widget's labels and progress bar make the card ({labels()}, {bar()})")
        check(not driver.find_elements(By.CSS_SELECTOR, "#activities .activity-fields"), "the default values are not drawn beside the widget's view")
        check("Your order is in the oven" in drawn.find_element(By.XPATH, "..").text, "the start's alert still shows on the card")
        token = lines.wait(lambda line: line.get("event") == "registered" and line.get("kind") == "activity" and
                           line.get("activityID") != None and line["deviceToken"] != token)["deviceToken"]
        send("update", token, {"timestamp": now + 5, "content-state": {"progress": 0.8, "status": "Out for delivery", "eta": "in 3 min"}})
        wait.until(lambda d: "Out for delivery" in labels())
        check(labels() == ["Order #4418", "Out for delivery", "Arriving in 3 min"] and abs(bar() - 0.8) < 0.01,
              f"an update is redrawn by the widget in place ({labels()})")
        check(len(driver.find_elements(By.CSS_SELECTOR, "#activities .activity")) == 1, "still one card")
        driver.save_screenshot(os.path.join(shots, "live-activity-widget.png"))
        send("end", token, {"timestamp": now + 6, "content-state": {"progress": 1, "status": "Delivered", "eta": "now"}},
             "--dismissal-date", str(int(time.time())))
        WebDriverWait(driver, 15).until(lambda d: not d.find_elements(By.CSS_SELECTOR, "#activities .activity"))

        # ---- the console's Live Activities page ----
        channel = run("channels", "create", "--gateway", f"https://localhost:{ports['channels']}", "--ca", ca, "--p8", key, "--key-id",
                      "KEY1234567", "--team-id", "TEAM123456", "--bundle", DELIVERY, "--storage-policy", "1").stdout.strip()
        console = f"http://127.0.0.1:{ports['console']}"
        driver.set_window_size(1280, 900)
        driver.get(console + "/live-activities")
        driver.find_element(By.ID, "token").send_keys(open(os.path.join(gateway_data, "admin-token")).read().strip())
        driver.find_element(By.CSS_SELECTOR, "form button[type=submit]").click()
        wait.until(lambda d: d.current_url.endswith("/live-activities"))
        row = wait.until(ready.visibility_of_element_located((By.CSS_SELECTOR, "#tokens tbody tr")))
        check("push-to-start" in row.text and "start" in row.text and "online" in row.text,
              f"the device's push-to-start token is listed with its start push ({row.text!r})")
        channel_row = wait.until(lambda d: d.find_element(By.CSS_SELECTOR, "#channels tbody tr"))
        check(channel in channel_row.text and DELIVERY in channel_row.text, f"the channel is listed ({channel_row.text!r})")

        # Start an activity from the form (to the push-to-start token), then broadcast on the channel.
        driver.find_element(By.CSS_SELECTOR, "#tokens tbody tr button").click()
        driver.find_element(By.CSS_SELECTOR, "#push button[type=submit]").click()
        wait.until(lambda d: d.find_element(By.ID, "push-answer").text.startswith("200"))
        started = lines.wait(lambda line: line.get("event") == "activity" and line.get("change") == "started" and line.get("origin") == "push"
                             and line["state"].get("status") == "On the way")
        check(started["attributes"] == {"name": "Order #4417"}, "the form's start reached the device, which started the activity")
        wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#tokens tbody tr")) == 2)
        rows = [row.text for row in driver.find_elements(By.CSS_SELECTOR, "#tokens tbody tr")]
        check(any(f"activity {started['activityID']}" in row for row in rows), f"the new activity's token is listed ({rows})")
        driver.find_element(By.CSS_SELECTOR, "#broadcast button[type=submit]").click()
        wait.until(lambda d: d.find_element(By.ID, "broadcast-answer").text.startswith("200"))
        kept = wait.until(lambda d: "until" in d.find_element(By.CSS_SELECTOR, "#channels tbody tr").text and d.find_element(By.CSS_SELECTOR, "#channels tbody tr").text)
        check("until" in kept, f"the broadcast is accepted and the channel (policy 1) keeps it ({kept!r})")
        driver.set_window_size(1280, driver.execute_script("return document.body.scrollHeight") + 120)
        driver.save_screenshot(os.path.join(shots, "console-live-activities.png"))

        # ---- the console's browser device: an activity on its lock screen ----
        driver.set_window_size(1100, 760)
        driver.get(console + "/device")
        wait.until(lambda d: "Online" in d.find_element(By.ID, "link-state").text)
        driver.find_element(By.ID, "topic").send_keys(DELIVERY)
        driver.find_element(By.CSS_SELECTOR, "#add-app button[type=submit]").click()
        browser_start = WebDriverWait(driver, 15).until(
            lambda d: d.find_elements(By.CSS_SELECTOR, "#apps [data-push-to-start]")
            and d.find_element(By.CSS_SELECTOR, "#apps [data-push-to-start]").get_attribute("data-push-to-start"))
        check(len(browser_start) == 64, "the browser device shows its app's push-to-start token")
        send("start", browser_start, {"timestamp": now + 1000, "attributes": {"name": "Flight LH 400", "gate": "B42"},
                                      "content-state": {"progress": 0.4, "status": "Boarding"}, "alert": {"title": "Boarding has begun"},
                                      "input-push-channel": channel}, "--attributes-type", "FlightAttributes")
        lock = wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#activities .activity") and d.find_element(By.CSS_SELECTOR, "#activities .activity").text)
        check("Flight LH 400" in lock and "Boarding" in lock and "B42" in lock,
              f"a start to its push-to-start token shows the activity on the browser device's lock screen ({lock!r})")
        path = os.path.join(work, "gate.json")
        with open(path, "w") as file:
            json.dump({"aps": {"timestamp": now + 1001, "content-state": {"progress": 0.9, "status": "Final call"}}}, file)
        # The browser subscribed with input-push-channel; a broadcast reaches it once the subscription is in.
        admin_token = open(os.path.join(gateway_data, "admin-token")).read().strip()
        for _ in range(50):
            subscribers = json.loads(get(f"{console}/v1/live-activities", {"Authorization": "Bearer " + admin_token})[2])
            if any(c["id"] == channel and c["subscribers"] == 1 for c in subscribers["channels"]):
                break
            time.sleep(0.1)
        run("send", "--gateway", f"https://localhost:{ports['provider']}", "--ca", ca, "--p8", key, "--key-id", "KEY1234567",
            "--team-id", "TEAM123456", "--topic", DELIVERY, "--channel", channel, "--live-activity", "update",
            "--expiration", str(int(time.time()) + 600), path)
        wait.until(lambda d: "Final call" in d.find_element(By.CSS_SELECTOR, "#activities .activity").text)
        check(len(driver.find_elements(By.CSS_SELECTOR, "#activities .activity")) == 1, "a broadcast on its channel redraws the one activity")
        driver.save_screenshot(os.path.join(shots, "console-browser-device-live-activity.png"))
        print("live activities: all checks passed")
    finally:
        finish(driver, processes, work, failed=sys.exc_info()[0] is not None)


if __name__ == "__main__":
    main()
