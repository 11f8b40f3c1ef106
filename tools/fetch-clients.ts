// Fetches and builds, once per machine, the client libraries the proofs run against (pinned in
// test/proofs/: go.mod, pom.xml, Cargo.lock, requirements files, GLIDE's package.json), Valkey 9,
// code-server and pre-commit, into ~/.cache/redis-locksmith/. The tests do the same on first use;
// .ci/run calls this first so a registry failure stops CI at once with its cause (not half-way
// through test files running side by side, all waiting on one build), and prints each step's time:
//   node --import tsx tools/fetch-clients.ts
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureCodeServer } from '../harness/codeServer';
import { ensurePreCommit } from '../harness/preCommit';
import {
  cargo,
  glideJavaClasspath,
  go,
  javaClasspath,
  npmPackages,
  PINNED,
  pypiPython,
  writeCargoPackage,
} from '../harness/toolchains';
import { ensureValkey } from '../harness/valkey';
import { inLanes } from './lanes';

const scratch = mkdtempSync(join(tmpdir(), 'locksmith-fetch-clients-'));

/** The steps, the longest first (a cold run's times): two at a time, a build beside a download. */
const STEPS: Array<[string, () => Promise<unknown>]> = [
  ['code-server, for the extension-host suite', () => ensureCodeServer()],
  // Downloads the modules and compiles them (GLIDE's cgo core included) into the build cache.
  ['Go modules (go-redis, redigo, valkey-glide), built', () => go(['build', './...'], join(PINNED, 'go'))],
  ["Valkey 9, built from Debian's source", () => ensureValkey()],
  [
    'Cargo (redis-rs, rand), built and checked',
    async () => {
      writeCargoPackage(scratch, { 'main.rs': 'fn main() {}\n' });
      await cargo(scratch, 'build');
      await cargo(scratch, 'check');
    },
  ],
  // One after the other: both write the one local repository.
  ['Maven (Jedis, Lettuce, Spring Data Redis; Valkey GLIDE for Java)', () => javaClasspath().then(glideJavaClasspath)],
  ['PyPI (redis-py) into a virtual environment', () => pypiPython()],
  ['PyPI (valkey-glide) into a virtual environment', () => pypiPython('glide/requirements.txt')],
  ['npm (@valkey/valkey-glide)', () => npmPackages('glide')],
  ['PyPI (pre-commit) into a virtual environment', () => ensurePreCommit()],
];
/** Each step downloads into a cache folder of its own under its own lock (harness/cacheLock.ts). */
const CONCURRENCY = 2;

async function main(): Promise<void> {
  const started = Date.now();
  try {
    await inLanes(STEPS, CONCURRENCY, async ([name, step]) => {
      const stepStarted = Date.now();
      await step();
      process.stdout.write(`${name}: ${((Date.now() - stepStarted) / 1000).toFixed(1)} s\n`);
    });
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  process.stdout.write(`client libraries and tools ready in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
