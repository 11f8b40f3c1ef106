// Redis lock (Redis Locksmith, auto-extending lease): acquire, renew every ttl/3 from a thread
// with its own connection while the body runs, stop renewing on release. lock_lost turns true
// when a renewal fails: the lease may have passed to another owner, so stop writing.
// Assumes a redis::Client `client` and a connection `con` from it, in a function returning
// Result<_, Box<dyn std::error::Error>>; needs the rand crate (its thread RNG is a CSPRNG).
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};
let locksmith_acquire = redis::Script::new(r#"«lua:acquire»"#);
let locksmith_extend = redis::Script::new(r#"«lua:extend»"#);
let locksmith_release = redis::Script::new(r#"«lua:release»"#);
let lock_key = «key»;
let lock_ttl_ms: u64 = «ttl»;
let lock_token = format!(
    "{}:{}:{:016x}",
    std::env::var("HOSTNAME").unwrap_or_else(|_| "host".into()),
    std::process::id(),
    rand::random::<u64>()
);
let lock_wait_until = Instant::now() + Duration::from_secs(10); // give up after waiting 10 s
let mut attempt = 0;
loop {
    let acquired: i64 = locksmith_acquire
        .key(lock_key)
        .arg(&lock_token)
        .arg(lock_ttl_ms)
        .invoke(&mut con)?;
    if acquired != 0 {
        break;
    }
    if Instant::now() > lock_wait_until {
        return Err(format!("{lock_key} is still held by another owner").into());
    }
    let backoff_ms = (10.0 * 2f64.powi(attempt)).min(500.0) * (0.5 + rand::random::<f64>());
    std::thread::sleep(Duration::from_secs_f64(backoff_ms / 1000.0));
    attempt += 1;
}
let lock_lost = Arc::new(AtomicBool::new(false));
// Release drops lock_released; until then the renewer wakes every ttl/3 to extend.
let (lock_released, lock_release_signal) = mpsc::channel::<()>();
let lock_renewer = {
    let (lock_key, lock_token, lock_lost) = (
        lock_key.to_owned(),
        lock_token.clone(),
        Arc::clone(&lock_lost),
    );
    let mut lock_renew_con = client.get_connection()?;
    std::thread::spawn(move || {
        let every = Duration::from_millis((lock_ttl_ms / 3).max(1));
        while let Err(mpsc::RecvTimeoutError::Timeout) = lock_release_signal.recv_timeout(every)
        {
            let held = locksmith_extend
                .key(&lock_key)
                .arg(&lock_token)
                .arg(lock_ttl_ms)
                .invoke::<i64>(&mut lock_renew_con);
            if !matches!(held, Ok(1)) {
                // 0: taken by another owner; an error: Redis unreachable, the lease may run out unseen.
                lock_lost.store(true, Ordering::SeqCst);
                return;
            }
        }
    })
};
// The body runs in a closure so that release follows whatever it returns (a panic leaves the
// lease to expire).
let lock_outcome = (|| -> Result<(), Box<dyn std::error::Error>> {
    «body»
    Ok(())
})();
drop(lock_released);
let _ = lock_renewer.join(); // a renewal in flight ends before release
locksmith_release
    .key(lock_key)
    .arg(&lock_token)
    .invoke::<i64>(&mut con)?;
lock_outcome?;
