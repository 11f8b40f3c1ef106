// A connection's lock history as the Lock Timeline draws it. Pure.
import type { Hold } from '../locks/history';
import type { TimelineHold } from './protocol';

export function timelineHold(hold: Hold): TimelineHold {
  return {
    id: hold.id,
    key: hold.key,
    owner: hold.owner,
    token: hold.token,
    from: hold.from,
    ...(hold.to !== undefined && { to: hold.to }),
    ...(hold.end && { end: hold.end }),
    extensions: [...hold.extensions],
    ...(hold.leaseMs !== undefined && { leaseMs: hold.leaseMs }),
    approximate: hold.approximate,
    ...(hold.startUnseen && { startUnseen: { ...hold.startUnseen } }),
  };
}
