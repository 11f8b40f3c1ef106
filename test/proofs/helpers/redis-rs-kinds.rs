// Proof program for the generated redis-rs helper with every part it can carry (src/locksmith.rs
// next to it, the package's library, which denies warnings). Usage: proof <redis-url> <mode> [rounds
// or kind]; modes: for waiting and the lock kinds (as test/proofs/helpers/kinds.js): woken,
// reentrant, rw-reader, rw-writer, semaphore, hold, take; for the parts:
//   replica-short   on a master with no replica: wait_for_replicas {1 replica, 50 ms} is a shortfall
//                   (released), without retrying in a 10 s wait in line; with on_shortfall Keep the
//                   lock is kept and the callback called;
//   replica-busy    a lock the test holds: busy, as without the option;
//   replica-fsync   fsync where the server cannot (Redis 7.0: no WAITAOF; Valkey: appendonly no):
//                   released whatever on_shortfall says;
//   replica-acl     as a user the ACL denies WAIT: the lock given back and the NOPERM error as it is;
//   replica-acked   with a real replica: the acquire returns once it acknowledged (prints the token
//                   and the fencing token, and keeps the lock for the test to read on the replica);
//   replica-lost    a 3 s WAIT on a master with no replica; the test kills the connection mid-wait;
//   replica-bad     bad settings, each refused before anything is sent;
//   fenced-holder   takes the lock (300 ms lease, fencing token), writes proof:guarded and
//                   proof:fenced, is paused (SIGSTOP by its pid in proof:pid) past its lease until
//                   the next holder wrote both, and writes again: both refused;
//   fenced-taker    the next holder: takes the lock once the lease ended and writes both;
//   fenced-expired  a lease that ran out writes nothing; set_fenced without a fencing token fails;
//   multi <n>       n transfers between 2 or 3 of 4 accounts under acquire_multi (waiting, woken);
//   multi-try <n>   such transfers that never wait, until the 3 'multi' processes are done and at
//                   least n; prints busy <count> of <tries>; a busy try holds none of its keys;
//   multi-lost      extend and release answer for every key: false / LeaseLost once one was taken;
//   multi-renew     3 keys on a 900 ms lease renewed through 3 s: still held, not lost, released;
//   multi-woken     a waiter on keys overlapping a holder's (30 s retry bound, 5 s lease) with
//                   wake_with: prints how long after the holder's release it took them;
//   multi-bad       bad keys and settings, each refused before anything is sent;
//   multi-cluster   through redis-rs's ClusterConnection: keys of one {hash tag} taken and released
//                   in one call; keys across slots refused, nothing taken.
#![deny(warnings)]

use locksmith_proof::locksmith::{Lease, LockError, LockOptions, MultiLease, OnShortfall, ShortfallReason, WaitForReplicas};
use rand::seq::SliceRandom;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

type Failure = Box<dyn std::error::Error>;

fn check(condition: bool, message: &str) -> Result<(), Failure> {
    if condition {
        Ok(())
    } else {
        Err(message.into())
    }
}

fn now_ms() -> u128 {
    SystemTime::now().duration_since(UNIX_EPOCH).expect("a clock after 1970").as_millis()
}

fn incr(con: &mut redis::Connection, key: &str, by: i64) -> Result<i64, Failure> {
    Ok(redis::cmd("INCRBY").arg(key).arg(by).query(con)?)
}

/// Takes a kind on proof:lock.
fn acquire_kind(con: &mut redis::Connection, kind: &str, options: &LockOptions) -> Result<Lease, Failure> {
    Ok(match kind {
        "lock" => Lease::acquire_with(con, "proof:lock", options)?,
        "reentrant" => Lease::acquire_reentrant(con, "proof:lock", &format!("owner-{}", std::process::id()), options)?,
        "read" => Lease::acquire_read(con, "proof:lock", options)?,
        "write" => Lease::acquire_write(con, "proof:lock", options)?,
        "semaphore" => Lease::acquire_semaphore(con, "proof:lock", 1, options)?,
        _ => return Err(format!("no kind {kind}").into()),
    })
}

