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
//! A waiter polls with jittered back-off: the release's wake-up (SPUBLISH) needs a subscribed
//! connection, and `Lease::acquire` has only the caller's `&mut con`, which a subscription would
//! take over.

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
    fence_key: Option<String>,
    renew_with: Option<redis::Client>,
«kinds:options-fields»
}

impl LockOptions {
    /// A lease of `ttl` (whole milliseconds): how long the lock outlives a holder that dies without releasing it.
    pub fn new(ttl: Duration) -> Self {
        LockOptions {
            ttl,
            wait: Duration::from_secs(10),
            fence_key: None,
            renew_with: None,
«kinds:options-defaults»
        }
    }

    /// How long to wait for another holder to let go before `LockError::Busy` (default 10 s; zero: try once).
    pub fn wait(mut self, wait: Duration) -> Self {
        self.wait = wait;
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
        whole_ms("ttl", self.ttl, 1)
    }
}

/// A held lock.
pub struct Lease {
    kind: Kind,
    key: String,
    token: String,
    fence: Option<i64>,
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
    let released: i64 = invoke(redis::Script::new(RELEASE).key(key).arg(token), con)?;
    Ok(released == 1)
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

/// Tries `attempt` until it answers other than 0 (the reply it returns), waiting up to
/// `options.wait` with jittered back-off (10 ms doubling to 500 ms, jittered down to half), then
/// `LockError::Busy`.
fn take(
    con: &mut dyn redis::ConnectionLike,
    key: &str,
    options: &LockOptions,
    kind: Kind,
    mut attempt: impl FnMut(&mut dyn redis::ConnectionLike) -> Result<i64, LockError>,
) -> Result<i64, LockError> {
«kinds:take»
    let deadline = Instant::now() + options.wait;
    for round in 0.. {
        let reply = attempt(con)?;
        if reply != 0 {
            return Ok(reply);
        }
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(LockError::Busy { key: key.to_owned(), waited: options.wait, holders: kind.holders });
        }
        let jitter = 0.5 + (random_u64() >> 12) as f64 / (1u64 << 53) as f64;
        let backoff = Duration::from_secs_f64((10.0 * 2f64.powi(round.min(6))).min(500.0) * jitter / 1000.0);
        std::thread::sleep(backoff.min(left));
    }
    unreachable!("the loop returns")
}

/// One try at the lock: the acquire script's reply (0: held by another owner; with a fence key,
/// the fencing token).
fn attempt_acquire(
    con: &mut dyn redis::ConnectionLike,
    key: &str,
    token: &str,
    ttl_ms: u64,
    options: &LockOptions,
) -> Result<i64, LockError> {
    let script = redis::Script::new(ACQUIRE);
    let mut invocation = script.key(key);
    if let Some(fence_key) = &options.fence_key {
        invocation.key(fence_key);
    }
    invocation.arg(token).arg(ttl_ms);
«kinds:attempt»
    Ok(invoke(&invocation, con)?)
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
        let reply = take(con, key, options, PLAIN, |con| attempt_acquire(con, key, &token, ttl_ms, options))?;
        let fence = options.fence_key.as_ref().map(|_| reply);
        Lease::held(PLAIN, key, token, fence, ttl_ms, options.renew_with.as_ref())
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
        fence: Option<i64>,
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
        Ok(Lease { kind, key: key.to_owned(), token, fence, lost, stop, renewer })
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
        let released: i64 = invoke(redis::Script::new(self.kind.release).key(&self.key).arg(&self.token), con)?;
        if released != 0 {
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
