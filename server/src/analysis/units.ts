// The units of a syntax tree: the pieces whose facts are read (and kept) one at a time. Members
// of classes, namespaces and modules, down to (not into) functions: an outermost function is one
// unit, a field or a top-level statement another.
import type { Node, Parser } from '@vscode/tree-sitter-wasm';
import type { Lookup } from './keys';
import type { Syntax } from './syntax';

export interface Unit {
  node: Node;
  /** The class the unit sits in, when the unit is a member. */
  className?: string;
  /** Whether names declared in the unit are per process (module level, static). */
  moduleLevel: boolean;
}

/** What reading a unit needs besides the unit: the document and what is known about it as a whole. */
export interface UnitContext extends Omit<Unit, 'node'> {
  syntax: Syntax;
  text: string;
  mentionsRedis: boolean;
  /** The code declares its own Redis-only commands (`setnx`): calls of them without a receiver count. */
  ownCommands?: boolean;
  /** The Lua parser, when the document has embedded scripts to check. */
  lua?: Parser;
  /** Names declared outside functions, for key globs (lockSites; unit facts kept across edits do without). */
  constants?: Lookup;
}

export function listUnits(syntax: Syntax, root: Node): Unit[] {
  const units: Unit[] = [];
  const visit = (container: Node, className: string | undefined, moduleLevel: boolean) => {
    for (const child of container.namedChildren) {
      if (!child || child.type.includes('comment')) continue;
      if (syntax.classes.has(child.type)) {
        visit(child, child.childForFieldName('name')?.text ?? className, false);
      } else if (syntax.containers.has(child.type) && !syntax.functions.has(child.type)) {
        visit(child, className, moduleLevel);
      } else {
        units.push({ node: child, className, moduleLevel });
      }
    }
  };
  visit(root, undefined, true);
  return units;
}
