// The ACL rules docs/security.md documents, on a real redis-server: a browse-only user can use the
// Locks and Scripts views, and Release / Extend / Load fail with a clear "Not permitted (NOPERM
// ...)" message; a manage user can do everything; and each rule is needed (the rules are minimal).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';
import type Redis from 'ioredis';
import { SCRIPT_NAMES, loadPack } from '../pack/pack';
import { LockScripts } from '../pack/runtime';
import { describeActionError, describeConnectionError } from '../extension/src/connections/errors';
import { Session } from '../extension/src/connections/session';
import type { LockEntry } from '../extension/src/locks/classify';
import { DEFAULT_LOCK_PATTERNS } from '../extension/src/locks/discovery';
import { LockMonitor } from '../extension/src/locks/monitor';
import { useRedis } from './helpers';

// docs/security.md's "## ACLs" rules, as one line each; PASSWORD is replaced by the test's password.
const BROWSE_ACL =
  'ACL SETUSER locksmith-view reset on >PASSWORD %R~* +info +ping +select +client|setname +scan +type +pttl +getrange +strlen +get +hlen +hscan +llen +scard +zcard +zrange +xlen +pubsub|shardnumsub +script|exists';
const MANAGE_ACL =
  'ACL SETUSER locksmith-admin reset on >PASSWORD ~* +info +ping +select +client|setname +scan +type +pttl +getrange +strlen +get +hlen +hscan +llen +scard +zcard +zrange +xlen +pubsub|shardnumsub +script|exists +command|info +command|docs +evalsha +eval +script|load +del +pexpire +spublish &* +time +hget +hincrby +zrem +zremrangebyscore +zrevrangebyscore +pexpireat';

const PASSWORD = 'acl-test-secret';
// A database other than 0, so that the connection's SELECT is exercised too.
const DB = 3;
const TARGET = 'acl-test';
const pack = loadPack();

const fx = useRedis();
let admin: Redis; // the default user, on database DB

beforeEach(async () => {
  admin = fx.server.client({ db: DB });
  await fx.redis.flushall();
  await fx.redis.script('FLUSH');
  await seed();
  await fx.redis.acl('LOG', 'RESET');
});

afterEach(async () => {
  admin.disconnect();
  for (const user of await fx.redis.acl('USERS')) if (user !== 'default') await fx.redis.acl('DELUSER', user);
});

/** Runs a documented `ACL SETUSER` line (with `rules` in place of its rules when given); returns the user name. */
async function createUser(documented: string, rules?: string[]): Promise<string> {
  const [acl, setuser, user, ...documentedRules] = documented.split(' ');
  assert.deepEqual([acl, setuser], ['ACL', 'SETUSER']);
  const args = (rules ?? documentedRules).map((rule) => rule.replace(/^>PASSWORD$/, `>${PASSWORD}`));
  assert.equal(await fx.redis.acl('SETUSER', user, ...args), 'OK');
  return user;
}

const TOKEN = 'api-1:4711:9f86d081884c7d65';
const OTHER = 'api-2:815:4a44dc15364204a8';
const REDISSON = '8743c9c0-0795-4907-87fd-6c719a6b4586';

/** One key of each shape discovery reads, so that every read command is sent. */
async function seed(): Promise<void> {
  await admin.set('lock:{order:42}', TOKEN, 'PX', 30_000); // GETRANGE, PTTL, GET of its fence counter
  await admin.set('fence:{order:42}', '17');
  await admin.set('lock:release-me', TOKEN, 'PX', 30_000);
  await admin.set('lock.legacy', String(Math.floor(Date.now() / 1000) + 60)); // a timestamp lock
  await admin.hset('app:lock:stock', `${REDISSON}:57`, '2'); // HLEN, HSCAN, GET redisson_lock_token:{...}
  await admin.pexpire('app:lock:stock', 30_000);
  await admin.set('lock:blob', 'x'.repeat(2000)); // longer than the head read: STRLEN
  await admin.rpush('lock:queue', 'a', 'b'); // LLEN
  await admin.sadd('lock:members', 'a'); // SCARD
  await admin.zadd('lock:ranks', 1, 'a'); // ZCARD
  await admin.xadd('lock:events', '*', 'f', 'v'); // XLEN
}

const SEEDED: [string, LockEntry['kind']][] = [
  ['app:lock:stock', 'reentrant'],
  ['lock.legacy', 'timestamp'],
  ['lock:blob', 'other'],
  ['lock:events', 'other'],
  ['lock:members', 'other'],
  ['lock:queue', 'other'],
  ['lock:ranks', 'other'],
  ['lock:release-me', 'token'],
  ['lock:{order:42}', 'token'],
];

