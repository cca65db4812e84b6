extension PostgresSchema {
    /// Version 7: Web Push (docs/web-push.md). A subscription is a device row of kind `webPush` with the key it was made
    /// with; a message is a notification row with its urgency, TTL and sender as JSON (`WebPushDetails`). A batch with
    /// messages is committed by `herald_insert_web_pushes`: `herald_insert_broadcasts` (which writes any broadcasts it
    /// holds), then, in the same transaction, each message's details and RFC 8030's `Topic`: a waiting message of the
    /// same subscription with the same topic is replaced (by a message that is itself waiting, not one discarded as it
    /// came).
    static let webPush = [
        "ALTER TABLE device ADD COLUMN application_server_key bytea",
        "ALTER TABLE notification ADD COLUMN web_push text",
        """
        CREATE INDEX notification_pending_web_push_topic ON notification (device_token, collapse_id)
            WHERE state = 'pending' AND web_push IS NOT NULL AND collapse_id IS NOT NULL
        """,
        """
        CREATE FUNCTION herald_insert_web_pushes(
            _node text, _apns_ids bytea[], _unique_ids bytea[], _tokens text[], _device_ids text[], _bundle_ids text[],
            _topics text[], _push_types text[], _priorities integer[], _expirations bigint[], _collapse_ids text[],
            _payloads bytea[], _received_at double precision[], _policies text[], _caps integer[], _states text[],
            _stored_at double precision[], _discarded_at double precision[], _discard_reasons text[],
            _channel_ids text[], _kept_until double precision[], _web_pushes text[]
        ) RETURNS bigint[] LANGUAGE plpgsql AS $function$
        DECLARE
            _result bigint[];
        BEGIN
            _result := herald_insert_broadcasts(
                _node, _apns_ids, _unique_ids, _tokens, _device_ids, _bundle_ids, _topics, _push_types, _priorities,
                _expirations, _collapse_ids, _payloads, _received_at, _policies, _caps, _states, _stored_at, _discarded_at,
                _discard_reasons, _channel_ids, _kept_until);
            UPDATE notification AS n SET web_push = m.web_push
            FROM unnest(_web_pushes) WITH ORDINALITY AS m(web_push, position)
            WHERE m.web_push IS NOT NULL AND n.id = _result[1] + m.position - 1;
            UPDATE notification AS old SET state = 'discarded', discarded_at = m.received_at, discard_reason = 'coalesced'
            FROM unnest(_web_pushes, _tokens, _collapse_ids, _received_at, _states) WITH ORDINALITY
                AS m(web_push, token, collapse_id, received_at, state, position)
            WHERE m.web_push IS NOT NULL AND m.collapse_id IS NOT NULL AND m.state = 'pending'
                AND old.device_token = m.token AND old.collapse_id = m.collapse_id AND old.state = 'pending'
                AND old.web_push IS NOT NULL AND old.id < _result[1] + m.position - 1;
            RETURN _result;
        END
        $function$
        """,
    ]
}
