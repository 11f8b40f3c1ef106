// Analysis of one document: a tree-sitter tree kept across edits (so a keystroke in a large
// file reparses only what changed), the Redis operations in it, and the rules' findings.
import type { Edit, Tree } from '@vscode/tree-sitter-wasm';
import { checkEmbeddedLua, checkLuaFile } from './lua';
import { findOps, MENTIONS_REDIS } from './ops';
import { parserFor } from './parsers';
import { checkLocks, type Finding } from './rules';
import { syntaxFor } from './syntax';

export type { Finding } from './rules';

export function isAnalyzable(languageId: string): boolean {
  return languageId === 'lua' || syntaxFor(languageId) !== undefined;
}

export class AnalyzedDocument {
  private tree: Tree | undefined;
  private text = '';

  constructor(readonly languageId: string) {}

  /** Tells the kept tree about an edit before the next `analyze` (offsets in UTF-16 units). */
  edit(edit: Edit): void {
    this.tree?.edit(edit);
  }

  /** The findings for `text`, reusing the tree from the previous call where it still fits. */
  async analyze(text: string): Promise<Finding[]> {
    this.text = text;
    if (this.languageId === 'lua') return checkLuaFile(text);
    const syntax = syntaxFor(this.languageId);
    if (!syntax) return [];
    const mentionsRedis = MENTIONS_REDIS.test(text);
    const mentionsLua = text.includes('redis.call') || text.includes('redis.pcall');
    if (!mentionsRedis && !mentionsLua) {
      this.dispose();
      return [];
    }
    const parser = await parserFor(syntax.grammar);
    const previous = this.tree;
    this.tree = parser.parse(this.text, previous) ?? undefined;
    previous?.delete();
    if (!this.tree) return [];
    const findings = [
      ...(mentionsRedis ? checkLocks(syntax, findOps(syntax, this.tree, text), text) : []),
      ...(mentionsLua ? checkEmbeddedLua(this.tree, text) : []),
    ];
    return findings.sort((a, b) => a.start - b.start || a.code.localeCompare(b.code));
  }

  /** The kept tree, for building quick fixes; valid until the next edit. */
  get syntaxTree(): Tree | undefined {
    return this.tree;
  }

  dispose(): void {
    this.tree?.delete();
    this.tree = undefined;
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
