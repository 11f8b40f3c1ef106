import { bigFile } from './bench/lint-corpus';
import { parserFor } from './server/src/analysis/parsers';
import { readLuaUnit } from './server/src/analysis/lua';
(async () => {
  const f = bigFile('lua', 10000);
  const p = await parserFor('lua');
  const t = p.parse(f.text)!;
  const units = t.rootNode.namedChildren.filter(Boolean) as any[];
  for (let r = 0; r < 3; r++) {
    let t0 = performance.now(); let n = 0;
    for (const u of units) n += u.descendantsOfType(['assignment_statement','for_generic_clause','for_numeric_clause','parameters','function_call']).length;
    const d = performance.now() - t0;
    t0 = performance.now();
    for (const u of units) readLuaUnit(u, u.startIndex);
    const rd = performance.now() - t0;
    t0 = performance.now();
    for (const u of units) JSON.parse(JSON.stringify(readLuaUnit(u, u.startIndex)));
    const rj = performance.now() - t0;
    console.log({ units: units.length, nodes: n, descendants: d.toFixed(1), read: rd.toFixed(1), readJson: rj.toFixed(1) });
  }
})();
