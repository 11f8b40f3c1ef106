
/** The acquire was not acknowledged by options.waitForReplicas.replicas in time: given back (released), not held. */
«esm:export »class ReplicaShortfallError extends Error {
  «ts:override »name = 'ReplicaShortfallError';
  «ts:readonly shortfall: ReplicaShortfall;»
  /** False when the give-back could not run (the connection is down): the lock then ends with its lease. */
  «ts:readonly released: boolean;»

  constructor(shortfall«ts:: ReplicaShortfall», released«ts:: boolean») {
    const { lock, reason, required, acknowledged = 0, timeoutMs } = shortfall;
    const of = `${required} replica${required === 1 ? '' : 's'}`;
    const what = {
      timeout: shortfall.fsyncedLocally === undefined
        ? `${lock} was acknowledged by ${acknowledged} of ${of} within ${timeoutMs} ms (WAIT)`
        : `${lock} was fsynced by ${acknowledged} of ${of}${shortfall.fsyncedLocally ? '' : ' and not by the master'} within ${timeoutMs} ms (WAITAOF)`,
      'connection-lost': `${lock}: the connection closed before the replicas acknowledged the acquire (it may not have reached any)`,
      'no-waitaof': `${lock}: waitForReplicas.fsync needs WAITAOF, which this server does not have (Redis and Valkey 7.2+)`,
      'aof-off': `${lock}: waitForReplicas.fsync needs appendonly yes on the master, which has it off`,
    }[reason];
    const fix = {
      timeout: 'Check the replicas (INFO replication: connected_slaves, their lag), or pass onShortfall to keep such locks',
      'connection-lost': 'The master may be failing over: try again once the client has reconnected',
      'no-waitaof': 'Turn fsync off (WAIT alone covers a failover) or enable the AOF',
      'aof-off': 'Turn fsync off (WAIT alone covers a failover) or enable the AOF',
    }[reason];
    super(`${what}: ${released ? 'released' : 'could not be released (it ends with its lease)'}, not held. ${fix}`);
    this.shortfall = shortfall;
    this.released = released;
  }
}

/** waitForReplicas with its defaults; a bad value is a RangeError naming it, thrown before anything is sent. */
function replicaWait(option«ts:: WaitForReplicas», ttlMs«ts:: number»)«ts:: ReplicaWait» {
  if (typeof option !== 'object') throw new RangeError(`waitForReplicas must be an object of settings, got ${String(option)}`);
  const { replicas = 1, timeoutMs = 100, fsync = false, onShortfall = 'release' } = option;
  if (!Number.isSafeInteger(replicas) || replicas < 1) {
    throw new RangeError(`waitForReplicas.replicas must be a positive integer, got ${String(replicas)}`);
  }
  if (!Number.isSafeInteger(timeoutMs) || timeoutMs < 1) {
    throw new RangeError(`waitForReplicas.timeoutMs must be a positive integer of milliseconds, got ${String(timeoutMs)}`);
  }
  if (timeoutMs >= ttlMs) {
    throw new RangeError(`waitForReplicas.timeoutMs (${timeoutMs}) must be shorter than the lease (${ttlMs} ms): the wait spends it`);
  }
  if (typeof fsync !== 'boolean') throw new RangeError(`waitForReplicas.fsync must be true or false, got ${String(fsync)}`);
  if (onShortfall !== 'release' && typeof onShortfall !== 'function') {
    throw new RangeError(`waitForReplicas.onShortfall must be 'release' or a function, got ${String(onShortfall)}`);
  }
  return { replicas, timeoutMs, fsync, onShortfall };
}

/**
 * The shortfall the wait's reply or error means; undefined when the replicas acknowledged. An
 * error that is no server reply (those start with their code: ERR, NOPERM) is a lost connection;
 * a server error other than WAITAOF's two is thrown.
 */
function shortfallOf(lock«ts:: string», wait«ts:: ReplicaWait», error«ts:: unknown», reply«ts:: unknown»)«ts:: ReplicaShortfall | undefined» {
  const base = { lock, required: wait.replicas, timeoutMs: wait.timeoutMs };
  if (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (!/^[A-Z][A-Z_]+ /.test(message)) return { ...base, reason: 'connection-lost' };
    if (/^ERR unknown command/i.test(message)) return { ...base, reason: 'no-waitaof' };
    if (/appendonly is disabled/i.test(message)) return { ...base, reason: 'aof-off' };
    throw error;
  }
  if (wait.fsync) {
    const [local, acknowledged] = Array.isArray(reply) ? reply : [];
    if (typeof local !== 'number' || typeof acknowledged !== 'number') {
      throw new TypeError(`WAITAOF replied ${JSON.stringify(reply)}, not [numlocal, numreplicas]`);
    }
    if (local >= 1 && acknowledged >= wait.replicas) return undefined;
    return { ...base, reason: 'timeout', acknowledged, fsyncedLocally: local >= 1 };
  }
  if (typeof reply !== 'number') throw new TypeError(`WAIT replied ${JSON.stringify(reply)}, not a count of replicas`);
  return reply >= wait.replicas ? undefined : { ...base, reason: 'timeout', acknowledged: reply };
}

/**
 * The acquire's script call under waitForReplicas: the script and WAIT (or WAITAOF) in one
 * pipeline on the lock's connection. WAIT counts the replicas that have this connection's writes:
 * sent alone after a reconnection, it would count on a connection that wrote nothing. Busy, or
 * taken and acknowledged: the script's reply. A shortfall: onShortfall told and the reply, or
 * (the default, and a setting the server cannot honour) the lock given back and ReplicaShortfallError.
 */
function replicated(wait«ts:: ReplicaWait»)«ts:: typeof call» {
  const command = wait.fsync ? ['WAITAOF', 1, wait.replicas, wait.timeoutMs] : ['WAIT', wait.replicas, wait.timeoutMs];
  return async (redis, name, keys, args) => {
    const [lock = '', queue] = name === 'locksmithAcquire' ? keys.slice(0, 1) : keys; // acquire_queued: [lock, queue, fence?]
    const [reply, waitError, waited] = await pipelineWait(redis, name, keys, args, command);
    if (reply !== undefined && Number(Array.isArray(reply) ? reply[0] : reply) === 0) return reply; // busy
    // Compare-and-delete by the token: a no-op when the script did not take the lock.
    const giveBack = () => call(redis, 'locksmithRelease', queue === undefined ? [lock] : [lock, queue], [String(args[0])]);
    let shortfall;
    try {
      shortfall = shortfallOf(lock, wait, waitError, waited);
    } catch (error) {
      await giveBack().catch(() => 0); // the wait failed otherwise (an ACL that denies WAIT): not held
      throw error;
    }
    if (shortfall === undefined) return reply;
    const misconfigured = shortfall.reason === 'no-waitaof' || shortfall.reason === 'aof-off';
    if (wait.onShortfall !== 'release' && !misconfigured && reply !== undefined) {
      wait.onShortfall(shortfall);
      return reply;
    }
    const released = await giveBack().then(() => true, () => false);
    throw new ReplicaShortfallError(shortfall, released);
  };
}
