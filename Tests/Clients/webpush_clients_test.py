#!/usr/bin/env python3
"""Real Web Push senders from PyPI (pywebpush, py-vapid) and curl against a real `herald serve --ephemeral`
(docs/web-push.md): each of Apple's refusals reaches the sender as Apple's status and reason, and what is accepted
reaches the subscriber intact (decrypted by `herald webpush show` with the keys `herald webpush subscribe` kept).
Each refusal a sender can cause is met once (429 on a gateway started with `--device-rate-limit 1`).

Usage: webpush_clients_test.py HERALD_BINARY
Run with a Python that has Tests/Clients/requirements-webpush.txt (scripts/test.sh makes its virtual environment).
Exits non-zero when a check fails.
"""
import base64
import json
import os
import subprocess
import sys
import tempfile
import time

import requests
from py_vapid import Vapid
from pywebpush import WebPushException, WebPusher, webpush


class Check:
    failures = 0

    def __call__(self, condition, what):
        print(("ok - " if condition else "not ok - ") + what)
        if not condition:
            Check.failures += 1


def start(herald, work, *options):
    ready = os.path.join(work, "ready.json")
    if os.path.exists(ready):
        os.remove(ready)
    serve = subprocess.Popen([herald, "serve", "--ephemeral", "--quiet", "--ready-file", ready, *options],
                             stdout=subprocess.DEVNULL, stderr=open(os.path.join(work, "serve.log"), "w"))
    for _ in range(400):
        if os.path.exists(ready):
            with open(ready) as file:
                return serve, json.load(file)
        time.sleep(0.05)
    serve.kill()
    raise SystemExit("herald serve --ephemeral wrote no ready file: " + open(os.path.join(work, "serve.log")).read())


def herald_json(herald, *arguments):
    return json.loads(subprocess.run([herald, *arguments], check=True, capture_output=True, text=True).stdout)


def public_key(vapid):
    """The applicationServerKey of a py-vapid key: its public point, uncompressed, in base64url."""
    from cryptography.hazmat.primitives import serialization
    raw = vapid.public_key.public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def refusal(send):
    """The status and reason a send is refused with, or (201, None)."""
    try:
        response = send()
        return response.status_code, None
    except WebPushException as error:
        return error.response.status_code, error.response.json().get("reason")


def main():
    herald = os.path.abspath(sys.argv[1])
    check = Check()
    with tempfile.TemporaryDirectory() as work:
        serve, ready = start(herald, work)
        try:
            run(herald, work, ready, check)
        finally:
            serve.terminate()
            serve.wait(timeout=30)
        # Too many messages for one subscription: a gateway that takes one a second (two at once) answers the third 429.
        serve, ready = start(herald, work, "--device-rate-limit", "1")
        try:
            too_many(herald, work, ready, check)
        finally:
            serve.terminate()
            serve.wait(timeout=30)
    if Check.failures:
        raise SystemExit(f"{Check.failures} check(s) failed")