fn woken(client: &redis::Client, con: &mut redis::Connection, kind: &str) -> Result<(), Failure> {
    let options = LockOptions::new(Duration::from_secs(5))
        .wait(Duration::from_secs(60))
        .retry(Duration::from_secs(30))
        .wake_with(client);
    let lease = acquire_kind(con, kind, &options)?;
    println!("held {}", now_ms());
    lease.release(con)?;
    Ok(())
}

fn reentrant(con: &mut redis::Connection, rounds: u32) -> Result<(), Failure> {
    let options = LockOptions::new(Duration::from_secs(5)).wait(Duration::from_secs(60));
    for round in 0..rounds {
        let owner = format!("job-{}-{round}", std::process::id());
        let outer = Lease::acquire_reentrant(con, "proof:lock", &owner, &options)?;
        check(incr(con, "proof:occupancy", 1)? == 1, "two holders at once")?;
        let inner = Lease::acquire_reentrant(con, "proof:lock", &owner, &options.clone().wait(Duration::ZERO))?;
        let count: Option<i64> = redis::cmd("HGET").arg("proof:lock").arg(outer.token()).query(con)?;
        check(inner.token() == outer.token() && count == Some(2), "the nested take did not re-enter")?;
        let value: Option<i64> = redis::cmd("GET").arg("proof:counter").query(con)?;
        redis::cmd("SET").arg("proof:counter").arg(value.unwrap_or(0) + 1).query::<()>(con)?;
        inner.release(con)?;
        let count: Option<i64> = redis::cmd("HGET").arg("proof:lock").arg(outer.token()).query(con)?;
        check(count == Some(1), "hold count is not back to 1")?;
        incr(con, "proof:occupancy", -1)?;
        outer.release(con)?;
    }
    Ok(())
}

fn rw_reader(con: &mut redis::Connection, rounds: u32) -> Result<(), Failure> {
    let options = LockOptions::new(Duration::from_secs(5)).wait(Duration::from_secs(60));
    for _ in 0..rounds {
        let lease = Lease::acquire_read(con, "proof:rw", &options)?;
        if incr(con, "proof:readers", 1)? > 1 {
            redis::cmd("SET").arg("proof:overlap").arg(1).query::<()>(con)?;
        }
        check(get(con, "proof:writers")?.unwrap_or_default().parse::<i64>().unwrap_or(0) == 0, "read while a writer held the lock")?;
        std::thread::sleep(Duration::from_millis(10));
        incr(con, "proof:readers", -1)?;
        lease.release(con)?;
    }
    Ok(())
}

fn rw_writer(con: &mut redis::Connection, rounds: u32) -> Result<(), Failure> {
    let options = LockOptions::new(Duration::from_secs(5)).wait(Duration::from_secs(60));
    for _ in 0..rounds {
        let lease = Lease::acquire_write(con, "proof:rw", &options)?;
        check(incr(con, "proof:writers", 1)? == 1, "two writers at once")?;
        check(get(con, "proof:readers")?.unwrap_or_default().parse::<i64>().unwrap_or(0) == 0, "wrote while a reader held the lock")?;
        let value: Option<i64> = redis::cmd("GET").arg("proof:counter").query(con)?;
        redis::cmd("SET").arg("proof:counter").arg(value.unwrap_or(0) + 1).query::<()>(con)?;
        incr(con, "proof:writers", -1)?;
        lease.release(con)?;
    }
    Ok(())
}

fn semaphore(con: &mut redis::Connection, rounds: u32) -> Result<(), Failure> {
    let options = LockOptions::new(Duration::from_secs(5)).wait(Duration::from_secs(60));
    for _ in 0..rounds {
        let lease = Lease::acquire_semaphore(con, "proof:sem", 2, &options)?;
        let holders = incr(con, "proof:holders", 1)?;
        check(holders <= 2, &format!("{holders} holders of 2 permits"))?;
        if holders == 2 {
            redis::cmd("SET").arg("proof:full").arg(1).query::<()>(con)?;
        }
        std::thread::sleep(Duration::from_millis(5));
        incr(con, "proof:holders", -1)?;
        lease.release(con)?;
    }
    Ok(())
}

