
/** waitForReplicas: the acquire counts only once replicas have it (WAIT in the same pipeline). */
export interface WaitForReplicas {
  /** Replicas that must acknowledge the acquire: WAIT replicas timeoutMs (default 1). */
  replicas?: number;
  /** How long the server waits for them (default 100 ms): shorter than the lease, which the wait spends. */
  timeoutMs?: number;
  /** Wait for the disk instead: WAITAOF 1 replicas timeoutMs; needs appendonly yes and Redis or Valkey 7.2+. */
  fsync?: boolean;
  /** 'release' (default): give the lock back and throw ReplicaShortfallError; a callback keeps it and is told. */
  onShortfall?: 'release' | ((shortfall: ReplicaShortfall) => void);
}

/** Why an acquire was not acknowledged: a timeout, a connection lost in the wait, or fsync the server cannot honour. */
export interface ReplicaShortfall {
  lock: string;
  reason: 'timeout' | 'connection-lost' | 'no-waitaof' | 'aof-off';
  required: number;
  /** What WAIT answered (WAITAOF: its replicas); absent when the wait gave no count. */
  acknowledged?: number;
  /** With fsync: whether the master's AOF has it. */
  fsyncedLocally?: boolean;
  timeoutMs: number;
}

type ReplicaWait = Required<WaitForReplicas>;
