# The demo workspace's sample: the nightly report job, locked the way the linter should flag.
import socket
import time

import redis

r = redis.Redis()


def run_nightly_report():
    # SETNX, then EXPIRE in a second round trip: a crash in between leaves the lock with no TTL
    # (lock:nightly-report in the Locks view is such a lock).
    if not r.setnx("lock:nightly-report", socket.gethostname()):
        return
    r.expire("lock:nightly-report", 600)
    try:
        build_report()
    finally:
        # A blind DEL: if the lease ran out and another host took the lock, this deletes theirs.
        r.delete("lock:nightly-report")


def build_report():
    time.sleep(5)


if __name__ == "__main__":
    run_nightly_report()
