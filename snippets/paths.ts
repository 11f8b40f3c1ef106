// Where a project keeps its lock helper, per ecosystem, and how a file then imports it: the
// proposals "Add Lock Helper to Project" offers and the import a call site needs. Pure: the
// caller passes the file, its text and the workspace's manifests in (paths relative to the
// workspace root, forward slashes).
import { posix } from 'node:path';
import { findClient } from './template';
import type { HelperOptions } from './helper';
import type { JsFlavor } from './template';

export interface ProjectFile {
  /** Workspace-relative path with forward slashes, e.g. `src/jobs/report.ts`. */
  path: string;
  text: string;
}

export interface PlacementInput {
  /** The file the user is in. */
  file: ProjectFile;
  /** The workspace's manifests (package.json, go.mod, Cargo.toml, pyproject.toml, ...), nearest first or in any order. */
  manifests: readonly ProjectFile[];
}

export interface HelperPlacement {
  /** Workspace-relative path of the helper module. */
  path: string;
  /** The render options this place needs (flavor, Java package, C# namespace). */
  options: HelperOptions;
  /** What `file` passes as `helperImport` to renderCallSite. */
  helperImport: string;
  /** JavaScript: the importing file's flavor, for renderCallSite. */
  flavor?: JsFlavor;
  /** One line for the picker: why this place. */
  why: string;
  /** Anything else the project needs (Rust's `mod` line), or undefined. */
  also?: string;
}

/** The nearest manifest named `name` in `dir` or above. */
function nearest(manifests: readonly ProjectFile[], dir: string, name: string): ProjectFile | undefined {
  for (let at = dir; ; at = posix.dirname(at)) {
    const found = manifests.find((manifest) => manifest.path === posix.join(at, name));
    if (found || at === '.' || at === '/' || at === '') return found;
  }
}

/** A relative specifier from `fromDir` to `target`, always starting with `./` or `../`. */
function relativeSpecifier(fromDir: string, target: string): string {
  const relative = posix.relative(fromDir, target);
  return relative.startsWith('.') ? relative : `./${relative}`;
}

function jsFlavor(file: ProjectFile, manifests: readonly ProjectFile[]): JsFlavor {
  if (/\.(c|m)?tsx?$/.test(file.path)) return 'ts';
  if (file.path.endsWith('.mjs')) return 'esm';
  if (file.path.endsWith('.cjs')) return 'cjs';
  const packageJson = nearest(manifests, posix.dirname(file.path), 'package.json');
  return packageJson && /"type"\s*:\s*"module"/.test(packageJson.text) ? 'esm' : 'cjs';
}

function jsPlacements(input: PlacementInput): HelperPlacement[] {
  const { file, manifests } = input;
  const flavor = jsFlavor(file, manifests);
  const name = flavor === 'ts' ? 'locksmith.ts' : 'locksmith.js';
  const dir = posix.dirname(file.path);
  const packageJson = nearest(manifests, dir, 'package.json');
  const root = packageJson ? posix.dirname(packageJson.path) : '.';
  const underSrc = file.path.startsWith(`${posix.join(root, 'src')}/`);
  const candidates = [
    ...(underSrc ? [{ path: posix.join(root, 'src/lib', name), why: 'src/lib/, shared by the whole package' }] : []),
    { path: posix.join(dir, name), why: 'next to this file' },
  ];
  return candidates.map(({ path, why }) => {
    const specifier = relativeSpecifier(dir, path).replace(/\.(ts|js)$/, flavor === 'esm' ? '.js' : '');
    return { path, options: { flavor }, helperImport: specifier, flavor, why };
  });
}

const declared = (text: string, keyword: string) =>
  new RegExp(`^\\s*${keyword}\\s+([\\w.]+)\\s*[;{]?`, 'm').exec(text)?.[1];

/** A helper module's file name per client family: where an existing one may be found. */
const HELPER_NAMES: Record<string, string[]> = {
  // A JavaScript and a TypeScript file share one helper: either one is found.
  js: ['locksmith.ts', 'locksmith.js'],
  py: ['locksmith.py'],
  php: ['Locksmith.php'],
  rb: ['locksmith.rb'],
};

/** `dir` and its parents up to `root` (both workspace-relative), nearest first. */
function upTo(dir: string, root: string): string[] {
  const dirs = [dir];
  for (let at = dir; at !== root && at !== '.' && at !== '';) {
    at = posix.dirname(at);
    dirs.push(at);
  }
  return dirs;
}

/**
 * Where the project's helper for the client may already be, nearest first: the usual places, and
 * for JavaScript and TypeScript the package's src/lib/ and lib/ in either language, for Python,
 * PHP and Ruby every folder from the file's up to its project's root. One helper per client and
 * project: a file finds the one another file of the project created.
 */
export function helperSearchPaths(clientId: string, input: PlacementInput): string[] {
  const client = findClient(clientId);
  const names = HELPER_NAMES[client.extension];
  const proposed = proposeHelperPlacements(clientId, input).map((placement) => placement.path);
  if (!names) return proposed;
  const dir = posix.dirname(input.file.path);
  const manifest = { js: 'package.json', py: 'pyproject.toml', php: 'composer.json', rb: 'Gemfile' }[client.extension];
  const project = manifest && nearest(input.manifests, dir, manifest);
  const root = project ? posix.dirname(project.path) : '.';
  const dirs =
    client.extension === 'js'
      ? [...proposed.map((path) => posix.dirname(path)), posix.join(root, 'src/lib'), posix.join(root, 'lib')]
      : upTo(dir, root);
  const found = [...proposed, ...dirs.flatMap((folder) => names.map((name) => posix.join(folder, name)))];
  return [...new Set(found)];
}

