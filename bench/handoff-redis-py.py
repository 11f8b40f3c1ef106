# One redis-py contender for bench/handoff.ts: redis-py's Lock with its defaults (sleep 0.1 s,
# blocking, no blocking timeout; a 10 s lease like the other variants), Debian's python3-redis.
# Usage: handoff-redis-py.py <port> <key> <start-epoch-ms> <seconds> <hold-ms> <work-ms>
# Prints one JSON line: {"waits": [[want, got, releasing], ...], "sent": commands sent}, times in epoch ms
# (releasing: just before the release call).
import json
import sys
import time

import redis


class CountingRedis(redis.Redis):
    sent = 0

    def execute_command(self, *args, **options):
        CountingRedis.sent += 1
        return super().execute_command(*args, **options)


def main():
    port, key, start_ms, seconds, hold_ms, work_ms = sys.argv[1:7]
    client = CountingRedis(host="127.0.0.1", port=int(port))
    lock = client.lock(key, timeout=10)
    client.ping()
    delay = float(start_ms) / 1000 - time.time()
    if delay > 0:
        time.sleep(delay)
    CountingRedis.sent = 0
    end = float(start_ms) / 1000 + float(seconds)
    records = []
    while time.time() < end:
        want = time.time()
        lock.acquire()
        got = time.time()
        time.sleep(float(hold_ms) / 1000)
        releasing = time.time()
        lock.release()
        records.append([want * 1000, got * 1000, releasing * 1000])
        time.sleep(float(work_ms) / 1000)
    print(json.dumps({"waits": records, "sent": CountingRedis.sent}))


main()
