// What can be done about each finding of a document: its fix (kept meaning, `lint --fix` applies
// it), its suggestions (changed behaviour, a person picks them), or why there is neither. One
// table says it per rule; the planners (lease.ts, the helper rewrite in lockFix.ts, ...) write
// the edits. For the language server's code actions and the lint CLI alike. No LSP types here.
import type { Pack } from '../../../pack/pack';
import type { Finding } from '../analysis';
import type { RuleCode } from '../catalogue';
import { applyEdits, lockFix, type FileChange, type TextChange } from '../lockFix';
import type { FoundManifest } from '../manifests';
import { fixClient } from '../quickFix';
import { FixDocument } from './document';
import { helperClientBlocker, projectHelper } from './helper';
import { unusedImports } from './imports';
import { addLease, leaseInAcquire, timestampLease } from './lease';
import { blockingRelease, releaseFix, springBlocker } from './release';
import { renewalFix, renewalSuggestion } from './renewal';
import { tokenPerAcquisition } from './token';
import { tryLockRewrite } from './tryLock';
import { isNoFix, noFix, unreadCall, type FindingRemedies, type NoFix, type Remedy, type RemedyKind } from './remedy';

export interface FixEnvironment {
  pack: Pack;
  /** Absolute path of the file and of its project's root; both absent for an unsaved file. */
  file?: string;
  root?: string;
  /** The project's manifests, paths relative to `root`. */
  manifests: FoundManifest[];
  /** A file's text (an open editor's, else the disk's), or undefined when it does not exist. */
  readFile(path: string): string | undefined;
  /** Whether the changes may create files (the helper); otherwise the helper rewrite writes the inline lock. */
  canCreateFiles: boolean;
  /** LOCK008: the helper's text as the installed pack renders it, when this document is an outdated helper. */
  helperUpdate?: string;
}

export interface PlanContext {
  document: FixDocument;
  languageId: string;
  manifests: FoundManifest[];
  env: FixEnvironment;
}

/** Edits of the document itself, planned by a minimal fix. */
export interface PlannedEdit {
  title: string;
  edits: TextChange[];
  /** Files the fix adds (the project's lock helper). */
  created?: FileChange[];
  /** What the fix wrote instead of the usual, and why (the helper at another place): for reports. */
  note?: string;
}

type Planner = (context: PlanContext, finding: Finding) => PlannedEdit | NoFix;

/** What each rule gets: a fix planner, suggestion planners, and why there is no fix when the rule has none. */
interface RuleRemedies {
  fix?: Planner;
  suggestions?: Planner[];
  /** Why the rule gets no fix of its own (it changes behaviour, or needs a person). */
  noFix?: NoFix;
}

const onAcquire =
  (plan: (context: PlanContext, op: NonNullable<ReturnType<FixDocument['opAt']>>) => PlannedEdit | NoFix): Planner =>
  (context, finding) => {
    const op = context.document.opAt(finding.start);
    return op ? plan(context, op) : unreadCall(context.document.text, finding.start);
  };

const BEHAVIOUR = (what: string) => noFix('changes-behaviour', `${what}: a suggestion, never applied by --fix alone`);

const RULE_REMEDIES: Record<RuleCode, RuleRemedies> = {
  LOCK001: { fix: onAcquire(leaseInAcquire) },
  LOCK002: {
    suggestions: [onAcquire(addLease)],
    noFix: BEHAVIOUR('a lease where the lock had none changes what happens to work that runs longer'),
  },
  LOCK003: { fix: (context, finding) => releaseFix(context, finding), suggestions: [blockingRelease] },
  LOCK004: { fix: (context, finding) => releaseFix(context, finding), suggestions: [blockingRelease] },
  LOCK005: {
    suggestions: [onAcquire(timestampLease)],
    noFix: BEHAVIOUR('a lease instead of a timestamp is another algorithm'),
  },
  LOCK006: {
    fix: onAcquire((context, op) => tokenPerAcquisition(context, op, 'fix')),
    suggestions: [onAcquire((context, op) => tokenPerAcquisition(context, op, 'suggestion'))],
  },
  LOCK007: {
    noFix: noFix(
      'script-interface',
      "passing the key in KEYS changes the script's interface: every caller's EVAL must change with it",
    ),
  },
  LOCK008: {},
  LOCK009: { fix: renewalFix, suggestions: [renewalSuggestion] },
  LOCK010: { noFix: noFix('retry-loop', 'the retry loop does more than wait for the lock') },
};

