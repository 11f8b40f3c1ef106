<?php
// Runs one scenario against a lock class of test/fixtures/fix/php (fixed or not) on a real Redis
// and prints what each call answered, as JSON: driver.php <url> <scenario> <ttl s> <file> <class>
[, $url, $scenario, $ttl, $file, $class] = $argv;
require $file;
$parts = parse_url($url);
$redis = new \Redis();
$redis->connect($parts['host'], $parts['port']);
$ttl = (int) $ttl;
$out = [];
if ($scenario === 'calls') {
    $a = new $class($redis, 'lock:calls', $ttl);
    $b = new $class($redis, 'lock:calls', $ttl);
    $out = [$a->acquire(), $redis->pttl('lock:calls') > 0, $b->acquire(), $a->release(), $b->acquire(), $b->release()];
    $out[] = $redis->exists('lock:calls');
} elseif ($scenario === 'stale') {
    $a = new $class($redis, 'lock:stale', $ttl);
    $out[] = $a->acquire();
    usleep(($ttl * 1000 + 200) * 1000);
    $b = new $class($redis, 'lock:stale', 30);
    $out = array_merge($out, [$b->acquire(), $a->release(), $redis->exists('lock:stale')]);
} elseif ($scenario === 'acquire') {
    $out[] = (new $class($redis, 'lock:crash', $ttl))->acquire();
}
echo json_encode($out), "\n";
