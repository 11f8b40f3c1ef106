«section:errors»
    /// `wait_for_replicas`: the replicas did not acknowledge the acquire in time; `released` is
    /// false when the compare-and-delete could not run (the lock then ends with its lease).
    ReplicaShortfall { shortfall: ReplicaShortfall, released: bool },
«section:error-messages»
            LockError::ReplicaShortfall { shortfall, released } => {
                let outcome = if *released { "released" } else { "could not be released (it ends with its lease)" };
                write!(f, "{shortfall}: {outcome}, not held. {}", shortfall.reason.fix())
            }
«section:options-fields»
    wait_for_replicas: Option<WaitForReplicas>,
«section:options»

    /// Held only once replicas have it: the acquire and WAIT (or WAITAOF) go in one pipeline, and
    /// a shortfall releases the lock (`LockError::ReplicaShortfall`) or calls `on_shortfall`.
    /// Needs a connection that pipelines to the lock's master (not a `ClusterConnection`).
    pub fn wait_for_replicas(self, wait: WaitForReplicas) -> Self {
        LockOptions { wait_for_replicas: Some(wait), ..self }
    }
«section:attempt»
            if let Some(wait) = &options.wait_for_replicas {
                return acquire_replicated(con, &invocation, (key, &token), ttl_ms, wait);
            }
«section:take»
    if kind != PLAIN && options.wait_for_replicas.is_some() {
        return Err(LockError::InvalidArgument(
            "wait_for_replicas works with the plain lock, not yet with the lock kinds".into(),
        ));
    }
«section:code»

/// What `LockOptions::wait_for_replicas` takes; `WaitForReplicas::default()` is 1 replica, 100 ms,
/// WAIT, and release on a shortfall.
#[derive(Clone)]
pub struct WaitForReplicas {
    /// Replicas that must acknowledge the acquire (WAIT numreplicas), at least 1.
    pub replicas: u32,
    /// How long the server waits for them (whole ms); shorter than the lease, which it spends.
    pub timeout: Duration,
    /// Wait for the disk instead: WAITAOF 1 replicas timeout. Needs appendonly yes on the master
    /// and the replicas, and a server with WAITAOF (Redis and Valkey 7.2+).
    pub fsync: bool,
    pub on_shortfall: OnShortfall,
}

impl Default for WaitForReplicas {
    fn default() -> Self {
        WaitForReplicas { replicas: 1, timeout: Duration::from_millis(100), fsync: false, on_shortfall: OnShortfall::Release }
    }
}

/// What a shortfall does.
#[derive(Clone)]
pub enum OnShortfall {
    /// Give the lock back and fail with `LockError::ReplicaShortfall`.
    Release,
    /// Keep the lock (held, without the guarantee): the callback gets the shortfall before the
    /// acquire returns. A setting the server cannot honour (`NoWaitaof`, `AofOff`) still releases.
    Keep(Arc<dyn Fn(&ReplicaShortfall) + Send + Sync>),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShortfallReason {
    /// Fewer than `replicas` acknowledged within the timeout.
    Timeout,
    /// The connection failed after the acquire was sent and before the wait answered.
    ConnectionLost,
    /// `fsync` on a server without WAITAOF.
    NoWaitaof,
    /// `fsync` on a master with appendonly no.
    AofOff,
}

impl ShortfallReason {
    fn fix(self) -> &'static str {
        match self {
            ShortfallReason::Timeout => {
                "Check the replicas (INFO replication: connected_slaves, their lag), or pass on_shortfall to keep such locks"
            }
            ShortfallReason::ConnectionLost => "The master may be failing over: try again once the client has reconnected",
            ShortfallReason::NoWaitaof | ShortfallReason::AofOff => {
                "Turn fsync off (WAIT alone covers a failover) or enable the AOF"
            }
        }
    }
}

/// An acquire the replicas did not acknowledge in time.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReplicaShortfall {
    pub lock: String,
    pub reason: ShortfallReason,
    pub required: u32,
    /// What WAIT answered (WAITAOF: its second element); None when the wait gave no count.
    pub acknowledged: Option<i64>,
    /// With `fsync`: whether the master's AOF has it.
    pub fsynced_locally: Option<bool>,
    pub timeout: Duration,
}

impl fmt::Display for ReplicaShortfall {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (lock, count, ms) = (&self.lock, self.acknowledged.unwrap_or(0), self.timeout.as_millis());
        let of = format!("{} replica{}", self.required, if self.required == 1 { "" } else { "s" });
        match (self.reason, self.fsynced_locally) {
            (ShortfallReason::Timeout, None) => write!(f, "{lock} was acknowledged by {count} of {of} within {ms} ms (WAIT)"),
            (ShortfallReason::Timeout, Some(local)) => {
                let master = if local { "" } else { " and not by the master" };
                write!(f, "{lock} was fsynced by {count} of {of}{master} within {ms} ms (WAITAOF)")
            }
            (ShortfallReason::ConnectionLost, _) => write!(
                f,
                "{lock}: the connection closed before the replicas acknowledged the acquire (it may not have reached any)"
            ),
            (ShortfallReason::NoWaitaof, _) => write!(
                f,
                "{lock}: wait_for_replicas.fsync needs WAITAOF, which this server does not have (Redis and Valkey 7.2+)"
            ),
            (ShortfallReason::AofOff, _) => {
                write!(f, "{lock}: wait_for_replicas.fsync needs appendonly yes on the master, which has it off")
            }
        }
    }
}

