// How a client's snippets become runnable programs for test/snippets-proof.test.ts, which runs
// every other module in this folder (one per client).
import type { PatternId } from '../../snippets/patterns';

/** How to turn a snippet into a runnable program in one client's language. */
export interface Proof {
  client: string;
  file: string;
  /** What runs the program (its path, the URL and the rounds follow), unless `build` gives the command. */
  command?: string[];
  /** Builds the program written at `path` once; returns the command that runs it (URL and rounds follow). */
  build?(path: string): Promise<string[]>;
  /** Extra environment for the command (for example Go's module cache). */
  env?: Record<string, string>;
  /** Prepares the folder the programs are written to (Go: the proofs' module). */
  setup?(dir: string): void;
  /** The program: `snippet` runs `rounds` times (argv: url, rounds); `after` runs after each. */
  program(snippet: string, after: string): string;
  bodies: Record<PatternId, string>;
  /** Runs after the renew snippet released: re-plants the token without TTL and checks no renewal touches it. */
  afterRenew: string;
}

/** Indents every non-empty line of `text` by `prefix`. */
export const indent = (text: string, prefix: string) => text.replace(/^(?=.)/gm, prefix);
