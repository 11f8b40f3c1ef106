«include:_php/multi»

    /** A \RedisCluster spreads keys over nodes: the multi-key lock is refused on one. */
    private static function isCluster(\Redis|\RedisCluster $redis): bool
    {
        return $redis instanceof \RedisCluster;
    }

    /** run() for a script that replies with a list (multi_acquire's [taken, at, pttl]). */
    private static function runForList(\Redis|\RedisCluster $redis, string $lua, array $keys, array $args): array
    {
        $redis->clearLastError();
        $reply = $redis->evalSha(sha1($lua), [...$keys, ...$args], count($keys));
        if ($reply === false && str_starts_with((string) $redis->getLastError(), 'NOSCRIPT')) {
            $redis->clearLastError();
            $reply = $redis->eval($lua, [...$keys, ...$args], count($keys));
        }
        if (!is_array($reply)) {
            $error = $redis->getLastError() ?? 'lock script failed';
            $redis->clearLastError();
            throw new \RedisException($error);
        }
        return $reply;
    }
