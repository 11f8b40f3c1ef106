// "Convert this lock class to the lock helper": every finding inside one class gets its fix, or
// its first suggestion where it has none (the user asked for the conversion, behaviour changes
// included), one after the other with the class analysed again after each, as one edit. The
// release, the renewal and the tokens then go through the project's lock helper. Offered on the
// class for findings of every rule; nothing when the result would not use the helper. No LSP
// types here.
import type { Node } from '@vscode/tree-sitter-wasm';
import { AnalyzedDocument } from '../analysis';
import { checkText } from '../check';
import { applyEdits, type FileChange, type TextChange } from '../lockFix';
import { FixDocument } from './document';
import { planRemedies, type FixEnvironment } from './plan';

export interface ClassRefactor {
  title: string;
  /** The document's change as one edit (the common head and tail kept), and any file created. */
  changes: FileChange[];
}

/** A class node's name, to find it again after an edit moved it. */
const nameOf = (node: Node) => node.childForFieldName('name')?.text ?? '';

async function classNamed(languageId: string, text: string, name: string) {
  const document = await FixDocument.parse(languageId, text);
  if (!document) return undefined;
  try {
    const found = document.root
      .descendantsOfType([...document.syntax.classes])
      .find((node) => !!node && nameOf(node) === name);
    return found ? { start: found.startIndex, end: found.endIndex } : undefined;
  } finally {
    document.dispose();
  }
}

/** The class holding `offset`, by name; undefined outside classes (and in Go, which has none). */
export async function classAt(languageId: string, text: string, offset: number): Promise<string | undefined> {
  const document = await FixDocument.parse(languageId, text);
  if (!document) return undefined;
  try {
    const node = document.root.descendantForIndex(offset);
    const cls = node && (document.syntax.classes.has(node.type) ? node : document.classOf(node));
    return cls ? nameOf(cls) || undefined : undefined;
  } finally {
    document.dispose();
  }
}

/** The conversion of class `name` of the document, or undefined when it would not bring in the helper. */
export async function convertClass(
  languageId: string,
  text: string,
  name: string,
  env: FixEnvironment,
): Promise<ClassRefactor | undefined> {
  let current = text;
  const created = new Map<string, FileChange>();
  let remainingBefore = Infinity;
  for (;;) {
    const range = await classNamed(languageId, current, name);
    if (!range) break;
    const analysis = new AnalyzedDocument(languageId);
    const checked = await checkText(analysis, current, env.pack).finally(() => analysis.dispose());
    const inside = checked.findings.filter((finding) => finding.start >= range.start && finding.end <= range.end);
    const remedies = await planRemedies(languageId, current, inside, {
      ...env,
      helperUpdate: undefined,
      // Files this conversion creates count as there for the next step.
      readFile: (path) => {
        const change = created.get(path);
        return change && 'create' in change ? change.create : env.readFile(path);
      },
    });
    const applicable = remedies.flatMap((each) => each.fix ?? each.suggestions[0] ?? []);
    // Stop when a step did not lower the count: it would go round for ever.
    if (!applicable.length || applicable.length >= remainingBefore) break;
    remainingBefore = applicable.length;
    const next = applicable[0];
    const edits: TextChange[] = [];
    for (const change of next.changes()) {
      if ('create' in change) created.set(change.path, change);
      else if (change.path === (env.file ?? '')) edits.push(...change.edits);
    }
    const after = applyEdits(current, edits);
    if (after === current) break;
    current = after;
  }
  if (current === text || !(created.size || /locksmith|Locksmith|RedisLock/.test(diffOf(text, current).text)))
    return undefined;
  return {
    title: 'Convert this lock class to the lock helper (its release, renewal and tokens)',
    changes: [...created.values(), { path: env.file ?? '', edits: [diffOf(text, current)] }],
  };
}

/** One edit from `before` to `after`: what lies between their common head and tail. */
function diffOf(before: string, after: string): TextChange {
  let head = 0;
  while (head < before.length && head < after.length && before[head] === after[head]) head++;
  let tail = 0;
  while (
    tail < before.length - head &&
    tail < after.length - head &&
    before[before.length - 1 - tail] === after[after.length - 1 - tail]
  )
    tail++;
  return { start: head, end: before.length - tail, text: after.slice(head, after.length - tail) };
}
