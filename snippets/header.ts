// The machine-readable header of a generated lock helper: the client it is for, the options it
// was rendered with, the pack version, each embedded script's SHA1 and a digest of the file, so
// an outdated copy (LOCK008) or a hand-edited one is recognised without running anything.
import { createHash } from 'node:crypto';
import { SCRIPT_NAMES, type Pack, type ScriptName } from '../pack/pack';

const sha1 = (text: string) => createHash('sha1').update(text).digest('hex');

/**
 * The pack's version: derived from its scripts' names and SHA1s, so it changes exactly when a
 * script does and can never be forgotten in a release. 12 hex digits, like a short commit id.
 */
export function packVersion(pack: Pack): string {
  const lines = [...SCRIPT_NAMES].sort().map((name) => `${name} ${pack[name].sha1}\n`);
  return sha1(lines.join('')).slice(0, 12);
}

/** A tag line: `<comment> @locksmith-<tag> <value>`. */
const TAG = /^[ \t]*(?:\/\/|#)[ \t]*@locksmith-([a-z]+)(?:[ \t]+(.*?))?[ \t]*$/;
/** Headers sit at the top; a tag further down is code or prose that mentions one. */
const HEADER_SEARCH_LINES = 40;

export interface HelperHeader {
  client: string;
  /** The render options recorded in the header (`flavor=ts`, `package=com.example`). */
  options: Record<string, string>;
  packVersion: string;
  /** Embedded script name to its SHA1, in header order. */
  scripts: Map<string, string>;
  digest: string;
  /** 0-based lines of the first and the last tag line: where a diagnostic about the header goes. */
  firstLine: number;
  lastLine: number;
}

/** The text a digest covers: the file with its digest line left out, line endings as LF. */
function digestedText(text: string): string {
  return text
    .replace(/\r\n/g, '\n')
    .split('\n')
    .filter((line) => TAG.exec(line)?.[1] !== 'digest')
    .join('\n');
}

/** The header's lines for a module whose text (with the digest line left out) is `text`. */
export function headerLines(
  client: string,
  options: Record<string, string>,
  pack: Pack,
  scripts: readonly ScriptName[],
): string[] {
  const recorded = Object.entries(options).map(([name, value]) => ` ${name}=${value}`);
  return [
    `@locksmith-helper ${client}${recorded.join('')}`,
    `@locksmith-pack ${packVersion(pack)}`,
    ...scripts.map((name) => `@locksmith-script ${name} ${pack[name].sha1}`),
    '@locksmith-digest ',
  ];
}

/** Fills the digest line of a rendered module (written with an empty value) with its digest. */
export function stampDigest(text: string): string {
  const digest = sha1(digestedText(text));
  return text.replace(/^([ \t]*(?:\/\/|#)[ \t]*@locksmith-digest)[ \t]*$/m, `$1 ${digest}`);
}

/** The header of a helper module, or undefined when the text is not one (no `@locksmith-helper` line). */
export function readHelperHeader(text: string): HelperHeader | undefined {
  const lines = text.replace(/\r\n/g, '\n').split('\n').slice(0, HEADER_SEARCH_LINES);
  let header: HelperHeader | undefined;
  lines.forEach((line, index) => {
    const tag = TAG.exec(line);
    if (!tag) return;
    const [, name, value = ''] = tag;
    if (name === 'helper') {
      const [client = '', ...options] = value.split(/\s+/);
      header = {
        client,
        options: Object.fromEntries(options.map((option) => option.split('=', 2) as [string, string])),
        packVersion: '',
        scripts: new Map(),
        digest: '',
        firstLine: index,
        lastLine: index,
      };
      return;
    }
    if (!header) return;
    header.lastLine = index;
    if (name === 'pack') header.packVersion = value;
    if (name === 'digest') header.digest = value;
    if (name === 'script') {
      const [script = '', hash = ''] = value.split(/\s+/);
      header.scripts.set(script, hash);
    }
  });
  return header;
}

export interface HelperCheck {
  header: HelperHeader;
  /** The pack version or a script differs from the installed pack's, or the generator writes it differently now. */
  outdated: boolean;
  /** The file no longer matches its own digest: someone edited it, and an update would undo that. */
  edited: boolean;
  /** One sentence per difference, for the diagnostic. */
  reasons: string[];
}

/**
 * Compares a helper file with the installed pack (what LOCK008 calls). `render` re-renders the
 * helper from its header (client and options) with the installed pack, so a change of the
 * generator itself also counts as outdated. Undefined when the text is no helper.
 */
export function checkHelper(
  text: string,
  pack: Pack,
  render: (header: HelperHeader) => string,
): HelperCheck | undefined {
  const header = readHelperHeader(text);
  if (!header) return undefined;
  const reasons: string[] = [];
  const version = packVersion(pack);
  if (header.packVersion !== version) {
    reasons.push(`written for pack ${header.packVersion || '(none)'}; the installed pack is ${version}`);
  }
  for (const [name, hash] of header.scripts) {
    const script = (SCRIPT_NAMES as readonly string[]).includes(name) ? pack[name as ScriptName] : undefined;
    if (!script) reasons.push(`embeds ${name}.lua, which the installed pack no longer has`);
    else if (script.sha1 !== hash)
      reasons.push(`${name}.lua is ${hash.slice(0, 12)}; the pack's is ${script.sha1.slice(0, 12)}`);
  }
  const edited = header.digest !== sha1(digestedText(text));
  if (reasons.length === 0) {
    // The digest a render stamps depends only on the client, the options, the pack and the
    // generator: with the pack unchanged, a new digest means the generator writes it differently.
    try {
      if (readHelperHeader(render(header))?.digest !== header.digest) {
        reasons.push('the generator writes this helper differently now');
      }
    } catch (error) {
      reasons.push(`cannot be rendered again: ${(error as Error).message}`);
    }
  }
  return { header, outdated: reasons.length > 0, edited, reasons };
}
