extension PostgresSchema {
    /// Version 6: fault rules (docs/faults.md), each kept as the JSON the admin API speaks.
    static let faultRules = [
        """
        CREATE TABLE fault_rule (
            id text PRIMARY KEY,
            rule text NOT NULL,
            created_at double precision NOT NULL,
            expires_at double precision NOT NULL,
            persistent boolean NOT NULL
        )
        """
    ]
}
