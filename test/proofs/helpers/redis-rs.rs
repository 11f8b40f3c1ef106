// Proof program for the generated redis-rs helper (src/locksmith.rs next to it). Usage:
//   proof <redis-url> <mode> [rounds or kind]; modes: counter, renew, steal, fence, busy, and for
//   waiting (as test/proofs/helpers/kinds.js, kind "lock" only): hold, take. The helper is its core
//   alone: waiters poll, never past the holder's lease. Waiting woken by the release (the wakeups
//   part), and the lock kinds, are redis-rs-kinds.rs's modes.
mod locksmith;

use locksmith::{Lease, LockError, LockOptions};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

type Failure = Box<dyn std::error::Error>;

fn now_ms() -> u128 {
    SystemTime::now().duration_since(UNIX_EPOCH).expect("a clock after 1970").as_millis()
}

fn check(condition: bool, message: &str) -> Result<(), Failure> {
    if condition {
        Ok(())
    } else {
        Err(message.into())
    }
}

fn counter(con: &mut redis::Connection, rounds: u32) -> Result<(), Failure> {
    let options = LockOptions::new(Duration::from_secs(30)).wait(Duration::from_secs(60));
    for _ in 0..rounds {
        let lease = Lease::acquire_with(con, "proof:lock", &options)?;
        let occupancy: i64 = redis::cmd("INCR").arg("proof:occupancy").query(con)?;
        check(occupancy == 1, "two holders at once")?;
        let value: Option<i64> = redis::cmd("GET").arg("proof:counter").query(con)?;
        redis::cmd("SET").arg("proof:counter").arg(value.unwrap_or(0) + 1).query::<()>(con)?;
        // The next script call of every process takes the NOSCRIPT path.
        redis::cmd("SCRIPT").arg("FLUSH").query::<()>(con)?;
        redis::cmd("DECR").arg("proof:occupancy").query::<()>(con)?;
        lease.release(con)?;
    }
    Ok(())
}

fn renew(client: &redis::Client, con: &mut redis::Connection) -> Result<(), Failure> {
    let lease = Lease::acquire_with(con, "proof:lock", &LockOptions::new(Duration::from_millis(1500)).renew(client))?;
    for _ in 0..50 {
        std::thread::sleep(Duration::from_millis(100));
        let holder: Option<String> = redis::cmd("GET").arg("proof:lock").query(con)?;
        check(holder.as_deref() == Some(lease.token()), "lease lost while renewing")?;
    }
    check(!lease.lost(), "renewal reported a loss")?;
    let token = lease.token().to_owned();
    lease.release(con)?;
    // No TTL: a renewal after release would add one.
    redis::cmd("SET").arg("proof:lock").arg(&token).query::<()>(con)?;
    std::thread::sleep(Duration::from_millis(1500));
    let pttl: i64 = redis::cmd("PTTL").arg("proof:lock").query(con)?;
    check(pttl == -1, "still renewing after release")?;
    redis::cmd("DEL").arg("proof:lock").query::<()>(con)?;
    println!("renewed");
    Ok(())
}

fn steal(client: &redis::Client, con: &mut redis::Connection) -> Result<(), Failure> {
    let lease = Lease::acquire_with(con, "proof:lock", &LockOptions::new(Duration::from_millis(900)).renew(client))?;
    println!("held");
    let deadline = Instant::now() + Duration::from_secs(5);
    while !lease.lost() {
        check(Instant::now() < deadline, "no loss reported within 5 s")?;
        std::thread::sleep(Duration::from_millis(1));
    }
    let at = now_ms();
    check(matches!(lease.release(con), Err(LockError::LeaseLost { .. })), "released a stolen lock")?;
    println!("lost {at}");
    Ok(())
}

fn fence(con: &mut redis::Connection, rounds: u32) -> Result<(), Failure> {
    let options = LockOptions::new(Duration::from_secs(5)).wait(Duration::from_secs(60)).fence_key("proof:fence");
    for _ in 0..rounds {
        let lease = Lease::acquire_with(con, "proof:lock", &options)?;
        std::thread::sleep(Duration::from_millis(5));
        redis::cmd("RPUSH").arg("proof:tokens").arg(lease.fence().ok_or("no fencing token")?).query::<()>(con)?;
        lease.release(con)?;
    }
    Ok(())
}

fn busy(con: &mut redis::Connection) -> Result<(), Failure> {
    let started = Instant::now();
    let options = LockOptions::new(Duration::from_secs(5)).wait(Duration::from_millis(500));
    match Lease::acquire_with(con, "proof:lock", &options) {
        Err(busy @ LockError::Busy { .. }) => {
            println!("busy {} {busy}", started.elapsed().as_millis());
            Ok(())
        }
        Err(other) => Err(other.into()),
        Ok(_) => Err("acquired a lock another owner holds".into()),
    }
}

fn hold(con: &mut redis::Connection) -> Result<(), Failure> {
    let ttl_ms = std::env::var("PROOF_HOLD_MS").ok().and_then(|ms| ms.parse().ok()).unwrap_or(1000);
    let lease = Lease::acquire_with(con, "proof:lock", &LockOptions::new(Duration::from_millis(ttl_ms)).wait(Duration::ZERO))?;
    println!("held");
    std::thread::sleep(Duration::from_secs(60));
    drop(lease);
    Ok(())
}

fn take(con: &mut redis::Connection) -> Result<(), Failure> {
    let lease = Lease::acquire_with(con, "proof:lock", &LockOptions::new(Duration::from_secs(5)))?;
    println!("took {}", now_ms());
    lease.release(con)?;
    Ok(())
}

fn main() -> Result<(), Failure> {
    let args: Vec<String> = std::env::args().collect();
    let (url, mode) = (&args[1], args[2].as_str());
    let arg = args.get(3).map(String::as_str).unwrap_or("1");
    check(arg == "lock" || arg.parse::<u32>().is_ok(), "no such kind in this helper")?;
    let client = redis::Client::open(url.as_str())?;
    let mut con = client.get_connection()?;
    match mode {
        "counter" => counter(&mut con, arg.parse()?),
        "fence" => fence(&mut con, arg.parse()?),
        "renew" => renew(&client, &mut con),
        "steal" => steal(&client, &mut con),
        "busy" => busy(&mut con),
        "hold" => hold(&mut con),
        "take" => take(&mut con),
        _ => Err(format!("unknown mode {mode}").into()),
    }
}
