#!/usr/bin/env python3
"""A UnifiedPush app written to UnifiedPush's D-Bus specification receives web pushes through Herald
(docs/unifiedpush.md): a real session bus (dbus-daemon), `herald serve --ephemeral`, `herald device` as the
distributor, and a connector in dbus-next that registers with a VAPID key, gets its endpoint, and decrypts what
pywebpush sent to it. The connector is started by D-Bus activation (a .service file) when a message comes and it is
not running; a message its connector cannot take stays pending at the gateway; after unregistering, the endpoint
answers 410, as it does once a message finds the app removed from the machine.

Usage: unifiedpush_test.py HERALD_BINARY
Run with a Python that has Tests/Clients/requirements-unifiedpush.txt (scripts/test.sh makes its virtual environment).
Exits non-zero when a check fails. The same file is the connector: `unifiedpush_test.py --connector WORK ACTION`.
"""
import asyncio
import base64
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import uuid

APP = "org.example.HeraldTestApp"
CONNECTOR_PATH = "/org/unifiedpush/Connector"
DISTRIBUTOR_PATH = "/org/unifiedpush/Distributor"


def b64(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


# MARK: The connector (the app's side of the spec)

def connector_main(work, action, argument):
    import http_ece
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from dbus_next import Variant
    from dbus_next.aio import MessageBus
    from dbus_next.service import ServiceInterface, method

    state_path = os.path.join(work, "connector.json")
    log_path = os.path.join(work, "connector.log")

    def load():
        try:
            with open(state_path) as file:
                return json.load(file)
        except FileNotFoundError:
            return {}

    def save(state):
        with open(state_path, "w") as file:
            json.dump(state, file)

    def record(event):
        event["pid"] = os.getpid()
        event["action"] = action
        with open(log_path, "a") as file:
            file.write(json.dumps(event) + "\n")

    last_call = [time.monotonic()]

    class Connector2(ServiceInterface):
        def __init__(self):
            super().__init__("org.unifiedpush.Connector2")

        @method()
        def Message(self, args: "a{sv}") -> "a{sv}":
            last_call[0] = time.monotonic()
            state = load()
            if args["token"].value != state.get("token"):
                record({"event": "ignored", "member": "Message"})  # the spec: a call with an unknown token is ignored
                return {}
            key = ec.derive_private_key(int(state["private"]), ec.SECP256R1())
            body = bytes(args["message"].value)
            text = http_ece.decrypt(body, private_key=key, auth_secret=unb64(state["auth"]), version="aes128gcm").decode()
            record({"event": "message", "text": text, "size": len(body), "id": args["id"].value if "id" in args else None})
            return {"id": args["id"]} if "id" in args else {}

        @method()
        def NewEndpoint(self, args: "a{sv}") -> "a{sv}":
            last_call[0] = time.monotonic()
            state = load()
            if args["token"].value == state.get("token"):
                state["endpoint"] = args["endpoint"].value
                save(state)
                record({"event": "endpoint", "endpoint": state["endpoint"]})
            return {}

        @method()
        def Unregistered(self, args: "a{sv}") -> "a{sv}":
            last_call[0] = time.monotonic()
            record({"event": "unregistered", "known": args["token"].value == load().get("token")})
            return {}

    async def distributor(bus):
        introspection = await bus.introspect("org.freedesktop.DBus", "/org/freedesktop/DBus")
        daemon = bus.get_proxy_object("org.freedesktop.DBus", "/org/freedesktop/DBus", introspection).get_interface("org.freedesktop.DBus")
        names = [name for name in await daemon.call_list_names() if name.startswith("org.unifiedpush.Distributor.")]
        node = await bus.introspect(names[0], DISTRIBUTOR_PATH)
        interfaces = sorted(interface.name for interface in node.interfaces)
        proxy = bus.get_proxy_object(names[0], DISTRIBUTOR_PATH, node)
        return names, interfaces, proxy.get_interface("org.unifiedpush.Distributor2")

    async def run():
        address = os.environ.get("DBUS_STARTER_ADDRESS") or os.environ["DBUS_SESSION_BUS_ADDRESS"]
        bus = await MessageBus(bus_address=address).connect()
        bus.export(CONNECTOR_PATH, Connector2())
        await bus.request_name(APP)
        record({"event": "started"})
        if action == "register":
            state = load()
            if "token" not in state:
                key = ec.generate_private_key(ec.SECP256R1())
                public = key.public_key().public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
                state.update(token=str(uuid.uuid4()), private=str(key.private_numbers().private_value), p256dh=b64(public),
                             auth=b64(os.urandom(16)))
                save(state)
            names, interfaces, distributor2 = await distributor(bus)
            result = await distributor2.call_register({
                "service": Variant("s", APP), "token": Variant("s", state["token"]),
                "description": Variant("s", "Herald's UnifiedPush test"), "vapid": Variant("s", argument)})
            record({"event": "register", "distributors": names, "interfaces": interfaces,
                    "result": {key: value.value for key, value in result.items()}})
            for _ in range(200):  # NewEndpoint follows
                if load().get("endpoint"):
                    break
                await asyncio.sleep(0.1)
        elif action == "unregister":
            _, _, distributor2 = await distributor(bus)
            result = await distributor2.call_unregister({"token": Variant("s", load()["token"])})
            record({"event": "unregister", "result": {key: value.value for key, value in result.items()}})
        # Stay a little for calls that follow (Unregistered after Unregister), and when activated, until idle, as an
        # activated app ends once it has handled what it was started for.
        while time.monotonic() - last_call[0] < 3:
            await asyncio.sleep(0.2)

    asyncio.run(run())


# MARK: The test

class Check:
    failures = 0

    def __call__(self, condition, what):
        print(("ok - " if condition else "not ok - ") + what, flush=True)
        if not condition:
            Check.failures += 1


class Lines:
    """A process's output lines, gathered as they come."""

    def __init__(self, process):
        self.lines = []
        self.lock = threading.Lock()
        threading.Thread(target=self.read, args=(process.stdout,), daemon=True).start()

    def read(self, stream):
        for line in stream:
            with self.lock:
                self.lines.append(line)

    def events(self):
        with self.lock:
            lines = list(self.lines)
        events = []
        for line in lines:
            try:
                events.append(json.loads(line))
            except ValueError:
                pass
        return events

    def wait(self, predicate, timeout=30):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for event in self.events():
                if predicate(event):
                    return event
            time.sleep(0.1)
        return None


def wait_for(predicate, timeout=30):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.1)
    return None


