// The "Get started" walkthrough as package.json contributes it: each step completes on what the
// user did (a context key the extension sets), never on merely opening a view or running a
// command; and its text renders: VS Code's walkthrough formats ``code`` with doubled backticks,
// so a single one would show as a raw backtick.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { WALKTHROUGH_STEPS } from '../extension/src/walkthroughSteps';
import { readPackageJson } from './packageJson';

interface Step {
  id: string;
  title: string;
  description: string;
  completionEvents: string[];
}

const steps = (): Step[] =>
  (readPackageJson().contributes.walkthroughs as unknown as Array<{ steps: Step[] }>).flatMap(
    (walkthrough) => walkthrough.steps,
  );

test('each step completes on a context key the extension sets on success, and every such key is used', () => {
  const keys = new Set<string>(Object.values(WALKTHROUGH_STEPS));
  const used = steps().flatMap((step) => {
    assert.ok(step.completionEvents.length, `${step.id} completes on something`);
    for (const event of step.completionEvents) {
      assert.match(event, /^onContext:/, `${step.id} completes on ${event}: opening is not doing`);
      assert.ok(keys.has(event.slice('onContext:'.length)), `${step.id}: ${event} is not a key the extension sets`);
    }
    return step.completionEvents.map((event) => event.slice('onContext:'.length));
  });
  assert.deepEqual(new Set(used), keys);
});

test('"See the locks" completes when the Locks view has listed a connection, not when it opens', () => {
  const seeLocks = steps().find((step) => step.id === 'seeLocks');
  assert.deepEqual(seeLocks?.completionEvents, [`onContext:${WALKTHROUGH_STEPS.locksListed}`]);
});

test('no raw backticks: code in a step is ``doubled``, as the walkthrough renders it', () => {
  for (const step of steps()) {
    for (const [run] of `${step.title}\n${step.description}`.matchAll(/`+/g)) {
      assert.equal(run.length, 2, `${step.id}: a run of ${run.length} backtick(s) shows raw: ${step.description}`);
    }
  }
});
