<?php
// The parts' modes of the PHP helper proofs (phpredis.php and predis.php require it from next to
// them; test/helpers-parts-php-rb-proof.test.ts runs them): fenced-writes, fenced-paused,
// replica-shortfall, replica-acked <replica-url>, replica-lost, replica-fsync, replica-bad, multi <n>,
// multi-try <n>, multi-bad.
declare(strict_types=1);

/**
 * Runs the parts' mode $mode with $redis (a phpredis \Redis or a Predis client); false when $mode is
 * not one of them. $connect connects to a URL with the same library; $arg: the mode's argument.
 */
function runPartsMode(string $mode, object $redis, Closure $connect, ?string $arg): bool
{
    switch ($mode) {
        case 'fenced-writes':
            // A holder whose lease expired, then one whose lock another owner took, writes nothing; the data is the live holder's.
            // 1 s: the two writes while it holds come within it on a loaded machine too.
            $first = Locksmith::acquire($redis, 'proof:lock', 1000, fenceKey: 'proof:fence');
            $results = ['held-write' => $first->setIfHeld('proof:data', 'first'), 'held-fenced' => $first->setFenced('proof:fdata', 'first')];
            usleep(1_300_000);
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
            return true;
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
            return true;
        case 'replica-acked':
            // $arg: the replica's URL, read as soon as each acquire returns (the test slows its link).
            $replica = $connect($arg);
            $wait = ['replicas' => 1, 'timeoutMs' => 5000];
            $lease = Locksmith::acquire($redis, 'proof:lock', 60_000, fenceKey: 'proof:fence', waitForReplicas: $wait);
            $onReplica = [$replica->get('proof:lock'), $replica->get('proof:fence')];
            echo 'acked ' . json_encode([$lease->token, $lease->fence, ...$onReplica]) . "\n";
            Locksmith::acquire($redis, 'proof:plain', 60_000);
            echo 'control ' . json_encode($replica->get('proof:plain')) . "\n";
            $result = Locksmith::withLock($redis, 'proof:with', 60_000, fn ($held) => $held->token, waitForReplicas: $wait);
            echo "with-lock $result\n";
            return true;
        case 'fenced-paused':
            // Stopped (SIGSTOP) in its sleep, past its 300 ms lease, while the test takes the lock and writes.
            $lease = Locksmith::acquire($redis, 'proof:lock', 300, fenceKey: 'proof:fence');
            echo "held $lease->fence\n";
            flush();
            sleep(3);
            echo 'paused-write ' . json_encode($lease->setIfHeld('proof:data', 'paused')) . "\n";
            echo 'paused-fenced ' . json_encode($lease->setFenced('proof:fdata', 'paused')) . "\n";
            return true;
        case 'replica-lost':
            // The test kills this connection while its WAIT waits for a replica it has cut off.
            try {
                Locksmith::acquire($redis, 'proof:lock', 60_000, waitMs: 0, waitForReplicas: ['timeoutMs' => 5000]);
                echo "acquired\n";
            } catch (ReplicaShortfallException $error) {
                echo "shortfall {$error->shortfall->reason} " . ($error->released ? 'released' : 'not-released') . "\n";
            }
            return true;
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
            return true;
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
            if ($redis instanceof Predis\Client) { // a cluster client that never connects: refused before it would
                try {
                    $cluster = new Predis\Client(['tcp://127.0.0.1:1'], ['cluster' => 'redis']);
                    Locksmith::acquire($cluster, 'proof:lock', 5000, waitForReplicas: []);
                } catch (InvalidArgumentException $error) {
                    echo 'refused ' . $error->getMessage() . "\n";
                }
            }
            return true;
        case 'multi':
            // $arg transfers between 2 or 3 of 4 accounts, each waiting for its locks under withMultiLock;
            // counted in proof:multi:done for the tryer.
            multiAllStarted($redis);
            for ($round = 0; $round < (int) $arg; $round++) {
                [$locks, $move] = multiTransfer($redis);
                Locksmith::withMultiLock($redis, $locks, 5000, $move, waitMs: 60_000);
            }
            $redis->incr('proof:multi:done');
            return true;
        case 'multi-try':
            // Such transfers that never wait, 2 ms apart, from when all 4 processes have started, at least
            // $arg of them and until the 3 'multi' ones are done; a busy one must leave none of its keys held by this process.
            $busy = 0;
            $mine = gethostname() . ':' . getmypid() . ':';
            multiAllStarted($redis);
            for ($round = 0; $round < (int) $arg || (int) $redis->get('proof:multi:done') < 3; $round++) {
                usleep(2000);
                [$locks, $move] = multiTransfer($redis);
                try {
                    $lease = Locksmith::acquireMulti($redis, $locks, 5000, waitMs: 0);
                } catch (LockBusyException) {
                    $busy++;
                    foreach ($locks as $lock) {
                        if (str_starts_with((string) $redis->get($lock), $mine)) {
                            throw new RuntimeException("partial hold of $lock");
                        }
                    }
                    continue;
                }
                $move();
                if (!$lease->release()) {
                    throw new RuntimeException('the multi-key lease was lost');
                }
            }
            echo json_encode(['busy' => $busy, 'tries' => $round]) . "\n";
            return true;
        case 'multi-bad':
            // Each refused before anything is sent (the test counts the server's commands).
            $bad = [[[], 5000], [['lock:a', 'lock:b', 'lock:a'], 5000], [['lock:a', ''], 5000], [['x' => 'lock:a'], 5000], [['lock:a'], 0]];
            foreach ($bad as [$keys, $ttlMs]) {
                try {
                    Locksmith::acquireMulti($redis, $keys, $ttlMs);
                    throw new RuntimeException('accepted ' . json_encode($keys));
                } catch (InvalidArgumentException $error) {
                    echo 'refused ' . $error->getMessage() . "\n";
                }
            }
            if ($redis instanceof Predis\Client) { // a cluster client that never connects: refused before it would
                try {
                    Locksmith::acquireMulti(new Predis\Client(['tcp://127.0.0.1:1'], ['cluster' => 'redis']), ['lock:a', 'lock:b'], 5000);
                } catch (InvalidArgumentException $error) {
                    echo 'refused ' . $error->getMessage() . "\n";
                }
            }
            return true;
    }
    return false;
}

