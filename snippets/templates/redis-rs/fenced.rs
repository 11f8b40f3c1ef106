// Redis lock (Redis Locksmith, fenced): acquire returns a fencing token that grows with every
// new holder. Pass it to the guarded resource, which rejects writes with an older token, so a
// holder whose lease expired (GC pause, network stall) cannot overwrite its successor.
// Lock and fence keys must share a hash slot in Redis Cluster: use the same {hash tag}.
// Assumes a redis::Connection `con`, in a function returning
// Result<_, Box<dyn std::error::Error>>; needs the rand crate (its thread RNG is a CSPRNG).
use std::time::{Duration, Instant};
let locksmith_acquire = redis::Script::new(r#"«lua:acquire»"#);
let locksmith_release = redis::Script::new(r#"«lua:release»"#);
let lock_key = «key»;
let fence_key = «fence»;
let lock_ttl_ms: u64 = «ttl»;
let lock_token = format!(
    "{}:{}:{:016x}",
    std::env::var("HOSTNAME").unwrap_or_else(|_| "host".into()),
    std::process::id(),
    rand::random::<u64>()
);
let lock_wait_until = Instant::now() + Duration::from_secs(10); // give up after waiting 10 s
let mut attempt = 0;
let fencing_token = loop {
    let fencing_token: i64 = locksmith_acquire
        .key(lock_key)
        .key(fence_key)
        .arg(&lock_token)
        .arg(lock_ttl_ms)
        .invoke(&mut con)?;
    if fencing_token != 0 {
        break fencing_token;
    }
    if Instant::now() > lock_wait_until {
        return Err(format!("{lock_key} is still held by another owner").into());
    }
    let backoff_ms = (10.0 * 2f64.powi(attempt)).min(500.0) * (0.5 + rand::random::<f64>());
    std::thread::sleep(Duration::from_secs_f64(backoff_ms / 1000.0));
    attempt += 1;
};
// The body runs in a closure so that release follows whatever it returns (a panic leaves the
// lease to expire).
let lock_outcome = (|| -> Result<(), Box<dyn std::error::Error>> {
    «body»
    Ok(())
})();
locksmith_release
    .key(lock_key)
    .arg(&lock_token)
    .invoke::<i64>(&mut con)?;
lock_outcome?;