const kinds = (entries: readonly LockEntry[]) =>
  entries.map((entry): [string, string] => [entry.key.toString(), entry.kind]).sort();

interface AclDenial {
  reason: string;
  context: string;
  object: string;
  username: string;
}

async function aclLog(): Promise<AclDenial[]> {
  const entries = (await fx.redis.acl('LOG')) as unknown[][];
  return entries.map((flat) => {
    const fields: Record<string, unknown> = {};
    for (let i = 0; i + 1 < flat.length; i += 2) fields[String(flat[i])] = flat[i + 1];
    return {
      reason: String(fields.reason),
      context: String(fields.context),
      object: String(fields.object),
      username: String(fields.username),
    };
  });
}

/** A Session as the extension opens it, for `user`; disposed after `use`. */
async function withSession<T>(user: string, use: (session: Session) => Promise<T>): Promise<T> {
  const session = new Session(
    { id: user, name: TARGET, url: `redis://127.0.0.1:${fx.server.port}/${DB}`, username: user },
    PASSWORD,
  );
  try {
    await session.connect();
    return await use(session);
  } finally {
    session.dispose();
  }
}

/** What the Locks view and the Scripts view do on a refresh: a full read of the listing, and SCRIPT EXISTS. */
async function browse(session: Session) {
  const monitor = new LockMonitor(session, () => ({ patterns: DEFAULT_LOCK_PATTERNS, limit: 200, intervalMs: 2000 }));
  await monitor.refresh();
  const { locks, error } = monitor.snapshot();
  monitor.dispose();
  if (error) throw new Error(error);
  const page = { entries: locks };
  const loaded = await new LockScripts(session.redis, pack).loaded();
  return { page, loaded };
}

/** Load Lock Scripts as the command does it: SCRIPT LOAD of each script. */
async function loadScripts(session: Session): Promise<Record<string, string>> {
  const shas: Record<string, string> = {};
  for (const name of SCRIPT_NAMES) shas[name] = (await session.redis.script('LOAD', pack[name].source)) as string;
  return shas;
}

/** Everything a manage user does: browse, load, extend, release by EVALSHA and, after a SCRIPT FLUSH, by EVAL. */
async function manage(session: Session) {
  const browsed = await browse(session);
  const shas = await loadScripts(session);
  const scripts = new LockScripts(session.redis, pack);
  const extended = await scripts.extend('lock:{order:42}', TOKEN, 600_000);
  const released = await scripts.release('lock:{order:42}', TOKEN);
  await fx.redis.script('FLUSH');
  const releasedByEval = await scripts.release('lock:release-me', TOKEN);
  return { ...browsed, shas, extended, released, releasedByEval, ...(await releaseHolders(scripts)) };
}

/**
 * Release This Holder on each kind the pack holds, as the command does it, with another holder
 * left in each (so the scripts renew the key's lease): a reentrant owner gives back every hold.
 */
async function releaseHolders(scripts: LockScripts) {
  const holders = new LockScripts(admin, pack);
  await holders.reentrant.acquire('lock:reentrant', TOKEN, 30_000);
  await holders.reentrant.acquire('lock:reentrant', TOKEN, 30_000);
  for (const token of [TOKEN, OTHER]) {
    await holders.rw.read('lock:catalog', token, 30_000);
    await holders.semaphore.acquire('sem:exports', token, 30_000, 2);
  }
  let left = await scripts.reentrant.release('lock:reentrant', TOKEN);
  const reentrantHolds = [left];
  while (left > 1) reentrantHolds.push((left = await scripts.reentrant.release('lock:reentrant', TOKEN)));
  return {
    reentrantHolds,
    readerReleased: await scripts.rw.release('lock:catalog', TOKEN),
    permitReleased: await scripts.semaphore.release('sem:exports', TOKEN),
  };
}

/** The `ACL SETUSER` lines of the code block after `**<label>**` in docs/security.md. */
function documentedLines(label: string): string[] {
  const doc = readFileSync(join(__dirname, '..', 'docs', 'security.md'), 'utf8');
  const block = new RegExp(`\\*\\*${label}\\*\\*[^\\n]*\\n\\n\`\`\`\\n([\\s\\S]*?)\`\`\`\\n`).exec(doc);
  assert.ok(block, `docs/security.md has a code block after **${label}**`);
  return block[1].trimEnd().split('\n');
}

