«header»

//! Redis locks for redis-rs:
//!
//! ```ignore
//! let lease = Lease::acquire(&mut con, "lock:{order:42}", Duration::from_secs(10))?;
//! // ... the critical section ...
//! lease.release(&mut con)?;
//! ```
//!
//! `Lease::acquire_with` takes `LockOptions`: a wait, a fencing key, and renewal (a thread with its
//! own connection extends the lease every ttl/3 until release; `lease.lost()` turns true when
//! that fails). A lease dropped without release stops renewing and expires after its TTL.
//! `Lease::try_acquire` tries once and never waits (`None` when busy); `release_lock` and
//! `extend_lock` take a key and a token.
//!
//! A waiter sleeps for a jittered back-off of up to `retry` (500 ms) between tries. With
//! `LockOptions::wake_with(&client)` it waits in line (first come, first served), sleeps no longer
//! than the holder's lease has left, and the release's wake-up ends its sleep: SSUBSCRIBE on a
//! connection of its own from `client`, as a subscription would take over the caller's `&mut con`.

use std::collections::hash_map::RandomState;
use std::fmt;
use std::hash::{BuildHasher, Hasher};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

// redis::Script runs each script by its SHA1 (EVALSHA) and loads it on NOSCRIPT (script cache
// flushed, restart, failover).
const ACQUIRE: &str = r#"«lua:acquire»"#;
const ACQUIRE_QUEUED: &str = r#"«lua:acquire_queued»"#;
const EXTEND: &str = r#"«lua:extend»"#;
const RELEASE: &str = r#"«lua:release»"#;
«kinds:scripts»

/// A kind of lock: who holds it when it is busy, and the scripts that extend and release it.
#[derive(Clone, Copy, PartialEq)]
struct Kind {
    holders: &'static str,
    extend: &'static str,
    release: &'static str,
}

const PLAIN: Kind = Kind { holders: "another owner", extend: EXTEND, release: RELEASE };

#[derive(Debug)]
pub enum LockError {
    /// The lock stayed held (by `holders`) for the whole wait.
    Busy { key: String, waited: Duration, holders: &'static str },
    /// The lease was gone before release: another holder may have run at the same time.
    LeaseLost { key: String },
    /// A TTL or wait that Redis cannot take.
    InvalidArgument(String),
«kinds:errors»
    Redis(redis::RedisError),
}

impl fmt::Display for LockError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LockError::Busy { key, waited, holders } => {
                write!(f, "{key} is held by {holders}; gave up after waiting {} ms", waited.as_millis())
            }
            LockError::LeaseLost { key } => write!(f, "lease on {key} lost: it expired or was taken"),
            LockError::InvalidArgument(message) => f.write_str(message),
«kinds:error-messages»
            LockError::Redis(error) => write!(f, "{error}"),
        }
    }
}

impl std::error::Error for LockError {}

impl From<redis::RedisError> for LockError {
    fn from(error: redis::RedisError) -> Self {
        LockError::Redis(error)
    }
}

/// What `Lease::acquire_with` takes.
#[derive(Clone)]
pub struct LockOptions {
    ttl: Duration,
    wait: Duration,
    retry: Duration,
    fence_key: Option<String>,
    renew_with: Option<redis::Client>,
    wake_with: Option<redis::Client>,
«kinds:options-fields»
}

impl LockOptions {
    /// A lease of `ttl` (whole milliseconds): how long the lock outlives a holder that dies without releasing it.
    pub fn new(ttl: Duration) -> Self {
        LockOptions {
            ttl,
            wait: Duration::from_secs(10),
            retry: Duration::from_millis(500),
            fence_key: None,
            renew_with: None,
            wake_with: None,
«kinds:options-defaults»
        }
    }

    /// How long to wait for another holder to let go before `LockError::Busy` (default 10 s; zero: try once).
    pub fn wait(mut self, wait: Duration) -> Self {
        self.wait = wait;
        self
    }

    /// The longest sleep between tries while waiting (default 500 ms), jittered down to half.
    pub fn retry(mut self, retry: Duration) -> Self {
        self.retry = retry;
        self
    }

    /// Wait in line, woken by the release: SSUBSCRIBE to the lock key on a connection of its own
    /// from `client` while waiting (RESP3, where a wake-up survives a read timeout).
    pub fn wake_with(mut self, client: &redis::Client) -> Self {
        self.wake_with = Some(client.clone());
        self
    }

    /// A fencing counter key (in Cluster, with the lock key's {hash tag}): `lease.fence()` grows with every new holder.
    pub fn fence_key(mut self, key: &str) -> Self {
        self.fence_key = Some(key.to_owned());
        self
    }

    /// Extend the lease every ttl/3 from a thread with its own connection from `client`.
    pub fn renew(mut self, client: &redis::Client) -> Self {
        self.renew_with = Some(client.clone());
        self
    }
«kinds:options»

