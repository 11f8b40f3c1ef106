// Unified diffs in git's form (`git apply` takes them): Myers' shortest edit script over lines,
// after the common head and tail are set aside, in hunks with three lines of context.

type Op = { kind: ' ' | '-' | '+'; line: string };

/** Lines with their line breaks kept, so that a last line without one differs from the same line with one. */
function splitLines(text: string): string[] {
  const lines = text.split(/(?<=\n)/);
  return lines.length === 1 && lines[0] === '' ? [] : lines;
}

/** The shortest edit script from `a` to `b` (E. Myers, "An O(ND) difference algorithm", 1986). */
function shortestEdit(a: readonly string[], b: readonly string[]): Op[] {
  const n = a.length;
  const m = b.length;
  const max = n + m;
  const offset = max + 1;
  const v = new Int32Array(2 * max + 3);
  const trace: Int32Array[] = [];
  let found = false;
  for (let d = 0; d <= max && !found; d++) {
    trace.push(v.slice());
    for (let k = -d; k <= d; k += 2) {
      let x =
        k === -d || (k !== d && v[offset + k - 1] < v[offset + k + 1]) ? v[offset + k + 1] : v[offset + k - 1] + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) {
        found = true;
        break;
      }
    }
  }
  // Back from the end through the recorded frontiers.
  const ops: Op[] = [];
  let x = n;
  let y = m;
  for (let d = trace.length - 1; d >= 0; d--) {
    const frontier = trace[d];
    const k = x - y;
    const previousK = k === -d || (k !== d && frontier[offset + k - 1] < frontier[offset + k + 1]) ? k + 1 : k - 1;
    const previousX = d === 0 ? 0 : frontier[offset + previousK];
    const previousY = d === 0 ? 0 : previousX - previousK;
    while (x > previousX && y > previousY) {
      x--;
      y--;
      ops.push({ kind: ' ', line: a[x] });
    }
    if (d > 0) {
      if (x === previousX) ops.push({ kind: '+', line: b[--y] });
      else ops.push({ kind: '-', line: a[--x] });
    }
  }
  return ops.reverse();
}

function diffLines(a: readonly string[], b: readonly string[]): Op[] {
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  return [
    ...a.slice(0, head).map((line) => ({ kind: ' ' as const, line })),
    ...shortestEdit(a.slice(head, a.length - tail), b.slice(head, b.length - tail)),
    ...a.slice(a.length - tail).map((line) => ({ kind: ' ' as const, line })),
  ];
}

const printLine = ({ kind, line }: Op) =>
  line.endsWith('\n') ? `${kind}${line}` : `${kind}${line}\n\\ No newline at end of file\n`;

/** A range in a hunk header: `start,count`, where an empty range names the line before it. */
const range = (start: number, count: number) => `${count === 0 ? start - 1 : start},${count}`;

/**
 * The diff of one file, `path` relative with forward slashes; `before` undefined for a new file.
 * Empty when nothing changed.
 */
export function unifiedDiff(path: string, before: string | undefined, after: string, context = 3): string {
  if (before === after) return '';
  const ops = diffLines(splitLines(before ?? ''), splitLines(after));
  const header =
    before === undefined
      ? `diff --git a/${path} b/${path}\nnew file mode 100644\n--- /dev/null\n+++ b/${path}\n`
      : `diff --git a/${path} b/${path}\n--- a/${path}\n+++ b/${path}\n`;
  let out = header;
  // Old and new line numbers (1-based) of each op.
  const oldLine: number[] = [];
  const newLine: number[] = [];
  for (let i = 0, o = 1, n = 1; i < ops.length; i++) {
    oldLine.push(o);
    newLine.push(n);
    if (ops[i].kind !== '+') o++;
    if (ops[i].kind !== '-') n++;
  }
  const changes = ops.flatMap((op, i) => (op.kind === ' ' ? [] : [i]));
  for (let c = 0; c < changes.length;) {
    const first = Math.max(0, changes[c] - context);
    let last = changes[c];
    // Changes closer than two contexts apart share a hunk.
    while (c + 1 < changes.length && changes[c + 1] - last <= 2 * context) last = changes[++c];
    c++;
    const end = Math.min(ops.length - 1, last + context);
    const hunk = ops.slice(first, end + 1);
    const oldCount = hunk.filter((op) => op.kind !== '+').length;
    const newCount = hunk.filter((op) => op.kind !== '-').length;
    out += `@@ -${range(oldLine[first], oldCount)} +${range(newLine[first], newCount)} @@\n`;
    out += hunk.map(printLine).join('');
  }
  return out;
}
