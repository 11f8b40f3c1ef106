// Where a document takes locks: every NX acquire with its key expression turned into a glob and
// a regular expression over live keys (literal parts kept; interpolations, variables and calls
// as wildcards; constants of the same file followed). "Go to Code That Takes This Lock" matches
// a key from the Locks view against these.
import type { Node } from '@vscode/tree-sitter-wasm';
import { grammarOf } from '../languages';
import { extractUnit } from './facts';
import { globToRegExp, lastName, type Lookup } from './keys';
import { MENTIONS_REDIS, OWN_COMMANDS } from './ops';
import { parserFor } from './parsers';
import { syntaxFor, type Syntax } from './syntax';
import { listUnits } from './units';

export interface LockSite {
  /** UTF-16 offsets of the acquire: from the method name to the end of the call. */
  start: number;
  end: number;
  /** The key expression as written. */
  keyText: string;
  /** The keys it can produce: `lock:order:*`; `*` when nothing of it is literal. */
  keyGlob: string;
  /** The glob over whole keys. */
  keyPattern: RegExp;
}

const DECLARATIONS = [
  'variable_declarator',
  'assignment',
  'assignment_expression',
  'const_spec',
  'var_spec',
  'const_element',
  'property_element',
  'public_field_definition',
  'field_definition',
];

/** Names declared outside functions (module constants, class fields), by their last name. */
function constantsOf(syntax: Syntax, root: Node): Lookup {
  const values = new Map<string, Node>();
  for (const unit of listUnits(syntax, root)) {
    if (syntax.functions.has(unit.node.type)) {
      // A key helper (`getLockKey(id)`) with one return: the key is what it returns.
      const name = unit.node.childForFieldName('name')?.text;
      const returns = unit.node.descendantsOfType('return_statement');
      const returned = returns.length === 1 ? returns[0]?.namedChild(0) : undefined;
      if (name && returned)
        values.set(`${name}()`, returned.type === 'expression_list' ? returned.namedChild(0)! : returned);
      continue;
    }
    for (const node of unit.node.descendantsOfType(DECLARATIONS)) {
      if (!node) continue;
      const target = node.childForFieldName('name') ?? node.childForFieldName('left') ?? node.namedChild(0);
      let value =
        node.childForFieldName('value') ??
        node.childForFieldName('right') ??
        (node.namedChildCount > 1 ? node.namedChild(node.namedChildCount - 1) : null);
      if (value?.type === 'expression_list') value = value.namedChild(0);
      if (!target || !value || value.id === target.id) continue;
      const name = lastName(target.type === 'expression_list' ? (target.namedChild(0)?.text ?? '') : target.text);
      if (!values.has(name)) values.set(name, value);
    }
  }
  return (name) => values.get(name);
}

/** The acquire sites of a document, in document order. */
export async function lockSites(languageId: string, text: string): Promise<LockSite[]> {
  const grammar = grammarOf(languageId);
  const syntax = syntaxFor(languageId);
  if (!grammar || !syntax) return [];
  const tree = (await parserFor(grammar)).parse(text);
  if (!tree) return [];
  try {
    const constants = constantsOf(syntax, tree.rootNode);
    const ownCommands = OWN_COMMANDS.test(text);
    const mentionsRedis = ownCommands || MENTIONS_REDIS.test(text);
    const sites: LockSite[] = [];
    for (const unit of listUnits(syntax, tree.rootNode)) {
      const { ops } = extractUnit(unit.node, { syntax, text, mentionsRedis, ownCommands, constants, ...unit });
      for (const op of ops) {
        if (op.kind !== 'acquire' || op.keyStart === undefined || op.keyEnd === undefined) continue;
        const keyGlob = op.keyGlob ?? '*';
        sites.push({
          start: op.start,
          end: op.end,
          keyText: text.slice(op.keyStart, op.keyEnd),
          keyGlob,
          keyPattern: globToRegExp(keyGlob),
        });
      }
    }
    return sites;
  } finally {
    tree.delete();
  }
}
