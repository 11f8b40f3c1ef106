// The script pack: reads scripts-lua/*.lua and their headers into typed descriptors.
// The Lua text lives only in scripts-lua/; everything else (runtime, views, snippets,
// language server) gets it from here.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

export const SCRIPT_NAMES = [
  'acquire',
  'release',
  'extend',
  'acquire_queued',
  'reentrant_acquire',
  'reentrant_release',
  'reentrant_extend',
  'read_acquire',
  'write_acquire',
  'rw_release',
  'rw_extend',
  'semaphore_acquire',
  'semaphore_release',
  'semaphore_extend',
  'queue_acquire',
  'queue_release',
  'multi_acquire',
  'multi_release',
  'multi_extend',
  'guarded_set',
  'fenced_set',
] as const;
export type ScriptName = (typeof SCRIPT_NAMES)[number];

/**
 * `token`: a non-empty, binary-safe string. `ms`: a positive integer of milliseconds in decimal digits.
 * `count`: a positive integer in decimal digits, at most 9 of them. `integer`: the same, at most
 * 15 (a fencing token). `ticket`: 1 to 64 of A-Z a-z 0-9 . _ -. `flag`: 0 or 1.
 */
export const ARG_FORMATS = ['token', 'ms', 'count', 'integer', 'ticket', 'flag'] as const;
export type ArgFormat = (typeof ARG_FORMATS)[number];

export interface KeySpec {
  /** A name ending in `...` (`locks...`) stands for one or more keys, the last of KEYS. */
  name: string;
  required: boolean;
  meaning: string;
}

export interface ArgSpec {
  name: string;
  format: ArgFormat;
  meaning: string;
}

export interface ReplySpec {
  value: string;
  meaning: string;
  /** `value` read as a shape a reply can be checked against (see REPLY_PLACEHOLDERS). */
  shape: ReplyShape;
}

/** An integer reply in [min, max], or an array reply whose elements have these shapes. */
export type ReplyShape = { min: number; max: number } | ReplyShape[];

/**
 * The letters a `@reply` value may use for an integer, by the least value each stands for:
 * `N` a positive integer (a count or a fencing token, 1 included), `W` a count that may be 0,
 * `P` milliseconds left (-1: the key has no TTL), `T` the server's time in ms since the Unix
 * epoch. Digits stand for themselves.
 */
export const REPLY_PLACEHOLDERS: Record<string, number> = { N: 1, W: 0, P: -1, T: 0 };

export interface ErrorSpec {
  prefix: string;
  meaning: string;
}

/** A wake-up the script publishes (SPUBLISH) on the channel named by one of its keys. */
export interface SignalSpec {
  /** The key (from `keys`) whose name is the channel. */
  key: string;
  meaning: string;
}

export interface ScriptDescriptor {
  name: string;
  summary: string;
  /** The whole file, header included: exactly what SCRIPT LOAD receives. */
  source: string;
  /** SHA1 of `source`, as SCRIPT LOAD returns it and EVALSHA takes it. */
  sha1: string;
  path: string;
  keys: KeySpec[];
  args: ArgSpec[];
  replies: ReplySpec[];
  errors: ErrorSpec[];
  signals: SignalSpec[];
}

export type Pack = Record<ScriptName, ScriptDescriptor>;

export class PackError extends Error {
  override name = 'PackError';
}

// `-- @tag rest`; the header is the leading run of `--` comment lines.
const TAG_LINE = /^-- @(\w+)\s+(.*)$/;