/** Lines that each add to the user the first one creates, as the one line they amount to. */
const joined = (lines: string[]) =>
  [lines[0], ...lines.slice(1).map((line) => line.replace(/^ACL SETUSER \S+ /, ''))].join(' ');

test('docs/security.md documents exactly these rules, in lines of at most 200 characters', () => {
  for (const [label, line] of [
    ['Browse only', BROWSE_ACL],
    ['Manage', MANAGE_ACL],
  ] as const) {
    const lines = documentedLines(label);
    assert.equal(joined(lines), line, label);
    for (const each of lines) assert.ok(each.length <= 200, each);
  }
});

test('the documented lines, run in order, make the same user as the one line', async () => {
  for (const [label, line] of [
    ['Browse only', BROWSE_ACL],
    ['Manage', MANAGE_ACL],
  ] as const) {
    const user = await createUser(line);
    const whole = await fx.redis.acl('GETUSER', user);
    await fx.redis.acl('DELUSER', user);
    for (const each of documentedLines(label)) await createUser(each);
    assert.deepEqual(await fx.redis.acl('GETUSER', user), whole, label);
  }
});

describe('browse-only user', () => {
  test('connects, and the Locks view and the Scripts view work without any command being denied', async () => {
    const user = await createUser(BROWSE_ACL);
    await withSession(user, async (session) => {
      assert.equal(session.state.kind, 'connected');
      assert.match((session.state as { version: string }).version, /^\d+\.\d+/, 'INFO server is readable');
      assert.equal((session.state as { role: string }).role, 'master', 'INFO replication is readable');

      const before = await browse(session);
      assert.deepEqual(kinds(before.page.entries), SEEDED);
      assert.deepEqual(
        Object.values(before.loaded),
        SCRIPT_NAMES.map(() => false),
        'SCRIPT EXISTS: none loaded yet',
      );
      await new LockScripts(fx.redis, pack).load();
      assert.deepEqual(
        Object.values((await browse(session)).loaded),
        SCRIPT_NAMES.map(() => true),
        'SCRIPT EXISTS: loaded by an admin',
      );

      const clients = (await fx.redis.client('LIST')) as string;
      assert.match(
        clients,
        new RegExp(`name=redis-locksmith .*db=${DB} .*user=${user}`),
        'CLIENT SETNAME and SELECT were allowed',
      );
    });
    assert.deepEqual(await aclLog(), [], 'the ACL log records no denied command');
  });

  test('Release, Extend and Load fail with "Not permitted (NOPERM ...)" and change nothing', async () => {
    const user = await createUser(BROWSE_ACL);
    await withSession(user, async (session) => {
      const scripts = new LockScripts(session.redis, pack);
      const released = await scripts.release('lock:{order:42}', TOKEN).catch((error: unknown) => error);
      assert.match(
        describeActionError('release', released, TARGET),
        /^Release failed: Not permitted on acl-test \(NOPERM this user has no permissions to run the 'evalsha' command\): the connection's ACL user lacks this right/,
      );
      const extended = await scripts.extend('lock:{order:42}', TOKEN, 600_000).catch((error: unknown) => error);
      assert.match(
        describeActionError('extend', extended, TARGET),
        /^Extend failed: Not permitted on acl-test \(NOPERM [^)]*'evalsha'/,
      );
      const loaded = await loadScripts(session).catch((error: unknown) => error);
      assert.match(
        describeActionError('load', loaded, TARGET),
        /^Could not load the lock scripts: Not permitted on acl-test \(NOPERM [^)]*'script\|load'/,
      );

      // Also when the scripts are cached: NOPERM is not NOSCRIPT, so there is no EVAL fallback to try.
      await new LockScripts(fx.redis, pack).load();
      assert.match(
        describeActionError(
          'release',
          await scripts.release('lock:{order:42}', TOKEN).catch((e: unknown) => e),
          TARGET,
        ),
        /NOPERM/,
      );
    });
    assert.equal(await admin.get('lock:{order:42}'), TOKEN, 'the lock is still held');
    const pttl = await admin.pttl('lock:{order:42}');
    assert.ok(pttl > 0 && pttl <= 30_000, `its TTL was not extended: ${pttl}`);
    const denied = (await aclLog()).map(({ username, reason, object }) => `${username} ${reason} ${object}`).sort();
    // COMMAND INFO / DOCS: Release asks which native commands the server has, then uses the scripts.
    assert.deepEqual(denied, [
      `${user} command command|docs`,
      `${user} command command|info`,
      `${user} command evalsha`,
      `${user} command script|load`,
    ]);
  });
});

