// What only the Spring Data Redis helper has to prove, beyond test/helpers-proof.test.ts: a
// StringRedisTemplate can be in a pipeline or a transaction (executePipelined, MULTI in a
// SessionCallback), where a script's reply comes only after the callback. The helper refuses
// there, with a message naming the cause, before anything is sent: a lock taken then would be held
// by a token nobody has. Run by its proof program against Redis 7.0 and Valkey 9.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { loadPack } from '../pack/pack';
import { commandCalls, setWithLease, useRedis } from './helpers';
import { SERVER_KINDS, type ServerKind } from '../harness/redis';
import { HELPER_PROOFS, prepareOnce } from './proofs/helpers/proofs';
import { start } from './proofs/helpers/run';

const pack = loadPack();
const work = mkdtempSync(join(tmpdir(), 'locksmith-spring-proof-'));
after(() => rmSync(work, { recursive: true, force: true }));

const spring = HELPER_PROOFS.find((proof) => proof.client === 'spring-data-redis')!;
const REFUSAL =
  'refused: Locksmith cannot run in a pipeline or transaction (MULTI) of its template: a lock needs its reply at once';

for (const server of SERVER_KINDS) describe(server, () => proofs(server));

function proofs(server: ServerKind): void {
  const fx = useRedis({ server });
  let command: string[];

  before(async () => {
    command = await prepareOnce(spring, work, pack);
  });

  test(`in the template's pipeline and MULTI, tryAcquire, releaseLock and extendLock are refused, nothing sent (${server})`, async () => {
    await fx.redis.flushall();
    const leaseUntouched = await setWithLease(fx.redis, 'proof:lock', 'holder', 60_000);
    await fx.redis.config('RESETSTAT');
    const output = await start(command, fx.server.url, {}, ['deferred']).done;
    const refusals = ['pipeline', 'multi'].flatMap((where) =>
      ['tryAcquire', 'releaseLock', 'extendLock'].map((call) => `${where} ${call} ${REFUSAL}`),
    );
    assert.deepEqual(
      output.split('\n').filter((line) => line.includes('refused')),
      refusals,
    );
    assert.equal(
      (await commandCalls(fx.redis, 'evalsha')) + (await commandCalls(fx.redis, 'eval')),
      0,
      'no script sent',
    );
    assert.equal(await fx.redis.get('proof:lock'), 'holder', "the holder's lock untouched");
    await leaseUntouched('its lease not changed');
  });
}
