// Analysis of one document. The syntax tree is kept across edits (so a keystroke reparses only
// what changed) until the owner drops it; the facts of each unit (an outermost function, a
// declaration, a top-level statement) are kept by the unit's text, so after an edit only the
// units whose text changed are read again, and a dropped tree costs a reparse but no re-reading.
import type { Edit, Node, Parser, Tree } from '@vscode/tree-sitter-wasm';
import { grammarOf, type Grammar } from '../languages';
import { extractUnit, type Declaration, type OpFact, type Poller, type UnitFacts } from './facts';
import { checkLuaUnits, readLuaUnit, type LuaFinding, type LuaUnit } from './lua';
import { MENTIONS_REDIS, MENTIONS_REDIS_ONLY_METHOD, OWN_COMMANDS } from './ops';
import { parserFor } from './parsers';
import { checkFacts, DocumentFacts, type Finding } from './rules';
import { syntaxFor } from './syntax';
import { UnitCache } from './unitCache';
import { listUnits } from './units';

export { findingSeverity, type Finding } from './rules';
export { lockSites, type LockSite } from './sites';

export function isAnalyzable(languageId: string): boolean {
  return grammarOf(languageId) !== undefined;
}

const mentionsLua = (text: string) => text.includes('redis.call') || text.includes('redis.pcall');

/**
 * The text test before any parsing: a text that fails it holds no finding, so it is never parsed
 * (the server drops its tree, the lint CLI skips the file).
 */
export function mentionsRedis(languageId: string, text: string): boolean {
  const grammar = grammarOf(languageId);
  if (!grammar) return false;
  if (grammar === 'lua') return text.includes('redis');
  // Lua in a string literal names `redis.call`, which MENTIONS_REDIS matches already.
  return MENTIONS_REDIS.test(text) || MENTIONS_REDIS_ONLY_METHOD.test(text) || OWN_COMMANDS.test(text);
}

/** The first node tree-sitter could not parse (an error or a missing token), searched along the error path. */
function firstSyntaxError(node: Node): Node | undefined {
  if (node.isError || node.isMissing) return node;
  for (const child of node.children) {
    if (child && (child.hasError || child.isMissing)) return firstSyntaxError(child) ?? child;
  }
  return undefined;
}

const shiftFix = (fix: OpFact['fix'], delta: number) =>
  fix && {
    ...fix,
    start: fix.start + delta,
    end: fix.end + delta,
    ...(fix.unusedToken && {
      unusedToken: { start: fix.unusedToken.start + delta, end: fix.unusedToken.end + delta },
    }),
  };

/** Unit facts are kept with offsets relative to the unit's start; `delta` moves them. */
function shift(facts: UnitFacts, delta: number): UnitFacts {
  if (delta === 0 || (!facts.ops.length && !facts.lua.length)) return facts;
  return {
    declarations: facts.declarations,
    pollers: facts.pollers,
    lua: facts.lua.map((finding) => ({
      ...finding,
      start: finding.start + delta,
      end: finding.end + delta,
      ...(finding.related && {
        related: finding.related.map((at) => ({ ...at, start: at.start + delta, end: at.end + delta })),
      }),
    })),
    ops: facts.ops.map((op) => ({
      ...op,
      start: op.start + delta,
      end: op.end + delta,
      callStart: op.callStart + delta,
      callEnd: op.callEnd + delta,
      keyStart: op.keyStart === undefined ? undefined : op.keyStart + delta,
      keyEnd: op.keyEnd === undefined ? undefined : op.keyEnd + delta,
      fn: op.fn < 0 ? op.fn : op.fn + delta,
      fix: shiftFix(op.fix, delta),
    })),
  };
}

/** A copy made of fresh strings: node texts are slices that would keep the whole old document alive. */
const detached = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

export class AnalyzedDocument {
  private tree: Tree | undefined;
  /** Unit facts, offsets relative to the unit. */
  private readonly units = new UnitCache<UnitFacts>();
  private readonly luaUnits = new UnitCache<LuaUnit>();
  private readonly grammar: Grammar | undefined;

  constructor(readonly languageId: string) {
    this.grammar = grammarOf(languageId);
  }

  /** Tells the kept tree about an edit before the next `analyze` (offsets in UTF-16 units). */
  edit(edit: Edit): void {
    this.tree?.edit(edit);
    this.units.recordEdit(edit);
    this.luaUnits.recordEdit(edit);
  }

