import { bigFile } from './bench/lint-corpus';
import { analyzeText } from './server/src/analysis';
import { parserFor } from './server/src/analysis/parsers';
import { listUnits } from './server/src/analysis/units';
import { syntaxFor } from './server/src/analysis/syntax';
import { extractUnit } from './server/src/analysis/facts';
(async () => {
  for (const lang of ['typescript', 'python', 'java'] as const) {
    const f = bigFile(lang, 10000);
    const syntax = syntaxFor(lang)!;
    const p = await parserFor(syntax.grammar);
    for (let r = 0; r < 3; r++) await analyzeText(lang, f.text);
    let t0 = performance.now();
    const tree = p.parse(f.text)!;
    const parse = performance.now() - t0;
    t0 = performance.now();
    const units = listUnits(syntax, tree.rootNode);
    const list = performance.now() - t0;
    t0 = performance.now();
    let n = 0;
    for (const u of units) { const x = extractUnit(u.node, { syntax, text: f.text, mentionsRedis: true, ...u }); n += x.ops.length; }
    const ex = performance.now() - t0;
    t0 = performance.now();
    await analyzeText(lang, f.text);
    const all = performance.now() - t0;
    console.log(lang, { parse: parse.toFixed(1), list: list.toFixed(1), units: units.length, extract: ex.toFixed(1), ops: n, analyze: all.toFixed(1) });
  }
})();
