extension PostgresSchema {
    /// Version 3: retirements numbered in commit order (`device.retired_seq`), so that every node announces each
    /// one once, and `herald_retire_device`, a retirement in one call.
    ///
    /// Called on its own (its own transaction), the function takes the retirement lock, held until the transaction has
    /// committed, then numbers the retirement after the latest one (its statement's snapshot, taken after the lock was
    /// granted, sees every earlier retirement committed): a retirement with a higher number is never visible before
    /// one with a lower. It discards what the token's app had pending (`unregistered`) and returns whether the token
    /// was known.
    static let retirementsInOrder = [
        "ALTER TABLE device ADD COLUMN retired_seq bigint",
        "CREATE UNIQUE INDEX device_retired_seq ON device (retired_seq) WHERE retired_seq IS NOT NULL",
        """
        CREATE FUNCTION herald_retire_device(_token text, _retirement text, _at double precision)
        RETURNS boolean LANGUAGE plpgsql AS $function$
        DECLARE
            _owner text;
        BEGIN
            PERFORM pg_advisory_xact_lock(\(retirementLock));
            UPDATE device SET retired_at = _at, retirement = _retirement,
                retired_seq = (SELECT coalesce(max(retired_seq), 0) + 1 FROM device)
            WHERE token = _token RETURNING owner INTO _owner;
            IF NOT FOUND THEN
                RETURN false;
            END IF;
            UPDATE notification SET state = 'discarded', discarded_at = _at, discard_reason = 'unregistered'
            WHERE device_id = _owner AND device_token = _token AND state = 'pending' AND device_id IS NOT NULL;
            RETURN true;
        END
        $function$
        """,
    ]
}