fn hold(con: &mut redis::Connection, kind: &str) -> Result<(), Failure> {
    let ttl_ms = std::env::var("PROOF_HOLD_MS").ok().and_then(|ms| ms.parse().ok()).unwrap_or(1000);
    let _lease = acquire_kind(con, kind, &LockOptions::new(Duration::from_millis(ttl_ms)).wait(Duration::ZERO))?;
    println!("held");
    std::thread::sleep(Duration::from_secs(60));
    Ok(())
}

fn take(con: &mut redis::Connection, kind: &str) -> Result<(), Failure> {
    let lease = acquire_kind(con, kind, &LockOptions::new(Duration::from_secs(5)).wait(Duration::from_secs(10)))?;
    println!("took {}", now_ms());
    lease.release(con)?;
    Ok(())
}

fn get(con: &mut redis::Connection, key: &str) -> Result<Option<String>, Failure> {
    Ok(redis::cmd("GET").arg(key).query(con)?)
}

/// A counter of the proof (0 when unset).
fn count(con: &mut redis::Connection, key: &str) -> Result<i64, Failure> {
    Ok(get(con, key)?.map_or(Ok(0), |value| value.parse())?)
}

fn replica_short(client: &redis::Client, con: &mut redis::Connection) -> Result<(), Failure> {
    let wait = WaitForReplicas { replicas: 1, timeout: Duration::from_millis(50), ..WaitForReplicas::default() };
    // In line (wake_with): the pipeline carries acquire_queued, and the release hands the lock on.
    let options = LockOptions::new(Duration::from_secs(5)).wake_with(client).wait_for_replicas(wait.clone());
    let started = Instant::now();
    match Lease::acquire_with(con, "proof:lock", &options) {
        Err(error @ LockError::ReplicaShortfall { .. }) => {
            let LockError::ReplicaShortfall { shortfall, released } = &error else { unreachable!() };
            check(*released, "not released")?;
            check(shortfall.reason == ShortfallReason::Timeout, "not a timeout")?;
            check(shortfall.acknowledged == Some(0) && shortfall.required == 1, "wrong counts")?;
            // A shortfall ends the 10 s wait: no retry.
            println!("shortfall {} ms: {error}", started.elapsed().as_millis());
        }
        Err(other) => return Err(other.into()),
        Ok(_) => return Err("held without a replica".into()),
    }
    check(get(con, "proof:lock")?.is_none(), "the lock is still there after the shortfall")?;

    let seen = Arc::new(Mutex::new(Vec::new()));
    let record = Arc::clone(&seen);
    let keep = OnShortfall::Keep(Arc::new(move |shortfall| record.lock().expect("not poisoned").push(shortfall.clone())));
    let options = LockOptions::new(Duration::from_secs(5))
        .fence_key("proof:fence")
        .wait_for_replicas(WaitForReplicas { on_shortfall: keep, ..wait });
    let lease = Lease::acquire_with(con, "proof:lock", &options)?;
    check(get(con, "proof:lock")?.as_deref() == Some(lease.token()), "the callback's lock is not held")?;
    let seen = seen.lock().expect("not poisoned").clone();
    check(seen.len() == 1, "the callback was not called once")?;
    println!("kept fence {}: {}", lease.fence().ok_or("no fencing token")?, seen[0]);
    lease.release(con)?;
    Ok(())
}

fn replica_busy(con: &mut redis::Connection) -> Result<(), Failure> {
    let options = LockOptions::new(Duration::from_secs(5)).wait(Duration::ZERO).wait_for_replicas(WaitForReplicas::default());
    match Lease::acquire_with(con, "proof:lock", &options) {
        Err(LockError::Busy { .. }) => println!("busy"),
        Err(other) => return Err(other.into()),
        Ok(_) => return Err("took a lock another owner holds".into()),
    }
    Ok(())
}

fn replica_fsync(con: &mut redis::Connection) -> Result<(), Failure> {
    let keep = OnShortfall::Keep(Arc::new(|_| panic!("a setting the server cannot honour is no shortfall to keep")));
    let wait = WaitForReplicas { fsync: true, on_shortfall: keep, ..WaitForReplicas::default() };
    match Lease::acquire_with(con, "proof:lock", &LockOptions::new(Duration::from_secs(5)).wait_for_replicas(wait)) {
        Err(error @ LockError::ReplicaShortfall { released: true, .. }) => println!("refused: {error}"),
        Err(other) => return Err(other.into()),
        Ok(_) => return Err("held with fsync where the server cannot".into()),
    }
    Ok(())
}