/// The acquire, then WAIT (or WAITAOF), in one pipeline on one connection: WAIT counts the
/// replicas that have this connection's writes, so sent alone on a reconnected connection it would
/// count one that wrote nothing. Bad settings fail before anything is sent. A shortfall gives the
/// lock back (`release_lock`, which wakes a waiter). The reply and PTTL as `take` wants them.
fn acquire_replicated(
    con: &mut dyn redis::ConnectionLike,
    invocation: &redis::ScriptInvocation<'_>,
    (key, token): (&str, &str),
    ttl_ms: u64,
    wait: &WaitForReplicas,
) -> Result<(i64, Option<i64>), LockError> {
    if wait.replicas == 0 {
        return Err(LockError::InvalidArgument("wait_for_replicas.replicas must be at least 1, got 0".into()));
    }
    let timeout_ms = whole_ms("wait_for_replicas.timeout", wait.timeout, 1)?;
    if timeout_ms >= ttl_ms {
        return Err(LockError::InvalidArgument(format!(
            "wait_for_replicas.timeout ({timeout_ms} ms) must be shorter than the lease ({ttl_ms} ms): the wait spends it"
        )));
    }
    if !con.supports_pipelining() {
        return Err(LockError::InvalidArgument(
            "wait_for_replicas needs a connection that pipelines, to the lock's master (a ClusterConnection does not)".into(),
        ));
    }
    let mut pipeline = redis::pipe();
    pipeline.ignore_errors().invoke_script(invocation);
    if wait.fsync {
        pipeline.cmd("WAITAOF").arg(1).arg(wait.replicas).arg(timeout_ms);
    } else {
        pipeline.cmd("WAIT").arg(wait.replicas).arg(timeout_ms);
    }
    let mut shortfall = ReplicaShortfall {
        lock: key.to_owned(),
        reason: ShortfallReason::Timeout,
        required: wait.replicas,
        acknowledged: None,
        fsynced_locally: None,
        timeout: wait.timeout,
    };
    let mut tries = 0;
    let (acquired, waited) = loop {
        match pipeline.query::<(redis::RedisResult<redis::Value>, redis::RedisResult<redis::Value>)>(con) {
            // NOSCRIPT (script cache flushed, restart, failover): load it and send both again.
            Ok((Err(error), _)) if error.code() == Some("NOSCRIPT") && tries < 2 => {
                tries += 1;
                invocation.load(con)?;
            }
            Ok((acquired, waited)) => break (acquired?, waited),
            Err(error) if error.is_io_error() || error.is_connection_dropped() || error.is_timeout() => {
                shortfall.reason = ShortfallReason::ConnectionLost;
                let released = release_lock(con, key, token).is_ok();
                return Err(LockError::ReplicaShortfall { shortfall, released });
            }
            Err(error) => return Err(error.into()),
        }
    };
    let (acquired, pttl) = match acquired {
        // In line (the wakeups part): acquire_queued's {reply, the holder's PTTL, waiters}.
        redis::Value::Array(_) => {
            let (reply, pttl, _): (i64, i64, i64) =
                redis::from_redis_value(acquired).map_err(redis::RedisError::from)?;
            (reply, Some(pttl))
        }
        reply => (redis::from_redis_value(reply).map_err(redis::RedisError::from)?, None),
    };
    if acquired == 0 {
        return Ok((0, pttl));
    }
    let counted = waited.and_then(|reply| {
        Ok(if wait.fsync {
            let (local, replicas): (i64, i64) = redis::from_redis_value(reply)?;
            (Some(local >= 1), replicas)
        } else {
            (None, redis::from_redis_value(reply)?)
        })
    });
    match counted {
        Ok((local, replicas)) if local != Some(false) && replicas >= i64::from(wait.replicas) => return Ok((acquired, None)),
        Ok((local, replicas)) => (shortfall.fsynced_locally, shortfall.acknowledged) = (local, Some(replicas)),
        Err(error) if error.detail().is_some_and(|detail| detail.starts_with("unknown command")) => {
            shortfall.reason = ShortfallReason::NoWaitaof
        }
        Err(error) if error.detail().is_some_and(|detail| detail.contains("appendonly is disabled")) => {
            shortfall.reason = ShortfallReason::AofOff
        }
        Err(error) => {
            // The wait failed otherwise (an ACL that denies WAIT, a reply that is no count): not held.
            let _ = release_lock(con, key, token);
            return Err(error.into());
        }
    }
    if let (OnShortfall::Keep(callback), ShortfallReason::Timeout) = (&wait.on_shortfall, shortfall.reason) {
        callback(&shortfall);
        return Ok((acquired, None));
    }
    let released = release_lock(con, key, token).is_ok();
    Err(LockError::ReplicaShortfall { shortfall, released })
}