  /** The findings for `text`, reusing the tree and the unit facts from the previous call where they still fit. */
  async analyze(text: string): Promise<Finding[]> {
    if (!this.grammar) return [];
    if (!mentionsRedis(this.languageId, text)) {
      this.dispose();
      return [];
    }
    if (this.grammar === 'lua') return this.analyzeLua(text);
    const syntax = syntaxFor(this.languageId)!;
    // Code that declares its own setnx/getset (an abstract base, a mixin) uses Redis without naming it.
    const ownCommands = OWN_COMMANDS.test(text);
    const namesRedis = ownCommands || MENTIONS_REDIS.test(text);
    const tree = await this.parse(this.grammar, text);
    if (!tree) return [];
    const lua = mentionsLua(text) ? await parserFor('lua') : undefined;
    const tag = `${namesRedis ? 'R' : '-'}${ownCommands ? 'O' : '-'}${lua ? 'L' : '-'}`;
    const ops: OpFact[] = [];
    const declarations: Declaration[] = [];
    const pollers: Poller[] = [];
    const luaFindings: LuaFinding[] = [];
    this.units.begin();
    for (const unit of listUnits(syntax, tree.rootNode)) {
      const { node } = unit;
      const read = () => {
        const read = extractUnit(node, { syntax, text, mentionsRedis: namesRedis, ownCommands, lua, ...unit });
        const says = read.ops.length || read.declarations.length || read.lua.length || read.pollers.length;
        return says ? detached(shift(read, -node.startIndex)) : undefined;
      };
      // A unit with a syntax error reads differently as the code around it changes: never kept.
      const context = `${tag}${unit.moduleLevel ? 'M' : '-'}${unit.className ?? ''}:${node.type}`;
      const facts = node.hasError ? read() : this.units.get(text, node.startIndex, node.endIndex, context, read);
      if (!facts) continue;
      const placed = shift(facts, node.startIndex);
      ops.push(...placed.ops);
      declarations.push(...placed.declarations);
      pollers.push(...placed.pollers);
      luaFindings.push(...placed.lua);
    }
    this.units.end();
    const findings = [...checkFacts(new DocumentFacts(ops, declarations, text, pollers)), ...luaFindings];
    return findings.sort((a, b) => a.start - b.start || a.code.localeCompare(b.code));
  }

  private async analyzeLua(text: string): Promise<Finding[]> {
    const tree = await this.parse('lua', text);
    if (!tree) return [];
    const units: { unit: LuaUnit; offset: number }[] = [];
    const aliases: string[] = [];
    this.luaUnits.begin();
    for (const node of tree.rootNode.namedChildren) {
      if (!node || node.type.includes('comment')) continue;
      // A statement reads differently once an alias of redis.call is declared before it.
      const unit = this.luaUnits.get(text, node.startIndex, node.endIndex, aliases.join(','), () =>
        detached(readLuaUnit(node, node.startIndex, aliases)),
      )!;
      aliases.push(...unit.aliases);
      units.push({ unit, offset: node.startIndex });
    }
    this.luaUnits.end();
    return checkLuaUnits(units);
  }

  private async parse(grammar: Grammar, text: string): Promise<Tree | undefined> {
    const parser: Parser = await parserFor(grammar);
    const previous = this.tree;
    this.tree = parser.parse(text, previous) ?? undefined;
    previous?.delete();
    return this.tree;
  }

  /** UTF-16 offset of the first syntax error in the text last analysed, while its tree is kept; undefined when it parsed cleanly (or was never parsed). */
  syntaxErrorAt(): number | undefined {
    const root = this.tree?.rootNode;
    return root?.hasError ? (firstSyntaxError(root) ?? root).startIndex : undefined;
  }

  /** Frees the syntax tree (the next `analyze` parses from scratch); unit facts stay, found again by their text. */
  dropTree(): void {
    this.tree?.delete();
    this.tree = undefined;
    this.units.forgetPositions();
    this.luaUnits.forgetPositions();
  }

  dispose(): void {
    this.dropTree();
    this.units.clear();
    this.luaUnits.clear();
  }
}

/** One-shot analysis (tests, benchmarks, the CLI): parse, check, free. */
export async function analyzeText(languageId: string, text: string): Promise<Finding[]> {
  const document = new AnalyzedDocument(languageId);
  try {
    return await document.analyze(text);
  } finally {
    document.dispose();
  }
}
