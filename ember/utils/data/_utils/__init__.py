"""DataLoader internals: collation, fetching, worker processes, shared-memory transport."""
