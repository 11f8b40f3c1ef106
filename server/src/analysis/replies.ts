// LOCK009's question about a renewal: is its reply thrown away? A bare statement, only its error
// looked at, or (queued on a pipeline or transaction) a batch whose exec reply is dropped.
import type { Node } from '@vscode/tree-sitter-wasm';
import type { RedisOp } from './ops';
import { unwrap, type Syntax } from './syntax';
import { identifierPattern, statementOn } from './tree';

/** Names of pipelines and transactions. */
export const TRANSACTION = /pipe|multi|\btx\b|trans|batch/i;

/** Whether the reply of a lease renewal is dropped: a bare statement, or only its error looked at. */
export function replyIgnored(syntax: Syntax, path: Node[], op: RedisOp, text: string, fn: Node): boolean {
  const queued = queuedReplyIgnored(syntax, path, op, text, fn);
  if (queued !== undefined) return queued;
  const after = text.slice(op.call.node.endIndex, op.call.node.endIndex + 12);
  if (syntax.grammar === 'go' && /^\s*\.Err\(\)/.test(after)) return true;
  // GLIDE for Java: `client.expire(k, t).get();` waits for the reply's future and drops what it holds.
  if (syntax.grammar === 'java' && /^\s*\.\s*(?:get|join)\s*\(\s*\)\s*;/.test(after)) {
    const statement = statementOn(syntax, path);
    if (statement?.type === 'expression_statement' && statement.startIndex === op.call.node.startIndex) return true;
  }
  // `() -> jedis.expire(...)`, `() => redis.pexpire(...)`: an expression-bodied callback whose caller drops the value.
  const holder = path[path.length - 2];
  if (holder && syntax.functions.has(holder.type) && holder.childForFieldName('body')?.id === op.call.node.id)
    return true;
  return isBareStatement(syntax, path, op.call.node);
}

/** Whether the statement on `path` is the call `node` alone, awaited or not (not `x = call`, `return call`). */
function isBareStatement(syntax: Syntax, path: Node[], node: Node): boolean {
  const statement = statementOn(syntax, path);
  if (!statement) return false;
  if (
    !/expression_statement|^call$|^method_call$|defer_statement|go_statement/.test(statement.type) &&
    statement.id !== node.id
  )
    return false;
  const inner = unwrap(statement.type === 'expression_statement' ? (statement.namedChild(0) ?? statement) : statement);
  return inner.id === node.id || inner.id === unwrap(node).id;
}

/** Whether the call at the end of `path` hands its reply on: assigned, passed, returned or tested. */
function replyKept(path: Node[]): boolean {
  let i = path.length - 2;
  while (i > 0 && /await|parenthesized|expression_list/.test(path[i].type)) i--;
  return i >= 0 && /assignment|declarator|short_var|var_spec|argument|return|binary|condition/.test(path[i].type);
}

const EXECUTE = '(?:execute|exec|Exec|sync|syncAndReturnAll|ExecAsync|Execute|ExecuteAsync|exec_async)';

/**
 * For a command queued on a pipeline or transaction (`pipe.expire(k, t)`, `redis.multi().pexpire(...).exec()`,
 * `redis.pipelined do |p| ... end`), whether its reply is lost with the batch's: the exec's reply dropped.
 * Undefined when the command is not queued, or the exec is not in sight.
 */
function queuedReplyIgnored(syntax: Syntax, path: Node[], op: RedisOp, text: string, fn: Node): boolean | undefined {
  const receiver = op.call.receiver;
  if (!receiver) return undefined;
  // A chain ending in exec: `redis.multi().pexpire(k, t).exec()`.
  if (/(?:multi|pipeline|transaction)\s*\(/i.test(receiver.text)) {
    let top = path.length - 1;
    while (top > 0 && /call|member|invocation|selector|attribute|await/.test(path[top - 1].type)) top--;
    return new RegExp(`\\.\\s*${EXECUTE}\\s*\\(`).test(
      path[top].text.slice(op.call.node.endIndex - path[top].startIndex),
    )
      ? isBareStatement(syntax, path.slice(0, top + 1), path[top])
      : undefined;
  }
  const name = receiver.text;
  if (!/^[$\w]+$/.test(name)) return undefined;
  // Ruby: `redis.pipelined do |pipe| ... end`: the batch's replies are the block call's value.
  for (let i = path.length - 2; i > 0; i--) {
    if (
      !/block/.test(path[i].type) ||
      !identifierPattern(name).test(path[i].childForFieldName('parameters')?.text ?? '')
    )
      continue;
    const call = syntax.call(path[i - 1]);
    return call && /^(?:pipelined|multi)$/.test(call.nameNode.text)
      ? isBareStatement(syntax, path.slice(0, i), path[i - 1])
      : undefined;
  }
  if (
    !TRANSACTION.test(name) &&
    !new RegExp(
      `\\b${name.replace(/\$/g, '\\$')}\\s*:?=\\s*[^\\n]*(?:pipeline|multi|transaction|batch|pipelined)`,
      'i',
    ).test(fn.text)
  )
    return undefined;
  // Go's `renewals[i] = pipe.PExpire(...)`, C#'s `var renewed = tran.KeyExpireAsync(...)`: the reply is kept.
  if (replyKept(path)) return false;
  const escaped = name.replace(/\$/g, '\\$');
  const exec = new RegExp(`(?<![\\w$.])${escaped}\\s*(?:\\.|->)\\s*${EXECUTE}\\s*\\(`, 'g');
  exec.lastIndex = op.call.node.endIndex;
  const found = exec.exec(text);
  if (!found || found.index > fn.endIndex) return undefined;
  const lineStart = text.lastIndexOf('\n', found.index) + 1;
  const lineEnd = text.indexOf('\n', found.index);
  const line = text.slice(lineStart, lineEnd < 0 ? text.length : lineEnd).trim();
  // `pipe.execute()`, `await tx.exec();`, Go's `_, err := pipe.Exec(ctx)` (the commands' replies dropped).
  return (
    new RegExp(`^(?:await\\s+)?${escaped}\\s*(?:\\.|->)\\s*\\w+\\([^()]*\\)\\s*;?$`).test(line) ||
    /^(?:if\s+)?_\s*,\s*\w+\s*:?=/.test(line)
  );
}
