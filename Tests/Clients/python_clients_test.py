#!/usr/bin/env python3
"""Widely used Python APNs clients from PyPI, and curl, against a real `herald serve --ephemeral` (docs/clients.md).

Usage: python_clients_test.py HERALD_BINARY [CLIENT ...]
       CLIENT: aioapns, kalyke, pyapns_client, curl, django-push-notifications (default: all but the last). Run with a Python
       that has them: scripts/test.sh makes two virtual environments (Tests/Clients/requirements*.txt), as
       django-push-notifications needs aioapns 3 and the others run on aioapns 4.

Each client is pointed at Herald as docs/clients.md says (host and port, Herald's CA, the fixture's .p8) and sends
three notifications: one accepted (200), one a fault rule answers 410 Unregistered with a timestamp, one it answers 429
TooManyRequests. Each outcome must reach the program as the client's own success, error type or result, with APNs'
reason (and the 410's timestamp). Exits non-zero on the first failure.
"""
import asyncio
import json
import os
import ssl
import subprocess
import sys
import tempfile
import time

TOPIC = "com.example.app"
TEAM, KEY = "TEAM123456", "KEY1234567"
TIMESTAMP = 1700000000000


def start(herald, work):
    fixture = os.path.join(work, "fixture.json")
    with open(fixture, "w") as file:
        json.dump({
            "keys": [{"teamID": TEAM, "keyID": KEY, "topics": [TOPIC]}],
            "tokens": [{"name": name, "topic": TOPIC} for name in ("ok", "gone", "busy")],
            "faults": [
                {"match": {"token": "@gone"}, "action": {"kind": "answer", "status": 410, "timestamp": TIMESTAMP}},
                {"match": {"token": "@busy"}, "action": {"kind": "answer", "status": 429}},
            ],
        }, file)
    ready = os.path.join(work, "ready.json")
    serve = subprocess.Popen([herald, "serve", "--ephemeral", "--quiet", "--fixture", fixture, "--ready-file", ready],
                             stdout=subprocess.DEVNULL, stderr=open(os.path.join(work, "serve.log"), "w"))
    for _ in range(200):
        if os.path.exists(ready):
            with open(ready) as file:
                return serve, json.load(file)
        time.sleep(0.05)
    serve.kill()
    raise SystemExit("herald serve --ephemeral wrote no ready file: " + open(os.path.join(work, "serve.log")).read())


class Check:
    failures = 0

    def __call__(self, condition, what):
        print(("ok - " if condition else "not ok - ") + what)
        if not condition:
            Check.failures += 1


def aioapns_client(ready, tokens, check):
    from aioapns import APNs, NotificationRequest
    from aioapns.connection import APNsDevelopmentClientProtocol
    # aioapns connects to its protocol class's APNS_SERVER and APNS_PORT: point the development one at Herald.
    APNsDevelopmentClientProtocol.APNS_SERVER = "localhost"
    APNsDevelopmentClientProtocol.APNS_PORT = ready["providerPort"]

    async def run():
        apns = APNs(key=open(ready["keys"][0]["p8"]).read(), key_id=KEY, team_id=TEAM, topic=TOPIC, use_sandbox=True,
                    ssl_context=ssl.create_default_context(cafile=ready["ca"]))
        send = lambda token: apns.send_notification(NotificationRequest(device_token=token, message={"aps": {"alert": "hi"}}))
        sent = await send(tokens["ok"])
        check(sent.is_successful, f"aioapns: accepted ({sent.status})")
        gone = await send(tokens["gone"])
        check(not gone.is_successful and gone.status == "410" and gone.description == "Unregistered" and gone.timestamp == TIMESTAMP,
              f"aioapns: 410 Unregistered with its timestamp ({gone.status} {gone.description} {gone.timestamp})")
        busy = await send(tokens["busy"])
        check(busy.status == "429" and busy.description == "TooManyRequests", f"aioapns: 429 TooManyRequests ({busy.status} {busy.description})")
        apns.pool.close()

    asyncio.run(run())


