// The self-contained inline snippets ("inline, no helper file"): a client's template for a
// pattern, with the pack's Lua in it, either as a VS Code snippet (tabstops on the key, the TTL
// and the guarded body) or as plain code with given values (tests, CLI, quick fixes). Free of
// `vscode` imports: the language server reuses it.
import type { Pack } from '../pack/pack';
import type { ClientInfo } from './clients';
import { PATTERNS, type PatternId } from './patterns';
import { expand, findClient, indentLike, loadTemplate, SnippetError, type Slot, type SlotValues } from './template';

export { findClient, SnippetError, type Slot, type SlotValues } from './template';

export function checkPattern(id: string): PatternId {
  if (!(PATTERNS as readonly string[]).includes(id)) {
    throw new SnippetError(`unknown pattern '${id}'; valid patterns: ${PATTERNS.join(', ')}`);
  }
  return id as PatternId;
}

// VS Code snippet syntax gives `$`, `}` and `\` a meaning: escape them in literal text.
export const escapeSnippet = (text: string) => text.replace(/[$}\\]/g, (char) => `\\${char}`);

/** The defaults a client shows in its slots. */
export function slotDefaults(client: ClientInfo): Record<Slot, string> {
  return {
    key: client.quote('lock:{order:42}'),
    fence: client.quote('fence:{order:42}'),
    ttl: '10000',
    body: client.defaultBody,
    client: client.callSiteVariable,
    import: '',
  };
}

/**
 * A snippet body with tabstops numbered in order of first appearance; `fixed` slots are filled
 * as plain text instead (the helper's import, the client variable).
 */
export function tabstops(
  client: ClientInfo,
  fixed: SlotValues = {},
  defaults: Record<Slot, string> = slotDefaults(client),
): (slot: Slot, offset: number, template: string) => string {
  const values = { ...defaults, ...fixed };
  const numbers = new Map<Slot, number>();
  return (slot, offset, template) => {
    if (fixed[slot] !== undefined || slot === 'client')
      return indentLike(template, offset, escapeSnippet(values[slot]));
    if (!numbers.has(slot)) numbers.set(slot, numbers.size + 1);
    return `\${${numbers.get(slot)}:${escapeSnippet(values[slot])}}`;
  };
}

/** The inline snippet as a VS Code snippet body. */
export function renderSnippet(clientId: string, patternId: string, pack: Pack): string {
  const client = findClient(clientId);
  const pattern = checkPattern(patternId);
  return expand(`${client.id}/${pattern}`, loadTemplate(client, pattern), {
    pack,
    slot: tabstops(client),
    literal: escapeSnippet,
  });
}

/** Renames a template's client variable to the user's expression (quick fixes). */
export function renameClient(variable: string | undefined, expression: string | undefined) {
  if (!variable || !expression) return undefined;
  const name = new RegExp(`(?<![\\w$])${variable.replace(/\$/g, '\\$')}(?![\\w])`, 'g');
  return (text: string) => text.replace(name, () => expression);
}

export interface RenderOptions {
  /** The user's client expression, replacing the template's `clientVariable` (quick fixes). */
  clientExpression?: string;
  /**
   * Put before every line but the first, so the code sits at the replaced statements' depth
   * (quick fixes). The embedded Lua and the line that closes its literal stay as they are: the
   * Lua must stay byte for byte the pack's, and PHP's nowdoc and C#'s raw string take their
   * closing line's indentation off every line.
   */
  indent?: string;
}

// Private-use characters around embedded Lua while the lines are indented; the pack has none.
const LUA_START = '\uE000';
const LUA_END = '\uE001';

/** Indents the lines of `marked` that do not start inside embedded Lua, and drops the marks. */
function indentOutsideLua(marked: string, indent: string): string {
  let inLua = false;
  // The line that closes the literal: the one the Lua ends on, or the next where it ends a line.
  let closing = false;
  return marked
    .split('\n')
    .map((line, index) => {
      const keep = index === 0 || inLua || closing || line.startsWith(LUA_START) || line === '';
      closing = line === LUA_END;
      for (const char of line) {
        if (char === LUA_START) inLua = true;
        if (char === LUA_END) inLua = false;
      }
      return keep ? line : `${indent}${line}`;
    })
    .join('\n')
    .replace(/[\uE000\uE001]/g, '');
}

/** The inline snippet as plain code: slots filled with `values` (or the defaults), multi-line values indented to fit. */
export function renderCode(
  clientId: string,
  patternId: string,
  pack: Pack,
  values: SlotValues = {},
  { clientExpression, indent = '' }: RenderOptions = {},
): string {
  const client = findClient(clientId);
  const pattern = checkPattern(patternId);
  const filled = { ...slotDefaults(client), ...values };
  const marked = expand(`${client.id}/${pattern}`, loadTemplate(client, pattern), {
    pack,
    slot: (slot, offset, template) => indentLike(template, offset, filled[slot]),
    literal: renameClient(client.clientVariable, clientExpression),
    script: (text) => `${LUA_START}${text}${LUA_END}`,
  });
  return indentOutsideLua(marked, indent);
}

/**
 * The import lines the inline snippet needs, as its header names them (`Imports: java.util.List,
 * ...`), in the language's syntax: Java `import java.util.List;`, Go `import "fmt"` (or `import
 * crand "crypto/rand"`). Empty for languages whose snippets carry their imports in the code.
 */
export function inlineImports(clientId: string, patternId: string): string[] {
  const client = findClient(clientId);
  const header = loadTemplate(client, checkPattern(patternId))
    .split('\n')
    .filter((line) => line.startsWith('//'))
    .map((line) => line.slice(2).trim())
    .join(' ');
  // The list ends at the first full stop that ends a sentence (package names have dots inside).
  const list = /\bImports: (.*?)\.(?:\s|$)/.exec(header)?.[1];
  if (!list) return [];
  const names = list.split(/,\s*/);
  switch (client.extension) {
    case 'java':
      return names.map((name) => `import ${name};`);
    case 'go':
      return names.map((name) => {
        const [alias, path] = name.includes(' ') ? name.split(/\s+/) : [undefined, `"${name}"`];
        return alias ? `import ${alias} ${path}` : `import ${path}`;
      });
    default:
      return [];
  }
}
