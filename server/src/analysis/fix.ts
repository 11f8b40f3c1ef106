// What the "Replace with Locksmith's vetted lock" fix replaces and keeps: the statements from the
// acquire to the release, the user's key expression and lease, and the code they guarded (the
// body), with the lock calls and the checks of their results taken out.
import type { Node } from '@vscode/tree-sitter-wasm';
import type { RedisOp } from './ops';
import { isPause } from './retry';
import { unwrap, type Syntax } from './syntax';
import { identifierPattern, mentions, within } from './tree';

export interface FixPlan {
  /** UTF-16 offsets of the replaced statements. */
  start: number;
  end: number;
  /** The key expression as the user wrote it. */
  key: string;
  ttlMs?: string;
  /** The guarded statements, dedented; absent when there were none, empty when they follow a Go `defer` release. */
  body?: string;
  /** Leading whitespace of the first replaced line. */
  indent: string;
  /** The client the user called (`redis`, `$this->redis`, `r` of `r.pipeline()`): the fix calls the helper with it. */
  receiver: string;
  /** The retry loop around the acquire is replaced too: the helper's acquire waits instead (LOCK010). */
  replacesRetryLoop?: boolean;
  /** UTF-16 offsets of the token's declaration before the replaced statements, removed too: nothing else uses it. */
  unusedToken?: { start: number; end: number };
  /** Go: the declaration of the error variable the replaced acquire declared and the kept code still uses (`var err error`). */
  declares?: string;
  /** A try-lock: what it did when the lock was busy (`return`, `return false;`), dedented; the try variant keeps it. */
  busy?: string;
}

/** Statements that leave the block: return, raise, throw, continue, break. */
const EXITS = /^(return|raise|throw|continue|break)(_statement|_expression)?$/;

/**
 * A conditional that runs its branch when the acquire failed: `if not ...`, `if (!...)`, `unless`,
 * `== 0`, `is None`, `!== 'OK'`, GLIDE for Go's `reply.IsNil()`.
 */
