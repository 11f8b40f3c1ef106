// What was read from each unit of a document, kept for the next analysis. A unit the edits since
// did not touch is found by its position (no text compared: the edits say it is unchanged); a
// unit whose text reappears elsewhere (moved code, a tree rebuilt from scratch) by its text.
// Values are kept relative to the unit's start.
import type { Edit } from '@vscode/tree-sitter-wasm';

interface Entry<T> {
  start: number;
  end: number;
  /** What else the value depends on (the class it sits in, file-wide flags). */
  context: string;
  /** Undefined: the unit says nothing. */
  value: T | undefined;
  /** The unit's text, an own copy (a slice would keep the whole old document alive), when there is a value. */
  key?: string;
}

/** A copy of `text` that shares no memory with the document it was sliced from. */
const own = (text: string): string => Buffer.from(text, 'utf16le').toString('utf16le');

/** Where `[start, end)` is after `edits`, or undefined when an edit touched it. */
function moved(start: number, end: number, edits: readonly Edit[]): { start: number; end: number } | undefined {
  for (const edit of edits) {
    if (end <= edit.startIndex) continue;
    if (start < edit.oldEndIndex || (start === edit.startIndex && edit.oldEndIndex === edit.startIndex))
      return undefined;
    const delta = edit.newEndIndex - edit.oldEndIndex;
    start += delta;
    end += delta;
  }
  return { start, end };
}

export class UnitCache<T> {
  private byText = new Map<string, Entry<T>>();
  private positions: Entry<T>[] = [];
  private edits: Edit[] = [];
  /** During an analysis: last analysis' units the edits left alone, by their new start. */
  private untouched = new Map<number, Entry<T>>();
  private nextText = new Map<string, Entry<T>>();
  private nextPositions: Entry<T>[] = [];

  /** An edit since the last analysis (offsets in UTF-16 units). */
  recordEdit(edit: Edit): void {
    this.edits.push(edit);
  }

  /** The positions say nothing about the next text (a whole new text, or positions dropped to save memory). */
  forgetPositions(): void {
    this.positions = [];
    this.edits = [];
  }

  begin(): void {
    this.untouched = new Map();
    for (const entry of this.positions) {
      const at = moved(entry.start, entry.end, this.edits);
      if (at) this.untouched.set(at.start, { ...entry, ...at });
    }
    this.edits = [];
    this.nextText = new Map();
    this.nextPositions = [];
  }

  /** The value of the unit at `[start, end)` of `text`: kept if it still fits, else `read()`. */
  get(text: string, start: number, end: number, context: string, read: () => T | undefined): T | undefined {
    let entry: Entry<T> | undefined = this.untouched.get(start);
    if (!entry || entry.end !== end || entry.context !== context) {
      const part = text.slice(start, end);
      // A first analysis has nothing to find by text: no unit's text is hashed for nothing.
      const byText = this.byText.size ? (this.nextText.get(part) ?? this.byText.get(part)) : undefined;
      if (byText && byText.context === context) {
        entry = { ...byText, start, end };
      } else {
        const value = read();
        // Units with nothing to say are not kept by text: reading them again is cheaper than remembering them.
        entry = { start, end, context, value, key: value === undefined ? undefined : own(part) };
      }
    }
    if (entry.key !== undefined) this.nextText.set(entry.key, entry);
    this.nextPositions.push({ ...entry, start, end });
    return entry.value;
  }

  end(): void {
    this.byText = this.nextText;
    this.positions = this.nextPositions;
    this.untouched = new Map();
    this.nextText = new Map();
    this.nextPositions = [];
  }

  clear(): void {
    this.byText.clear();
    this.forgetPositions();
  }
}
