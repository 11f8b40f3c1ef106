// Runs one scenario against a lock class of test/fixtures/fix/javascript or typescript (fixed or
// not) on a real Redis and prints what each call answered, as JSON:
// driver.js <url> <scenario> <ttl ms> <module> <class> <key prefix>
const Redis = require('ioredis');

const [url, scenario, ttlText, modulePath, name, prefix] = process.argv.slice(2);
const Lock = require(modulePath)[name];
const ttl = Number(ttlText);
const redis = new Redis(url);
const make = (key, ms) => new Lock(redis, `${prefix}${key}`, ms);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

(async () => {
  const out = [];
  if (scenario === 'calls') {
    const a = make('calls', ttl);
    const b = make('calls', ttl);
    out.push(await a.acquire(), (await redis.pttl('lock:calls')) > 0, await b.acquire());
    out.push(await a.release(), await b.acquire(), await b.release(), await redis.exists('lock:calls'));
  } else if (scenario === 'stale') {
    const a = make('stale', ttl);
    out.push(await a.acquire());
    await sleep(ttl + 200);
    const b = make('stale', 30000);
    out.push(await b.acquire(), await a.release(), await redis.exists('lock:stale'));
  } else if (scenario === 'acquire') {
    out.push(await make('crash', ttl).acquire());
  }
  console.log(JSON.stringify(out.map((value) => (value === undefined ? null : value))));
  redis.disconnect();
})().catch((error) => {
  console.error(error);
  process.exit(1);
});