/** Parses one script's header. `path` is used for the name check and in messages. */
export function parseScript(path: string, source: string): ScriptDescriptor {
  const descriptor: ScriptDescriptor = {
    name: '',
    summary: '',
    source,
    sha1: createHash('sha1').update(source).digest('hex'),
    path,
    keys: [],
    args: [],
    replies: [],
    errors: [],
    signals: [],
  };
  const lines = source.split('\n');
  for (let i = 0; i < lines.length && lines[i].startsWith('--'); i++) {
    const where = `${path}:${i + 1}`;
    const tag = TAG_LINE.exec(lines[i].trimEnd());
    if (!tag) throw new PackError(`${where}: header line must read '-- @tag value', got '${lines[i]}'`);
    const [, name, rest] = tag;
    const [first = '', second = ''] = rest.split(/\s+/, 2);
    const afterFirst = rest.slice(first.length).trim();
    const afterSecond = afterFirst.slice(second.length).trim();
    switch (name) {
      case 'script':
        descriptor.name = rest.trim();
        break;
      case 'summary':
        descriptor.summary = rest.trim();
        break;
      case 'key':
        if (second !== 'required' && second !== 'optional') {
          throw new PackError(`${where}: @key ${first} must be 'required' or 'optional', got '${second}'`);
        }
        if (second === 'required' && descriptor.keys.some((k) => !k.required)) {
          throw new PackError(`${where}: required key ${first} follows an optional key`);
        }
        if (descriptor.keys.some((k) => k.name.endsWith('...'))) {
          throw new PackError(
            `${where}: key ${first} follows ${descriptor.keys.at(-1)!.name}, which takes every key left`,
          );
        }
        descriptor.keys.push({ name: first, required: second === 'required', meaning: afterSecond });
        break;
      case 'arg':
        if (!(ARG_FORMATS as readonly string[]).includes(second)) {
          throw new PackError(`${where}: @arg ${first} has format '${second}'; use one of ${ARG_FORMATS.join(', ')}`);
        }
        descriptor.args.push({ name: first, format: second as ArgFormat, meaning: afterSecond });
        break;
      case 'reply': {
        const shape = parseReplyShape(first);
        if (!shape) {
          throw new PackError(
            `${where}: @reply '${first}' is not an integer, one of ${Object.keys(REPLY_PLACEHOLDERS).join(', ')} or an array {a,b} of them`,
          );
        }
        descriptor.replies.push({ value: first, meaning: afterFirst, shape });
        break;
      }
      case 'error':
        descriptor.errors.push({ prefix: first, meaning: afterFirst });
        break;
      case 'signal':
        if (!descriptor.keys.some((key) => key.name === first)) {
          throw new PackError(`${where}: @signal names key '${first}', which no @key above declares`);
        }
        descriptor.signals.push({ key: first, meaning: afterFirst });
        break;
      default:
        throw new PackError(`${where}: unknown header tag @${name}`);
    }
  }
  const fileName = path
    .split(/[\\/]/)
    .pop()!
    .replace(/\.lua$/, '');
  if (descriptor.name !== fileName) {
    throw new PackError(`${path}: @script is '${descriptor.name}' but the file is ${fileName}.lua`);
  }
  for (const field of ['summary', 'keys', 'replies'] as const) {
    if (descriptor[field].length === 0) throw new PackError(`${path}: header has no @${field.replace(/s$/, '')}`);
  }
  return descriptor;
}

/** `0`, `N`, `{0,P,W}`: the shape a `@reply` value stands for, or undefined when it is none. */
export function parseReplyShape(value: string): ReplyShape | undefined {
  const array = /^\{(.*)\}$/.exec(value);
  if (array) {
    const items = array[1].split(',').map((item) => parseReplyShape(item));
    return items.every((item): item is ReplyShape => item !== undefined && !Array.isArray(item)) ? items : undefined;
  }
  if (/^-?\d+$/.test(value)) return { min: Number(value), max: Number(value) };
  const least = REPLY_PLACEHOLDERS[value];
  return Object.hasOwn(REPLY_PLACEHOLDERS, value) ? { min: least, max: Number.MAX_SAFE_INTEGER } : undefined;
}

/** Finds `relative` (a folder of the project) above `from`: the same code runs from sources, tests and bundles. */
export function findUp(relative: string, probe: string, from: string = __dirname): string {
  for (let dir = from; ; dir = dirname(dir)) {
    const candidate = join(dir, relative);
    if (existsSync(join(candidate, probe))) return candidate;
    if (dirname(dir) === dir) throw new PackError(`no ${relative}/ folder found above ${from}`);
  }
}

export function defaultPackDir(from: string = __dirname): string {
  return findUp('scripts-lua', `${SCRIPT_NAMES[0]}.lua`, from);
}

export function loadPack(dir: string = defaultPackDir()): Pack {
  const pack = {} as Pack;
  for (const name of SCRIPT_NAMES) {
    const path = join(dir, `${name}.lua`);
    pack[name] = parseScript(path, readFileSync(path, 'utf8'));
  }
  return pack;
}
