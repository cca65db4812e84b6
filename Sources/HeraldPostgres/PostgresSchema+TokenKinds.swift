extension PostgresSchema {
    /// Version 5: token kinds (an app's own token, its push-to-start token, a Live Activity's token) and channel
    /// subscriptions.
    ///
    /// The index that admits one live token per app per device becomes one per app, kind and activity: registrations
    /// racing on two nodes still get the same token. A broadcast is one notification row with its channel id, committed
    /// by `herald_insert_broadcasts`: `herald_insert_notifications` (ids in commit order, the commit announced), then,
    /// in the same transaction, each row's channel id and, for a broadcast with a time to keep it, the channel's kept
    /// broadcast replaced while the channel is live.
    static let tokenKinds = [
        "ALTER TABLE device ADD COLUMN kind text NOT NULL DEFAULT 'app'",
        "ALTER TABLE device ADD COLUMN activity_id text",
        "DROP INDEX device_live_registration",
        """
        CREATE UNIQUE INDEX device_live_registration ON device (owner, topic, environment, kind, (coalesce(activity_id, '')))
            WHERE owner IS NOT NULL AND retired_at IS NULL
        """,
        "ALTER TABLE notification ADD COLUMN channel_id text",
        "ALTER TABLE channel_broadcast ADD COLUMN notification_id bigint",
        """
        CREATE TABLE channel_subscription (
            device_id text NOT NULL,
            channel_id text NOT NULL,
            bundle_id text NOT NULL,
            subscribed_at double precision NOT NULL,
            delivered_id bigint NOT NULL DEFAULT 0,
            PRIMARY KEY (device_id, channel_id)
        )
        """,
        "CREATE INDEX channel_subscription_channel ON channel_subscription (channel_id)",
        """
        CREATE FUNCTION herald_insert_broadcasts(
            _node text, _apns_ids bytea[], _unique_ids bytea[], _tokens text[], _device_ids text[], _bundle_ids text[],
            _topics text[], _push_types text[], _priorities integer[], _expirations bigint[], _collapse_ids text[],
            _payloads bytea[], _received_at double precision[], _policies text[], _caps integer[], _states text[],
            _stored_at double precision[], _discarded_at double precision[], _discard_reasons text[],
            _channel_ids text[], _kept_until double precision[]
        ) RETURNS bigint[] LANGUAGE plpgsql AS $function$
        DECLARE
            _result bigint[];
        BEGIN
            _result := herald_insert_notifications(
                _node, _apns_ids, _unique_ids, _tokens, _device_ids, _bundle_ids, _topics, _push_types, _priorities,
                _expirations, _collapse_ids, _payloads, _received_at, _policies, _caps, _states, _stored_at, _discarded_at,
                _discard_reasons);
            UPDATE notification AS n SET channel_id = b.channel_id
            FROM unnest(_channel_ids) WITH ORDINALITY AS b(channel_id, position)
            WHERE b.channel_id IS NOT NULL AND n.id = _result[1] + b.position - 1;
            INSERT INTO channel_broadcast (channel_id, notification_id, unique_id, payload, priority, expires_at, received_at)
            SELECT b.channel_id, _result[1] + b.position - 1, b.unique_id, b.payload, b.priority, b.kept_until, b.received_at
            FROM unnest(_channel_ids, _kept_until, _unique_ids, _payloads, _priorities, _received_at)
                WITH ORDINALITY AS b(channel_id, kept_until, unique_id, payload, priority, received_at, position)
            JOIN broadcast_channel AS c ON c.id = b.channel_id AND c.deleted_at IS NULL
            WHERE b.kept_until IS NOT NULL
            ON CONFLICT (channel_id) DO UPDATE SET notification_id = excluded.notification_id, unique_id = excluded.unique_id,
                payload = excluded.payload, priority = excluded.priority, expires_at = excluded.expires_at,
                received_at = excluded.received_at;
            RETURN _result;
        END
        $function$
        """,
    ]
}
