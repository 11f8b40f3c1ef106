«include:_php/replica-wait»

    /**
     * The acquire script and the wait in one pipeline(): [the script's reply (null when unknown), the
     * wait's reply, its error]. A failed script reply (NOSCRIPT) sends the pair again with EVAL.
     */
    private static function pipelineWithWait(\Redis|\RedisCluster $redis, string $lua, array $keys, array $args, array $wait): array
    {
        if (!$redis instanceof \Redis) {
            throw new \InvalidArgumentException('waitForReplicas needs a \Redis connection: RedisCluster has no pipeline()');
        }
        $redis->clearLastError();
        try {
            $replies = $redis->pipeline()->evalSha(sha1($lua), [...$keys, ...$args], count($keys))->rawCommand(...$wait)->exec();
            if (is_array($replies) && $replies[0] === false) {
                $redis->clearLastError();
                $replies = $redis->pipeline()->eval($lua, [...$keys, ...$args], count($keys))->rawCommand(...$wait)->exec();
            }
        } catch (\RedisException) {
            return [null, null, 'connection-lost'];
        }
        if (!is_array($replies)) {
            return [null, null, 'connection-lost'];
        }
        $error = $redis->getLastError();
        $redis->clearLastError();
        if ($replies[0] === false) {
            throw new \RedisException($error ?? 'lock script failed');
        }
        return [(int) $replies[0], $replies[1], $replies[1] === false ? new \RedisException((string) $error) : null];
    }