def run(herald, work, ready, check):
    data = ready["dataDir"]
    # requests lets REQUESTS_CA_BUNDLE (set on many machines) override a session's own trust: set it to Herald's CA.
    os.environ["REQUESTS_CA_BUNDLE"] = ready["ca"]
    session = requests.Session()
    key_path = os.path.join(work, "vapid.pem")
    subprocess.run([herald, "webpush", "vapid", "--out", key_path], check=True, capture_output=True)
    vapid = Vapid.from_file(key_path)  # py-vapid reads the key `herald webpush vapid` wrote
    subscription = herald_json(herald, "webpush", "subscribe", "--data-dir", data, "--gateway", ready["webPush"],
                               "--application-server-key", public_key(vapid))
    check(subscription["endpoint"].startswith(ready["webPush"] + "/push/"), "subscribe prints an endpoint on the Web Push port")

    def send(message, claims=None, key=key_path, target=subscription, **options):
        return webpush(target, message, vapid_private_key=key, vapid_claims=dict(claims or {"sub": "mailto:ops@example.com"}),
                       requests_session=session, timeout=10, **options)

    def shown():
        for _ in range(40):  # the delivery log indexes tokens every few hundred milliseconds
            lines = subprocess.run([herald, "webpush", "show", "--data-dir", data, "--json", subscription["endpoint"]],
                                   check=True, capture_output=True, text=True).stdout.splitlines()
            if lines:
                return [json.loads(line) for line in lines]
            time.sleep(0.1)
        return []

    # Accepted: 201 with Apple's apns-id, the body stored as sent and decrypted by the subscriber's keys.
    response = send(json.dumps({"title": "Order shipped", "body": "pywebpush"}), ttl=600, headers={"Urgency": "high"})
    check(response.status_code == 201 and "apns-id" in response.headers, "pywebpush: 201 with apns-id")
    messages = shown()
    check(messages and messages[0].get("text") == '{"title": "Order shipped", "body": "pywebpush"}',
          "the subscriber decrypts what pywebpush encrypted")
    check(messages and messages[0].get("ttl") == 600 and messages[0].get("urgency") == "high"
          and messages[0].get("subject") == "mailto:ops@example.com", "TTL, Urgency and the VAPID subject are kept")

    # Topic: a waiting message with the same topic is replaced.
    send("first", headers={"Topic": "order42"})
    send("second", headers={"Topic": "order42"})
    time.sleep(0.5)
    by_text = {message.get("text"): message for message in shown()}
    check(by_text.get("first", {}).get("discardReason") == "coalesced" and by_text.get("second", {}).get("state") == "pending",
          "Topic: the second message replaces the first")

    # Apple's refusals, each as the sender sees it.
    cases = [
        # py-vapid refuses to sign a sub without mailto: or https:, as some senders do not: signed by hand.
        ("a sub that is a bare address", lambda: raw_send(vapid, subscription, session, {"sub": "ops@example.com"}), 403,
         "BadJwtToken"),
        ("a sub on localhost", lambda: send("x", claims={"sub": "mailto:ops@localhost"}), 403, "BadJwtToken"),
        ("a sub with a space", lambda: send("x", claims={"sub": "mailto: ops@example.com"}), 403, "BadJwtToken"),
        ("no sub", lambda: raw_send(vapid, subscription, session, {}), 403, "BadJwtToken"),
        # pywebpush replaces an expired exp with a fresh one: sent by hand.
        ("an expired JWT", lambda: raw_send(vapid, subscription, session, {"sub": "mailto:ops@example.com", "exp": int(time.time()) - 60}),
         403, "BadJwtToken"),
        ("a JWT two days ahead", lambda: send("x", claims={"sub": "mailto:ops@example.com", "exp": int(time.time()) + 172800}),
         403, "BadJwtToken"),
        ("aud of another origin",
         lambda: send("x", claims={"sub": "mailto:ops@example.com", "aud": "https://web.push.apple.com"}), 403, "BadJwtToken"),
        ("a JWT for another key", lambda: send("x", key=other_key(work)), 400, "VapidPkHashMismatch"),
        ("Urgency urgent", lambda: send("x", headers={"Urgency": "urgent"}), 400, "BadUrgency"),
        ("a Topic with a colon", lambda: send("x", headers={"Topic": "order:42"}), 400, "BadWebPushTopic"),
        ("a 4 KB message", lambda: send("x" * 4080), 413, "PayloadTooLarge"),
        ("aesgcm", lambda: send("x", content_encoding="aesgcm"), 400, "BadWebPushRequest"),
        ("a JWT for another push service, sent with its Host", lambda: raw_send(
            vapid, subscription, session, {"sub": "mailto:ops@example.com", "aud": "https://web.push.apple.com"},
            headers={"Host": "web.push.apple.com"}), 404, "BadPath"),
        ("no TTL", lambda: raw_send(vapid, subscription, session, {"sub": "mailto:ops@example.com"}, headers={"TTL": None}), 400,
         "BadTtl"),
        ("no Authorization", lambda: raw_send(vapid, subscription, session, {"sub": "mailto:ops@example.com"},
                                              headers={"Authorization": None}), 403, "BadAuthorizationHeader"),
        ("the old WebPush scheme", lambda: raw_send(vapid, subscription, session, {"sub": "mailto:ops@example.com"},
                                                    headers={"Authorization": "WebPush eyJ.eyJ.sig"}), 403, "BadAuthorizationHeader"),
        ("a k= that is no key", lambda: raw_send(vapid, subscription, session, {"sub": "mailto:ops@example.com"}, key="BAAA"), 403,
         "BadVapidPublicKey"),
        ("GET", lambda: answer_of(session.get(subscription["endpoint"], timeout=10)), 405, "MethodNotAllowed"),
        ("an endpoint never issued", lambda: send("x", target=dict(subscription, endpoint=ready["webPush"] + "/push/" + "ab" * 32)),
         404, "BadPath"),
    ]
    for what, attempt, status, reason in cases:
        got = refusal(attempt)
        check(got == (status, reason), f"{what}: {status} {reason} (got {got[0]} {got[1]})")

    # py-vapid's own header, checked by `herald webpush send --check-only`: a bad sub is named.
    headers = vapid.sign({"sub": "mailto:ops@localhost", "aud": ready["webPush"]})
    subscription_path = os.path.join(work, "subscription.json")
    with open(subscription_path, "w") as file:
        json.dump(subscription, file)
    checked = subprocess.run([herald, "webpush", "send", subscription_path, "--check-only", "--authorization",
                              headers["Authorization"]], capture_output=True, text=True)
    check(checked.returncode == 1 and "BadJwtToken" in checked.stdout and "localhost" in checked.stdout,
          "--check-only names the rule py-vapid's JWT breaks: " + checked.stdout.strip())

    # HTTP/2 (curl) carries the same request as HTTP/1.1.
    body = WebPusher(subscription).encode(b"over HTTP/2", content_encoding="aes128gcm")["body"]
    body_path = os.path.join(work, "body.bin")
    with open(body_path, "wb") as file:
        file.write(body)
    signed = vapid.sign({"sub": "https://example.com", "aud": ready["webPush"]})
    curl = subprocess.run(["curl", "-s", "--http2", "--cacert", ready["ca"], "-o", "/dev/null", "-w", "%{http_version} %{http_code}",
                           "-H", "Authorization: " + signed["Authorization"], "-H", "TTL: 60", "-H", "Content-Encoding: aes128gcm",
                           "--data-binary", "@" + body_path, subscription["endpoint"]], capture_output=True, text=True)
    check(curl.stdout == "2 201", f"curl over HTTP/2: 201 (got {curl.stdout})")
    check(any(message.get("text") == "over HTTP/2" for message in shown()), "the HTTP/2 message reaches the subscriber")


