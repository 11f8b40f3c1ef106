import { readFileSync } from 'node:fs';
import { cargo, writeCargoPackage } from '../../harness/toolchains';
import { indent, type Proof } from './proof';

export const proof: Proof = {
  client: 'redis-rs',
  file: 'proof.rs',
  // A package of its own per program, with the pinned Cargo.toml and Cargo.lock.
  build: async (path) => {
    const dir = `${path}.build`;
    writeCargoPackage(dir, { 'main.rs': readFileSync(path, 'utf8') });
    return [await cargo(dir, 'build')];
  },
  program: (snippet, after) => `use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

#[allow(unused_variables, unused_mut)]
fn round(client: &redis::Client) -> Result<(), Box<dyn std::error::Error>> {
    let mut con = client.get_connection()?;
${indent(snippet, '    ')}
${indent(after, '    ')}
    Ok(())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let client = redis::Client::open(args[1].as_str())?;
    for _ in 0..args[2].parse::<u32>()? {
        round(&client)?;
    }
    Ok(())
}
`,
  bodies: {
    guard: `let occupancy: i64 = redis::cmd("INCR").arg("proof:occupancy").query(&mut con)?;
if occupancy != 1 {
    return Err("two holders at once".into());
}
let value: Option<i64> = redis::cmd("GET").arg("proof:counter").query(&mut con)?;
redis::cmd("SET").arg("proof:counter").arg(value.unwrap_or(0) + 1).query::<()>(&mut con)?;
redis::cmd("DECR").arg("proof:occupancy").query::<()>(&mut con)?;`,
    renew: `for _ in 0..10 {
    std::thread::sleep(Duration::from_millis(500));
    let holder: Option<String> = redis::cmd("GET").arg(lock_key).query(&mut con)?;
    if holder.as_deref() != Some(lock_token.as_str()) {
        return Err("lease lost while renewing".into());
    }
}
if lock_lost.load(Ordering::SeqCst) {
    return Err("renewal reported a loss".into());
}
redis::cmd("INCR").arg("proof:renewed").query::<()>(&mut con)?;`,
    fenced: `std::thread::sleep(Duration::from_millis(5));
redis::cmd("RPUSH").arg("proof:tokens").arg(fencing_token).query::<()>(&mut con)?;`,
  },
  afterRenew: `redis::cmd("SET").arg(lock_key).arg(&lock_token).query::<()>(&mut con)?;
std::thread::sleep(Duration::from_millis(3 * lock_ttl_ms));
let pttl: i64 = redis::cmd("PTTL").arg(lock_key).query(&mut con)?;
if pttl != -1 {
    return Err("still renewing after release".into());
}
redis::cmd("DEL").arg(lock_key).query::<()>(&mut con)?;`,
};
