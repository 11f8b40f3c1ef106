// A connection's lock history written out for a ticket or a spreadsheet: JSON (every hold with
// its extensions, and the gaps nobody observed) or CSV (one row per hold). Pure.
import type { Hold, ObservationGap } from './history';

const iso = (ms: number | undefined) => (ms === undefined ? '' : new Date(ms).toISOString());

export function historyJson(
  connection: string,
  holds: readonly Hold[],
  gaps: readonly ObservationGap[],
  exportedAt: number,
): string {
  return JSON.stringify(
    {
      connection,
      exportedAt: iso(exportedAt),
      holds: holds.map((hold) => ({
        key: hold.key,
        owner: hold.owner,
        token: hold.token,
        acquiredAt: iso(hold.from),
        endedAt: hold.to === undefined ? null : iso(hold.to),
        durationMs: hold.to === undefined ? null : hold.to - hold.from,
        end: hold.end ?? null,
        extensions: hold.extensions.map(iso),
        leaseMs: hold.leaseMs ?? null,
        approximate: hold.approximate,
        // False: already held when first seen, so `acquiredAt` is when it was first seen.
        startSeen: !hold.startUnseen,
      })),
      gaps: gaps.map((gap) => ({
        from: iso(gap.from),
        to: gap.to === undefined ? null : iso(gap.to),
        reason: gap.reason,
      })),
    },
    null,
    2,
  );
}

/** RFC 4180: quoted when it holds a comma, quote or line break; a leading = + - @ is defused for spreadsheets. */
function csvField(value: string | number | boolean): string {
  let text = String(value);
  if (/^[=+\-@]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function historyCsv(holds: readonly Hold[]): string {
  const header = [
    'key',
    'owner',
    'token',
    'acquired_at',
    'ended_at',
    'duration_ms',
    'end',
    'extensions',
    'lease_ms',
    'approximate',
    'start_seen',
  ];
  const rows = holds.map((hold) =>
    [
      hold.key,
      hold.owner,
      hold.token,
      iso(hold.from),
      iso(hold.to),
      hold.to === undefined ? '' : hold.to - hold.from,
      hold.end ?? '',
      hold.extensions.length,
      hold.leaseMs ?? '',
      hold.approximate,
      !hold.startUnseen,
    ]
      .map(csvField)
      .join(','),
  );
  return `${[header.join(','), ...rows].join('\r\n')}\r\n`;
}