fn replica_acl(con: &mut redis::Connection) -> Result<(), Failure> {
    let options = LockOptions::new(Duration::from_secs(5)).wait_for_replicas(WaitForReplicas::default());
    match Lease::acquire_with(con, "proof:lock", &options) {
        Err(error @ LockError::Redis(_)) => println!("refused: {error}"),
        Err(other) => return Err(other.into()),
        Ok(_) => return Err("held though WAIT was denied".into()),
    }
    Ok(())
}

fn replica_acked(con: &mut redis::Connection) -> Result<(), Failure> {
    let wait = WaitForReplicas { timeout: Duration::from_secs(5), ..WaitForReplicas::default() };
    let options = LockOptions::new(Duration::from_secs(60)).fence_key("proof:fence").wait_for_replicas(wait);
    let lease = Lease::acquire_with(con, "proof:lock", &options)?;
    // Not released: the test reads the lock on the replica.
    println!("acknowledged {} {}", lease.token(), lease.fence().ok_or("no fencing token")?);
    Ok(())
}

fn replica_lost(con: &mut redis::Connection) -> Result<(), Failure> {
    let wait = WaitForReplicas { timeout: Duration::from_secs(3), ..WaitForReplicas::default() };
    let options = LockOptions::new(Duration::from_secs(60)).wait_for_replicas(wait);
    match Lease::acquire_with(con, "proof:lock", &options) {
        Err(error @ LockError::ReplicaShortfall { .. }) => {
            let LockError::ReplicaShortfall { shortfall, released } = &error else { unreachable!() };
            check(shortfall.reason == ShortfallReason::ConnectionLost, "not a lost connection")?;
            check(!*released, "released on a closed connection")?;
            println!("lost: {error}");
            Ok(())
        }
        Err(other) => Err(other.into()),
        Ok(_) => Err("held without a replica".into()),
    }
}

fn replica_bad(con: &mut redis::Connection) -> Result<(), Failure> {
    let ttl = Duration::from_millis(1000);
    let cases = [
        WaitForReplicas { replicas: 0, ..WaitForReplicas::default() },
        WaitForReplicas { timeout: Duration::ZERO, ..WaitForReplicas::default() },
        WaitForReplicas { timeout: Duration::from_micros(1500), ..WaitForReplicas::default() },
        WaitForReplicas { timeout: ttl, ..WaitForReplicas::default() },
    ];
    for wait in cases {
        match Lease::acquire_with(con, "proof:lock", &LockOptions::new(ttl).wait_for_replicas(wait)) {
            Err(error @ LockError::InvalidArgument(_)) => println!("refused: {error}"),
            Err(other) => return Err(other.into()),
            Ok(_) => return Err("acquired with a bad setting".into()),
        }
    }
    // Only the plain lock waits for replicas so far: a lock kind refuses the option.
    match Lease::acquire_read(con, "proof:rw", &LockOptions::new(ttl).wait_for_replicas(WaitForReplicas::default())) {
        Err(error @ LockError::InvalidArgument(_)) => println!("refused: {error}"),
        Err(other) => return Err(other.into()),
        Ok(_) => return Err("a read lock took wait_for_replicas".into()),
    }
    Ok(())
}

