#!/usr/bin/env python3
"""Makes one SQLite file per past schema version from the migration code in git history.

For each version, the store's source at the commit that introduced it (`git show COMMIT:PATH`) gives the SQL of
every migration registered then; they run in order with Python's sqlite3, GRDB's `grdb_migrations` table records
them as GRDB would, and a few rows are written with that version's columns. Run from the repository root:
    python3 Tests/HeraldStoreTests/Fixtures/make-fixtures.py
"""
import os, re, sqlite3, subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
GATEWAY = "Sources/HeraldStore/SQLiteStore.swift"
# (fixture, commit that introduced the version, source files holding the migrations)
VERSIONS = [
    ("gateway-v1", "c8a1068", [GATEWAY]),  # the final v1 (8ed7258's first one had another index)
    ("gateway-v2", "8e0b77e", [GATEWAY]),
    ("gateway-v3", "57aa575", [GATEWAY]),
    ("gateway-v4", "e699399", [GATEWAY]),
    ("daemon-v1", "48a1184", ["Sources/UserNotifications/Engine/NotificationStore.swift"]),
    ("daemon-v2", "f4f29aa", ["Sources/UserNotifications/Engine/NotificationStore.swift",
                              "Sources/UserNotifications/Engine/NotificationStore+Daemon.swift"]),
]
MIGRATION = re.compile(r'registerMigration\("([^"]+)"\)(.*?)(?=registerMigration\(|\Z)', re.S)
SQL = re.compile(r'sql:\s*"""\n(.*?)"""|sql:\s*"([^"]*)"', re.S)

def migrations(commit, paths):
    for path in paths:
        source = subprocess.run(["git", "show", f"{commit}:{path}"], check=True, capture_output=True, text=True).stdout
        # The migrations end where the migrator is returned or run (the daemon's last one ends its function).
        source = re.split(r"return migrator|try migrator\.migrate|\n    }\n", source[source.find("registerMigration"):])[0]
        for name, body in MIGRATION.findall(source):
            yield name, [a or b for a, b in SQL.findall(body)]

def rows(db, fixture, names):
    """A few rows in the columns this version has."""
    if fixture.startswith("gateway"):
        db.execute("INSERT INTO provider_key VALUES ('TEAM123456','KEY1234567','[]','development','PEM',1.0,NULL)")
        token = "ab" * 32
        db.execute("INSERT INTO device (token, topic, environment, created_at) VALUES (?, 'com.example.app', 'development', 2.0)", [token])
        apns = bytes.fromhex("0123456789abcdef0123456789abcdef")
        db.execute("""INSERT INTO notification (id, apns_id, unique_id, device_token, bundle_id, topic, push_type, priority,
                      expiration, collapse_id, payload, received_at) VALUES (7, ?, ?, ?, 'com.example.app', 'com.example.app',
                      'alert', 10, NULL, NULL, ?, 3.0)""", [apns, apns[::-1], token, b'{"aps":{"alert":"kept"}}'])
        if len(names) >= 2:
            db.execute("INSERT INTO linked_device VALUES ('device-1', x'04', 1.0, 2.0)")
            db.execute("INSERT INTO app VALUES ('com.example.app', 'all', 50)")
            db.execute("UPDATE device SET owner = 'device-1'")
            db.execute("UPDATE notification SET device_id = 'device-1', stored_at = 3.0")
    else:
        db.execute("""INSERT INTO app (bundle_id, settings, badge) VALUES ('com.example.app', NULL, 3)""")
        db.execute("""INSERT INTO delivered VALUES ('com.example.app', 'kept', '{}', 4.0)""")
        if len(names) >= 2:
            db.execute("""INSERT INTO inbox (apns_id, item, received_at) VALUES ('0123', '{}', 5.0)""")

for fixture, commit, paths in VERSIONS:
    # The daemon's store is tested in HeraldDeviceTests, next to the daemon.
    directory = HERE if fixture.startswith("gateway") else os.path.join(HERE, "../../HeraldDeviceTests/Fixtures")
    path = os.path.normpath(os.path.join(directory, fixture + ".sqlite"))
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(path + suffix): os.remove(path + suffix)
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode = WAL")
    db.execute("CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY)")
    names = []
    for name, statements in migrations(commit, paths):
        for sql in statements: db.executescript(sql)
        db.execute("INSERT INTO grdb_migrations VALUES (?)", [name])
        names.append(name)
    rows(db, fixture, names)
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.execute("VACUUM")
    db.close()
    print(fixture, commit, names, os.path.getsize(path), "bytes")
