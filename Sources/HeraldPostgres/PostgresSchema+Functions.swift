extension PostgresSchema {
    /// Version 2: `herald_insert_notifications`, a batch's commit in one call, so one round trip.
    ///
    /// Called on its own (its own transaction), it:
    /// 1. makes the commit synchronous if the session or database default is `synchronous_commit = off` (a 200 means
    ///    durable);
    /// 2. takes the commit lock, held until the transaction has committed, so that commits take ids one after another
    ///    in commit order (a commit that took lower ids is always visible before one that took higher ones);
    /// 3. takes the batch's ids, contiguous, from the sequence and inserts every row in one statement, each with the id
    ///    of its position;
    /// 4. finds the notifications kept for an offline device whose device is linked to a live node after all (another node
    ///    holds its link: only that node knew it online) and admits them as for an online device: pending, no policy;
    /// 5. applies the offline policy of each notification kept for an offline device, in order, exactly as the SQLite
    ///    store does: `latest` discards what the app had pending before (`coalesced`); `all` discards the pending one
    ///    with the same collapse id (`coalesced`), then the oldest past the cap (`overflow`). Each statement sees what
    ///    other nodes committed before the lock was granted (a function's statements take a snapshot each);
    /// 6. announces the commit on `herald_commits` as `NODE FIRST LAST`, delivered when it commits;
    /// and returns the first id followed by the ids admitted as online in step 4 (null for an empty batch).
    static let insertFunction = """
        CREATE FUNCTION herald_insert_notifications(
            _node text, _apns_ids bytea[], _unique_ids bytea[], _tokens text[], _device_ids text[], _bundle_ids text[],
            _topics text[], _push_types text[], _priorities integer[], _expirations bigint[], _collapse_ids text[],
            _payloads bytea[], _received_at double precision[], _policies text[], _caps integer[], _states text[],
            _stored_at double precision[], _discarded_at double precision[], _discard_reasons text[]
        ) RETURNS bigint[] LANGUAGE plpgsql AS $function$
        DECLARE
            _count integer := cardinality(_apns_ids);
            _first bigint;
            _kept record;
            _oldest_kept bigint;
            _online bigint[];
        BEGIN
            IF _count = 0 THEN
                RETURN NULL;
            END IF;
            IF current_setting('synchronous_commit') = 'off' THEN
                PERFORM set_config('synchronous_commit', 'on', true);
            END IF;
            PERFORM pg_advisory_xact_lock(\(commitLock));
            _first := nextval('notification_id');
            IF _count > 1 THEN
                PERFORM setval('notification_id', _first + _count - 1);
            END IF;
            INSERT INTO notification (
                id, apns_id, unique_id, device_token, device_id, bundle_id, topic, push_type, priority, expiration,
                collapse_id, payload, received_at, offline_policy, offline_cap, state, stored_at, discarded_at, discard_reason
            )
            SELECT _first + b.position - 1, b.apns_id, b.unique_id, b.device_token, b.device_id, b.bundle_id, b.topic,
                   b.push_type, b.priority, b.expiration, b.collapse_id, b.payload, b.received_at, b.offline_policy,
                   b.offline_cap, b.state, b.stored_at, b.discarded_at, b.discard_reason
            FROM unnest(
                _apns_ids, _unique_ids, _tokens, _device_ids, _bundle_ids, _topics, _push_types, _priorities, _expirations,
                _collapse_ids, _payloads, _received_at, _policies, _caps, _states, _stored_at, _discarded_at, _discard_reasons
            ) WITH ORDINALITY AS b(
                apns_id, unique_id, device_token, device_id, bundle_id, topic, push_type, priority, expiration,
                collapse_id, payload, received_at, offline_policy, offline_cap, state, stored_at, discarded_at, discard_reason,
                position
            );
            WITH online AS (
                UPDATE notification AS n
                SET offline_policy = NULL, offline_cap = NULL, state = 'pending', stored_at = NULL, discarded_at = NULL,
                    discard_reason = NULL
                WHERE n.id BETWEEN _first AND _first + _count - 1 AND n.offline_policy IS NOT NULL
                    AND EXISTS (
                        SELECT 1 FROM device_link JOIN node ON node.id = device_link.node_id
                        WHERE device_link.device_id = n.device_id AND node.lease_until > extract(epoch FROM now())::float8
                    )
                RETURNING n.id
            )
            SELECT coalesce(array_agg(id), '{}') INTO _online FROM online;
            FOR _kept IN
                SELECT _first + b.position - 1 AS id, b.device_id, b.device_token, b.policy, b.cap, b.collapse_id, b.received_at
                FROM unnest(_device_ids, _tokens, _policies, _caps, _collapse_ids, _received_at, _stored_at)
                    WITH ORDINALITY AS b(device_id, device_token, policy, cap, collapse_id, received_at, stored_at, position)
                WHERE b.stored_at IS NOT NULL AND b.device_id IS NOT NULL AND b.policy IS NOT NULL
                    AND NOT (_first + b.position - 1 = ANY(_online))
                ORDER BY b.position
            LOOP
                IF _kept.policy = 'latest' THEN
                    UPDATE notification SET state = 'discarded', discarded_at = _kept.received_at, discard_reason = 'coalesced'
                    WHERE device_id = _kept.device_id AND device_token = _kept.device_token AND state = 'pending'
                        AND device_id IS NOT NULL AND id < _kept.id;
                    CONTINUE;
                END IF;
                IF _kept.collapse_id IS NOT NULL THEN
                    UPDATE notification SET state = 'discarded', discarded_at = _kept.received_at, discard_reason = 'coalesced'
                    WHERE device_id = _kept.device_id AND device_token = _kept.device_token AND state = 'pending'
                        AND device_id IS NOT NULL AND id < _kept.id AND collapse_id = _kept.collapse_id;
                END IF;
                -- The id at position `cap` counting down from the newest: it and everything older overflow.
                SELECT id INTO _oldest_kept FROM notification
                WHERE device_id = _kept.device_id AND device_token = _kept.device_token AND state = 'pending'
                    AND device_id IS NOT NULL AND id <= _kept.id
                ORDER BY id DESC LIMIT 1 OFFSET _kept.cap;
                IF FOUND THEN
                    UPDATE notification SET state = 'discarded', discarded_at = _kept.received_at, discard_reason = 'overflow'
                    WHERE device_id = _kept.device_id AND device_token = _kept.device_token AND state = 'pending'
                        AND device_id IS NOT NULL AND id <= _oldest_kept;
                END IF;
            END LOOP;
            PERFORM pg_notify('\(commitChannel)', _node || ' ' || _first || ' ' || (_first + _count - 1));
            RETURN _first || _online;
        END
        $function$
        """
}
