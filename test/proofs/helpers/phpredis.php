<?php
// Proof program for the generated phpredis helper (Locksmith.php next to it). Usage:
//   php proof.php <redis-url> <mode> [rounds or kind]; modes: counter, renew, steal, fence, busy, and
//   for the lock kinds (as test/proofs/helpers/kinds.js): reentrant, rw-reader, rw-writer, semaphore,
//   hold, take; for the parts (test/helpers-parts-php-rb-proof.test.ts): fenced-writes, replica-shortfall,
//   replica-acked <replica-url>, replica-bad, replica-lost, replica-fsync, fenced-paused.
declare(strict_types=1);

require_once __DIR__ . '/Locksmith.php';
require_once __DIR__ . '/php-parts.php';

[, $url, $mode] = $argv;
$arg = $argv[3] ?? '1';
$rounds = (int) $arg;
['host' => $host, 'port' => $port] = parse_url($url);
$redis = new Redis();
$redis->connect($host, $port);
$nowMs = static fn (): int => (int) floor(microtime(true) * 1000);
// Takes a kind on proof:lock.
$acquireKind = static fn (string $kind, int $ttlMs, int $waitMs): LocksmithLease => match ($kind) {
    'lock' => Locksmith::acquire($redis, 'proof:lock', $ttlMs, $waitMs),
    'reentrant' => Locksmith::acquire($redis, 'proof:lock', $ttlMs, $waitMs, reentrant: true),
    'read' => Locksmith::acquireRead($redis, 'proof:lock', $ttlMs, $waitMs),
    'write' => Locksmith::acquireWrite($redis, 'proof:lock', $ttlMs, $waitMs),
    'semaphore' => Locksmith::acquireSemaphore($redis, 'proof:lock', 1, $ttlMs, $waitMs),
};

