// package.json's contributions stay in step with the code they name: one source of truth each.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { DEFAULT_LOCK_PATTERNS } from '../extension/src/locks/discovery';
import { snippetContributions } from '../shared/snippets/static';

const manifest = JSON.parse(readFileSync('package.json', 'utf8'));
const contributes = manifest.contributes;
const declared: string[] = contributes.commands.map((command: { command: string }) => command.command);

test('every contributed command is registered by the extension, and every registered one contributed', () => {
  const source = readFileSync('extension/src/extension.ts', 'utf8');
  const registered = [...source.matchAll(/'(locksmith\.[\w.]+)': /g)].map((match) => match[1]);
  assert.deepEqual([...registered].sort(), [...declared].sort());
});

test('menus and welcome views name only contributed commands', () => {
  const used = Object.values(contributes.menus as Record<string, Array<{ command: string }>>).flat().map((entry) => entry.command);
  const welcome = contributes.viewsWelcome.flatMap((entry: { contents: string }) => [...entry.contents.matchAll(/\(command:([\w.]+)\)/g)].map((match) => match[1]));
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
  assert.match(ignore, /^!snippets\/\*\.code-snippets$/m);
  assert.ok(readFileSync(contributes.viewsContainers.activitybar[0].icon, 'utf8').startsWith('<svg'));
});
