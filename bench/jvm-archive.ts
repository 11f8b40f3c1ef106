// What the class-data archive saves the JVM proofs (harness/toolchains.ts's javaCommand and
// withClassArchive): per Java client, the helper proof's counter mode, 20 processes x 10 rounds at
// once as test/helpers-exclusion-proof.test.ts runs it, (a) mapping the archive against (b) the same
// command without it, alternated in one run on one throwaway redis-server: the median wall time
// of a batch. Not a test.
//   BENCH_ROUNDS=3 npm run bench:jvm-archive     (batches per variant; default 3)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startRedis } from '../harness/redis';
import { loadPack } from '../pack/pack';
import { HELPER_PROOFS } from '../test/proofs/helpers/proofs';
import { start } from '../test/proofs/helpers/run';
import { median, table } from './stats';

const CLIENTS = ['jedis', 'lettuce', 'spring-data-redis', 'glide-java'];
const CONTENDERS = 20;
const BATCHES = Number(process.env.BENCH_ROUNDS ?? 3);

async function batch(command: string[], url: string): Promise<number> {
  const started = performance.now();
  await Promise.all(Array.from({ length: CONTENDERS }, () => start(command, url, {}, ['counter', '10']).done));
  return performance.now() - started;
}

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'locksmith-bench-jvm-'));
  const server = await startRedis();
  const rows: string[][] = [];
  const pack = loadPack();
  try {
    for (const client of CLIENTS) {
      const proof = HELPER_PROOFS.find((candidate) => candidate.client === client)!;
      const archived = await proof.prepare(join(work, client), pack);
      const plain = archived.filter((arg) => !arg.startsWith('-XX:SharedArchiveFile='));
      await batch(archived, server.url); // writes the archive, as a test file's first run does
      const times = { archived: [] as number[], plain: [] as number[] };
      for (let round = 0; round < BATCHES; round++) {
        times.plain.push(await batch(plain, server.url));
        times.archived.push(await batch(archived, server.url));
      }
      const [a, b] = [median(times.archived), median(times.plain)];
      rows.push([client, `${(a / 1000).toFixed(2)} s`, `${(b / 1000).toFixed(2)} s`, `${(a / b).toFixed(2)}x`]);
    }
  } finally {
    await server.stop();
    rmSync(work, { recursive: true, force: true });
  }
  process.stdout.write(
    `${CONTENDERS} processes x 10 rounds of the counter mode, median of ${BATCHES} batches per variant:\n\n` +
      `${table(['client', '(a) archive', '(b) none', '(a)/(b)'], rows)}\n`,
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
