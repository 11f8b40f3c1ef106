// package.json's contributions stay in step with the code they name: one source of truth each.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import { DEFAULT_LOCK_PATTERNS } from '../extension/src/locks/discovery';
import { GRAMMARS } from '../server/src/analysis/parsers';
import { LINTED_LANGUAGES } from '../server/src/languages';
import { RULE_CODES, RULE_TITLES, SEVERITIES } from '../server/src/catalogue';
import { snippetContributions } from '../snippets/static';
import { LOCKS_BOUNDS, SETTINGS } from '../extension/src/settings';
import { readPackageJson, walkthroughImages } from './packageJson';

const { contributes } = readPackageJson();
const declared = contributes.commands.map((command) => command.command);

test('every contributed command is registered by the extension, and every registered one contributed', () => {
  const source = readFileSync('extension/src/extension.ts', 'utf8');
  const registered = [...source.matchAll(/'(locksmith\.[\w.]+)': /g)].map((match) => match[1]);
  assert.deepEqual([...registered].sort(), [...declared].sort());
});

test('menus and welcome views name only contributed commands', () => {
  const used = Object.values(contributes.menus)
    .flat()
    .map((entry) => entry.command);
  const welcome = contributes.viewsWelcome.flatMap((entry) =>
    [...entry.contents.matchAll(/\(command:([\w.]+)\)/g)].map((match) => match[1]),
  );
  for (const command of [...used, ...welcome]) assert.ok(declared.includes(command), `${command} is not contributed`);
});

test('the lock patterns setting defaults to the scanner defaults', () => {
  assert.deepEqual(contributes.configuration.properties['redisLocksmith.lockPatterns'].default, DEFAULT_LOCK_PATTERNS);
});

test('contributes.snippets lists the generated snippet files for every client language', () => {
  assert.deepEqual(contributes.snippets, snippetContributions());
});

test('the view container icon and the snippet files ship in the package', () => {
  const ignore = readFileSync('.vscodeignore', 'utf8');
  assert.match(ignore, /^!media\/\*\.svg$/m);
  assert.match(ignore, /^!extension\/out\/snippets\/\*\.code-snippets$/m);
  assert.ok(readFileSync(contributes.viewsContainers.activitybar[0].icon, 'utf8').startsWith('<svg'));
});

test('the lint settings list every rule with its title, every severity and every linted language', () => {
  const properties = contributes.configuration.properties;
  const rules = properties['redisLocksmith.lint.rules'].properties ?? {};
  assert.deepEqual(Object.keys(rules), [...RULE_CODES]);
  for (const code of RULE_CODES) {
    assert.equal(rules[code].description, RULE_TITLES[code]);
    assert.deepEqual(rules[code].enum, [...SEVERITIES]);
  }
  assert.deepEqual(properties['redisLocksmith.lint.languages'].items?.enum, [...LINTED_LANGUAGES]);
  assert.equal(properties['redisLocksmith.lint.enable'].default, true);
});

test('the language server ships with its grammars and the snippet templates its fixes render', () => {
  const ignore = readFileSync('.vscodeignore', 'utf8');
  assert.match(ignore, /^!server\/out\/wasm\/\*\.wasm$/m);
  assert.match(ignore, /^!snippets\/templates\/\*\*$/m);
  for (const grammar of GRAMMARS)
    assert.ok(existsSync(`server/out/wasm/tree-sitter-${grammar}.wasm`), `${grammar} grammar built`);
});

test('every setting has the scope and restriction of the scope table; none that reaches a server can be set by an untrusted workspace', () => {
  const properties = contributes.configuration.properties;
  assert.deepEqual(Object.keys(properties).sort(), Object.keys(SETTINGS).sort(), 'the table lists every setting');
  for (const [name, policy] of Object.entries(SETTINGS)) {
    const schema = properties[name];
    assert.equal(schema.scope, policy.scope, `${name}: scope`);
    assert.equal(schema.restricted ?? false, policy.restricted ?? false, `${name}: restricted`);
    if (policy.reachesServers) {
      assert.ok(
        ['application', 'machine'].includes(policy.scope) || policy.restricted,
        `${name} changes what is sent to a server: application or machine scoped, or restricted`,
      );
    }
  }
  const restricted = Object.keys(SETTINGS).filter((name) => SETTINGS[name].restricted);
  assert.deepEqual(readPackageJson().capabilities.untrustedWorkspaces.restrictedConfigurations, restricted);
});

test('the bounds the view applies are the ones the manifest declares', () => {
  const properties = contributes.configuration.properties;
  assert.equal(properties['redisLocksmith.refreshInterval'].minimum, LOCKS_BOUNDS.minIntervalMs / 1000);
  assert.equal(properties['redisLocksmith.maxLocksPerConnection'].minimum, LOCKS_BOUNDS.minLimit);
  assert.equal(properties['redisLocksmith.maxLocksPerConnection'].maximum, LOCKS_BOUNDS.maxLimit);
  assert.equal(properties['redisLocksmith.lockPatterns'].maxItems, LOCKS_BOUNDS.maxPatterns);
});

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

test('every image the walkthrough shows is a PNG in the repository (npm run media retakes them)', () => {
  const walkthrough = walkthroughImages(readPackageJson());
  assert.equal(walkthrough.length, contributes.walkthroughs.flatMap((walkthrough) => walkthrough.steps).length);
  for (const path of walkthrough) {
    assert.ok(!/^[a-z]+:/i.test(path), `${path}: a file of the repository, not a URL`);
    assert.ok(existsSync(path), `${path} exists`);
    assert.deepEqual(readFileSync(path).subarray(0, 8), PNG_SIGNATURE, `${path} is a PNG`);
  }
});