switch ($mode) {
    case 'counter':
        for ($round = 0; $round < $rounds; $round++) {
            Locksmith::withLock($redis, 'proof:lock', 30000, function () use ($redis) {
                if ($redis->incr('proof:occupancy') !== 1) {
                    throw new RuntimeException('two holders at once');
                }
                $redis->set('proof:counter', (int) $redis->get('proof:counter') + 1);
                $redis->script('flush'); // the next script call of either process takes the NOSCRIPT path
                $redis->decr('proof:occupancy');
            }, waitMs: 60_000);
        }
        break;
    case 'renew':
        $lease = Locksmith::acquire($redis, 'proof:lock', 1500, renew: true);
        for ($step = 0; $step < 500; $step++) {
            usleep(10_000);
            $lease->check();
            if ($redis->get('proof:lock') !== $lease->token) {
                throw new RuntimeException('lease lost while renewing');
            }
        }
        if (!$lease->release()) {
            throw new RuntimeException('release found the lease gone');
        }
        $redis->set('proof:lock', $lease->token); // no TTL: a renewal after release would add one
        usleep(1500_000);
        $lease->check(); // a late check() must not renew any more
        if ($redis->pttl('proof:lock') !== -1) {
            throw new RuntimeException('still renewing after release');
        }
        $redis->del('proof:lock');
        echo "renewed\n";
        break;
    case 'steal':
        $lease = Locksmith::acquire($redis, 'proof:lock', 900, renew: true);
        echo "held\n";
        flush();
        $until = $nowMs() + 5000;
        while (true) {
            usleep(5_000); // the work between two checks
            try {
                $lease->check();
            } catch (LeaseLostException) {
                $at = $nowMs();
                break;
            }
            if ($nowMs() > $until) {
                throw new RuntimeException('no loss reported within 5 s');
            }
        }
        if ($lease->release()) {
            throw new RuntimeException('released a stolen lock');
        }
        echo "lost $at\n";
        break;
    case 'fence':
        for ($round = 0; $round < $rounds; $round++) {
            Locksmith::withLock($redis, 'proof:lock', 5000, function ($lease) use ($redis) {
                usleep(5_000);
                $redis->rPush('proof:tokens', (string) $lease->fence);
            }, waitMs: 60_000, fenceKey: 'proof:fence');
        }
        break;
    case 'busy':
        $started = hrtime(true);
        try {
            Locksmith::acquire($redis, 'proof:lock', 5000, waitMs: 500);
        } catch (LockBusyException $error) {
            echo 'busy ' . intdiv(hrtime(true) - $started, 1_000_000) . ' ' . $error->getMessage() . "\n";
            break;
        }
        throw new RuntimeException('acquired a lock another owner holds');
    case 'reentrant':
        for ($round = 0; $round < $rounds; $round++) {
            Locksmith::withLock($redis, 'proof:lock', 5000, function ($outer) use ($redis) {
                if ($redis->incr('proof:occupancy') !== 1) {
                    throw new RuntimeException('two holders at once');
                }
                Locksmith::withLock($redis, 'proof:lock', 5000, function ($inner) use ($redis, $outer) {
                    if ($inner->token !== $outer->token || $redis->hGet('proof:lock', $outer->token) !== '2') {
                        throw new RuntimeException('the nested take did not re-enter');
                    }
                    $redis->set('proof:counter', (int) $redis->get('proof:counter') + 1);
                }, reentrant: true);
                if ($redis->hGet('proof:lock', $outer->token) !== '1') {
                    throw new RuntimeException('hold count is not back to 1');
                }
                $redis->decr('proof:occupancy');
            }, waitMs: 60_000, reentrant: true);
        }
        break;
    case 'rw-reader':
        for ($round = 0; $round < $rounds; $round++) {
            Locksmith::withReadLock($redis, 'proof:rw', 5000, function () use ($redis) {
                if ($redis->incr('proof:readers') > 1) {
                    $redis->set('proof:overlap', '1');
                }
                if ((int) $redis->get('proof:writers') !== 0) {
                    throw new RuntimeException('read while a writer held the lock');
                }
                usleep(10_000);
                $redis->decr('proof:readers');
            }, waitMs: 60_000);
        }
        break;
    case 'rw-writer':
        for ($round = 0; $round < $rounds; $round++) {
            Locksmith::withWriteLock($redis, 'proof:rw', 5000, function () use ($redis) {
                if ($redis->incr('proof:writers') !== 1) {
                    throw new RuntimeException('two writers at once');
                }
                if ((int) $redis->get('proof:readers') !== 0) {
                    throw new RuntimeException('wrote while a reader held the lock');
                }
                $redis->set('proof:counter', (int) $redis->get('proof:counter') + 1);
                $redis->decr('proof:writers');
            }, waitMs: 60_000);
        }
        break;
    case 'semaphore':
        for ($round = 0; $round < $rounds; $round++) {
            Locksmith::withSemaphore($redis, 'proof:sem', 2, 5000, function () use ($redis) {
                $holders = $redis->incr('proof:holders');
                if ($holders > 2) {
                    throw new RuntimeException("$holders holders of 2 permits");
                }
                if ($holders === 2) {
                    $redis->set('proof:full', '1');
                }
                usleep(5_000);
                $redis->decr('proof:holders');
            }, waitMs: 60_000);
        }
        break;
    case 'hold':
        $acquireKind($arg, (int) (getenv('PROOF_HOLD_MS') ?: 1000), 0);
        echo "held\n";
        flush();
        sleep(60);
        break;
    case 'take':
        $lease = $acquireKind($arg, 5000, 10_000);
        echo 'took ' . $nowMs() . "\n";
        $lease->release();
        break;
    default:
        $connect = static function (string $url): Redis {
            ['host' => $host, 'port' => $port] = parse_url($url);
            $client = new Redis();
            $client->connect($host, $port);
            return $client;
        };
        if (!runPartsMode($mode, $redis, $connect, $argv[3] ?? null)) {
            throw new InvalidArgumentException("unknown mode $mode");
        }
}