/** The remedies of every finding of `text`, in the findings' order. */
export async function planRemedies(
  languageId: string,
  text: string,
  findings: readonly Finding[],
  env: FixEnvironment,
): Promise<FindingRemedies[]> {
  if (!findings.length) return [];
  const document = await FixDocument.parse(languageId, text);
  try {
    const context = document && { document, languageId, manifests: env.manifests, env };
    const client = fixClient(languageId, text, env.manifests);
    const helperRewrites = new Map<string, Remedy>();
    // One remedy for findings that share it (the section a try variant replaces).
    const shared = (id: string, make: () => Remedy) => {
      const known = helperRewrites.get(id);
      if (known) return known;
      const made = { ...make(), id };
      helperRewrites.set(id, made);
      return made;
    };
    return findings.map((finding) => {
      const remedies: FindingRemedies = { finding, suggestions: [] };
      if (finding.code === 'LOCK008') {
        if (env.helperUpdate !== undefined) remedies.fix = helperUpdate(env.helperUpdate, text, env.file);
        else remedies.noFix = noFix('helper-unread', 'the helper could not be rendered again');
        return remedies;
      }
      const table = RULE_REMEDIES[finding.code];
      const minimal = context && table.fix?.(context, finding);
      if (minimal && !isNoFix(minimal)) remedies.fix = planned('fix', minimal, finding, text, languageId, env);
      for (const planner of table.suggestions ?? []) {
        const suggestion = context && planner(context, finding);
        if (suggestion && !isNoFix(suggestion))
          remedies.suggestions.push(planned('suggestion', suggestion, finding, text, languageId, env));
      }
      const blocker =
        client && finding.fix
          ? (helperBlocker(document, client.id, finding.fix) ?? inlineBlocker(client, text, env))
          : undefined;
      const rewrite =
        client && finding.fix && !blocker
          ? helperRewrite(finding, client, text, languageId, env, helperRewrites)
          : undefined;
      // A try-lock stays one: the helper's try variant comes before the waiting rewrite.
      // The try variant never waits: a method that does not declare InterruptedException can take it.
      const tried =
        document && client && finding.fix?.busy !== undefined && (!blocker || blocker.code === 'interrupted')
          ? tryLockRewrite(document, client, finding, env)
          : undefined;
      if (client && tried && !isNoFix(tried)) {
        const kind = triedKind(client.id, finding.fix!, remedies);
        const remedy = shared(`try:${kind}:${finding.fix!.start}`, () =>
          planned(kind, tried, finding, text, languageId, env),
        );
        if (kind === 'fix') remedies.fix = remedy;
        else remedies.suggestions.push(remedy);
      }
      if (rewrite?.kind === 'fix' && !remedies.fix) remedies.fix = rewrite;
      else if (rewrite) remedies.suggestions.push(rewrite);
      if (!remedies.fix)
        remedies.noFix =
          (isNoFix(minimal) ? minimal : undefined) ??
          // Where the rewrite would have been the fix (it replaces a loop that only waits): why it is not.
          (finding.fix?.replacesRetryLoop ? blocker : undefined) ??
          table.noFix ??
          (context ? noFix('unplanned', 'no fix for this shape') : noFix('language', 'no fix in this language'));
      return remedies;
    });
  } finally {
    document?.dispose();
  }
}

/**
 * Spring: the try variant is the fix of a finding that has no smaller one, where it keeps what the
 * code did: one try, its skip when busy, the code's own lease, a token nothing else read (the
 * declaration goes), and a release in `finally` that raises nothing. Elsewhere, and without a
 * lease of the code's (the variant adds one), a suggestion.
 */
function triedKind(clientId: string, plan: NonNullable<Finding['fix']>, remedies: FindingRemedies): RemedyKind {
  return clientId === 'spring-data-redis' && plan.ttlMs !== undefined && !!plan.unusedToken && !remedies.fix
    ? 'fix'
    : 'suggestion';
}

/**
 * Why the helper's scoped lock cannot take the client the code has, where the code is (undefined
 * when it can): Spring's is built on a StringRedisTemplate (not a RedisTemplate of other types),
 * Jedis's and Lettuce's take the clients of helperClientBlocker, Jedis's, Lettuce's and Spring's
 * acquire throws InterruptedException (the method must declare it), go-redis's and redigo's take a
 * context (the function must have one) and their call site returns the acquire's error (the
 * function must return an error alone), redigo's takes a pool (not a connection).
 */
