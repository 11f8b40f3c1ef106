<?php
// Proof program for the generated Predis helper (Locksmith.php next to it). Usage:
//   php proof.php <redis-url> <mode> [rounds or kind]; modes: counter, renew, steal, fence, busy,
//   and (kind "lock" only) hold and take, as test/proofs/helpers/kinds.js; for the parts
//   (test/helpers-parts-php-rb-proof.test.ts): fenced-writes, replica-shortfall, replica-acked <replica-url>,
//   replica-bad, replica-lost, replica-fsync, fenced-paused.
declare(strict_types=1);

require_once '/usr/share/php/Predis/autoload.php';
require_once __DIR__ . '/Locksmith.php';
require_once __DIR__ . '/php-parts.php';

[, $url, $mode] = $argv;
$rounds = (int) ($argv[3] ?? 1);
// PROOF_PREDIS_REPLICA: a replication client (this URL the master, that one its replica), as Predis 1.x spells it.
$replica = getenv('PROOF_PREDIS_REPLICA');
$redis = $replica ? new Predis\Client(["$url?alias=master", $replica], ['replication' => true]) : new Predis\Client($url);
$nowMs = static fn (): int => (int) floor(microtime(true) * 1000);

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
        $redis->del(['proof:lock']);
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
                $redis->rpush('proof:tokens', [(string) $lease->fence]);
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
    case 'hold':
        Locksmith::acquire($redis, 'proof:lock', (int) (getenv('PROOF_HOLD_MS') ?: 1000), waitMs: 0);
        echo "held\n";
        flush();
        sleep(60);
        break;
    case 'take':
        $lease = Locksmith::acquire($redis, 'proof:lock', 5000, waitMs: 10_000);
        echo 'took ' . $nowMs() . "\n";
        $lease->release();
        break;
    default:
        $connect = static fn (string $url): Predis\Client => new Predis\Client($url);
        if (!runPartsMode($mode, $redis, $connect, $argv[3] ?? null)) {
            throw new InvalidArgumentException("unknown mode $mode");
        }
}
