# Runs one scenario against a lock class of test/fixtures/fix/python (fixed or not) on a real
# Redis and prints what each call answered, as JSON: driver.py <url> <scenario> <ttl_s> <module> <class>
import importlib
import json
import sys
import time

import redis

url, scenario, ttl, module, name = sys.argv[1:6]
Lock = getattr(importlib.import_module(module), name)
r = redis.Redis.from_url(url)
ttl = int(ttl)
out = []
if scenario == "calls":
    a, b = Lock(r, "calls", ttl), Lock(r, "calls", ttl)
    out += [a.acquire(), r.pttl("lock:calls") > 0, b.acquire(), a.release(), b.acquire(), b.release()]
    out.append(r.exists("lock:calls"))
elif scenario == "stale":
    a = Lock(r, "stale", ttl)
    out.append(a.acquire())
    time.sleep(ttl + 0.2)
    b = Lock(r, "stale", 30)
    out += [b.acquire(), a.release(), r.exists("lock:stale")]
elif scenario == "acquire":
    out.append(Lock(r, "crash", ttl).acquire())
print(json.dumps(out))
