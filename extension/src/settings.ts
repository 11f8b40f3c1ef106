// Every setting the extension contributes: who may set it (its scope), and the checks and bounds
// applied when it is read. A test keeps this table and package.json in step. No `vscode`.
import { DEFAULT_LOCK_PATTERNS } from './locks/discovery';

/** VS Code's setting scopes: `application` and `machine` settings cannot be set by a workspace. */
export type SettingScope = 'application' | 'machine' | 'window' | 'resource';

export interface SettingPolicy {
  scope: SettingScope;
  /** Ignored in untrusted (Restricted Mode) workspaces even where a workspace may set it. */
  restricted?: boolean;
  /** It changes what the extension sends to a Redis server or how it connects. */
  reachesServers: boolean;
  /** Why a workspace may or may not set it (docs/security.md, "What a workspace can change"). */
  why: string;
}

export const SETTINGS: Record<string, SettingPolicy> = {
  'redisLocksmith.connections': {
    scope: 'application',
    reachesServers: true,
    why: "Connections, with their TLS verification, are the user's: a repository cannot add one or weaken its TLS.",
  },
  'redisLocksmith.lockPatterns': {
    scope: 'window',
    restricted: true,
    reachesServers: true,
    why: 'A project may name its lock keys (trusted workspaces only); at most 16 patterns, and the scan schedule keeps the view under its 2 % budget whatever they match.',
  },
  'redisLocksmith.refreshInterval': {
    scope: 'application',
    reachesServers: true,
    why: "How often the view reads your servers is your choice, never a repository's; 1 s at least.",
  },
  'redisLocksmith.maxLocksPerConnection': {
    scope: 'application',
    reachesServers: true,
    why: "How many locks each read re-reads is your choice, never a repository's; 1,000 at most.",
  },
  'redisLocksmith.lockGroups': {
    scope: 'window',
    reachesServers: false,
    why: 'Names for groups of lock keys: only how the view groups what it already read.',
  },
  'redisLocksmith.history.maxEvents': {
    scope: 'application',
    reachesServers: false,
    why: 'Memory the lock history may use in your editor is your choice; 100 to 1,000,000 events.',
  },
  'redisLocksmith.lint.enable': {
    scope: 'resource',
    reachesServers: false,
    why: 'The linter only reads the files open in the editor and runs nothing.',
  },
  'redisLocksmith.lint.rules': {
    scope: 'resource',
    reachesServers: false,
    why: 'Severities per rule: a project may tune its own linting.',
  },
  'redisLocksmith.lint.languages': {
    scope: 'resource',
    reachesServers: false,
    why: 'Which languages are checked: a project may narrow it.',
  },
};

/** What bounds the Locks view's reads, whoever set the values. */
export const LOCKS_BOUNDS = {
  minIntervalMs: 1000,
  maxLimit: 1000,
  minLimit: 10,
  maxPatterns: 16,
  maxPatternBytes: 256,
} as const;

export interface LocksSettings {
  /** Redis glob patterns (SCAN MATCH) that name lock keys. */
  patterns: string[];
  /** Locks per page: the first read and each Load more. */
  limit: number;
  /** Between re-reads of the listed locks while the view is visible. */
  intervalMs: number;
}

/** The raw values as VS Code returns them, checked and bounded. */
export function readLocksSettings(raw: {
  lockPatterns?: unknown;
  refreshInterval?: unknown;
  maxLocksPerConnection?: unknown;
}): LocksSettings {
  const patterns = Array.isArray(raw.lockPatterns)
    ? raw.lockPatterns
        .filter((pattern): pattern is string => typeof pattern === 'string' && pattern !== '')
        .filter((pattern) => Buffer.byteLength(pattern) <= LOCKS_BOUNDS.maxPatternBytes)
        .slice(0, LOCKS_BOUNDS.maxPatterns)
    : [];
  const seconds =
    typeof raw.refreshInterval === 'number' && Number.isFinite(raw.refreshInterval) ? raw.refreshInterval : 2;
  const limit =
    typeof raw.maxLocksPerConnection === 'number' && Number.isFinite(raw.maxLocksPerConnection)
      ? Math.floor(raw.maxLocksPerConnection)
      : 500;
  return {
    patterns: patterns.length ? [...new Set(patterns)] : [...DEFAULT_LOCK_PATTERNS],
    limit: Math.min(LOCKS_BOUNDS.maxLimit, Math.max(LOCKS_BOUNDS.minLimit, limit)),
    intervalMs: Math.max(LOCKS_BOUNDS.minIntervalMs, Math.round(seconds * 1000)),
  };
}

/** Where the lock patterns in force come from. */
export type LockPatternsOrigin = { from: 'workspace folder' | 'workspace' | 'user' | 'default' };

/**
 * Which of the setting's values is in force (VS Code's `inspect`): a trusted workspace's folder
 * value, then its workspace value (restricted: untrusted, neither is used), then the user's.
 */
export function lockPatternsOrigin(
  values: { workspaceFolderValue?: unknown; workspaceValue?: unknown; globalValue?: unknown },
  trusted: boolean,
): LockPatternsOrigin {
  const set = (value: unknown) =>
    Array.isArray(value) && value.some((pattern) => typeof pattern === 'string' && pattern);
  if (trusted && set(values.workspaceFolderValue)) return { from: 'workspace folder' };
  if (trusted && set(values.workspaceValue)) return { from: 'workspace' };
  if (set(values.globalValue)) return { from: 'user' };
  return { from: 'default' };
}

export const HISTORY_BOUNDS = { min: 100, max: 1_000_000, default: 10_000 } as const;

export function readHistoryMaxEvents(raw: unknown): number {
  if (typeof raw !== 'number' || !Number.isFinite(raw)) return HISTORY_BOUNDS.default;
  return Math.min(HISTORY_BOUNDS.max, Math.max(HISTORY_BOUNDS.min, Math.floor(raw)));
}

/** At most 64 non-empty patterns. */
export function readLockGroups(raw: unknown): string[] {
  if (!Array.isArray(raw)) return [];
  return raw.filter((pattern): pattern is string => typeof pattern === 'string' && pattern !== '').slice(0, 64);
}
