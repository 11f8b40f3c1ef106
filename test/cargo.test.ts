// The Rust proofs build every program as the same Cargo package in one shared target folder
// (harness/toolchains.ts): each build must compile its own source, not reuse another's binary.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { promisify } from 'node:util';
import { cargo, writeCargoPackage } from '../harness/toolchains';

const run = promisify(execFile);
const work = mkdtempSync(join(tmpdir(), 'locksmith-cargo-'));
after(() => rmSync(work, { recursive: true, force: true }));

/** A package in `work/name` with `main` as its main.rs, written now. */
function writePackage(name: string, main: string): string {
  const dir = join(work, name);
  writeCargoPackage(dir, { 'main.rs': main });
  return dir;
}

// Both sources are written before either build, as when a program waits for the build lock: the
// second source is older than the first build.
test('a source written before the last build ran still builds into its own binary', async () => {
  const first = writePackage('first', 'fn main() { println!("first"); }\n');
  const second = writePackage('second', 'fn main() { println!("second"); }\n');
  const firstBinary = await cargo(first, 'build');
  const secondBinary = await cargo(second, 'build');
  assert.equal((await run(firstBinary)).stdout, 'first\n');
  assert.equal((await run(secondBinary)).stdout, 'second\n');
});

test('a source written before the last check ran is still checked', async () => {
  const sound = writePackage('sound', 'fn main() { println!("sound"); }\n');
  const broken = writePackage('broken', 'fn main() { let n: u32 = "not a number"; println!("{n}"); }\n');
  await cargo(sound, 'check');
  await assert.rejects(cargo(broken, 'check'), /mismatched types/);
});