def main():
    if sys.argv[1] == "--connector":
        return connector_main(sys.argv[2], sys.argv[3], sys.argv[4] if len(sys.argv) > 4 else None)
    herald = os.path.abspath(sys.argv[1])
    check = Check()
    processes = []
    with tempfile.TemporaryDirectory() as work:
        work = os.environ.get("UNIFIEDPUSH_TEST_WORK") or work  # a directory to look into afterwards
        os.makedirs(work, exist_ok=True)
        try:
            run(herald, work, check, processes)
        finally:
            for process in reversed(processes):
                if process.poll() is None:
                    process.terminate()
                    try:
                        process.wait(timeout=30)
                    except subprocess.TimeoutExpired:
                        process.kill()
    if Check.failures:
        raise SystemExit(f"{Check.failures} check(s) failed")


def session_bus(work, processes):
    """A dbus-daemon of the test's own, with the connector's .service file in its service directory."""
    services = os.path.join(work, "services")
    os.makedirs(services)
    socket = os.path.join(work, "bus.sock")
    address = "unix:path=" + socket
    with open(os.path.join(work, "session.conf"), "w") as file:
        file.write(f"""<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>{address}</listen>
  <servicedir>{services}</servicedir>
  <policy context="default"><allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/><allow own="*"/></policy>
</busconfig>
""")
    with open(os.path.join(work, "connector.service"), "w") as file:
        file.write(f"[D-BUS Service]\nName={APP}\nExec={sys.executable} {os.path.abspath(__file__)} --connector {work} activated\n")
    shutil.copy(os.path.join(work, "connector.service"), os.path.join(services, APP + ".service"))
    environment = dict(os.environ, DBUS_SESSION_BUS_ADDRESS=address)
    bus = subprocess.Popen(["dbus-daemon", "--nofork", "--config-file", os.path.join(work, "session.conf")], env=environment,
                           stdout=subprocess.DEVNULL, stderr=open(os.path.join(work, "bus.log"), "w"))
    processes.append(bus)
    if not wait_for(lambda: os.path.exists(socket), 10):
        raise SystemExit("dbus-daemon did not start: " + open(os.path.join(work, "bus.log")).read())
    return address, environment


