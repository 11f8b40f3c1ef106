// What each fixture's findings get: test/fixtures/fix/ (the shapes of real lock code: classes with
// injected clients, module functions, wrappers, try-locks, Spring templates, redigo, phpredis and
// Predis, Ruby instance variables) says it exactly per code on each marked line (`fix`, `suggest`,
// `none:<reason>`); test/fixtures/lint/ says which lines get a fix (`fix`) or only suggestions
// (`suggest`). Then every fix and every suggestion is applied: the result parses, the finding is
// gone, and nothing new is found.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { loadPack } from '../pack/pack';
import { analyzeText } from '../server/src/analysis';
import { parserFor } from '../server/src/analysis/parsers';
import { syntaxFor } from '../server/src/analysis/syntax';
import { checkText } from '../server/src/check';
import { AnalyzedDocument } from '../server/src/analysis';
import { planRemedies, type FixEnvironment } from '../server/src/fixes/plan';
import type { FindingRemedies, Remedy } from '../server/src/fixes/remedy';
import { applyEdits } from '../server/src/lockFix';
import { FIX_FIXTURES, fixtureFiles, LANGUAGE_OF, outcomesOf, type Outcome } from './fix-fixtures';

const pack = loadPack();
const work = mkdtempSync(join(tmpdir(), 'locksmith-fix-fixtures-'));
after(() => rmSync(work, { recursive: true, force: true }));

/** Go's helper is imported by the module path: the project's go.mod says it. */
const GO_MOD = { name: 'go.mod', path: 'go.mod', text: 'module example.com/app\n\ngo 1.26\n' };

function environment(language: string, name: string): FixEnvironment {
  return {
    pack,
    file: join(work, language, name),
    root: join(work, language),
    manifests: language === 'go' ? [GO_MOD] : [],
    readFile: () => undefined,
    canCreateFiles: true,
  };
}

async function remediesOf(languageId: string, text: string, env: FixEnvironment) {
  const analysis = new AnalyzedDocument(languageId);
  const checked = await checkText(analysis, text, pack).finally(() => analysis.dispose());
  return planRemedies(languageId, text, checked.findings, { ...env, helperUpdate: checked.helperUpdate });
}

const outcomeOf = (remedies: FindingRemedies): Outcome =>
  remedies.fix
    ? { kind: 'fix' }
    : remedies.suggestions.length
      ? { kind: 'suggest' }
      : { kind: 'none', reason: remedies.noFix?.code };

async function parsesCleanly(languageId: string, text: string): Promise<boolean> {
  const syntax = syntaxFor(languageId);
  if (!syntax) return true;
  const tree = (await parserFor(syntax.grammar)).parse(text)!;
  try {
    return !tree.rootNode.hasError;
  } finally {
    tree.delete();
  }
}

const lineOf = (text: string, offset: number) => text.slice(0, offset).split('\n').length;

describe('each marked line gets exactly the fix, suggestions or reason it names', () => {
  for (const fixture of fixtureFiles()) {
    test(fixture.name, async () => {
      const languageId = LANGUAGE_OF[fixture.extension];
      const remedies = await remediesOf(languageId, fixture.text, environment(fixture.language, fixture.file));
      const strict = fixture.folder === FIX_FIXTURES;
      const expected = outcomesOf(fixture.text);
      for (const each of remedies) {
        const line = lineOf(fixture.text, each.finding.start);
        const want = expected.get(`${line}:${each.finding.code}`);
        const got = outcomeOf(each);
        const where = `${fixture.name}:${line} ${each.finding.code} (${each.noFix?.why ?? ''})`;
        if (strict || want?.kind === 'fix' || got.kind === 'fix')
          assert.equal(got.kind, want?.kind ?? 'none', `${where}: ${JSON.stringify(got)}`);
        if (want?.kind === 'suggest') assert.equal(got.kind, 'suggest', where);
        if (want?.reason) assert.equal(got.reason, want.reason, where);
      }
    });
  }
});

describe('every fix and suggestion leaves code that parses, without the finding, and finds nothing new', () => {
  for (const fixture of fixtureFiles().filter((each) => /expect: [A-Z0-9, ]+ (fix|suggest)/.test(each.text))) {
    test(fixture.name, async () => {
      const languageId = LANGUAGE_OF[fixture.extension];
      const env = environment(fixture.language, fixture.file);
      const remedies = await remediesOf(languageId, fixture.text, env);
      const before = await analyzeText(languageId, fixture.text);
      const count = (findings: typeof before, code: string) => findings.filter((each) => each.code === code).length;
      const applied = new Set<string>();
      for (const { finding, fix, suggestions } of remedies) {
        for (const remedy of [...(fix ? [fix] : []), ...suggestions]) {
          if (applied.has(remedy.id)) continue;
          applied.add(remedy.id);
          const fixed = applyOwn(remedy, env.file!, fixture.text);
          assert.ok(await parsesCleanly(languageId, fixed), `${remedy.title} parses:\n${fixed}`);
          const after = await analyzeText(languageId, fixed);
          for (const each of after)
            assert.ok(
              count(after, each.code) <= count(before, each.code),
              `${remedy.title} introduced ${each.code}:\n${fixed}`,
            );
          assert.ok(
            count(after, finding.code) < count(before, finding.code),
            `${remedy.title} cleared ${finding.code}:\n${fixed}`,
          );
        }
      }
    });
  }
});

/** The remedy's edits of the file itself made to `text`. */
function applyOwn(remedy: Remedy, file: string, text: string): string {
  const edits = remedy.changes().flatMap((change) => ('edits' in change && change.path === file ? change.edits : []));
  return applyEdits(text, edits);
}