def answer_of(response):
    if response.status_code >= 300:
        raise WebPushException("refused", response=response)
    return response


def too_many(herald, work, ready, check):
    os.environ["REQUESTS_CA_BUNDLE"] = ready["ca"]
    key_path = os.path.join(work, "vapid.pem")
    vapid = Vapid.from_file(key_path)
    subscription = herald_json(herald, "webpush", "subscribe", "--data-dir", ready["dataDir"], "--gateway", ready["webPush"],
                               "--application-server-key", public_key(vapid))
    answers = [refusal(lambda: webpush(subscription, "x", vapid_private_key=key_path, vapid_claims={"sub": "mailto:ops@example.com"},
                                       timeout=10)) for _ in range(3)]
    check(answers[:2] == [(201, None), (201, None)] and answers[2] == (429, "TooManyRequests"),
          f"the third message at once to a subscription allowed one a second: 429 TooManyRequests (got {answers})")


def raw_send(vapid, subscription, session, claims, headers=None, key=None):
    """A message whose JWT carries exactly `claims` (plus aud and exp), signed with `vapid`: what a sender that checks
    nothing sends."""
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature

    def encode(value):
        text = value if isinstance(value, bytes) else json.dumps(value, separators=(",", ":")).encode()
        return base64.urlsafe_b64encode(text).rstrip(b"=").decode()

    endpoint = subscription["endpoint"]
    claims = dict({"aud": endpoint[:endpoint.index("/push/")], "exp": int(time.time()) + 3600}, **claims)
    signing_input = encode({"typ": "JWT", "alg": "ES256"}) + "." + encode(claims)
    r, s = decode_dss_signature(vapid.private_key.sign(signing_input.encode(), ec.ECDSA(hashes.SHA256())))
    jwt = signing_input + "." + encode(r.to_bytes(32, "big") + s.to_bytes(32, "big"))
    body = WebPusher(subscription).encode(b"x", content_encoding="aes128gcm")["body"]
    response = session.post(endpoint, data=body, timeout=10, headers={
        "Authorization": f"vapid t={jwt}, k={key or public_key(vapid)}", "TTL": "60", "Content-Encoding": "aes128gcm",
        **(headers or {})})
    return answer_of(response)


def other_key(work):
    path = os.path.join(work, "other.pem")
    if not os.path.exists(path):
        key = Vapid()
        key.generate_keys()
        key.save_key(path)
    return path


if __name__ == "__main__":
    main()