def reload_bus(address):
    subprocess.run(["dbus-send", "--bus=" + address, "--print-reply", "--dest=org.freedesktop.DBus", "/org/freedesktop/DBus",
                    "org.freedesktop.DBus.ReloadConfig"], check=True, capture_output=True)


def has_owner(address, name):
    reply = subprocess.run(["dbus-send", "--bus=" + address, "--print-reply", "--dest=org.freedesktop.DBus", "/org/freedesktop/DBus",
                            "org.freedesktop.DBus.NameHasOwner", "string:" + name], check=True, capture_output=True, text=True)
    return "boolean true" in reply.stdout


def start_gateway(herald, work, processes):
    ready = os.path.join(work, "ready.json")
    serve = subprocess.Popen([herald, "serve", "--ephemeral", "--quiet", "--ready-file", ready],
                             stdout=subprocess.DEVNULL, stderr=open(os.path.join(work, "serve.log"), "w"))
    processes.append(serve)
    if not wait_for(lambda: os.path.exists(ready), 20):
        raise SystemExit("herald serve --ephemeral wrote no ready file: " + open(os.path.join(work, "serve.log")).read())
    with open(ready) as file:
        return json.load(file)


def start_device(herald, work, ready, environment, processes, run):
    device = subprocess.Popen(
        [herald, "device", "--gateway", f"https://localhost:{ready['devicePort']}", "--ca", ready["ca"],
         "--data-dir", os.path.join(work, "device"), "--json", "--presenter", "none"],
        env=environment, stdout=subprocess.PIPE, stderr=open(os.path.join(work, f"device-{run}.log"), "w"), text=True)
    processes.append(device)
    return device, Lines(device)


def stop(process):
    process.terminate()
    process.wait(timeout=30)


def connector_events(work, event):
    try:
        with open(os.path.join(work, "connector.log")) as file:
            return [entry for entry in map(json.loads, file) if entry["event"] == event]
    except FileNotFoundError:
        return []


