// Keeps a tooltip readable: VS Code closes a tree row's tooltip whenever the row, or any row
// above it, is drawn again, and a short lease's countdown redraws its row every half second. While
// the pointer rests on a row (its tooltip was asked for), redraws of the row and of its ancestors
// are held; the tree draws at once what changes what the row says (another holder, a waiter, the
// lease run out), and what was held when the hover ends, never later than HOVER_PAUSE_MS. Plain
// data: no `vscode`, the tree passes its nodes and the time.
import { escapeBytes, waitingCount, type LockEntry } from '../locks/classify';
import { remainingMs } from '../locks/present';

/** How long a hovered row's redraws wait at most: time to read its tooltip. */
export const HOVER_PAUSE_MS = 10_000;

export class HoverPause<T> {
  /** The hovered row and its ancestors, until when. */
  private hovered?: { chain: ReadonlySet<T>; until: number };
  /** Redraws held, and since when. */
  private readonly held = new Map<T, number>();

  /** The tooltip of the first of `chain` (a row, then its ancestors) was asked for: the pointer rests on it. */
  hover(chain: readonly T[], now: number): void {
    this.hovered = { chain: new Set(chain), until: now + HOVER_PAUSE_MS };
  }

  /** Nothing is hovered any more (the view was hidden). */
  end(): void {
    this.hovered = undefined;
  }

  /** Holds `node`'s redraw when it would close the hovered row's tooltip; true when held. */
  hold(node: T, now: number): boolean {
    if (!this.protects(node, now)) return false;
    if (!this.held.has(node)) this.held.set(node, now);
    return true;
  }

  /** Some redraw waits. */
  get holding(): boolean {
    return this.held.size > 0;
  }

  /** The redraws held that may happen now (the hover moved on or is over, or they waited long enough); forgets them. */
  release(now: number): T[] {
    const due = [...this.held].filter(([node, since]) => !this.protects(node, now) || now - since >= HOVER_PAUSE_MS);
    for (const [node] of due) this.held.delete(node);
    return due.map(([node]) => node);
  }

  private protects(node: T, now: number): boolean {
    return this.hovered !== undefined && now < this.hovered.until && this.hovered.chain.has(node);
  }
}

/**
 * What a lock row says apart from its countdown: its kind, who holds it, how many wait, and
 * whether the lease has run out. A change of this is drawn even while the row is hovered.
 */
export function rowIdentity(lock: LockEntry, now: number): string {
  const holders =
    lock.kind === 'token' || lock.kind === 'timestamp'
      ? [escapeBytes(lock.token)]
      : lock.kind === 'other'
        ? [lock.why]
        : lock.holders.map((holder) => escapeBytes(holder.token));
  const left = remainingMs(lock, now);
  return JSON.stringify([lock.kind, holders, waitingCount(lock) ?? 0, left !== undefined && left <= 0]);
}
