<?php
// Proof program for the generated phpredis helper (Locksmith.php next to it). Usage:
//   php proof.php <redis-url> <mode> [rounds or kind]; modes: counter, renew, steal, fence, busy, and
//   for the lock kinds (as test/proofs/helpers/kinds.js): reentrant, rw-reader, rw-writer, semaphore,
//   hold, take; for the parts (test/helpers-parts-php-rb-proof.test.ts): fenced-writes, replica-shortfall,
//   replica-acked <replica-url>, replica-bad, replica-lost, replica-fsync, fenced-paused.
declare(strict_types=1);

require_once __DIR__ . '/Locksmith.php';

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
            Locksmith::withLock($redis, 'proof:lock', 5000, function () use ($redis) {
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
        $lease = Locksmith::acquire($redis, 'proof:lock', 300, renew: true);
        for ($step = 0; $step < 100; $step++) {
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
        usleep(900_000);
        $lease->check(); // a late check() must not renew any more
        if ($redis->pttl('proof:lock') !== -1) {
            throw new RuntimeException('still renewing after release');
        }
        $redis->del('proof:lock');
        echo "renewed\n";
        break;
    case 'steal':
        $lease = Locksmith::acquire($redis, 'proof:lock', 300, renew: true);
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
    case 'fenced-writes':
        // A holder whose lease expired, then one whose lock another owner took, writes nothing; the data is the live holder's.
        $first = Locksmith::acquire($redis, 'proof:lock', 200, fenceKey: 'proof:fence');
        $results = ['held-write' => $first->setIfHeld('proof:data', 'first'), 'held-fenced' => $first->setFenced('proof:fdata', 'first')];
        usleep(400_000);
        $results['expired-write'] = $first->setIfHeld('proof:data', 'first-late');
        $second = Locksmith::acquire($redis, 'proof:lock', 5000, fenceKey: 'proof:fence');
        $results['taken-write'] = $first->setIfHeld('proof:data', 'first-late');
        $results['holder-write'] = $second->setIfHeld('proof:data', 'second');
        $results['newer-fenced'] = $second->setFenced('proof:fdata', 'second');
        $results['older-fenced'] = $first->setFenced('proof:fdata', 'first-late');
        foreach ($results as $name => $written) {
            echo $name . ' ' . ($written ? 'true' : 'false') . "\n";
        }
        $second->release();
        try {
            Locksmith::acquire($redis, 'proof:lock', 5000)->setFenced('proof:fdata', 'unfenced');
        } catch (LogicException $error) {
            echo 'unfenced ' . $error->getMessage() . "\n";
        }
        break;
    case 'replica-shortfall':
        // On a master with no replica: released and refused; kept with onShortfall; busy as without the option.
        try {
            Locksmith::acquire($redis, 'proof:lock', 5000, waitMs: 0, waitForReplicas: ['replicas' => 1, 'timeoutMs' => 50]);
            throw new RuntimeException('held without the replica');
        } catch (ReplicaShortfallException $error) {
            $shortfall = $error->shortfall;
            echo "shortfall $shortfall->reason $shortfall->acknowledged/$shortfall->required " . ($error->released ? 'released' : 'kept') . "\n";
            echo 'message ' . $error->getMessage() . "\n";
        }
        $seen = [];
        $wait = ['timeoutMs' => 50, 'onShortfall' => function (ReplicaShortfall $shortfall) use (&$seen) {
            $seen[] = $shortfall->reason;
        }];
        $lease = Locksmith::acquire($redis, 'proof:kept', 5000, fenceKey: 'proof:fence', waitForReplicas: $wait);
        echo 'kept ' . implode(',', $seen) . " $lease->fence $lease->token\n";
        try {
            Locksmith::acquire($redis, 'proof:busy', 5000, waitMs: 0, waitForReplicas: $wait);
        } catch (LockBusyException) {
            echo 'busy ' . implode(',', $seen) . "\n";
        }
        break;
    case 'replica-acked':
        // $arg: the replica's URL, read as soon as each acquire returns (the test slows its link).
        ['host' => $replicaHost, 'port' => $replicaPort] = parse_url($arg);
        $replica = new Redis();
        $replica->connect($replicaHost, $replicaPort);
        $wait = ['replicas' => 1, 'timeoutMs' => 5000];
        $lease = Locksmith::acquire($redis, 'proof:lock', 60_000, fenceKey: 'proof:fence', waitForReplicas: $wait);
        $onReplica = [$replica->get('proof:lock'), $replica->get('proof:fence')];
        echo 'acked ' . json_encode([$lease->token, $lease->fence, ...$onReplica]) . "\n";
        Locksmith::acquire($redis, 'proof:plain', 60_000);
        echo 'control ' . json_encode($replica->get('proof:plain')) . "\n";
        $result = Locksmith::withLock($redis, 'proof:with', 60_000, fn ($held) => $held->token, waitForReplicas: $wait);
        echo "with-lock $result\n";
        break;
    case 'fenced-paused':
        // Stopped (SIGSTOP) in its sleep, past its 300 ms lease, while the test takes the lock and writes.
        $lease = Locksmith::acquire($redis, 'proof:lock', 300, fenceKey: 'proof:fence');
        echo "held $lease->fence\n";
        flush();
        sleep(3);
        echo 'paused-write ' . json_encode($lease->setIfHeld('proof:data', 'paused')) . "\n";
        echo 'paused-fenced ' . json_encode($lease->setFenced('proof:fdata', 'paused')) . "\n";
        break;
    case 'replica-lost':
        // The test kills this connection while its WAIT waits for a replica it has cut off.
        try {
            Locksmith::acquire($redis, 'proof:lock', 60_000, waitMs: 0, waitForReplicas: ['timeoutMs' => 5000]);
            echo "acquired\n";
        } catch (ReplicaShortfallException $error) {
            echo "shortfall {$error->shortfall->reason} " . ($error->released ? 'released' : 'not-released') . "\n";
        }
        break;
    case 'replica-fsync':
        // fsync on a server without WAITAOF (Redis 7.0) or with appendonly no: released whatever onShortfall says.
        $called = 'not-called';
        $wait = ['fsync' => true, 'onShortfall' => function () use (&$called) {
            $called = 'called';
        }];
        try {
            Locksmith::acquire($redis, 'proof:lock', 60_000, waitMs: 0, waitForReplicas: $wait);
            echo "acquired\n";
        } catch (ReplicaShortfallException $error) {
            echo "shortfall {$error->shortfall->reason} " . ($error->released ? 'released' : 'not-released') . " $called\n";
            echo 'message ' . $error->getMessage() . "\n";
        }
        break;
    case 'replica-bad':
        // Each refused before anything is sent (the test counts the server's commands).
        $bad = [
            [5000, ['replicas' => 0]],
            [5000, ['replicas' => '1']],
            [5000, ['timeoutMs' => 0]],
            [300, ['timeoutMs' => 500]],
            [5000, ['fsync' => 'yes']],
            [5000, ['onShortfall' => 'keep']],
            [5000, ['timeout' => 100]],
        ];
        foreach ($bad as [$ttlMs, $wait]) {
            try {
                Locksmith::acquire($redis, 'proof:lock', $ttlMs, waitForReplicas: $wait);
                throw new RuntimeException('accepted ' . json_encode($wait));
            } catch (InvalidArgumentException $error) {
                echo 'refused ' . $error->getMessage() . "\n";
            }
        }
        break;
    default:
        throw new InvalidArgumentException("unknown mode $mode");
}