    /// The lease in whole milliseconds, once the TTL and the wait are values Redis can take.
    fn ttl_ms(&self) -> Result<u64, LockError> {
        whole_ms("wait", self.wait, 0)?;
        whole_ms("retry", self.retry, 1)?;
        whole_ms("ttl", self.ttl, 1)
    }
}

/// A held lock.
pub struct Lease {
    kind: Kind,
    key: String,
    token: String,
    fence: Option<i64>,
    /// The waiter queue when taken in line: its release wakes the next in line.
    queue: Option<String>,
    lost: Arc<AtomicBool>,
    /// Dropping it wakes the renewer, which then stops.
    stop: Option<mpsc::Sender<()>>,
    renewer: Option<JoinHandle<()>>,
}

/// Runs a script by its SHA1. redis-rs loads it on NOSCRIPT and runs EVALSHA again, which fails
/// too when a SCRIPT FLUSH or a failover comes between the two: then it tries again, twice at most.
fn invoke<T: redis::FromRedisValue>(
    invocation: &redis::ScriptInvocation<'_>,
    con: &mut dyn redis::ConnectionLike,
) -> redis::RedisResult<T> {
    let mut tries = 0;
    loop {
        match invocation.invoke(con) {
            Err(error) if error.code() == Some("NOSCRIPT") && tries < 2 => tries += 1,
            reply => return reply,
        }
    }
}

fn random_u64() -> u64 {
    // RandomState is seeded randomly per process and varies per instance: enough for an owner
    // token's unique part and for jitter, with no dependency.
    RandomState::new().build_hasher().finish()
}

fn whole_ms(name: &str, value: Duration, at_least: u128) -> Result<u64, LockError> {
    let ms = value.as_millis();
    if ms < at_least || Duration::from_millis(ms as u64) != value {
        return Err(LockError::InvalidArgument(format!(
            "{name} must be a whole number of milliseconds, at least {at_least}, got {value:?}"
        )));
    }
    Ok(ms as u64)
}

/// Compare-and-delete: deletes `key` while it holds `token` (true, and wakes a waiter); false when
/// it held another token or none.
pub fn release_lock(con: &mut dyn redis::ConnectionLike, key: &str, token: &str) -> Result<bool, LockError> {
    Ok(run_release(RELEASE, con, key, None, token)? == 1)
}

/// Runs a kind's release script, with the waiter queue that the plain lock's wakes the next of.
fn run_release(
    release: &str,
    con: &mut dyn redis::ConnectionLike,
    key: &str,
    queue: Option<&str>,
    token: &str,
) -> Result<i64, LockError> {
    let script = redis::Script::new(release);
    let mut invocation = script.key(key);
    if let Some(queue) = queue {
        invocation.key(queue);
    }
    Ok(invoke(invocation.arg(token), con)?)
}

/// Compare-and-extend: sets `key`'s lease to `ttl` while it holds `token` (true); false when it
/// held another token or none.
pub fn extend_lock(
    con: &mut dyn redis::ConnectionLike,
    key: &str,
    token: &str,
    ttl: Duration,
) -> Result<bool, LockError> {
    run_extend(EXTEND, con, key, token, ttl)
}

/// Runs a kind's extend script: true while `token` holds `key`, whose lease is now `ttl`.
fn run_extend(
    extend: &str,
    con: &mut dyn redis::ConnectionLike,
    key: &str,
    token: &str,
    ttl: Duration,
) -> Result<bool, LockError> {
    let ttl_ms = whole_ms("ttl", ttl, 1)?;
    let held: i64 = invoke(redis::Script::new(extend).key(key).arg(token).arg(ttl_ms), con)?;
    Ok(held == 1)
}

/// An owner token: this host and process, and `unique` (random, or the reentrant lock's owner).
fn owner_token(unique: &str) -> String {
    let host = std::env::var("HOSTNAME").unwrap_or_else(|_| "host".into());
    format!("{host}:{}:{unique}", std::process::id())
}

