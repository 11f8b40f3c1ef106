// Redis glob patterns (SCAN MATCH, KEYS) on the client: the same matcher as the server's
// stringmatchlen, byte for byte, so keys can be filtered here exactly as Redis would, and the
// literal parts of a pattern, which every matching key contains verbatim.

/** The byte at `i`, or 0 past the end: Redis reads its NUL-terminated pattern the same way. */
const at = (bytes: Buffer, i: number): number => (i < bytes.length ? bytes[i] : 0);

/** Redis compares range bounds as C `char`, which is signed on the platforms it runs on. */
const signed = (byte: number): number => (byte > 127 ? byte - 256 : byte);

const STAR = 0x2a;
const QUESTION = 0x3f;
const OPEN = 0x5b;
const CLOSE = 0x5d;
const CARET = 0x5e;
const BACKSLASH = 0x5c;
const DASH = 0x2d;

/** True when `subject` matches the Redis glob `pattern` (case-sensitive, as SCAN MATCH). */
export function globMatches(pattern: Buffer, subject: Buffer): boolean {
  // SCAN skips matching for a lone `*`, so it lists the empty key that stringmatchlen rejects.
  if (pattern.length === 1 && pattern[0] === STAR) return true;
  // Once the rest of a pattern after a `*` matched nowhere in the rest of the subject, no
  // earlier `*` can help: Redis stops there too, which keeps `*a*a*a*b` from going exponential.
  const state = { giveUp: false };
  return match(pattern, 0, subject, 0, state);
}

function match(pattern: Buffer, p: number, subject: Buffer, s: number, state: { giveUp: boolean }): boolean {
  const patternEnd = pattern.length;
  const subjectEnd = subject.length;
  while (p < patternEnd && s < subjectEnd) {
    switch (pattern[p]) {
      case STAR: {
        while (p + 1 < patternEnd && pattern[p + 1] === STAR) p++;
        if (p + 1 === patternEnd) return true;
        for (; s < subjectEnd; s++) {
          if (match(pattern, p + 1, subject, s, state)) return true;
          if (state.giveUp) return false;
        }
        state.giveUp = true;
        return false;
      }
      case QUESTION:
        s++;
        break;
      case OPEN: {
        p++;
        const negated = at(pattern, p) === CARET;
        if (negated) p++;
        let matched = false;
        for (;;) {
          if (at(pattern, p) === BACKSLASH && patternEnd - p >= 2) {
            p++;
            if (pattern[p] === subject[s]) matched = true;
          } else if (at(pattern, p) === CLOSE) {
            break;
          } else if (p >= patternEnd) {
            // An unterminated class: Redis steps back so the loop's `p++` lands on the end.
            p--;
            break;
          } else if (patternEnd - p >= 3 && pattern[p + 1] === DASH) {
            let low = signed(pattern[p]);
            let high = signed(pattern[p + 2]);
            if (low > high) [low, high] = [high, low];
            const c = signed(subject[s]);
            p += 2;
            if (c >= low && c <= high) matched = true;
          } else if (pattern[p] === subject[s]) {
            matched = true;
          }
          p++;
        }
        if (negated) matched = !matched;
        if (!matched) return false;
        s++;
        break;
      }
      case BACKSLASH:
        if (patternEnd - p >= 2) p++;
        if (pattern[p] !== subject[s]) return false;
        s++;
        break;
      default:
        if (pattern[p] !== subject[s]) return false;
        s++;
    }
    p++;
    if (s === subjectEnd) {
      while (at(pattern, p) === STAR) p++;
      break;
    }
  }
  return p >= patternEnd && s === subjectEnd;
}

/**
 * The literal runs of `pattern`: byte strings that every key it matches contains verbatim.
 * Conservative: nothing after the first `[` counts, since Redis reads character classes in
 * ways (ranges ending in `]`, unterminated classes) that are not worth mirroring here.
 */
export function literalRuns(pattern: Buffer): Buffer[] {
  const runs: Buffer[] = [];
  let run: number[] = [];
  const endRun = () => {
    if (run.length > 0) runs.push(Buffer.from(run));
    run = [];
  };
  for (let p = 0; p < pattern.length; p++) {
    const byte = pattern[p];
    if (byte === OPEN) break;
    if (byte === STAR || byte === QUESTION) {
      endRun();
    } else if (byte === BACKSLASH && p + 1 < pattern.length) {
      run.push(pattern[++p]);
    } else {
      run.push(byte);
    }
  }
  endRun();
  return runs;
}

/** `bytes` escaped so that a Redis glob matches them literally. */
export function escapeGlob(bytes: Buffer): Buffer {
  const out: number[] = [];
  for (const byte of bytes) {
    if (byte === STAR || byte === QUESTION || byte === OPEN || byte === CLOSE || byte === BACKSLASH)
      out.push(BACKSLASH);
    out.push(byte);
  }
  return Buffer.from(out);
}
