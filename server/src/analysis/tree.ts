// Small questions about syntax nodes that the rules, the fix planner and the unit extractor all
// ask: containment, a name mentioned in a node, the variable a call's result is bound to, and
// the chain of ancestors of a node (read with a cursor from a known root, since every
// `node.parent` in tree-sitter searches down from the tree's root again).
import type { Node } from '@vscode/tree-sitter-wasm';
import type { Syntax } from './syntax';

export const within = (inner: Node, outer: Node): boolean =>
  inner.startIndex >= outer.startIndex && inner.endIndex <= outer.endIndex;

/** A regular expression that finds `name` as a whole identifier (`$`-prefixed names included). */
export function identifierPattern(name: string): RegExp {
  return new RegExp(`(^|[^\\w$@])${name.replace(/\$/g, '\\$')}(?![\\w$])`);
}

/** Whether `node`'s text uses the identifier `name`. */
export const mentions = (node: Node, name: string | undefined): boolean =>
  !!name && identifierPattern(name).test(node.text);

/**
 * The ancestors of `target` from `root` down to `target` itself (both included), walked with a
 * cursor; empty when `target` is not inside `root`.
 */
export function pathTo(root: Node, target: Node): Node[] {
  if (!within(target, root)) return [];
  const path: Node[] = [root];
  const cursor = root.walk();
  try {
    while (path[path.length - 1].id !== target.id) {
      // (gotoFirstChildForIndex does not seek in this runtime: step through the children.)
      if (!cursor.gotoFirstChild()) return [];
      while (cursor.startIndex > target.startIndex || cursor.endIndex < target.endIndex) {
        if (!cursor.gotoNextSibling()) return [];
      }
      path.push(cursor.currentNode);
    }
    return path;
  } finally {
    cursor.delete();
  }
}

/** The variable a call's result is stored in (`v = redis.get(k)`, `v, err := ...`), if any. */
export function boundName(syntax: Syntax, path: Node[]): string | undefined {
  for (let i = path.length - 2; i >= 0 && !syntax.blocks.has(path[i].type); i--) {
    const node = path[i];
    if (/declarator|assignment|short_var_declaration|var_spec|local_variable_declaration/.test(node.type)) {
      const target = node.childForFieldName('name') ?? node.childForFieldName('left') ?? node.namedChild(0);
      if (!target) return undefined;
      const identifier = /identifier|variable_name/.test(target.type)
        ? target
        : target.descendantsOfType(['identifier', 'variable_name'])[0];
      return identifier?.text;
    }
    if (i > 0 && syntax.blocks.has(path[i - 1].type)) return undefined;
  }
  return undefined;
}

/** The statement (a child of a block) on `path` that holds its last node. */
export function statementOn(syntax: Syntax, path: Node[]): Node | undefined {
  for (let i = path.length - 1; i > 0; i--) if (syntax.blocks.has(path[i - 1].type)) return path[i];
  return undefined;
}

/** The class of the function at `path[fnIndex]`: an enclosing class node inside the unit, or the Go receiver type. */
export function classOf(syntax: Syntax, path: Node[], fnIndex: number): string | undefined {
  if (fnIndex >= 0) {
    const goClass = syntax.classOf?.(path[fnIndex]);
    if (goClass) return goClass;
  }
  for (let i = path.length - 1; i >= 0; i--) {
    if (syntax.classes.has(path[i].type))
      return path[i].childForFieldName('name')?.text ?? `class@${path[i].startIndex}`;
  }
  return undefined;
}
