extension PostgresSchema {
    /// Version 4: broadcast channels. `herald_create_channel` counts an app's live channels and adds the new one under
    /// a transaction advisory lock of the app's own, so two nodes creating the app's last channels take turns and the
    /// limit holds across a cluster.
    static let broadcastChannels = [
        """
        CREATE TABLE broadcast_channel (
            id text PRIMARY KEY,
            bundle_id text NOT NULL,
            environment text NOT NULL,
            storage_policy smallint NOT NULL,
            created_at double precision NOT NULL,
            deleted_at double precision
        )
        """,
        "CREATE INDEX broadcast_channel_app ON broadcast_channel (bundle_id, environment) WHERE deleted_at IS NULL",
        """
        CREATE TABLE channel_broadcast (
            channel_id text PRIMARY KEY,
            unique_id bytea NOT NULL,
            payload bytea NOT NULL,
            priority smallint NOT NULL,
            expires_at double precision NOT NULL,
            received_at double precision NOT NULL
        )
        """,
        """
        CREATE FUNCTION herald_create_channel(
            _id text, _bundle_id text, _environment text, _storage_policy smallint, _created_at double precision, _limit integer)
        RETURNS boolean LANGUAGE plpgsql AS $function$
        BEGIN
            PERFORM pg_advisory_xact_lock(\(channelLock), hashtext(_bundle_id || ' ' || _environment));
            IF (SELECT count(*) FROM broadcast_channel
                WHERE bundle_id = _bundle_id AND environment = _environment AND deleted_at IS NULL) >= _limit THEN
                RETURN false;
            END IF;
            INSERT INTO broadcast_channel (id, bundle_id, environment, storage_policy, created_at)
            VALUES (_id, _bundle_id, _environment, _storage_policy, _created_at);
            RETURN true;
        END
        $function$
        """,
    ]
}