/// Tries `attempt` (its reply, and the holder's lease left when it knows) until it answers other
/// than 0 (the reply it returns), up to `options.wait`, then `LockError::Busy`. In between it
/// sleeps until the lease ends or for a jittered back-off (10 ms doubling to `retry`; `retry`
/// once subscribed to wake-ups, whose arrival ends the sleep).
fn take(
    con: &mut dyn redis::ConnectionLike,
    (key, token): (&str, &str),
    options: &LockOptions,
    kind: Kind,
    mut attempt: impl FnMut(&mut dyn redis::ConnectionLike) -> Result<(i64, Option<Duration>), LockError>,
) -> Result<i64, LockError> {
«kinds:take»
    let deadline = Instant::now() + options.wait;
    let mut wakeups = None;
    for round in 0.. {
        let (reply, lease_left) = attempt(con)?;
        let left = deadline.saturating_duration_since(Instant::now());
        if reply != 0 || left.is_zero() {
            let busy = LockError::Busy { key: key.to_owned(), waited: options.wait, holders: kind.holders };
            return if reply != 0 { Ok(reply) } else { Err(busy) };
        }
        if let (0, Some(client)) = (round, &options.wake_with) {
            // Subscribed, then tried again: the release may have gone out before the subscription.
            wakeups = Wakeups::open(client, key, token);
            continue;
        }
        let jitter = 0.5 + (random_u64() >> 12) as f64 / (1u64 << 53) as f64;
        let doubling = Duration::from_millis(10 << round.min(16)).min(options.retry);
        let backoff = if wakeups.is_some() { options.retry } else { doubling }.mul_f64(jitter);
        let sleep = backoff.min(left).min(lease_left.unwrap_or(Duration::MAX));
        match &mut wakeups {
            Some(wakeups) => wakeups.wait(sleep),
            None => std::thread::sleep(sleep),
        }
    }
    unreachable!("the loop returns")
}

/// A waiter's wake-ups: SSUBSCRIBE to the lock key on a RESP3 connection of its own, where a
/// wake-up is a push that a read timeout does not lose (after one, redis-rs skips a RESP2 reply).
struct Wakeups {
    con: redis::Connection,
    token: String,
}

