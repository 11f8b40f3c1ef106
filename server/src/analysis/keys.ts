// What a key expression stands for, beyond its text: the glob of keys it can produce (literal
// parts kept, every hole a `*`), and the helper functions that compute it. Two operations touch
// the same lock when their keys share a text, a helper or a glob; "Go to Code That Takes This
// Lock" matches live keys against the same globs.
import type { Node } from '@vscode/tree-sitter-wasm';
import { unwrap } from './syntax';

/** Looks a name up: its value in the same function or file, if it was found there. */
export type Lookup = (name: string) => Node | undefined;

const HOLE = '*';
const FORMAT_CALL = /^(?:fmt\.Sprintf|String\.format|sprintf|format|string\.Format|str\.format|\$"|Format)$/;

/** Literal text of a string node with every interpolation turned into a hole. */
function stringGlob(node: Node): string {
  const raw = node.text;
  const open = /^([a-zA-Z]*@?\$?@?)("""|'''|"|'|`)/.exec(raw);
  if (!open) return HOLE;
  const body = raw.slice(open[0].length, raw.length - (raw.endsWith(open[2]) ? open[2].length : 0));
  const interpolating =
    open[2] === '`' || /[fF$]/.test(open[1]) || (open[2] === '"' && /#\{|\$\{|\$\w|\{\w/.test(body));
  let glob = body;
  if (interpolating) glob = glob.replace(/\$\{[^}]*\}|#\{[^}]*\}|\{[^}]*\}|\$[\w>-]+(?:\[[^\]]*\])?/g, HOLE);
  return glob.replace(/\\(.)/g, '$1');
}

const formatHoles = (format: string) => format.replace(/%[-+ #0]*\d*(?:\.\d+)?[a-zA-Z]|\{\d*\}|\{\w*\}/g, HOLE);

/**
 * The glob of the keys `node` can evaluate to: literals as written, interpolations, variables
 * and calls as `*`, concatenations joined. Constants are followed through `lookup`.
 */
export function keyGlob(node: Node, lookup: Lookup, depth = 0): string {
  const value = unwrap(node);
  const type = value.type;
  if (depth > 4) return HOLE;
  if (
    /^(identifier|variable_name|constant|field_access|member_expression|attribute|selector_expression|scoped_identifier|member_access_expression|instance_variable|class_constant_access_expression|name)$/.test(
      type,
    )
  ) {
    const found = lookup(lastName(value.text));
    return found && found.id !== value.id ? keyGlob(found, lookup, depth + 1) : HOLE;
  }
  if (/string|template|heredoc/.test(type) && !/concatenat/.test(type)) return stringGlob(value);
  if (/^(binary_expression|binary|concatenated_string|binary_operator)$/.test(type)) {
    const operator = value.childForFieldName('operator')?.text ?? value.children.find((c) => c && !c.isNamed)?.text;
    const parts = value.namedChildren.filter((c): c is Node => !!c && !c.type.includes('comment'));
    if (operator === '%' && parts.length === 2) return formatHoles(keyGlob(parts[0], lookup, depth + 1));
    if (operator && !['+', '.', '..', '<<'].includes(operator) && type !== 'concatenated_string') return HOLE;
    return parts.map((part) => keyGlob(part, lookup, depth + 1)).join('');
  }
  if (/call|invocation/.test(type)) {
    const callee = value.childForFieldName('function') ?? value.childForFieldName('name') ?? value.namedChild(0);
    const args = (value.childForFieldName('arguments') ?? value.namedChild(value.namedChildCount - 1))?.namedChildren;
    const calleeText = callee?.text ?? '';
    // "lock:{}".format(x), fmt.Sprintf("lock:%s", x), String.format(...)
    const member = /\.format$/.exec(calleeText);
    if (member && callee) {
      const receiver = callee.namedChild(0);
      if (receiver) return formatHoles(keyGlob(receiver, lookup, depth + 1));
    }
    if (FORMAT_CALL.test(calleeText.replace(/^.*\b(fmt\.Sprintf|String\.format|string\.Format)$/, '$1')) && args?.[0])
      return formatHoles(keyGlob(args[0], lookup, depth + 1));
    // A helper of the same file that builds the key.
    const helper = lookup(`${lastName(calleeText)}()`);
    return helper ? keyGlob(helper, lookup, depth + 1) : HOLE;
  }
  return HOLE;
}

/** `self.LOCK_KEY` -> `LOCK_KEY`, `$this->key` -> `key`, `@key` -> `key`. */
export function lastName(text: string): string {
  return text.replace(/^.*(?:\.|->|::)/, '').replace(/^[@$]+/, '');
}

/** Collapses runs of holes: `lock:**` and `lock:*` are the same glob. */
export const normalizeGlob = (glob: string): string => glob.replace(/\*+/g, HOLE);

/** The glob as a regular expression over whole keys. */
export function globToRegExp(glob: string): RegExp {
  const source = normalizeGlob(glob)
    .split(HOLE)
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${source}$`);
}

/** Helpers named in a key expression that compute keys (`self.get_locking_key(name)`, `lockKey(id)`). */
export function keyHelpers(text: string): string[] {
  const names: string[] = [];
  for (const match of text.matchAll(/([A-Za-z_$][\w$]*)\s*\(/g)) {
    if (/key|lock|name|mutex/i.test(match[1]) && !/^(?:format|sprintf|join|encode|str|string)$/i.test(match[1]))
      names.push(match[1].toLowerCase());
  }
  return names;
}

/** Calls that format or convert a key rather than compute it from a resource. */
const NOT_A_HELPER =
  /^(?:format|sprintf|join|encode|str|string|valueof|tostring|to_s|concat|replace|lower|upper|tolowercase|touppercase|trim|strip|dumps|stringify)$/i;

/**
 * The helper that builds a key, when the key is its call (`slot_for(args)`, `this.markerOf(job)`):
 * whatever the helper is named, two keys built by it are the same lock's, even from other arguments.
 */
export function keyBuilder(node: Node): string | undefined {
  const value = unwrap(node);
  if (!/call|invocation/.test(value.type)) return undefined;
  const callee =
    value.childForFieldName('function') ?? value.childForFieldName('name') ?? value.childForFieldName('method');
  const name = callee && lastName(callee.text.replace(/\(.*$/s, ''));
  return name && /^[A-Za-z_$][\w$]*$/.test(name) && !NOT_A_HELPER.test(name) ? name.toLowerCase() : undefined;
}