/** The helper's usual places for the client, best first. */
export function proposeHelperPlacements(clientId: string, input: PlacementInput): HelperPlacement[] {
  const client = findClient(clientId);
  const { file, manifests } = input;
  const dir = posix.dirname(file.path);
  switch (client.extension) {
    case 'js':
      return jsPlacements(input);
    case 'py':
      return [
        { path: posix.join(dir, 'locksmith.py'), options: {}, helperImport: 'locksmith', why: 'next to this file' },
      ];
    case 'java': {
      // Same package as the file: no import needed.
      const javaPackage = declared(file.text, 'package');
      return [
        {
          path: posix.join(dir, 'Locksmith.java'),
          options: { package: javaPackage },
          helperImport: '',
          why: javaPackage ? `in package ${javaPackage}, next to this file` : 'next to this file',
        },
      ];
    }
    case 'go': {
      const goMod = nearest(manifests, dir, 'go.mod');
      const modulePath = goMod && /^module\s+(\S+)/m.exec(goMod.text)?.[1];
      if (!goMod || !modulePath) return [];
      const root = posix.dirname(goMod.path);
      return [
        {
          path: posix.join(root, 'internal/locksmith/locksmith.go'),
          options: {},
          helperImport: `${modulePath}/internal/locksmith`,
          why: 'package locksmith under internal/, importable from the whole module',
        },
      ];
    }
    case 'cs': {
      const namespace = declared(file.text, 'namespace');
      return [
        {
          path: posix.join(dir, 'RedisLock.cs'),
          options: { namespace: namespace ?? 'Locksmith' },
          helperImport: namespace ?? 'Locksmith',
          why: namespace ? `in namespace ${namespace}, next to this file` : 'next to this file',
        },
      ];
    }
    case 'php':
      return [
        {
          path: posix.join(dir, 'Locksmith.php'),
          options: {},
          helperImport: 'Locksmith.php',
          why: 'next to this file',
        },
      ];
    case 'rb': {
      const gemfile = nearest(manifests, dir, 'Gemfile');
      const lib = gemfile ? posix.join(posix.dirname(gemfile.path), 'lib/locksmith.rb') : undefined;
      return [
        ...(lib && lib !== posix.join(dir, 'locksmith.rb')
          ? [
              {
                path: lib,
                options: {},
                helperImport: posix.relative(dir, lib).replace(/\.rb$/, ''),
                why: 'lib/, next to the Gemfile',
              },
            ]
          : []),
        { path: posix.join(dir, 'locksmith.rb'), options: {}, helperImport: 'locksmith', why: 'next to this file' },
      ];
    }
    case 'rs': {
      const cargo = nearest(manifests, dir, 'Cargo.toml');
      if (!cargo) return [];
      const src = posix.join(posix.dirname(cargo.path), 'src');
      return [
        {
          path: posix.join(src, 'locksmith.rs'),
          options: {},
          helperImport: 'crate::locksmith',
          why: 'a module of the crate',
          also: `declare it in ${posix.join(src, 'main.rs')} or lib.rs: mod locksmith;`,
        },
      ];
    }
    default:
      return [];
  }
}

/**
 * How `input.file` imports a helper that already exists at `helper.path` (workspace-relative,
 * with its text): the same forms as the proposals, computed for this pair of files.
 */
export function helperImportFor(
  clientId: string,
  helper: ProjectFile,
  input: PlacementInput,
): Pick<HelperPlacement, 'helperImport' | 'flavor'> {
  const client = findClient(clientId);
  const { file, manifests } = input;
  const dir = posix.dirname(file.path);
  switch (client.extension) {
    case 'js': {
      const flavor = jsFlavor(file, manifests);
      const specifier = relativeSpecifier(dir, helper.path).replace(/\.(ts|js)$/, flavor === 'esm' ? '.js' : '');
      return { helperImport: specifier, flavor };
    }
    case 'py': {
      // A dotted module path from the project root (where pyproject.toml is, else the workspace root).
      const project = nearest(manifests, posix.dirname(helper.path), 'pyproject.toml');
      const root = project ? posix.dirname(project.path) : '.';
      const sameDir = posix.dirname(helper.path) === dir;
      const module = posix.relative(root, helper.path).replace(/\.py$/, '').split('/').join('.');
      return { helperImport: sameDir ? posix.basename(helper.path, '.py') : module };
    }
    case 'java': {
      const helperPackage = declared(helper.text, 'package') ?? '';
      return { helperImport: helperPackage === (declared(file.text, 'package') ?? '') ? '' : helperPackage };
    }
    case 'go': {
      const goMod = nearest(manifests, dir, 'go.mod');
      const modulePath = goMod && /^module\s+(\S+)/m.exec(goMod.text)?.[1];
      const relative = goMod ? posix.relative(posix.dirname(goMod.path), posix.dirname(helper.path)) : '';
      return { helperImport: modulePath ? posix.join(modulePath, relative) : relative };
    }
    case 'cs':
      return { helperImport: declared(helper.text, 'namespace') ?? 'Locksmith' };
    case 'php':
      return { helperImport: posix.relative(dir, helper.path) };
    case 'rb':
      return { helperImport: posix.relative(dir, helper.path).replace(/\.rb$/, '') };
    case 'rs':
      return { helperImport: 'crate::locksmith' };
    default:
      return { helperImport: '' };
  }
}
