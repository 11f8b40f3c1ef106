// One colour per owner, kept for the panel's life (and across its reloads, through the saved
// state): owners get hues in the order they first appear, each as far from the hues before it
// as the palette allows. Red is left out: on this chart red means a lease ran out.

/** Hues from orange round to magenta, skipping red; the order spreads the first owners widely. */
const HUES = [210, 35, 135, 285, 180, 60, 245, 100, 320, 160, 265, 80];
const SHADES = 2;

export type ThemeKind = 'dark' | 'light' | 'high-contrast' | 'high-contrast-light';

export class OwnerPalette {
  private readonly slots = new Map<string, number>();

  constructor(saved: Record<string, number> = {}) {
    for (const [owner, slot] of Object.entries(saved)) if (Number.isInteger(slot)) this.slots.set(owner, slot);
  }

  /** The owner's slot: its hue and shade, assigned on first sight. */
  slot(owner: string): number {
    let slot = this.slots.get(owner);
    if (slot === undefined) this.slots.set(owner, (slot = this.slots.size));
    return slot;
  }

  color(owner: string, kind: ThemeKind): string {
    return slotColor(this.slot(owner), kind);
  }

  saved(): Record<string, number> {
    return Object.fromEntries(this.slots);
  }
}

/** The colour of a palette slot: after every hue once, the hues again in a second shade. */
export function slotColor(index: number, kind: ThemeKind): string {
  const slot = index % (HUES.length * SHADES);
  const hue = HUES[slot % HUES.length];
  const second = slot >= HUES.length;
  const light = kind === 'light' || kind === 'high-contrast-light';
  const lightness = light ? (second ? 32 : 46) : second ? 75 : 60;
  const saturation = second ? 45 : 62;
  return `hsl(${hue} ${saturation}% ${lightness}%)`;
}