def run(herald, work, check, processes):
    from py_vapid import Vapid
    from cryptography.hazmat.primitives import serialization
    from pywebpush import WebPushException, webpush

    address, environment = session_bus(work, processes)
    ready = start_gateway(herald, work, processes)
    os.environ["REQUESTS_CA_BUNDLE"] = ready["ca"]
    device, output = start_device(herald, work, ready, environment, processes, 1)
    distributing = output.wait(lambda event: event.get("event") == "unifiedPush")
    check(distributing and distributing.get("busName") == "org.unifiedpush.Distributor.herald",
          "herald device owns org.unifiedpush.Distributor.herald on the session bus")

    # The app's application server key, as a UnifiedPush app gives it at registration.
    vapid = Vapid()
    vapid.generate_keys()
    vapid_path = os.path.join(work, "vapid.pem")
    vapid.save_key(vapid_path)
    public = vapid.public_key.public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)

    connector = [sys.executable, os.path.abspath(__file__), "--connector", work]
    subprocess.run(connector + ["register", b64(public)], env=environment, check=True, timeout=60)
    registered = (connector_events(work, "register") or [{}])[0]
    check(registered.get("result") == {"success": "REGISTRATION_SUCCEEDED"}, f"Register: REGISTRATION_SUCCEEDED ({registered.get('result')})")
    check("org.unifiedpush.Distributor2" in registered.get("interfaces", []) and "org.unifiedpush.Distributor1" in registered.get("interfaces", []),
          "Introspect lists Distributor2 and Distributor1")
    with open(os.path.join(work, "connector.json")) as file:
        state = json.load(file)
    endpoint = state.get("endpoint", "")
    check(endpoint.startswith(ready["webPush"] + "/push/"), f"NewEndpoint gives an endpoint on the gateway's Web Push port ({endpoint})")
    check(output.wait(lambda event: event.get("event") == "webpushRegistered" and event.get("endpoint") == endpoint, 5) is not None,
          "herald device --json prints the registration")
    subscription = {"endpoint": endpoint, "keys": {"p256dh": state["p256dh"], "auth": state["auth"]}}

    def send(text, **options):
        try:
            return webpush(subscription, text, vapid_private_key=vapid_path, vapid_claims={"sub": "mailto:ops@example.com"},
                           timeout=10, **options).status_code
        except WebPushException as error:
            return error.response.status_code

    # The device is offline: the message waits at the gateway, and the registration outlives the daemon.
    stop(device)
    first = "Order 42 shipped 📦"
    check(send(first, ttl=600, headers={"Urgency": "high", "Topic": "order42"}) == 201, "pywebpush: 201 while the device is offline")
    device, output = start_device(herald, work, ready, environment, processes, 2)
    delivered = wait_for(lambda: [entry for entry in connector_events(work, "message") if entry["text"] == first], 40)
    check(bool(delivered), "after the daemon restarts, the connector receives the message and decrypts it to the original text")
    check(bool(delivered) and delivered[0]["action"] == "activated", "the connector was started by D-Bus activation")
    event = output.wait(lambda event: event.get("event") == "webpush" and event.get("delivered"), 10)
    check(event is not None and event.get("app") == APP and event.get("topic") == "order42" and event.get("urgency") == "high"
          and delivered and event.get("size") == delivered[0]["size"] and "text" not in event and "body" not in event,
          f"herald device --json prints the web push with its topic and size, not its body ({event})")

    # A connector that fails to start: the message is not acknowledged and comes again on the next link.
    service = os.path.join(work, "services", APP + ".service")
    wait_for(lambda: not has_owner(address, APP), 20)  # the activated connector ends when idle
    with open(service, "w") as file:
        file.write(f"[D-BUS Service]\nName={APP}\nExec=/bin/false\n")
    reload_bus(address)
    second = "second, held back"
    check(send(second, ttl=600) == 201, "pywebpush: 201")  # with a TTL: a message of TTL 0 is not kept
    failed = output.wait(lambda event: event.get("event") == "webpush" and event.get("delivered") is False, 40)
    check(failed is not None, "a message whose connector fails to start is reported undelivered")
    shutil.copy(os.path.join(work, "connector.service"), service)
    reload_bus(address)
    stop(device)
    device, output = start_device(herald, work, ready, environment, processes, 3)
    check(bool(wait_for(lambda: [entry for entry in connector_events(work, "message") if entry["text"] == second], 40)),
          "it stayed pending at the gateway and reaches the connector after the link reconnects")

    # Unregister: the connector hears Unregistered, and the endpoint answers 410.
    subprocess.run(connector + ["unregister"], env=environment, check=True, timeout=60)
    check(bool(wait_for(lambda: [entry for entry in connector_events(work, "unregistered") if entry["known"]], 20)),
          "Unregister is confirmed with Unregistered")
    status = wait_for(lambda: (lambda code: code if code == 410 else None)(send("after unregistering")), 20)
    check(status == 410, f"the endpoint answers 410 after unregistering (got {status})")
    check(output.wait(lambda event: event.get("event") == "webpushUnregistered", 5) is not None, "herald device --json prints the unregistration")

    # An app removed from the machine (no connector, nothing to start one: ServiceUnknown): the message is dropped and
    # its subscription removed, so the sender hears 410 and a removed app cannot hold the device's link.
    subprocess.run(connector + ["register", b64(public)], env=environment, check=True, timeout=60)
    with open(os.path.join(work, "connector.json")) as file:
        subscription["endpoint"] = json.load(file)["endpoint"]
    wait_for(lambda: not has_owner(address, APP), 20)
    os.remove(service)
    reload_bus(address)
    check(send("to a removed app", ttl=600) == 201, "pywebpush: 201 to a registered app")
    check(output.wait(lambda event: event.get("event") == "webpushUnregistered", 40) is not None,
          "a message to an app that is not installed any more removes its subscription")
    status = wait_for(lambda: (lambda code: code if code == 410 else None)(send("again")), 20)
    check(status == 410, f"and its endpoint answers 410 from then on (got {status})")
    stop(device)


if __name__ == "__main__":
    main()
