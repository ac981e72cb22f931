"""Runs a script's checks on every rank and prints, on rank 0, one line per check:
`PASS name`, `SKIP name: why` or `FAIL name: [rank r] error` (failures of all ranks)."""
import sys
import traceback

import ember.distributed as dist


class Skip(Exception):
    pass


def run_checks(checks, only=None) -> None:
    for check in checks:
        name = check.__name__
        if only and name not in only:
            continue
        try:
            check()
            outcome = ("PASS", "")
        except Skip as reason:
            outcome = ("SKIP", str(reason))
        except Exception:
            outcome = ("FAIL", f"[rank {dist.get_rank()}] " + traceback.format_exc())
        outcomes = [None] * dist.get_world_size()
        dist.all_gather_object(outcomes, outcome)
        if dist.get_rank() == 0:
            failures = [text for kind, text in outcomes if kind == "FAIL"]
            if failures:
                print(f"FAIL {name}: " + "\n".join(failures).replace("\n", "\n    "))
            elif outcomes[0][0] == "SKIP":
                print(f"SKIP {name}: {outcomes[0][1]}")
            else:
                print(f"PASS {name}")
            sys.stdout.flush()