def kalyke_client(ready, tokens, check):
    from dataclasses import dataclass

    from httpx2 import AsyncClient
    from kalyke import ApnsClient, ApnsConfig
    from kalyke.exceptions import TooManyRequests, Unregistered

    # kalyke builds its URL from _base_url and its HTTP client in _init_client: a subclass points both at Herald.
    @dataclass(frozen=True)
    class HeraldApnsClient(ApnsClient):
        @property
        def _base_url(self):
            return ready["provider"]

        def _init_client(self, apns_config):
            headers = apns_config.make_headers()
            headers["authorization"] = f"bearer {self._make_authorization()}"
            return AsyncClient(headers=headers, http2=True, verify=ssl.create_default_context(cafile=ready["ca"]))

    client = HeraldApnsClient(use_sandbox=True, team_id=TEAM, auth_key_id=KEY, auth_key_filepath=ready["keys"][0]["p8"])
    send = lambda token: asyncio.run(client.send_message(device_token=token, payload={"aps": {"alert": "hi"}},
                                                         apns_config=ApnsConfig(topic=TOPIC)))
    apns_id = send(tokens["ok"])
    check(len(apns_id) == 36, f"kalyke: accepted (apns-id {apns_id}; its provider token's iat is a string)")
    try:
        send(tokens["gone"])
        check(False, "kalyke: 410 raises Unregistered")
    except Unregistered as error:
        check(error.error.get("timestamp") == TIMESTAMP, f"kalyke: 410 raises Unregistered with its timestamp ({error.error})")
    try:
        send(tokens["busy"])
        check(False, "kalyke: 429 raises TooManyRequests")
    except TooManyRequests:
        check(True, "kalyke: 429 raises TooManyRequests")


def pyapns_client(ready, tokens, check):
    from pyapns_client import APNSClient, IOSNotification, IOSPayload, IOSPayloadAlert
    from pyapns_client.exceptions import TooManyRequestsException, UnregisteredException

    # pyapns_client takes its base URL from BASE_URLS by mode, and trusts root_cert_path.
    APNSClient.BASE_URLS[APNSClient.MODE_DEV] = ready["provider"]
    client = APNSClient(mode=APNSClient.MODE_DEV, root_cert_path=ready["ca"], auth_key_path=ready["keys"][0]["p8"], auth_key_id=KEY,
                        team_id=TEAM)
    notification = IOSNotification(payload=IOSPayload(alert=IOSPayloadAlert(title="hi")), topic=TOPIC)
    client.push(notification=notification, device_token=tokens["ok"])
    check(True, "pyapns_client: accepted")
    try:
        client.push(notification=notification, device_token=tokens["gone"])
        check(False, "pyapns_client: 410 raises UnregisteredException")
    except UnregisteredException as error:
        check(error.timestamp == TIMESTAMP, f"pyapns_client: 410 raises UnregisteredException with its timestamp ({error.timestamp})")
    try:
        client.push(notification=notification, device_token=tokens["busy"])
        check(False, "pyapns_client: 429 raises TooManyRequestsException")
    except TooManyRequestsException:
        check(True, "pyapns_client: 429 raises TooManyRequestsException (after its own three tries)")
    client.close()