/**
 * Counts this process in and waits until the test's 3 transfer processes and its tryer all are, so
 * that the tries meet the transfers however late a process starts.
 */
function multiAllStarted(object $redis): void
{
    $redis->incr('proof:multi:started');
    $deadline = microtime(true) + 30;
    while ((int) $redis->get('proof:multi:started') < 4) {
        if (microtime(true) > $deadline) {
            throw new RuntimeException('the other transfer processes did not start within 30 s');
        }
        usleep(1000);
    }
}

/** The locks of 2 or 3 random accounts of 4, and a move of 1 from the first to the second that flags a second holder. */
function multiTransfer(object $redis): array
{
    $picked = ['proof:acct:a', 'proof:acct:b', 'proof:acct:c', 'proof:acct:d'];
    shuffle($picked);
    $picked = array_slice($picked, 0, random_int(2, 3));
    $locks = array_map(fn (string $account) => "lock:$account", $picked);
    $move = function () use ($redis, $picked, $locks): void {
        foreach ($locks as $lock) {
            if ((int) $redis->incr("$lock:holders") !== 1) {
                throw new RuntimeException("two holders of $lock");
            }
        }
        [$from, $to] = $picked;
        [$a, $b] = [(int) $redis->get($from), (int) $redis->get($to)];
        usleep(1000);
        $redis->set($from, (string) ($a - 1));
        $redis->set($to, (string) ($b + 1));
        foreach ($locks as $lock) {
            $redis->decr("$lock:holders");
        }
    };
    return [$locks, $move];
}