describe('manage user', () => {
  test('browses, loads the scripts, extends and releases (by EVALSHA, and by EVAL after a flush)', async () => {
    const user = await createUser(MANAGE_ACL);
    const result = await withSession(user, manage);
    assert.deepEqual(kinds(result.page.entries), SEEDED);
    assert.deepEqual(result.shas, Object.fromEntries(SCRIPT_NAMES.map((name) => [name, pack[name].sha1])));
    assert.equal(result.extended, true);
    assert.equal(result.released, true);
    assert.equal(result.releasedByEval, true);
    assert.equal(await admin.exists('lock:{order:42}', 'lock:release-me'), 0);
    assert.deepEqual(result.reentrantHolds, [2, 1], 'both holds given back');
    assert.equal(await admin.exists('lock:reentrant'), 0);
    assert.equal(result.readerReleased, true);
    assert.deepEqual(await admin.zrange('lock:catalog', 0, -1), [`read:${OTHER}`], 'the other reader keeps its lease');
    assert.equal(result.permitReleased, true);
    assert.deepEqual(
      (await admin.zrange('sem:exports', 0, -1)).filter((member) => member.startsWith('hold:')),
      [`hold:${OTHER}`],
    );
    assert.deepEqual(await aclLog(), []);
  });

  test('a command a script may not run is reported as not permitted too (Redis 7.0 says ERR, not NOPERM)', async () => {
    const rules = MANAGE_ACL.split(' ')
      .slice(3)
      .filter((rule) => rule !== '+del');
    const user = await createUser(MANAGE_ACL, rules);
    const error = await withSession(user, (session) =>
      new LockScripts(session.redis, pack).release('lock:{order:42}', TOKEN),
    ).catch((e: unknown) => e);
    assert.match(
      describeActionError('release', error, TARGET),
      /^Release failed: Not permitted on acl-test \((NOPERM|ERR The user executing the script can't run)/,
    );
    assert.equal(await admin.get('lock:{order:42}'), TOKEN);
  });
});

describe('the documented rules are minimal', () => {
  const cases: [string, string, (session: Session) => Promise<unknown>][] = [
    ['browse', BROWSE_ACL, browse],
    ['manage', MANAGE_ACL, manage],
  ];
  for (const [name, documented, flow] of cases) {
    test(`${name}: without any one of its rules, something the extension does is denied`, async () => {
      const rules = documented.split(' ').slice(3);
      const droppable = rules.filter((rule) => rule.startsWith('+') || rule.includes('~'));
      assert.ok(droppable.length >= 17, droppable.join(' '));
      for (const dropped of droppable) {
        await fx.redis.flushall();
        await fx.redis.script('FLUSH');
        await seed();
        await fx.redis.acl('LOG', 'RESET');
        const user = await createUser(
          documented,
          rules.filter((rule) => rule !== dropped),
        );
        const error = await withSession(user, flow).then(
          () => undefined,
          (e: unknown) => e,
        );
        // Some denials fail the action; others (CLIENT SETNAME, INFO, SELECT) are absorbed but leave the view wrong.
        if (error)
          assert.match(describeConnectionError(error, TARGET), /^Not permitted on acl-test \(/, `without ${dropped}`);
        const denials = (await aclLog()).filter((denial) => denial.username === user);
        assert.ok(denials.length > 0, `without ${dropped}, nothing was denied: the rule is not needed`);
        if (dropped.startsWith('+')) {
          assert.ok(
            denials.some((denial) => denial.reason === 'command' && denial.object === dropped.slice(1)),
            `without ${dropped}: ${JSON.stringify(denials)}`,
          );
        } else {
          assert.ok(
            denials.some((denial) => denial.reason === 'key'),
            `without ${dropped}: ${JSON.stringify(denials)}`,
          );
        }
        await fx.redis.acl('DELUSER', user);
      }
    });
  }

  test('manage needs write access to keys: read-only %R~* is not enough', async () => {
    const rules = MANAGE_ACL.split(' ')
      .slice(3)
      .map((rule) => (rule === '~*' ? '%R~*' : rule));
    const user = await createUser(MANAGE_ACL, rules);
    const error = await withSession(user, manage).catch((e: unknown) => e);
    assert.match(describeActionError('extend', error, TARGET), /Not permitted on acl-test/);
    assert.ok((await aclLog()).some((denial) => denial.reason === 'key' && denial.object === 'lock:{order:42}'));
  });
});