fn fenced_holder(con: &mut redis::Connection) -> Result<(), Failure> {
    let options = LockOptions::new(Duration::from_millis(300)).wait(Duration::ZERO).fence_key("proof:fence");
    let lease = Lease::acquire_with(con, "proof:lock", &options)?;
    check(lease.set_if_held(con, "proof:guarded", "holder")?, "the holder's guarded write was refused")?;
    check(lease.set_fenced(con, "proof:fenced", "holder")?, "the holder's fenced write was refused")?;
    // The test SIGSTOPs this process by its pid (in proof:pid), and SIGCONTs it once the next
    // holder wrote; the wait for that write keeps the order should the stop come late.
    redis::cmd("SET").arg("proof:pid").arg(std::process::id()).query::<()>(con)?;
    println!("held {}", lease.fence().ok_or("no fencing token")?);
    let deadline = Instant::now() + Duration::from_secs(20);
    while get(con, "proof:guarded")?.as_deref() != Some("taker") {
        check(Instant::now() < deadline, "the next holder did not write within 20 s")?;
        std::thread::sleep(Duration::from_millis(10));
    }
    check(!lease.set_if_held(con, "proof:guarded", "stale")?, "a lost lease's guarded write went through")?;
    check(!lease.set_fenced(con, "proof:fenced", "stale")?, "an older fencing token's write went through")?;
    println!("refused");
    Ok(())
}

fn fenced_taker(con: &mut redis::Connection) -> Result<(), Failure> {
    let options = LockOptions::new(Duration::from_secs(5)).wait(Duration::from_secs(10)).fence_key("proof:fence");
    let lease = Lease::acquire_with(con, "proof:lock", &options)?;
    check(lease.set_if_held(con, "proof:guarded", "taker")?, "the taker's guarded write was refused")?;
    check(lease.set_fenced(con, "proof:fenced", "taker")?, "the taker's newer fencing token was refused")?;
    println!("wrote {}", lease.fence().ok_or("no fencing token")?);
    lease.release(con)?;
    Ok(())
}

fn fenced_expired(con: &mut redis::Connection) -> Result<(), Failure> {
    let lease = Lease::acquire_with(con, "proof:lock", &LockOptions::new(Duration::from_millis(100)))?;
    std::thread::sleep(Duration::from_millis(250));
    check(!lease.set_if_held(con, "proof:guarded", "late")?, "an expired lease's write went through")?;
    check(get(con, "proof:guarded")?.is_none(), "an expired lease wrote")?;
    match lease.set_fenced(con, "proof:fenced", "unfenced") {
        Err(error @ LockError::InvalidArgument(_)) => println!("refused: {error}"),
        other => return Err(format!("set_fenced without a fencing token: {other:?}").into()),
    }
    Ok(())
}

const ACCOUNTS: [&str; 4] = ["proof:acct:a", "proof:acct:b", "proof:acct:c", "proof:acct:d"];

/// 2 or 3 of the 4 accounts in a random order, and their lock keys.
fn pick_accounts() -> (Vec<&'static str>, Vec<String>) {
    let mut picked = ACCOUNTS.to_vec();
    picked.shuffle(&mut rand::rng());
    picked.truncate(if rand::random::<bool>() { 2 } else { 3 });
    let locks = picked.iter().map(|account| format!("lock:{account}")).collect();
    (picked, locks)
}

/// Moves 1 from the first picked account to the second, failing on a second holder of any of their locks.
fn transfer(con: &mut redis::Connection, picked: &[&str], locks: &[String]) -> Result<(), Failure> {
    for lock in locks {
        check(incr(con, &format!("{lock}:holders"), 1)? == 1, &format!("two holders of {lock}"))?;
    }
    let balance = |con: &mut redis::Connection, account| -> Result<i64, Failure> { Ok(get(con, account)?.unwrap_or_default().parse()?) };
    let (from, to) = (balance(con, picked[0])?, balance(con, picked[1])?);
    std::thread::sleep(Duration::from_millis(1));
    redis::cmd("SET").arg(picked[0]).arg(from - 1).query::<()>(con)?;
    redis::cmd("SET").arg(picked[1]).arg(to + 1).query::<()>(con)?;
    for lock in locks {
        incr(con, &format!("{lock}:holders"), -1)?;
    }
    Ok(())
}

/// Counts this process in and waits until the test's 3 'multi' processes and its tryer all are,
/// so that the tries meet the transfers however late a process starts.
fn all_started(con: &mut redis::Connection) -> Result<(), Failure> {
    incr(con, "proof:multi:started", 1)?;
    let deadline = Instant::now() + Duration::from_secs(30);
    while count(con, "proof:multi:started")? < 4 {
        check(Instant::now() < deadline, "the other transfer processes did not start within 30 s")?;
        std::thread::sleep(Duration::from_millis(1));
    }
    Ok(())
}

