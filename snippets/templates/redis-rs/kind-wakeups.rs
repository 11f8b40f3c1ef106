«section:about»
//! With `LockOptions::wake_with(&client)` a waiter waits in line (first come, first served), woken by
//! the release: SSUBSCRIBE on a connection of its own from `client` (a subscription takes over a connection).
«section:scripts»
const ACQUIRE_QUEUED: &str = r#"«lua:acquire_queued»"#;
«section:options-fields»
    wake_with: Option<redis::Client>,
    /// The token a waiter in line is woken by (the release wakes the first in line alone).
    woken_by: Option<String>,
«section:options»

    /// Wait in line, woken by the release: SSUBSCRIBE to the lock key on a connection of its own
    /// from `client` while waiting (RESP3, where a wake-up survives a read timeout).
    pub fn wake_with(self, client: &redis::Client) -> Self {
        LockOptions { wake_with: Some(client.clone()), ..self }
    }
«section:acquire»
        // In line only when listening: the release wakes the first in line alone.
        let queue = waiters_key(key).filter(|_| !options.wait.is_zero() && options.wake_with.is_some());
        let script = if queue.is_some() { redis::Script::new(ACQUIRE_QUEUED) } else { script };
        let options = &LockOptions { woken_by: queue.as_ref().map(|_| token.clone()), ..options.clone() };
«section:acquire-keys»
        invocation.key(&queue);
«section:acquire-args»
        if queue.is_some() {
            // The queue outlives the wait, so a queue of dead waiters ends by itself.
            invocation.arg((options.wait + 2 * options.retry).as_millis() as u64);
        }
«section:attempt-in-line»
            if queue.is_some() {
                // acquire_queued's {reply, the holder's PTTL, waiters}
                let (reply, pttl, _): (i64, i64, i64) = invoke(&invocation, con)?;
                return Ok((reply, Some(pttl)));
            }
«section:acquired»
        if let (Err(_), Some(queue)) = (&taken, &queue) {
            // Out of line; failing that, the queue ends by itself.
            let _ = redis::cmd("ZREM").arg(queue).arg(&token).exec(con);
        }
«section:wait»
    // Subscribed after the first busy try, which then goes again: the release may have come before.
    let (mut wakeups, mut subscribed) = (None, false);
«section:busy»
        if let (false, Some(client)) = (subscribed, &options.wake_with) {
            (wakeups, subscribed) = (Wakeups::open(client, key, options.woken_by.as_deref()), true);
            continue;
        }
«section:sleep»
        if let Some(wakeups) = &mut wakeups {
            wakeups.wait(sleep);
            continue;
        }
«section:release»
        if self.kind == PLAIN {
            invocation.key(waiters_key(&self.key)); // its first waiter is woken by its token (a None adds no key)
        }
«section:code»

/// A waiter's wake-ups: SSUBSCRIBE to the lock key on a RESP3 connection of its own, where a
/// wake-up is a push that a read timeout does not lose (after one, redis-rs skips a RESP2 reply).
struct Wakeups {
    con: redis::Connection,
    token: Option<String>,
}

impl Wakeups {
    /// Subscribed, or None (unreachable, a server before 7.0, an ACL without the channel): polling covers.
    fn open(client: &redis::Client, key: &str, token: Option<&str>) -> Option<Wakeups> {
        let info = client.get_connection_info().clone();
        let resp3 = info.redis_settings().clone().set_protocol(redis::ProtocolVersion::RESP3);
        let mut con = redis::Client::open(info.set_redis_settings(resp3)).ok()?.get_connection().ok()?;
        con.send_packed_command(&redis::cmd("SSUBSCRIBE").arg(key).get_packed_command()).ok()?;
        con.set_read_timeout(Some(Duration::from_secs(1))).ok()?;
        match con.recv_response().ok()? {
            redis::Value::Push { kind: redis::PushKind::SSubscribe, .. } => {
                Some(Wakeups { con, token: token.map(str::to_owned) })
            }
            _ => None,
        }
    }

    /// Sleeps for `duration`, or less when a release wakes this waiter: an empty payload (one
    /// waiter per client), '*' (every waiter) or its token (the first in line).
    fn wait(&mut self, duration: Duration) {
        let until = Instant::now() + duration;
        loop {
            let left = until.saturating_duration_since(Instant::now());
            if left.is_zero() || self.con.set_read_timeout(Some(left)).is_err() {
                return;
            }
            match self.con.recv_response() {
                Ok(redis::Value::Push { kind: redis::PushKind::SMessage, data }) => {
                    let payload = data.get(1).and_then(|payload| redis::from_redis_value_ref::<String>(payload).ok());
                    if matches!(payload.as_deref(), Some("" | "*")) || (payload.is_some() && payload == self.token) {
                        return;
                    }
                }
                Ok(_) => {}
                Err(error) if error.is_timeout() => return,
                Err(_) => return std::thread::sleep(left), // the connection failed: sleep it out
            }
        }
    }
}

/// The plain lock's waiter queue, in its hash slot: lock:{order:42} -> lock:{order:42}:waiters,
/// lock:order:42 -> {lock:order:42}:waiters; none for a key with '}' and no hash tag.
fn waiters_key(key: &str) -> Option<String> {
    match key.find('{') {
        Some(open) if key[open + 1..].find('}').is_some_and(|close| close > 0) => Some(format!("{key}:waiters")),
        _ if key.contains('}') => None,
        _ => Some(format!("{{{key}}}:waiters")),
    }
}