const FAILURE_TEST =
  /^\(?\s*(not\b|!)|[=!]==?\s*(0[lL]?|false|False|nil|None|null)\b|\bis\s+None\b|!==?\s*['"]OK['"]|^[\w.]+\.IsNil\(\)$/;

function testsFailure(statement: Node): boolean {
  if (/unless/.test(statement.type)) return true;
  const condition = statement.childForFieldName('condition');
  return !!condition && FAILURE_TEST.test(condition.text.trim());
}

/** Clauses whose code does not run while holding the lock: else, catch, rescue. */
const NOT_GUARDED = /else|catch|except|rescue|alternative/;

/** Removes a statement's own indentation from its continuation lines. */
function dedent(node: Node): string {
  const column = node.startPosition.column;
  return node.text
    .split('\n')
    .map((line, i) => (i === 0 ? line : line.replace(new RegExp(`^[ \\t]{0,${column}}`), '')))
    .join('\n');
}

/** Blocks directly inside `node` (not inside a nested block), skipping else/catch clauses unless `all`. */
function innerBlocks(syntax: Syntax, node: Node, all = false): Node[] {
  const out: Node[] = [];
  const visit = (current: Node) => {
    for (const child of current.namedChildren) {
      if (!child || (!all && NOT_GUARDED.test(child.type))) continue;
      if (syntax.blocks.has(child.type)) out.push(child);
      else visit(child);
    }
  };
  visit(node);
  return out;
}

/** `if (acquire) { return ...; }` or Ruby's `return true if acquire`: success leaves the function at once. */
function returnsOnSuccess(syntax: Syntax, statement: Node, acquire: Node): boolean {
  if (!syntax.conditionals.has(statement.type) || testsFailure(statement)) return false;
  const condition = statement.childForFieldName('condition');
  if (!condition || !within(acquire, condition)) return false;
  const modified = statement.childForFieldName('body');
  const consequence = innerBlocks(syntax, statement)[0];
  const branch =
    modified && !syntax.blocks.has(modified.type) ? [modified] : consequence ? statementsOf(syntax, consequence) : [];
  return branch.length > 0 && branch.every((child) => RETURNS.includes(child.type));
}

/** Whether a node between `node` and `statement` (`node` included, `statement` not) passes `test`. */
function enclosedBy(node: Node, statement: Node, test: (between: Node) => boolean): boolean {
  for (let between: Node | null = node; between && between.id !== statement.id; between = between.parent)
    if (test(between)) return true;
  return false;
}

/** Statements of `types` in `statement` (itself included) that belong to its function, not to one nested in it. */
function ownStatements(syntax: Syntax, statement: Node, types: string[]): Node[] {
  const found = types.includes(statement.type) ? [statement] : statement.descendantsOfType(types);
  return found.filter(
    (node): node is Node => !!node && !enclosedBy(node, statement, (between) => syntax.functions.has(between.type)),
  );
}

/** A plain client reference: `r`, `this.redis`, `self.redis`, `$this->redis`, `@redis`. */
const CLIENT_REFERENCE = /^(?:this\.|self\.|\$this->|@)?[$\w]+$/;
/** A transaction or pipeline started on a client reference: `redis.multi()`, `$redis->multi()`. */
const CLIENT_CHAIN =
  /^((?:this\.|self\.|\$this->|@)?[$\w]+)\s*(?:\.|->)\s*(?:multi|pipeline|pipelined|txpipeline|tx_pipeline|transaction)\b/i;
/** Names of pipelines and transactions rather than clients. */
const TRANSACTION = /pipe|multi|tx|trans|batch/i;

/**
 * The client a lock call is made on, when the fix can pass it to the helper; undefined for a
 * pipeline variable, a wrapper (`this.store.client()`) or Spring's `opsForValue()` (whose template
 * the plan takes instead: springTemplateOf).
 */
export function clientOf(receiver: string | undefined): string | undefined {
  const text = receiver?.trim();
  const client = text && (CLIENT_REFERENCE.test(text) ? text : CLIENT_CHAIN.exec(text)?.[1]);
  return client && !TRANSACTION.test(client) ? client : undefined;
}

/** Spring's `redisTemplate.opsForValue().setIfAbsent(...)`: the template, which the Spring helper is built on. */
function springTemplateOf(acquire: RedisOp): string | undefined {
  if (acquire.call.nameNode.text !== 'setIfAbsent') return undefined;
  const template = /^((?:this\.)?\w+)\s*\.\s*opsForValue\(\)$/.exec(acquire.call.receiver?.text.trim() ?? '')?.[1];
  return template && clientOf(template);
}

/** Grammars whose call sites await the helper (JavaScript, TypeScript, C#). */
const AWAITING_CALL_SITES: ReadonlySet<string> = new Set(['javascript', 'typescript', 'tsx', 'c-sharp']);

/** Whether a function is declared `async` (the word before its body). */
export function isAsync(fn: Node): boolean {
  const body = fn.childForFieldName('body');
  return /\basync\b/.test(fn.text.slice(0, body ? body.startIndex - fn.startIndex : fn.text.length));
}

/** Grammars whose helpers take the guarded code as a callback (withLock). */
const CALLBACK_BODIES: ReadonlySet<string> = new Set(['javascript', 'typescript', 'tsx', 'php']);
const JUMPS = ['return_statement', 'break_statement', 'continue_statement'];
/** Return statements in every grammar (Ruby's is `return`). */
const RETURNS = ['return_statement', 'return'];

/** Whether `statement` returns from its function, or breaks or continues a loop outside itself. */
function leavesCallback(syntax: Syntax, statement: Node): boolean {
  return ownStatements(syntax, statement, JUMPS).some(
    (jump) =>
      jump.type === 'return_statement' ||
      !enclosedBy(jump, statement, (between) => syntax.loops.has(between.type) || between.type === 'switch_statement'),
  );
}

/** The acquire a fix is planned around. */
export interface PlannedAcquire {
  op: RedisOp;
  /** The variable its result is stored in. */
  bound?: string;
  /** The retry loop around it (retry.ts), which the helper's waiting acquire replaces. */
  retryLoop?: Node;
  /** The function holding the lock calls. */
  fn: Node;
}

export function planFix(
  syntax: Syntax,
  ops: RedisOp[],
  text: string,
  planned: PlannedAcquire | undefined,
): FixPlan | undefined {
  const calls = ops.map((op) => op.call.node);
  // Without the acquire here (lock() and unlock() split across a class) the guard does not fit.
  const key = planned?.op.key;
  if (!calls.length || !planned || !key) return undefined;
  const acquire = planned.op;
  // The deepest block holding every lock call.
  let block: Node | null = calls[0].parent;
  while (block && !(syntax.blocks.has(block.type) && calls.every((call) => within(call, block!)))) {
    // No block inside the function (an expression-bodied member): nothing to put the guard in.
    if (syntax.functions.has(block.type)) return undefined;
    block = block.parent;
  }
  if (!block) return undefined;
  const statements = block.namedChildren.filter((child): child is Node => !!child && !child.type.includes('comment'));
  const holding = statements.filter((statement) => calls.some((call) => within(call, statement)));
  const first = holding[0];
  // Without a release, the lock was held for the rest of the block: that is the body.
  const hasRelease = ops.some((op) => op.kind === 'del' || op.kind === 'getset');
  const last = hasRelease ? holding[holding.length - 1] : statements[statements.length - 1];
  // A retry loop that is one of the replaced statements goes whole: the helper's acquire waits
  // instead. It must do nothing but wait for the lock, with the guarded code and the release after it.
  const retryLoop = planned.retryLoop && within(planned.retryLoop, first) ? planned.retryLoop : undefined;
  if (retryLoop && !(hasRelease && last !== first && waitsOnly(syntax, first, retryLoop, calls, planned)))
    return undefined;
  // The acquire had a lease the fix cannot read (`ttl()`, a SetArgs value): the helper's default would replace it.
  if (retryLoop && acquire.hasExpiry && acquire.ttlMs === undefined) return undefined;
  const boundName = planned.bound;
  const mentionsBound = (node: Node) => mentions(node, boundName);

  // Go's `ok, err := rdb.SetNX(...).Result()`: the error check after it (`if err != nil { return err }`)
  // is the acquire's, and goes with it (the helper's acquire reports its own error).
  const acquireErrors = first.type === 'short_var_declaration' ? declaredErrors(first, boundName) : [];
  const checksAcquireError = (statement: Node) => {
    const condition = statement.childForFieldName('condition');
    const consequence = statement.childForFieldName('consequence');
    return (
      statement.type === 'if_statement' &&
      !statement.childForFieldName('alternative') &&
      !!condition &&
      !!consequence &&
      acquireErrors.some((name) => new RegExp(`^${name}\\s*!=\\s*nil$`).test(condition.text.trim())) &&
      statementsOf(syntax, consequence).every((child) => EXITS.test(child.type))
    );
  };

  const body: string[] = [];
  const bodyNodes: Node[] = [];
  let busy: string | undefined;
  const collect = (statement: Node) => {
    if (statement !== first && checksAcquireError(statement)) return;
    const hasLockCall = calls.some((call) => within(call, statement));
    if (!hasLockCall && !mentionsBound(statement)) {
      body.push(dedent(statement));
      bodyNodes.push(statement);
      return;
    }
    // Ruby's `begin ... ensure ... end` is a block itself: its statements are its own children.
    for (const inner of syntax.blocks.has(statement.type) ? [statement] : innerBlocks(syntax, statement)) {
      // Go's block holds a statement_list: its statements are the block's.
      const children = statementsOf(syntax, inner).filter((child) => !NOT_GUARDED.test(child.type));
      // `if not r.setnx(...): return`: the branch taken when the lock was not acquired guards nothing.
      if (children.length && children.every((child) => EXITS.test(child.type)) && testsFailure(statement)) {
        busy ??= children.map(dedent).join('\n');
        continue;
      }
      for (const child of children) collect(child);
    }
  };
  for (const statement of statements.slice(
    statements.indexOf(first) + (retryLoop ? 1 : 0),
    statements.indexOf(last) + 1,
  ))
    collect(statement);

  // A function that hands the lock to its caller (`return redis.setnx(...)`, `if (setnx(...)) return true;`)
  // is not a guarded section: a DEL or GETSET after it runs on the busy path (a takeover), not as a release.
  const acquires = ops.filter((op) => op.kind === 'acquire').map((op) => op.call.node);
  if (RETURNS.includes(first.type) || acquires.some((call) => returnsOnSuccess(syntax, first, call))) return undefined;
  // `return reply === 'OK'`, `return token`: the acquire's result or token goes to the caller with the lock.
  const token = acquire.value && /^[$\w.]+$/.test(acquire.value.text) ? acquire.value.text : undefined;
  const replaced = statements.slice(statements.indexOf(first), statements.indexOf(last) + 1);
  const handsResult = replaced.some((statement) =>
    ownStatements(syntax, statement, RETURNS).some(
      (ret) => ret.namedChildCount > 0 && (mentionsBound(ret) || (!!token && mentions(ret, token))),
    ),
  );
  if (handsResult) return undefined;
  const releases = ops.some((op) => op.kind === 'del');
  // Without a release the lock outlives the function: one that returns a value (`return true`) tells its
  // caller it now holds the lock, which a lock released when the block ends would take back at once.
  // A Ruby method returns its last value: `true` there says the same.
  const returnsValue = (node: Node) =>
    (RETURNS.includes(node.type) && node.namedChildCount > 0) ||
    (syntax.grammar === 'ruby' && /^(true|false)$/.test(node.type) && node.id === bodyNodes.at(-1)?.id);
  // Nothing guarded and nothing released: the function only takes the lock, for its caller.
  if (!releases && (!bodyNodes.length || bodyNodes.some(returnsValue))) return undefined;
  // The call sites of these clients `await` the helper: a function that is not async cannot.
  if (AWAITING_CALL_SITES.has(syntax.grammar) && !isAsync(planned.fn)) return undefined;
  // JavaScript and PHP helpers run the guarded code in a callback: a `return` there would leave
  // the callback, not the function, and a `break` the loop it no longer sits in.
  if (CALLBACK_BODIES.has(syntax.grammar) && bodyNodes.some((statement) => leavesCallback(syntax, statement)))
    return undefined;

  const { fn } = planned;
  // What the fix keeps of the function, but a line: before and after the replaced statements, and the body.
  const keptWithout = (line: { start: number; end: number }) =>
    [
      text.slice(fn.startIndex, line.start),
      text.slice(line.end, first.startIndex),
      text.slice(last.endIndex, fn.endIndex),
      ...body,
    ].join('\n');
  // The fix passes the user's client to the helper: without one it would name a variable that does not exist.
  const receiver = clientOf(acquire.call.receiver?.text) ?? springTemplateOf(acquire);
  if (!receiver) return undefined;
  const unusedToken = tokenDeclaration(text, statements.slice(0, statements.indexOf(first)), acquire, keptWithout);
  const lineStart = text.lastIndexOf('\n', first.startIndex - 1) + 1;
  const stillUsed = acquireErrors.filter((name) =>
    identifierPattern(name).test([...body, text.slice(last.endIndex, fn.endIndex)].join('\n')),
  );
  const ttlMs = acquire.ttlMs ?? ops.find((op) => op.kind === 'expire' && op.ttlMs !== undefined)?.ttlMs;
  return {
    start: first.startIndex,
    end: last.endIndex,
    key: key.text,
    ttlMs,
    // Go's deferred release: the code it guards follows it, where it stays.
    body: body.length ? body.join('\n') : last.type === 'defer_statement' ? '' : undefined,
    indent: /^[ \t]*/.exec(text.slice(lineStart, first.startIndex))![0],
    receiver,
    ...(retryLoop && { replacesRetryLoop: true }),
    ...(unusedToken && { unusedToken }),
    ...(busy !== undefined && { busy }),
    ...(stillUsed.length && { declares: `var ${stillUsed.join(', ')} error` }),
  };
}

/**
 * The line declaring the acquire's token among `before` (`token = str(uuid.uuid4())`,
 * `token := uuid.NewString()`, `const token = randomUUID();`), when nothing the fix keeps uses
 * the token (Go refuses to compile an unused variable).
 */
function tokenDeclaration(
  text: string,
  before: Node[],
  acquire: RedisOp,
  keptWithout: (line: { start: number; end: number }) => string,
): { start: number; end: number } | undefined {
  const name = acquire.value && unwrap(acquire.value).text;
  if (!name || !/^\$?[A-Za-z_]\w*$/.test(name)) return undefined;
  const declares = new RegExp(
    `^(?:(?:const|let|var|final|auto)\\s+)?(?:[\\w.<>]+\\s+)?${name.replace(/\$/g, '\\$')}\\s*(?::\\s*\\w+\\s*)?:?=[^=]`,
  );
  const declaration = before.filter((statement) => declares.test(statement.text)).at(-1);
  if (!declaration || declaration.text.includes('\n')) return undefined;
  const start = text.lastIndexOf('\n', declaration.startIndex - 1) + 1;
  const end = text.indexOf('\n', declaration.endIndex) + 1;
  // The declaration alone on its line, and the token named nowhere else that stays.
  if (
    end === 0 ||
    text.slice(start, declaration.startIndex).trim() ||
    /[^\s;]/.test(text.slice(declaration.endIndex, end))
  )
    return undefined;
  return identifierPattern(name).test(keptWithout({ start, end })) ? undefined : { start, end };
}

/** Statements of a block, looking through nested blocks (Go's `block` holds a `statement_list`). */
/** The error variables a Go declaration (`ok, err := ...`) declares besides `bound`. */
function declaredErrors(declaration: Node, bound: string | undefined): string[] {
  const left = declaration.childForFieldName('left');
  return (left?.namedChildren ?? [])
    .filter((child): child is Node => !!child && child.type === 'identifier' && child.text !== bound)
    .map((child) => child.text)
    .filter((name) => /^err/i.test(name));
}

function statementsOf(syntax: Syntax, block: Node): Node[] {
  return block.namedChildren.flatMap((child) =>
    !child || child.type.includes('comment')
      ? []
      : syntax.blocks.has(child.type)
        ? statementsOf(syntax, child)
        : [child],
  );
}

/** A loop that runs until a `break`: `while True:`, `for {`, `for (;;)`, `while (true)`, Ruby's `loop do`. */
const FOREVER = /^(?:for(?:\(;;\))?|while\(?(?:true|True|1)\)?:?|do(?:end)?|dowhile\((?:true|1)\);?)$/;
/** A loop condition that repeats while the acquire failed: `while not r.set(...)`, `while (!ok)`, `until`. */
const WHILE_FAILED = /!|\bnot\b|\buntil\b|==\s*(?:false|False|nil|None|null|0)\b/;

/**
 * Whether `statement` is the retry loop and it only waits for the acquire: it repeats while the
 * acquire fails (or forever, left by a `break` once it succeeded), and holds nothing but the
 * acquire, the test of its result, pauses, and (Go) the return of its error. A loop that gives up
 * (a deadline, a count, an `else`), returns the token or does other work keeps its code: no fix.
 */
function waitsOnly(syntax: Syntax, statement: Node, loop: Node, calls: Node[], planned: PlannedAcquire): boolean {
  const acquire = planned.op.call.node;
  const body = loop.childForFieldName('body');
  // The loop is the statement itself (or Ruby's `loop do ... end` call), with no `else`, and holds no other lock call.
  const before = statement.text.slice(0, loop.startIndex - statement.startIndex).trim();
  if (!body || !within(loop, statement) || statement.endIndex !== loop.endIndex || !/^(loop)?$/.test(before))
    return false;
  if (calls.some((call) => call.id !== acquire.id && within(call, loop))) return false;
  if (loop.namedChildren.some((child) => !!child && /else/.test(child.type))) return false;
  const inCondition = !within(acquire, body);
  const control = [body, ...loop.namedChildren.filter((child) => !!child && child.type.includes('comment'))]
    .sort((a, b) => b!.startIndex - a!.startIndex)
    .reduce(
      (rest, part) => rest.slice(0, part!.startIndex - loop.startIndex) + rest.slice(part!.endIndex - loop.startIndex),
      loop.text,
    )
    .replace(acquire.text, '');
  const repeats = inCondition
    ? WHILE_FAILED.test(control) || /until/.test(loop.type)
    : FOREVER.test(control.replace(/\s+/g, ''));
  if (!repeats) return false;

  let breaks = 0;
  const acquired = (node: Node) => within(acquire, node) || mentions(node, planned.bound);
  const waits = (node: Node): boolean => {
    if (syntax.loops.has(node.type)) return false;
    const blocks = innerBlocks(syntax, node, true);
    const condition = node.childForFieldName('condition');
    // `if (ok === 'OK') break;`, `break if ok`: a conditional whose branch is one statement.
    const branches = blocks.length
      ? blocks.flatMap((inner) => statementsOf(syntax, inner))
      : syntax.conditionals.has(node.type)
        ? node.namedChildren.filter((child): child is Node => !!child && child.id !== condition?.id)
        : undefined;
    if (branches)
      return branches.every((child) =>
        /^break/.test(child.type)
          ? !inCondition && !!condition && acquired(condition) && !testsFailure(node) && ++breaks > 0
          : waits(child),
      );
    if (within(acquire, node) || /^(continue|pass)/.test(node.type) || isPause(node.text)) return true;
    // go-redis and redigo: `if err != nil { return err }`, as the helper's call site does.
    return syntax.grammar === 'go' && /^return\b.*\berr\b/.test(node.text);
  };
  return statementsOf(syntax, body).every(waits) && (inCondition || breaks > 0);
}
