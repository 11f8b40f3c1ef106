// `npm run package:npm`: the npm package for everything that is not VS Code, `redis-locksmith` on
// npm: the lint CLI and the language server (their production bundles), the grammars they load,
// the script pack, the helper templates the fixes render, and the rules' page that reports and
// diagnostics link to. Nothing else: no sources, no tests, and no dependencies (the bundles
// carry them). Assembled in .build/npm/package/ with a package.json of its own, then packed there
// by `npm pack`.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, posix } from 'node:path';

export const ROOT = join(__dirname, '..');
export const OUT = join(ROOT, '.build', 'npm');

/** The bundles, each under the command that runs it. */
const BINS = { 'redis-locksmith': 'server/out/cli.js', 'redis-locksmith-language-server': 'server/out/server.js' };

/** What the bundles read at run time, as paths from the repository's root (folders whole). */
const SHIPPED = [
  ...Object.values(BINS),
  'server/out/wasm',
  'snippets/templates',
  'docs/rules.md',
  'scripts-lua/README.md',
  'LICENSE',
];

interface Manifest {
  name: string;
  displayName: string;
  version: string;
  license: string;
  repository: { type: string; url: string };
  bugs: { url: string };
  homepage: string;
  keywords: string[];
  engines: { node: string; vscode: string };
}

export interface NpmPackage {
  /** The folder `npm pack` packed. */
  dir: string;
  /** The .tgz it wrote. */
  tarball: string;
  /** Bytes of the .tgz, and of its files unpacked. */
  size: number;
  unpackedSize: number;
  files: string[];
}

/** docs/cli.md as the package's README: links into the repository become addresses on its web page. */
function readme(repository: string): string {
  const page = readFileSync(join(ROOT, 'docs', 'cli.md'), 'utf8');
  return page.replace(/\]\((?![a-z][a-z+.-]*:|#)([^)\s]+)\)/gi, (_, target: string) => {
    const [path, anchor] = target.split('#');
    const resolved = posix.normalize(posix.join('docs', path));
    return `](${repository}/blob/HEAD/${resolved}${anchor === undefined ? '' : `#${anchor}`})`;
  });
}

/** Fails unless the bundles are the production build: minified, no source maps. */
function checkProductionBundles(): void {
  for (const bundle of Object.values(BINS)) {
    const path = join(ROOT, bundle);
    if (!existsSync(path)) throw new Error(`${bundle} is missing: run npm run vscode:prepublish first`);
    if (readFileSync(path, 'utf8').includes('//# sourceMappingURL='))
      throw new Error(`${bundle} is a development build: run npm run vscode:prepublish first`);
  }
}

export function buildNpmPackage(): NpmPackage {
  checkProductionBundles();
  const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as Manifest;
  const repository = manifest.repository.url.replace(/^git\+/, '').replace(/\.git$/, '');
  const dir = join(OUT, 'package');
  rmSync(OUT, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  for (const path of SHIPPED) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    cpSync(join(ROOT, path), join(dir, path), { recursive: true });
  }
  // The pack's scripts, not its test configuration.
  for (const name of readdirSync(join(ROOT, 'scripts-lua')).filter((file) => file.endsWith('.lua')))
    cpSync(join(ROOT, 'scripts-lua', name), join(dir, 'scripts-lua', name));
  writeFileSync(join(dir, 'README.md'), readme(repository));
  const packageJson = {
    name: manifest.name,
    displayName: manifest.displayName,
    version: manifest.version,
    description:
      'Flags unsafe Redis lock code (LOCK001-LOCK010) in JavaScript, TypeScript, Python, Java, Go, PHP, C#, Ruby and Lua, and fixes it: the lint CLI and the language server of Redis Locksmith.',
    license: manifest.license,
    repository: manifest.repository,
    bugs: manifest.bugs,
    homepage: `${repository}/blob/HEAD/docs/cli.md`,
    keywords: [...manifest.keywords, 'lint', 'language-server', 'sarif'],
    engines: { node: manifest.engines.node },
    bin: BINS,
  };
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify(packageJson, null, 2)}\n`);
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const [packed] = JSON.parse(
    execFileSync(npm, ['pack', '--json', '--pack-destination', OUT], { cwd: dir, encoding: 'utf8' }),
  ) as Array<{ filename: string; size: number; unpackedSize: number; files: Array<{ path: string }> }>;
  return {
    dir,
    tarball: join(OUT, packed.filename),
    size: packed.size,
    unpackedSize: packed.unpackedSize,
    files: packed.files.map((file) => file.path).sort(),
  };
}

if (require.main === module) {
  const built = buildNpmPackage();
  const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(2)} MB`;
  console.log(`${built.tarball}: ${mb(built.size)} (${mb(built.unpackedSize)} unpacked, ${built.files.length} files)`);
}
