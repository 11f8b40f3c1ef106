// Script replies checked against the pack's contract: the `@reply` lines of each script's header.
// A reply none of them declares (another script under the name, a proxy that rewrites replies)
// is a ScriptReplyError naming the script and the reply, never a number cast on trust.
import type { ReplyShape, ScriptDescriptor } from './pack';

/** What the pack's scripts answer: an integer, or an array of integers. */
export type ScriptReply = number | ScriptReply[];

export class ScriptReplyError extends Error {
  override name = 'ScriptReplyError';

  constructor(
    readonly script: string,
    readonly reply: unknown,
    declared: readonly string[],
  ) {
    super(
      `${script}.lua replied ${describeReply(reply)}, which is none of the replies its header declares (${declared.join(', ')}): ` +
        'the server ran something other than the pack',
    );
  }
}

function matches(shape: ReplyShape, reply: unknown): reply is ScriptReply {
  if (Array.isArray(shape)) {
    return Array.isArray(reply) && reply.length === shape.length && shape.every((item, i) => matches(item, reply[i]));
  }
  return typeof reply === 'number' && Number.isInteger(reply) && reply >= shape.min && reply <= shape.max;
}

/** `reply` when one of the script's declared replies matches it; else a ScriptReplyError. */
export function checkedReply(script: ScriptDescriptor, reply: unknown): ScriptReply {
  for (const { shape } of script.replies) if (matches(shape, reply)) return reply;
  throw new ScriptReplyError(
    script.name,
    reply,
    script.replies.map(({ value }) => value),
  );
}

/** The integer reply of `script`, checked (a script that may answer an array gets a ScriptReplyError here). */
export function integerReply(script: ScriptDescriptor, reply: unknown): number {
  const checked = checkedReply(script, reply);
  if (typeof checked === 'number') return checked;
  throw new ScriptReplyError(script.name, reply, ['an integer']);
}

/** The array reply of `script`, checked, as integers. */
export function integersReply(script: ScriptDescriptor, reply: unknown): number[] {
  const checked = checkedReply(script, reply);
  if (Array.isArray(checked) && checked.every((item): item is number => typeof item === 'number')) return checked;
  throw new ScriptReplyError(script.name, reply, ['an array of integers']);
}

function describeReply(reply: unknown): string {
  if (Buffer.isBuffer(reply)) return `the bytes ${JSON.stringify(reply.toString('latin1').slice(0, 40))}`;
  if (Array.isArray(reply)) return `[${reply.map(describeReply).join(', ')}]`;
  if (typeof reply === 'string') return JSON.stringify(reply.slice(0, 40));
  return String(reply);
}