def django_push_notifications_client(ready, tokens, check):
    # django-push-notifications sends through aioapns, with no SSL context of its own: Herald's CA comes from
    # SSL_CERT_FILE (set before the test starts this process's clients) and its address from aioapns' protocol class.
    import django
    from django.conf import settings
    from django.core.management import call_command

    from aioapns.connection import APNsDevelopmentClientProtocol
    APNsDevelopmentClientProtocol.APNS_SERVER = "localhost"
    APNsDevelopmentClientProtocol.APNS_PORT = ready["providerPort"]
    settings.configure(
        DATABASES={"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": ":memory:"}},
        INSTALLED_APPS=["django.contrib.contenttypes", "django.contrib.auth", "push_notifications"],
        DEFAULT_AUTO_FIELD="django.db.models.AutoField", USE_TZ=True,
        PUSH_NOTIFICATIONS_SETTINGS={"APNS_AUTH_KEY_PATH": ready["keys"][0]["p8"], "APNS_AUTH_KEY_ID": KEY, "APNS_TEAM_ID": TEAM,
                                     "APNS_TOPIC": TOPIC, "APNS_USE_SANDBOX": True})
    django.setup()
    call_command("migrate", verbosity=0)
    from push_notifications.exceptions import APNSError
    from push_notifications.models import APNSDevice

    devices = {name: APNSDevice.objects.create(registration_id=token) for name, token in tokens.items()}
    result = devices["ok"].send_message("hi")
    check(result == {"results": ["Success"]}, f"django-push-notifications: accepted ({result})")
    for name, reason in (("gone", "Unregistered"), ("busy", "TooManyRequests")):
        try:
            devices[name].send_message("hi")
            check(False, f"django-push-notifications: {reason} raises APNSError")
        except APNSError as error:
            check(reason in str(error), f"django-push-notifications: {reason} raises APNSError ({error})")
    active = {device.registration_id: device.active for device in APNSDevice.objects.all()}
    check(active[tokens["gone"]] is False and active[tokens["busy"]] and active[tokens["ok"]],
          "django-push-notifications: the 410's device is marked inactive, the 429's is not")


def curl_client(ready, tokens, check, herald):
    # curl speaks HTTP/2 with --http2 over TLS; the provider token comes from `herald jwt`.
    jwt = subprocess.run([herald, "jwt", "--p8", ready["keys"][0]["p8"], "--key-id", KEY, "--team-id", TEAM], check=True,
                         capture_output=True, text=True).stdout.strip()

    def send(token):
        reply = subprocess.run(
            ["curl", "-s", "--http2", "--cacert", ready["ca"], "-D", "-", "-H", f"authorization: bearer {jwt}", "-H", f"apns-topic: {TOPIC}",
             "-d", '{"aps":{"alert":"hi"}}', f"{ready['provider']}/3/device/{token}"], capture_output=True, text=True, timeout=30).stdout
        head, _, body = reply.partition("\n\n")  # text mode turned the head's CRLFs into newlines
        return head, body

    head, _ = send(tokens["ok"])
    check(head.startswith("HTTP/2 200") and "apns-id:" in head, f"curl: accepted ({head.splitlines()[0] if head else 'no answer'})")
    head, body = send(tokens["gone"])
    check(head.startswith("HTTP/2 410") and json.loads(body) == {"reason": "Unregistered", "timestamp": TIMESTAMP}, f"curl: 410 {body}")
    head, body = send(tokens["busy"])
    check(head.startswith("HTTP/2 429") and json.loads(body) == {"reason": "TooManyRequests"}, f"curl: 429 {body}")


def main():
    herald = os.path.abspath(sys.argv[1])
    work = tempfile.mkdtemp(prefix="herald-clients-")
    serve, ready = start(herald, work)
    check = Check()
    try:
        tokens = {token["name"]: token["token"] for token in ready["tokens"]}
        os.environ["SSL_CERT_FILE"] = ready["ca"]  # for django-push-notifications (the others are given the CA)
        clients = {"aioapns": aioapns_client, "kalyke": kalyke_client, "pyapns_client": pyapns_client,
                   "django-push-notifications": django_push_notifications_client,
                   "curl": lambda ready, tokens, check: curl_client(ready, tokens, check, herald)}
        for name in sys.argv[2:] or ["aioapns", "kalyke", "pyapns_client", "curl"]:
            client = clients[name]
            try:
                client(ready, tokens, check)
            except Exception as error:  # a client that cannot talk to Herald at all is a failure, said with its error
                check(False, f"{name}: {type(error).__name__}: {error}")
    finally:
        serve.terminate()
        serve.wait(timeout=20)
    if Check.failures:
        raise SystemExit(f"{Check.failures} client check(s) failed")
    print("python clients: all checks passed")


if __name__ == "__main__":
    main()
