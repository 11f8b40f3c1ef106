// "Go to Code That Takes This Lock": which acquire sites of the given files can produce a live
// key. The extension lists the workspace's source files; this reads each (an open document's
// text when it has one), keeps its acquire sites until the file changes, and matches the key
// against each site's key pattern. No LSP types here.
import { statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { lockSites, type LockSite } from './analysis';
import { MENTIONS_REDIS } from './analysis/ops';
import { languageOfFile } from './languages';
import type { LockSitesParams } from './protocol';

export interface SiteMatch {
  file: string;
  /** UTF-16 offsets of the acquire in the file, and the file's text they index. */
  start: number;
  end: number;
  text: string;
  keyText: string;
  keyGlob: string;
}

/** Files above this size are generated or data, not lock code. */
const MAX_BYTES = 2 * 1024 * 1024;

export class LockSiteIndex {
  private readonly cache = new Map<string, { stamp: string; text: string; sites: LockSite[] }>();

  /** Every acquire site among `files` whose key pattern matches `key`. */
  async find(params: LockSitesParams, openText: (file: string) => string | undefined): Promise<SiteMatch[]> {
    const matches: SiteMatch[] = [];
    for (const file of params.files) {
      const indexed = await this.sitesOf(file, openText(file));
      for (const site of indexed?.sites ?? []) {
        if (!site.keyPattern.test(params.key)) continue;
        matches.push({
          file,
          start: site.start,
          end: site.end,
          text: indexed!.text,
          keyText: site.keyText,
          keyGlob: site.keyGlob,
        });
      }
    }
    // The most specific patterns first: more literal text, fewer wildcards.
    return matches.sort((a, b) => literalLength(b.keyGlob) - literalLength(a.keyGlob));
  }

  private async sitesOf(file: string, open: string | undefined) {
    const languageId = languageOfFile(file);
    if (!languageId || languageId === 'lua') return undefined;
    let stamp: string;
    let text: string;
    if (open !== undefined) {
      stamp = `open:${open.length}:${hash(open)}`;
      text = open;
    } else {
      let stat;
      try {
        stat = statSync(file);
      } catch {
        return undefined;
      }
      if (stat.size > MAX_BYTES) return undefined;
      stamp = `${stat.mtimeMs}:${stat.size}`;
      const cached = this.cache.get(file);
      if (cached?.stamp === stamp) return cached;
      text = await readFile(file, 'utf8');
    }
    const cached = this.cache.get(file);
    if (cached?.stamp === stamp) return cached;
    const sites = MENTIONS_REDIS.test(text) ? await lockSites(languageId, text) : [];
    // The text is kept only where there are sites to place: a big workspace costs little.
    const entry = { stamp, text: sites.length ? text : '', sites };
    this.cache.set(file, entry);
    return entry;
  }
}

const literalLength = (glob: string) => glob.replace(/[*?]|\[[^\]]*\]/g, '').length;

/** A cheap fingerprint of an open document's text (FNV-1a). */
function hash(text: string): number {
  let value = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) value = Math.imul(value ^ text.charCodeAt(i), 0x01000193);
  return value >>> 0;
}
