// Debian's Chromium, headless, as the extension-host runner and the demo screenshot launch it.
import { chromium, type Browser } from 'playwright-core';
import { findOnPath } from './onPath';

/** What Chromium's command is called: Debian's package, and other distributions' name for it. */
const CHROMIUM_COMMANDS = ['chromium', 'chromium-browser'];
// No sandbox (root in a container), no GPU, nothing that reaches the network on its own.
const CHROMIUM_FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];

/** Chromium's executable on PATH; throws naming the package to install when there is none. */
export function findChromium(path = process.env.PATH ?? ''): string {
  for (const command of CHROMIUM_COMMANDS) {
    const found = findOnPath(command, path);
    if (found) return found;
  }
  throw new Error(`no ${CHROMIUM_COMMANDS.join(' or ')} on PATH: sudo apt-get install -y chromium`);
}

export async function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: findChromium(), args: CHROMIUM_FLAGS });
}