function helperBlocker(
  document: FixDocument | undefined,
  clientId: string,
  plan: NonNullable<Finding['fix']>,
): NoFix | undefined {
  const text = document?.text ?? '';
  const name = plan.receiver.replace(/^this\./, '');
  const at = document?.root.descendantForIndex(plan.start);
  const fn = at ? document?.functionOf(at) : undefined;
  const header = fn ? text.slice(fn.startIndex, fn.childForFieldName('body')?.startIndex ?? fn.endIndex) : '';
  const java = clientId === 'jedis' || clientId === 'lettuce' || clientId === 'spring-data-redis';
  const spring = clientId === 'spring-data-redis' && document ? springBlocker(document, plan.receiver) : undefined;
  if (spring) return spring;
  const go = clientId === 'go-redis' || clientId === 'redigo';
  const connection = helperClientBlocker(clientId, text, plan.receiver, 'acquire');
  if (connection) return connection;
  if (java && !/\bthrows\b[^{]*\b(InterruptedException|Exception|Throwable)\b/.test(header))
    return noFix(
      'interrupted',
      "the lock helper's waiting acquire throws InterruptedException, which this method does not declare",
    );
  if (go && !/\bctx\b/.test(header))
    return noFix('no-context', 'the lock helper takes a context; this function has none');
  if (go && !/\)\s*error\s*$/.test(header.trim()))
    return noFix('go-return', "the lock helper's call site returns the acquire's error: this function returns more");
  if (clientId === 'redigo' && !new RegExp(`\\b${name}\\s+\\*?\\w+\\.Pool\\b`).test(text))
    return noFix('client-connection', "redigo's lock helper takes a pool, not a connection");
  return undefined;
}

/**
 * Why the rewrite cannot take the code's client where the project has no place for the helper
 * and the rewrite writes the inline lock: Jedis's inline lock assumes a JedisPool, which the
 * helper's callers (a UnifiedJedis) do not have.
 */
function inlineBlocker(
  client: NonNullable<ReturnType<typeof fixClient>>,
  text: string,
  env: FixEnvironment,
): NoFix | undefined {
  const helper = client.id === 'jedis' ? projectHelper(client, { ...env, text }) : undefined;
  return helper && isNoFix(helper)
    ? noFix('no-helper', `${helper.why}, and the inline Jedis lock needs a JedisPool`)
    : undefined;
}

/** A minimal fix's edits as a remedy; imports that only the edited code used go with them. */
function planned(
  kind: RemedyKind,
  plan: PlannedEdit,
  finding: Finding,
  text: string,
  languageId: string,
  env: FixEnvironment,
): Remedy {
  return {
    kind,
    title: plan.title,
    ...(plan.note && { note: plan.note }),
    id: `${kind}:${finding.code}:${finding.start}`,
    changes: () => {
      const after = applyEdits(text, plan.edits);
      const unused = unusedImports(languageId, text, after).filter(
        (line) => !plan.edits.some((edit) => edit.start < line.end && edit.end > line.start),
      );
      return [
        ...(plan.created ?? []),
        { path: env.file ?? '', edits: [...plan.edits, ...unused.map((line) => ({ ...line, text: '' }))] },
      ];
    },
  };
}

/**
 * The rewrite of the guarded section into a call of the project's lock helper (FixPlan from the
 * analysis). It waits when the lock is busy: a fix only where the code already waited (a retry
 * loop it replaces) with a lease it keeps; elsewhere a suggestion.
 */
function helperRewrite(
  finding: Finding,
  client: NonNullable<ReturnType<typeof fixClient>>,
  text: string,
  languageId: string,
  env: FixEnvironment,
  shared: Map<string, Remedy>,
): Remedy {
  const plan = finding.fix!;
  const id = `helper:${plan.start}:${plan.end}`;
  const known = shared.get(id);
  if (known) return known;
  const kind: RemedyKind = plan.replacesRetryLoop && plan.ttlMs !== undefined ? 'fix' : 'suggestion';
  let fix: ReturnType<typeof lockFix> | undefined;
  const build = () =>
    (fix ??= lockFix({
      client,
      plan,
      pack: env.pack,
      text,
      languageId,
      ...(env.file && env.root && { file: env.file, root: env.root }),
      canCreateFiles: env.canCreateFiles,
      manifests: env.manifests,
      readFile: (path) => env.readFile(path),
    }));
  const remedy: Remedy = {
    kind,
    id,
    get title() {
      return build().title;
    },
    get note() {
      return build().note;
    },
    changes: () =>
      build().changes.map((change) =>
        'edits' in change && !change.path ? { ...change, path: env.file ?? '' } : change,
      ),
  };
  shared.set(id, remedy);
  return remedy;
}

function helperUpdate(update: string, text: string, file: string | undefined): Remedy {
  return {
    kind: 'fix',
    title: 'Update lock helper from the installed pack',
    id: 'helper-update',
    changes: (): FileChange[] => [{ path: file ?? '', edits: [{ start: 0, end: text.length, text: update }] }],
  };
}
