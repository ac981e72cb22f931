"""DataLoader internals: collation, fetching, worker processes, shared-memory transport."""
from . import collate, fetch, shared_memory, worker  # noqa: F401
