«include:_php/replica-wait»

    /**
     * The acquire script and the wait in one pipeline(): [the script's reply (null when unknown), the
     * wait's reply, its error]. On NOSCRIPT the pair goes again with EVAL.
     */
    private static function pipelineWithWait(\Predis\ClientInterface $redis, string $lua, array $keys, array $args, array $wait): array
    {
        $connection = $redis->getConnection();
        if ($connection instanceof \Predis\Connection\AggregateConnectionInterface
            // A replication sends both to its master: Predis 2 names it Replication\, 1.x Aggregate\.
            && !$connection instanceof \Predis\Connection\Replication\ReplicationInterface
            && !$connection instanceof \Predis\Connection\Aggregate\ReplicationInterface) {
            throw new \InvalidArgumentException('waitForReplicas needs a Predis client of one server or a replication: a cluster pipeline cannot route WAIT to the lock\'s node');
        }
        $send = fn (string ...$script): array => $redis->pipeline(function ($pipe) use ($script, $keys, $args, $wait) {
            $pipe->executeCommand(\Predis\Command\RawCommand::create(...$script, ...[count($keys), ...$keys, ...$args]));
            $pipe->executeCommand(\Predis\Command\RawCommand::create(...$wait));
        });
        try {
            try {
                [$reply, $waited] = $send('EVALSHA', sha1($lua));
            } catch (\Predis\Response\ServerException $error) {
                if (!str_starts_with($error->getMessage(), 'NOSCRIPT')) {
                    throw $error;
                }
                [$reply, $waited] = $send('EVAL', $lua);
            }
        } catch (\Predis\Response\ServerException $error) {
            return [null, null, $error]; // the acquire's or the wait's: Predis throws the first error reply
        } catch (\Predis\CommunicationException) {
            return [null, null, 'connection-lost'];
        }
        return [(int) $reply, $waited, null];
    }
