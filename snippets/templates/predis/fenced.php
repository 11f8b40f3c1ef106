// Redis lock (Redis Locksmith, fenced): acquire returns a fencing token that grows with every
// new holder. Pass it to the guarded resource, which rejects writes with an older token, so a
// holder whose lease expired (GC pause, network stall) cannot overwrite its successor.
// Lock and fence keys must share a hash slot in Redis Cluster: use the same {hash tag}.
// Assumes a Predis\Client `$client`; PHP 8+.
// Predis sends a ScriptCommand as EVALSHA and resends it as EVAL when Redis answers NOSCRIPT.
$locksmith = function (string $lua, array $keys, array $args) use ($client) {
    $script = new class ($lua, count($keys)) extends \Predis\Command\ScriptCommand {
        public function __construct(private string $lua, private int $keyCount) {}
        public function getScript(): string { return $this->lua; }
        protected function getKeysCount(): int { return $this->keyCount; }
    };
    $script->setArguments([...$keys, ...$args]);
    return $client->executeCommand($script);
};
$locksmithAcquire = <<<'LUA'
«lua:acquire»
LUA;
$locksmithRelease = <<<'LUA'
«lua:release»
LUA;
$lockKey = «key»;
$fenceKey = «fence»;
$lockTtlMs = «ttl»;
$lockToken = gethostname() . ':' . getmypid() . ':' . bin2hex(random_bytes(8));
$lockWaitUntil = hrtime(true) + 10_000_000_000; // give up after waiting 10 s
for (
    $attempt = 0;
    ($fencingToken = $locksmith($locksmithAcquire, [$lockKey, $fenceKey], [$lockToken, $lockTtlMs])) === 0;
    $attempt++
) {
    if (hrtime(true) > $lockWaitUntil) {
        throw new \RuntimeException("$lockKey is still held by another owner");
    }
    usleep(min(10 * 2 ** $attempt, 500) * random_int(500, 1500)); // in µs: 10 ms doubling to 500 ms, ±50 % jitter
}
try {
    «body»
} finally {
    $locksmith($locksmithRelease, [$lockKey], [$lockToken]);
}
