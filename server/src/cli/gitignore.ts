// .gitignore patterns as git reads them (gitignore(5)): blank lines and `#` comments skipped,
// `!` re-includes, a trailing `/` matches directories only, a `/` at the start or in the middle
// anchors the pattern to the file's folder (else it matches at any depth), `*` `?` `[...]` never
// cross a `/`, and `**` spans folders in `**/x`, `x/**` and `x/**/y`. The last matching pattern
// wins, and a deeper file's patterns win over a shallower one's. A folder that is ignored is not
// entered, so nothing below it can be re-included (git's rule too).

interface Pattern {
  regex: RegExp;
  negated: boolean;
  directoryOnly: boolean;
}

/** The patterns of one ignore file, matched against paths relative to its folder. */
export class IgnoreFile {
  private constructor(private readonly patterns: readonly Pattern[]) {}

  static parse(text: string): IgnoreFile {
    const patterns: Pattern[] = [];
    for (const line of text.split(/\r?\n/)) {
      const pattern = compile(line);
      if (pattern) patterns.push(pattern);
    }
    return new IgnoreFile(patterns);
  }

  /** True: ignored; false: re-included by a `!` pattern; undefined: no pattern matches. */
  decide(relativePath: string, isDirectory: boolean): boolean | undefined {
    for (let i = this.patterns.length - 1; i >= 0; i--) {
      const pattern = this.patterns[i];
      if (pattern.directoryOnly && !isDirectory) continue;
      if (pattern.regex.test(relativePath)) return !pattern.negated;
    }
    return undefined;
  }
}

/** The ignore files that apply in one folder: the folder's own last, each with the folder it sits in. */
export class IgnoreStack {
  private constructor(private readonly files: readonly { base: string; file: IgnoreFile }[]) {}

  static readonly EMPTY = new IgnoreStack([]);

  /** This stack and `file`, whose patterns are relative to `base` (a folder path, forward slashes). */
  with(base: string, file: IgnoreFile): IgnoreStack {
    return new IgnoreStack([...this.files, { base, file }]);
  }

  /** Whether `path` (forward slashes, comparable with the bases) is ignored. */
  ignores(path: string, isDirectory: boolean): boolean {
    for (let i = this.files.length - 1; i >= 0; i--) {
      const { base, file } = this.files[i];
      const relative = relativeTo(base, path);
      if (relative === undefined) continue;
      const decided = file.decide(relative, isDirectory);
      if (decided !== undefined) return decided;
    }
    return false;
  }
}

function relativeTo(base: string, path: string): string | undefined {
  if (base === '' || base === '.') return path;
  const prefix = base.endsWith('/') ? base : `${base}/`;
  return path.startsWith(prefix) ? path.slice(prefix.length) : undefined;
}

function compile(line: string): Pattern | undefined {
  // Trailing spaces are dropped unless escaped with a backslash.
  let pattern = line.replace(/(?<!\\) +$/, '');
  if (pattern === '' || pattern.startsWith('#')) return undefined;
  const negated = pattern.startsWith('!');
  if (negated) pattern = pattern.slice(1);
  const directoryOnly = pattern.endsWith('/') && !pattern.endsWith('\\/');
  if (directoryOnly) pattern = pattern.replace(/\/+$/, '');
  if (pattern === '') return undefined;
  // A slash at the start or in the middle anchors the pattern to the ignore file's folder.
  const anchored = pattern.includes('/');
  if (pattern.startsWith('/')) pattern = pattern.slice(1);
  const body = globToRegex(pattern);
  return { regex: new RegExp(anchored ? `^${body}$` : `^(?:.*/)?${body}$`), negated, directoryOnly };
}

const REGEX_SPECIAL = /[.*+?^${}()|[\]\\/]/g;
const escapeRegex = (text: string) => text.replace(REGEX_SPECIAL, '\\$&');

function globToRegex(glob: string): string {
  let out = '';
  for (let i = 0; i < glob.length; i++) {
    const char = glob[i];
    if (char === '\\') {
      // An escaped character is itself; a trailing lone backslash matches nothing (git: invalid).
      if (i + 1 >= glob.length) return '(?!)';
      out += escapeRegex(glob[++i]);
    } else if (char === '*') {
      const start = i;
      while (glob[i + 1] === '*') i++;
      const stars = i - start + 1;
      const atSegmentStart = start === 0 || glob[start - 1] === '/';
      const atSegmentEnd = i + 1 === glob.length || glob[i + 1] === '/';
      if (stars >= 2 && atSegmentStart && atSegmentEnd) {
        if (i + 1 === glob.length) {
          // `x/**`: everything inside (the leading `/` is already out); `**` alone: everything.
          out += '.*';
        } else {
          // `**/`: zero or more folders.
          out += '(?:.*/)?';
          i++;
        }
      } else {
        out += '[^/]*';
      }
    } else if (char === '?') {
      out += '[^/]';
    } else if (char === '[') {
      const end = bracketEnd(glob, i);
      if (end < 0) {
        out += '\\[';
        continue;
      }
      out += bracketClass(glob.slice(i + 1, end));
      i = end;
    } else {
      out += escapeRegex(char);
    }
  }
  return out;
}

/** The index of the `]` closing the bracket expression at `open`, or -1 when it is not closed. */
function bracketEnd(glob: string, open: number): number {
  let i = open + 1;
  if (glob[i] === '!' || glob[i] === '^') i++;
  // A `]` first in the set is a member, not the end.
  if (glob[i] === ']') i++;
  for (; i < glob.length; i++) {
    if (glob[i] === '\\') i++;
    else if (glob[i] === ']') return i;
  }
  return -1;
}

function bracketClass(inner: string): string {
  let negated = false;
  if (inner.startsWith('!') || inner.startsWith('^')) {
    negated = true;
    inner = inner.slice(1);
  }
  let members = '';
  for (let i = 0; i < inner.length; i++) {
    const char = inner[i] === '\\' && i + 1 < inner.length ? inner[++i] : inner[i];
    // Inside a class only these need escaping; a `-` between members stays a range.
    members += char === '-' && i > 0 && i < inner.length - 1 ? '-' : char.replace(/[\\\]^-]/, '\\$&');
  }
  // Never a slash, whatever the set says.
  return negated ? `[^/${members}]` : `(?!/)[${members}]`;
}