fn multi(client: &redis::Client, con: &mut redis::Connection, rounds: u32) -> Result<(), Failure> {
    let options = LockOptions::new(Duration::from_secs(5)).wait(Duration::from_secs(60)).wake_with(client);
    all_started(con)?;
    for _ in 0..rounds {
        let (picked, locks) = pick_accounts();
        let keys: Vec<&str> = locks.iter().map(String::as_str).collect();
        let lease = Lease::acquire_multi(con, &keys, &options)?;
        transfer(con, &picked, &locks)?;
        lease.release(con)?;
    }
    incr(con, "proof:multi:done", 1)?;
    Ok(())
}

fn multi_try(con: &mut redis::Connection, rounds: u32) -> Result<(), Failure> {
    let mine = format!("{}:{}:", std::env::var("HOSTNAME").unwrap_or_else(|_| "host".into()), std::process::id());
    let (mut busy, mut tries) = (0, 0);
    all_started(con)?;
    while tries < rounds || count(con, "proof:multi:done")? < 3 {
        tries += 1;
        std::thread::sleep(Duration::from_millis(2));
        let (picked, locks) = pick_accounts();
        let keys: Vec<&str> = locks.iter().map(String::as_str).collect();
        let Some(lease) = Lease::try_acquire_multi(con, &keys, &LockOptions::new(Duration::from_secs(5)))? else {
            busy += 1;
            for lock in &locks {
                check(!get(con, lock)?.unwrap_or_default().starts_with(&mine), &format!("partial hold of {lock}"))?;
            }
            continue;
        };
        transfer(con, &picked, &locks)?;
        lease.release(con)?;
    }
    println!("busy {busy} of {tries}");
    Ok(())
}

fn multi_lost(con: &mut redis::Connection) -> Result<(), Failure> {
    let lease: MultiLease = Lease::acquire_multi(con, &["proof:b", "proof:a"], &LockOptions::new(Duration::from_secs(5)))?;
    println!("keys {}", lease.keys().join(" "));
    println!("extended {}", lease.extend(con, Duration::from_secs(10))?);
    redis::cmd("SET").arg("proof:b").arg("another owner").query::<()>(con)?;
    println!("extended {}", lease.extend(con, Duration::from_secs(10))?);
    match lease.release(con) {
        Err(error @ LockError::LeaseLost { .. }) => println!("released: {error}"),
        other => return Err(format!("a release with a key taken: {other:?}").into()),
    }
    Ok(())
}

fn multi_renew(client: &redis::Client, con: &mut redis::Connection) -> Result<(), Failure> {
    // 900 ms renewed every 300: a renewal late by 600 ms on a loaded machine still keeps it.
    let options = LockOptions::new(Duration::from_millis(900)).renew(client);
    let lease = Lease::acquire_multi(con, &["proof:a", "proof:b", "proof:c"], &options)?;
    std::thread::sleep(Duration::from_secs(3));
    for key in lease.keys() {
        check(get(con, key)?.as_deref() == Some(lease.token()), &format!("{key} not held after 3 s"))?;
    }
    check(!lease.lost(), "the renewal reported the lease lost")?;
    lease.release(con)?;
    println!("renewed");
    Ok(())
}

fn multi_woken(client: &redis::Client, con: &mut redis::Connection) -> Result<(), Failure> {
    let holder = Lease::acquire_multi(con, &["proof:a", "proof:b"], &LockOptions::new(Duration::from_secs(5)))?;
    let released_at = Arc::new(Mutex::new(None::<Instant>));
    let (waiter_client, released) = (client.clone(), Arc::clone(&released_at));
    let waiter = std::thread::spawn(move || -> Result<Duration, String> {
        let mut con = waiter_client.get_connection().map_err(|error| error.to_string())?;
        let options = LockOptions::new(Duration::from_secs(5))
            .wait(Duration::from_secs(20))
            .retry(Duration::from_secs(30))
            .wake_with(&waiter_client);
        let lease = Lease::acquire_multi(&mut con, &["proof:b", "proof:c"], &options).map_err(|error| error.to_string())?;
        let after = released.lock().map_err(|error| error.to_string())?.ok_or("took the keys before the release")?.elapsed();
        lease.release(&mut con).map_err(|error| error.to_string())?;
        Ok(after)
    });
    std::thread::sleep(Duration::from_millis(200));
    *released_at.lock().map_err(|error| error.to_string())? = Some(Instant::now());
    holder.release(con)?;
    let after = waiter.join().map_err(|_| "the waiter panicked")??;
    println!("woken {} ms", after.as_millis());
    Ok(())
}

