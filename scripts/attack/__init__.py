"""scripts/attack-network.py's attacks by family (provider, device) over a shared harness: the wire, the
connections, the catalog of attacks, the attacker process and the report."""
