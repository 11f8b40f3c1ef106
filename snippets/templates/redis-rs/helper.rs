«header»

//! Redis locks for redis-rs: `Lease::acquire(&mut con, "lock:{order:42}", Duration::from_secs(10))?`, the
//! critical section, then `lease.release(&mut con)?`. `Lease::acquire_with` takes `LockOptions`: a wait, a
//! fencing key, renewal (a thread extends the lease every ttl/3; `lease.lost()` turns true when that fails).
//! A waiter sleeps up to `retry` (500 ms, jittered down to half), never past the holder's lease.
«kinds:about»

use redis::{ConnectionLike, FromRedisValue, RedisResult, ScriptInvocation};
use std::fmt;
use std::hash::{BuildHasher, Hasher, RandomState};
use std::sync::{atomic::AtomicBool, atomic::Ordering, mpsc, Arc};
use std::time::{Duration, Instant};

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

type Result<T, E = LockError> = std::result::Result<T, E>;

#[derive(Debug)]
pub enum LockError {
    /// The lock stayed held (by `holders`) for the whole wait.
    Busy { key: String, waited: Duration, holders: &'static str },
    /// The lease was gone before release: another holder may have run at the same time.
    LeaseLost { key: String },
    /// A setting Redis cannot take.
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

/// What `Lease::acquire_with` takes: `LockOptions::new(ttl)` and the settings below.
#[derive(Clone, Default)]
pub struct LockOptions {
    ttl: Duration,
    wait: Duration,
    retry: Duration,
    fence_key: Option<String>,
    renew_with: Option<redis::Client>,
«kinds:options-fields»
}

impl LockOptions {
    /// A lease of `ttl` (whole ms): how long the lock outlives a holder that dies without releasing it.
    pub fn new(ttl: Duration) -> Self {
        LockOptions { ttl, wait: Duration::from_secs(10), retry: Duration::from_millis(500), ..Default::default() }
    }

    /// How long to wait for another holder to let go before `LockError::Busy` (default 10 s; zero: try once).
    pub fn wait(self, wait: Duration) -> Self {
        LockOptions { wait, ..self }
    }

    /// The longest sleep between tries while waiting (default 500 ms), jittered down to half.
    pub fn retry(self, retry: Duration) -> Self {
        LockOptions { retry, ..self }
    }

    /// A fencing counter key (in Cluster, with the lock key's {hash tag}): `lease.fence()` grows with every holder.
    pub fn fence_key(self, key: &str) -> Self {
        LockOptions { fence_key: Some(key.to_owned()), ..self }
    }

    /// Extend the lease every ttl/3 from a thread with its own connection from `client`.
    pub fn renew(self, client: &redis::Client) -> Self {
        LockOptions { renew_with: Some(client.clone()), ..self }
    }
«kinds:options»

    /// The lease in whole milliseconds, once every setting is one Redis can take.
    fn ttl_ms(&self) -> Result<u64> {
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
    lost: Arc<AtomicBool>,
    renewer: Option<Renewer>,
}

/// A renewal thread: dropping the sender stops it, joining it waits for a renewal in flight.
type Renewer = (mpsc::Sender<()>, std::thread::JoinHandle<()>);
type Extend = Box<dyn Fn(&mut redis::Connection) -> Result<bool> + Send>;

/// Runs `extend` every ttl/3 with a connection from `client` until stopped or it fails (then `lost`).
fn renew(client: &redis::Client, ttl_ms: u64, lost: &Arc<AtomicBool>, extend: Extend) -> Result<Renewer> {
    let (mut con, lost, (stop, stopped)) = (client.get_connection()?, Arc::clone(lost), mpsc::channel());
    let thread = std::thread::spawn(move || {
        let every = Duration::from_millis((ttl_ms / 3).max(1));
        while let Err(mpsc::RecvTimeoutError::Timeout) = stopped.recv_timeout(every) {
            // false: taken by another owner; an error: Redis unreachable, the lease may run out unseen.
            if !matches!(extend(&mut con), Ok(true)) {
                return lost.store(true, Ordering::SeqCst);
            }
        }
    });
    Ok((stop, thread))
}

/// Runs a script by its SHA1. redis-rs loads it on NOSCRIPT and runs EVALSHA again, which fails
/// too when a SCRIPT FLUSH or a failover comes between the two: then it tries again, twice at most.
fn invoke<T: FromRedisValue>(invocation: &ScriptInvocation<'_>, con: &mut dyn ConnectionLike) -> RedisResult<T> {
    let mut tries = 0;
    loop {
        match invocation.invoke(con) {
            Err(error) if error.code() == Some("NOSCRIPT") && tries < 2 => tries += 1,
            reply => return reply,
        }
    }
}

fn random_u64() -> u64 {
    // Seeded randomly per process and instance: enough for a token's unique part and for jitter.
    RandomState::new().build_hasher().finish()
}

fn whole_ms(name: &str, value: Duration, at_least: u128) -> Result<u64> {
    let ms = value.as_millis();
    if ms < at_least || Duration::from_millis(ms as u64) != value {
        let message = format!("{name} must be a whole number of milliseconds, at least {at_least}, got {value:?}");
        return Err(LockError::InvalidArgument(message));
    }
    Ok(ms as u64)
}

/// Compare-and-delete: deletes `key` while it holds `token` (true, and wakes a waiter); false otherwise.
pub fn release_lock(con: &mut dyn ConnectionLike, key: &str, token: &str) -> Result<bool> {
    Ok(invoke::<i64>(redis::Script::new(RELEASE).key(key).arg(token), con)? == 1)
}

/// Compare-and-extend: sets `key`'s lease to `ttl` while it holds `token` (true); false otherwise.
pub fn extend_lock(con: &mut dyn ConnectionLike, key: &str, token: &str, ttl: Duration) -> Result<bool> {
    run_extend(EXTEND, con, key, token, whole_ms("ttl", ttl, 1)?)
}

/// Runs a kind's extend script: true while `token` holds `key`, whose lease is now `ttl_ms`.
fn run_extend(lua: &str, con: &mut dyn ConnectionLike, key: &str, token: &str, ttl_ms: u64) -> Result<bool> {
    Ok(invoke::<i64>(redis::Script::new(lua).key(key).arg(token).arg(ttl_ms), con)? == 1)
}

/// An owner token: this host and process, and `unique` (random, or the reentrant lock's owner).
fn owner_token(unique: &str) -> String {
    let host = std::env::var("HOSTNAME").unwrap_or_else(|_| "host".into());
    format!("{host}:{}:{unique}", std::process::id())
}

/// One try at a lock: its reply (0: busy), and the holder's PTTL when the try tells it.
type Attempt<'a> = &'a mut dyn FnMut(&mut dyn ConnectionLike) -> Result<(i64, Option<i64>)>;

/// Tries `attempt` (its reply, and the holder's PTTL if it tells it) until it answers other than 0, up to
/// `options.wait`, sleeping in between never past the holder's lease (read after a busy try: waiters only).
fn take(con: &mut dyn ConnectionLike, key: &str, options: &LockOptions, kind: Kind, attempt: Attempt) -> Result<i64> {
«kinds:take»
    let deadline = Instant::now() + options.wait;
«kinds:wait»
    loop {
        let (reply, pttl) = attempt(con)?;
        let left = deadline.saturating_duration_since(Instant::now());
        if reply != 0 {
            return Ok(reply);
        } else if left.is_zero() {
            return Err(LockError::Busy { key: key.to_owned(), waited: options.wait, holders: kind.holders });
        }
«kinds:busy»
        let lease_left = match pttl.map_or_else(|| redis::cmd("PTTL").arg(key).query(con), Ok)? {
            -2 => continue,      // gone: try again at once
            -1 => Duration::MAX, // no lease to wait for
            pttl => Duration::from_millis(pttl.max(0) as u64 + 1),
        };
        let jitter = 0.5 + (random_u64() >> 11) as f64 / (1u64 << 54) as f64;
        let sleep = options.retry.mul_f64(jitter).min(left).min(lease_left);
«kinds:sleep»
        std::thread::sleep(sleep);
    }
}

impl Lease {
    /// Takes the lock with a lease of `ttl`, waiting up to 10 s; see `acquire_with`.
    pub fn acquire(con: &mut dyn ConnectionLike, key: &str, ttl: Duration) -> Result<Lease> {
        Self::acquire_with(con, key, &LockOptions::new(ttl))
    }

    /// Takes the lock, waiting up to `options.wait`, then `LockError::Busy`.
    pub fn acquire_with(con: &mut dyn ConnectionLike, key: &str, options: &LockOptions) -> Result<Lease> {
        let (ttl_ms, token) = (options.ttl_ms()?, owner_token(&format!("{:016x}", random_u64())));
        let script = redis::Script::new(ACQUIRE);
«kinds:acquire»
        let mut invocation = script.key(key);
«kinds:acquire-keys»
        invocation.key(&options.fence_key).arg(&token).arg(ttl_ms); // a None adds no key
«kinds:acquire-args»
        let taken = take(con, key, options, PLAIN, &mut |con| {
«kinds:attempt»
«kinds:attempt-in-line»
            Ok((invoke(&invocation, con)?, None))
        });
«kinds:acquired»
        let reply = taken?;
        Lease::held(PLAIN, key, token, options.fence_key.as_ref().map(|_| reply), options)
    }

    /// One try, never waits: `Some(lease)`, or `None` while another holder has the lock.
    pub fn try_acquire(con: &mut dyn ConnectionLike, key: &str, ttl: Duration) -> Result<Option<Lease>> {
        match Self::acquire_with(con, key, &LockOptions::new(ttl).wait(Duration::ZERO)) {
            Err(LockError::Busy { .. }) => Ok(None),
            taken => taken.map(Some),
        }
    }

    fn held(kind: Kind, key: &str, token: String, fence: Option<i64>, options: &LockOptions) -> Result<Self> {
        let (lost, ttl_ms) = (Arc::new(AtomicBool::new(false)), options.ttl_ms()?);
        let (key, renewed) = (key.to_owned(), (key.to_owned(), token.clone()));
        let extend: Extend = Box::new(move |con| run_extend(kind.extend, con, &renewed.0, &renewed.1, ttl_ms));
        let renewer = options.renew_with.as_ref().map(|client| renew(client, ttl_ms, &lost, extend)).transpose()?;
        Ok(Lease { kind, key, token, fence, lost, renewer })
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
    pub fn extend(&self, con: &mut dyn ConnectionLike, ttl: Duration) -> Result<bool> {
        run_extend(self.kind.extend, con, &self.key, &self.token, whole_ms("ttl", ttl, 1)?)
    }

    /// Stops renewing and deletes the lock while this lease holds it; `LockError::LeaseLost` when it no longer did.
    pub fn release(mut self, con: &mut dyn ConnectionLike) -> Result<()> {
        if let Some((stop, renewer)) = self.renewer.take() {
            drop(stop);
            let _ = renewer.join(); // a renewal in flight ends before the release
        }
        let script = redis::Script::new(self.kind.release);
        let mut invocation = script.key(&self.key);
«kinds:release»
        match invoke::<i64>(invocation.arg(&self.token), con)? {
            0 => Err(LockError::LeaseLost { key: self.key }),
            _ => Ok(()),
        }
    }
}
«kinds:code»