fn multi_bad(con: &mut redis::Connection) -> Result<(), Failure> {
    let ttl = LockOptions::new(Duration::from_secs(5));
    let cases: [(&[&str], LockOptions); 6] = [
        (&[], ttl.clone()),
        (&["proof:a", ""], ttl.clone()),
        (&["proof:a", "proof:b", "proof:a"], ttl.clone()),
        (&["proof:a"], LockOptions::new(Duration::ZERO)),
        (&["proof:a"], LockOptions::new(Duration::from_micros(1500))),
        (&["proof:a"], ttl.clone().fence_key("proof:fence")),
    ];
    for (keys, options) in cases {
        match Lease::acquire_multi(con, keys, &options) {
            Err(error @ LockError::InvalidArgument(_)) => println!("refused: {error}"),
            Err(other) => return Err(other.into()),
            Ok(_) => return Err(format!("acquired {keys:?} with a bad setting").into()),
        }
    }
    Ok(())
}

fn multi_cluster(url: &str) -> Result<(), Failure> {
    let mut con = redis::cluster::ClusterClient::new(vec![url])?.get_connection()?;
    let options = LockOptions::new(Duration::from_secs(5)).wait(Duration::ZERO);
    let lease = Lease::acquire_multi(&mut con, &["lock:{acct}:a", "lock:{acct}:b"], &options)?;
    println!("held {}", lease.keys().join(" "));
    lease.release(&mut con)?;
    match Lease::acquire_multi(&mut con, &["lock:{a}", "lock:{b}"], &options) {
        Err(error @ LockError::InvalidArgument(_)) => println!("refused: {error}"),
        Err(other) => return Err(other.into()),
        Ok(_) => return Err("took keys across a Cluster's slots".into()),
    }
    Ok(())
}

fn main() -> Result<(), Failure> {
    let args: Vec<String> = std::env::args().collect();
    let (url, mode) = (&args[1], args[2].as_str());
    let arg = args.get(3).map(String::as_str).unwrap_or("1");
    if mode == "multi-cluster" {
        return multi_cluster(url);
    }
    let client = redis::Client::open(url.as_str())?;
    let mut con = client.get_connection()?;
    match mode {
        "woken" => woken(&client, &mut con, arg),
        "reentrant" => reentrant(&mut con, arg.parse()?),
        "rw-reader" => rw_reader(&mut con, arg.parse()?),
        "rw-writer" => rw_writer(&mut con, arg.parse()?),
        "semaphore" => semaphore(&mut con, arg.parse()?),
        "hold" => hold(&mut con, arg),
        "take" => take(&mut con, arg),
        "replica-short" => replica_short(&client, &mut con),
        "replica-busy" => replica_busy(&mut con),
        "replica-fsync" => replica_fsync(&mut con),
        "replica-acl" => replica_acl(&mut con),
        "replica-acked" => replica_acked(&mut con),
        "replica-lost" => replica_lost(&mut con),
        "replica-bad" => replica_bad(&mut con),
        "fenced-holder" => fenced_holder(&mut con),
        "fenced-taker" => fenced_taker(&mut con),
        "fenced-expired" => fenced_expired(&mut con),
        "multi" => multi(&client, &mut con, arg.parse()?),
        "multi-try" => multi_try(&mut con, arg.parse()?),
        "multi-lost" => multi_lost(&mut con),
        "multi-renew" => multi_renew(&client, &mut con),
        "multi-woken" => multi_woken(&client, &mut con),
        "multi-bad" => multi_bad(&mut con),
        _ => Err(format!("unknown mode {mode}").into()),
    }
}
