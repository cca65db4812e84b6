"""Every attack by name: its groups of connections, on which port, set up how, doing what (attack-network.py's
docstring describes each)."""
from attack.wire import SETTINGS_INITIAL_WINDOW_SIZE
from attack.connection import Group, NO_READ_RCVBUF, forever, setup_h2, setup_tls, setup_ws
from attack.provider import (
    continuation_flood, hold_one_request, hpack_bomb, ping_flood, rapid_reset, requests_never_read, settings_flood,
    slow_tls,
)
from attack.device import bad_hello, header_bomb, slow_upgrade, ws_continuation_flood, ws_oversized, ws_ping_flood


def attack_groups(name, options):
    P, D, n = options.provider_port, options.device_port, options.connections
    zero_window = lambda c: setup_h2(c, [(SETTINGS_INITIAL_WINDOW_SIZE, 0)])  # noqa: E731
    table = {
        "rapid-reset": [Group("h2", n, P, setup_h2, rapid_reset, True)],
        "continuation-flood": [Group("h2", n, P, setup_h2, continuation_flood, True)],
        "hpack-bomb": [Group("h2", n, P, setup_h2, hpack_bomb, True)],
        "settings-flood": [Group("h2", n, P, setup_h2, settings_flood, False, NO_READ_RCVBUF)],
        "ping-flood": [Group("h2", n, P, setup_h2, ping_flood, False, NO_READ_RCVBUF)],
        "zero-window": [Group("h2", n, P, zero_window, requests_never_read, False, NO_READ_RCVBUF)],
        "zero-window-hold": [Group("h2", n, P, zero_window, hold_one_request, False, NO_READ_RCVBUF)],
        "no-read": [Group("h2", n, P, setup_h2, requests_never_read, False, NO_READ_RCVBUF)],
        "slow-tls": [Group("tcp", options.slow_connections, P, None, slow_tls, False)],
        "idle-connections": [
            Group("tcp-only", options.idle_connections // 2, P, None, forever, False, measure_rss=True),
            Group("tls+h2-preface", options.idle_connections - options.idle_connections // 2, P, setup_h2, forever,
                  True, measure_rss=True),
        ],
        "device-slow-tls": [Group("tcp", options.slow_connections, D, None, slow_tls, False)],
        "device-slow-upgrade": [Group("tls", n, D, setup_tls, slow_upgrade, True)],
        "device-header-bomb": [Group("tls", n, D, setup_tls, header_bomb, True)],
        "device-ping-flood": [Group("ws", n, D, setup_ws, ws_ping_flood, False, NO_READ_RCVBUF)],
        "device-continuation-flood": [Group("ws", n, D, setup_ws, ws_continuation_flood, True)],
        "device-oversized": [Group("ws", n, D, setup_ws, ws_oversized, True)],
        "device-bad-hello": [Group("ws", n, D, setup_ws, bad_hello, True)],
        "device-idle": [
            Group("tcp-only", options.device_idle_connections, D, None, forever, False, measure_rss=True),
            Group("upgraded-no-hello", options.device_idle_connections, D, setup_ws, forever, True, measure_rss=True),
        ],
    }
    return table[name]


ATTACKS = [
    "rapid-reset", "continuation-flood", "hpack-bomb", "settings-flood", "ping-flood", "zero-window",
    "zero-window-hold", "no-read",
    "slow-tls", "idle-connections",
    "device-slow-tls", "device-slow-upgrade", "device-header-bomb", "device-ping-flood", "device-continuation-flood",
    "device-oversized", "device-bad-hello", "device-idle",
]
MIN_SECONDS = {"device-idle": 15}


def port_label(name):
    return "device" if name.startswith("device-") else "provider"
