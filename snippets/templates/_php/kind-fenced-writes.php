«section:scripts»
    public const GUARDED_SET = <<<'LUA'
«lua:guarded_set»
LUA;
    public const FENCED_SET = <<<'LUA'
«lua:fenced_set»
LUA;
«section:lease»

    /**
     * Sets the string $dataKey to $value (its TTL kept) only while this lease still holds the lock, in
     * one call: false when it lapsed or another owner took it, and nothing was written. $dataKey must
     * be in the lock's hash slot (in Cluster, with the lock key's {hash tag}).
     */
    public function setIfHeld(string $dataKey, string $value): bool
    {
        if ($this->releaseLua !== Locksmith::RELEASE) {
            throw new \LogicException("setIfHeld works on a plain lock's lease; $this->key is another kind of lock");
        }
        return Locksmith::run($this->redis, Locksmith::GUARDED_SET, [$this->key, $dataKey], [$this->token, $value]) === 1;
    }

    /**
     * Writes $value into the hash $dataKey ({value, fence}) with this lease's fencing token, in any
     * slot: false when a newer token has written it already, and nothing was written.
     */
    public function setFenced(string $dataKey, string $value): bool
    {
        if ($this->fence === null) {
            throw new \LogicException("setFenced needs a fencing token: acquire $this->key with a \$fenceKey");
        }
        return Locksmith::run($this->redis, Locksmith::FENCED_SET, [$dataKey], [$this->fence, $value]) === 1;
    }
