«include:_php/multi»

    /** A Predis cluster connection spreads keys over nodes: the multi-key lock is refused on one. */
    private static function isCluster(\Predis\ClientInterface $redis): bool
    {
        $connection = $redis->getConnection();
        return $connection instanceof \Predis\Connection\Cluster\ClusterInterface // Predis 2
            || $connection instanceof \Predis\Connection\Aggregate\ClusterInterface; // Predis 1
    }

    /** run() for a script that replies with a list (multi_acquire's [taken, at, pttl]); on NOSCRIPT, EVAL. */
    private static function runForList(\Predis\ClientInterface $redis, string $lua, array $keys, array $args): array
    {
        try {
            return $redis->evalsha(sha1($lua), count($keys), ...$keys, ...$args);
        } catch (\Predis\Response\ServerException $error) {
            if (!str_starts_with($error->getMessage(), 'NOSCRIPT')) {
                throw $error;
            }
            return $redis->eval($lua, count($keys), ...$keys, ...$args);
        }
    }