impl Wakeups {
    /// Subscribed, or None (unreachable, a server before 7.0, an ACL without the channel): the back-off covers.
    fn open(client: &redis::Client, key: &str, token: &str) -> Option<Wakeups> {
        let info = client.get_connection_info().clone();
        let resp3 = info.redis_settings().clone().set_protocol(redis::ProtocolVersion::RESP3);
        let mut con = redis::Client::open(info.set_redis_settings(resp3)).ok()?.get_connection().ok()?;
        con.send_packed_command(&redis::cmd("SSUBSCRIBE").arg(key).get_packed_command()).ok()?;
        con.set_read_timeout(Some(Duration::from_secs(1))).ok()?;
        match con.recv_response().ok()? {
            redis::Value::Push { kind: redis::PushKind::SSubscribe, .. } => Some(Wakeups { con, token: token.to_owned() }),
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
                    if matches!(payload.as_deref(), Some("" | "*")) || payload.as_deref() == Some(self.token.as_str()) {
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

/// One try at the lock, in line when `queue` is given: the reply (0: held by another owner; with a
/// fence key, the fencing token) and, in line, the holder's lease left.
fn attempt_acquire(
    con: &mut dyn redis::ConnectionLike,
    (key, token): (&str, &str),
    ttl_ms: u64,
    queue: Option<&str>,
    options: &LockOptions,
) -> Result<(i64, Option<Duration>), LockError> {
    let script = redis::Script::new(if queue.is_some() { ACQUIRE_QUEUED } else { ACQUIRE });
    let mut invocation = script.key(key);
    invocation.key(queue).key(&options.fence_key).arg(token).arg(ttl_ms); // a None adds no key
    if queue.is_some() {
        // The queue outlives the wait, so a queue of dead waiters ends by itself.
        invocation.arg((options.wait + 2 * options.retry).as_millis() as u64);
    }
«kinds:attempt»
    attempt_reply(invoke(&invocation, con)?)
}

/// acquire's reply, or acquire_queued's {reply, the holder's PTTL, waiters}: the reply and the
/// lease left (PTTL -2: just ended; -1: no lease to wait for).
fn attempt_reply(reply: redis::Value) -> Result<(i64, Option<Duration>), LockError> {
    let parsed = if let redis::Value::Array(_) = reply {
        redis::from_redis_value::<(i64, i64, i64)>(reply).map(|(taken, pttl, _)| (taken, pttl))
    } else {
        redis::from_redis_value::<i64>(reply).map(|taken| (taken, -1))
    };
    let (taken, pttl) = parsed.map_err(redis::RedisError::from)?;
    Ok((taken, (pttl != -1).then(|| Duration::from_millis(pttl.max(0) as u64))))
}

impl Lease {
    /// Takes the lock with a lease of `ttl`, waiting up to 10 s; see `acquire_with`.
    pub fn acquire(con: &mut dyn redis::ConnectionLike, key: &str, ttl: Duration) -> Result<Lease, LockError> {
        Self::acquire_with(con, key, &LockOptions::new(ttl))
    }

    /// Takes the lock, waiting up to `options.wait` with jittered back-off (10 ms doubling to
    /// 500 ms, jittered down to half), then `LockError::Busy`. Redis errors come back as `LockError::Redis`.
    pub fn acquire_with(
        con: &mut dyn redis::ConnectionLike,
        key: &str,
        options: &LockOptions,
    ) -> Result<Lease, LockError> {
        let ttl_ms = options.ttl_ms()?;
        let token = owner_token(&format!("{:016x}", random_u64()));
        // In line only when listening: the release wakes the first in line alone.
        let queue = waiters_key(key).filter(|_| !options.wait.is_zero() && options.wake_with.is_some());
        let attempt = |con: &mut dyn redis::ConnectionLike| attempt_acquire(con, (key, &token), ttl_ms, queue.as_deref(), options);
        let taken = take(con, (key, &token), options, PLAIN, attempt);
        if let (Err(_), Some(queue)) = (&taken, &queue) {
            let _ = redis::cmd("ZREM").arg(queue).arg(&token).exec(con); // out of line; failing that, the queue ends by itself
        }
        let reply = taken?;
        let fence = options.fence_key.as_ref().map(|_| reply);
        Lease::held(PLAIN, key, token, (fence, queue), ttl_ms, options.renew_with.as_ref())
    }

    /// One try, never waits: `Some(lease)`, or `None` while another holder has the lock.
    pub fn try_acquire(con: &mut dyn redis::ConnectionLike, key: &str, ttl: Duration) -> Result<Option<Lease>, LockError> {
        Self::try_acquire_with(con, key, &LockOptions::new(ttl))
    }

    /// `try_acquire` with `LockOptions` (its wait is ignored).
    pub fn try_acquire_with(
        con: &mut dyn redis::ConnectionLike,
        key: &str,
        options: &LockOptions,
    ) -> Result<Option<Lease>, LockError> {
        match Self::acquire_with(con, key, &options.clone().wait(Duration::ZERO)) {
            Err(LockError::Busy { .. }) => Ok(None),
            taken => taken.map(Some),
        }
    }

    fn held(
        kind: Kind,
        key: &str,
        token: String,
        (fence, queue): (Option<i64>, Option<String>),
        ttl_ms: u64,
        renew_with: Option<&redis::Client>,
    ) -> Result<Lease, LockError> {
        let lost = Arc::new(AtomicBool::new(false));
        let (stop, renewer) = match renew_with {
            None => (None, None),
            Some(client) => {
                let mut renew_con = client.get_connection()?;
                let (stop, stopped) = mpsc::channel::<()>();
                let (key, token, lost) = (key.to_owned(), token.clone(), Arc::clone(&lost));
                let renewer = std::thread::spawn(move || {
                    let extend = redis::Script::new(kind.extend);
                    let every = Duration::from_millis((ttl_ms / 3).max(1));
                    while let Err(mpsc::RecvTimeoutError::Timeout) = stopped.recv_timeout(every) {
                        let held = invoke::<i64>(extend.key(&key).arg(&token).arg(ttl_ms), &mut renew_con);
                        if !matches!(held, Ok(1)) {
                            // 0: taken by another owner; an error: Redis unreachable, the lease may run out unseen.
                            lost.store(true, Ordering::SeqCst);
                            return;
                        }
                    }
                });
                (Some(stop), Some(renewer))
            }
        };
        Ok(Lease { kind, key: key.to_owned(), token, fence, queue, lost, stop, renewer })
    }

    pub fn key(&self) -> &str {
        &self.key
    }

    /// This holder's owner token: the lock key's value while it is held.
    pub fn token(&self) -> &str {
        &self.token
    }

    /// The fencing token with a fence key: the guarded resource refuses older ones.
    pub fn fence(&self) -> Option<i64> {
        self.fence
    }

    /// True once a renewal found the lease gone or failed: stop writing.
    pub fn lost(&self) -> bool {
        self.lost.load(Ordering::SeqCst)
    }

    /// Sets the lease to `ttl` from now; false when it is no longer held.
    pub fn extend(&self, con: &mut dyn redis::ConnectionLike, ttl: Duration) -> Result<bool, LockError> {
        run_extend(self.kind.extend, con, &self.key, &self.token, ttl)
    }

    /// Stops renewing and deletes the lock if this lease still holds it; `LockError::LeaseLost`
    /// when it no longer did.
    pub fn release(mut self, con: &mut dyn redis::ConnectionLike) -> Result<(), LockError> {
        self.stop_renewing();
        if run_release(self.kind.release, con, &self.key, self.queue.as_deref(), &self.token)? != 0 {
            Ok(())
        } else {
            Err(LockError::LeaseLost { key: self.key.clone() })
        }
    }

    fn stop_renewing(&mut self) {
        drop(self.stop.take());
        if let Some(renewer) = self.renewer.take() {
            let _ = renewer.join(); // a renewal in flight ends before the release
        }
    }
}

impl Drop for Lease {
    fn drop(&mut self) {
        self.stop_renewing();
    }
}
«kinds:code»
