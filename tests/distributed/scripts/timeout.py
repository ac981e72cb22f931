"""Rank 0 all-reduces, rank 1 never joins: rank 0 must raise RuntimeError after the
1-second timeout given to init_process_group instead of waiting forever."""
import os
import sys
import time
from datetime import timedelta

import ember
import ember.distributed as dist

dist.init_process_group("mpi", timeout=timedelta(seconds=1))
if dist.get_rank() == 0:
    start = time.monotonic()
    try:
        dist.all_reduce(ember.ones(4))
    except RuntimeError as error:
        print(f"TIMEOUT after {time.monotonic() - start:.2f}s: {error}")
    else:
        print("NO TIMEOUT")
else:
    time.sleep(2)
sys.stdout.flush()
# The abandoned all-reduce can never complete: leave without MPI_Finalize.
os._exit(0)
