// SARIF 2.1.0, the format code-scanning services read (GitHub's upload-sarif among them): the
// rules with their titles, their sections of docs/rules.md and links, then one result per
// problem, located by a path relative to the folder the command ran in (%SRCROOT%), 1-based
// lines and UTF-16 columns. Skipped files and errors of the run are the invocation's
// notifications.
import { pathToFileURL } from 'node:url';
import { RULE_CODES } from '../../catalogue';
import type { Notice, ReportedSeverity } from '../lint';
import type { Place } from '../positions';
import { shown, type Report } from '../report';

const LEVEL: Record<ReportedSeverity, 'error' | 'warning' | 'note'> = {
  error: 'error',
  warning: 'warning',
  information: 'note',
  hint: 'note',
};

const SCHEMA = 'https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json';
const ROOT = '%SRCROOT%';

/** `Lock taken with NX and no expiry` -> `LockTakenWithNxAndNoExpiry`. */
const pascalName = (title: string) =>
  title
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((word) => word[0].toUpperCase() + word.slice(1).toLowerCase())
    .join('');

/** A relative URI: each path segment percent-encoded. */
const uriOf = (path: string) => path.split('/').map(encodeURIComponent).join('/');

function location(report: Report, path: string, start?: Place, end?: Place) {
  return {
    physicalLocation: {
      artifactLocation: { uri: uriOf(shown(report, path)), uriBaseId: ROOT },
      ...(start && {
        region: {
          startLine: start.line,
          startColumn: start.column,
          ...(end && { endLine: end.line, endColumn: end.column }),
        },
      }),
    },
  };
}

function notification(report: Report, notice: Notice, level: 'error' | 'warning') {
  return { level, message: { text: notice.message }, locations: [location(report, notice.path, notice.place)] };
}

export function sarif(report: Report): string {
  const { about, errors } = report;
  const rules = RULE_CODES.map((code) => {
    const rule = about.rules.get(code)!;
    return {
      id: code,
      name: pascalName(rule.title),
      shortDescription: { text: rule.title },
      fullDescription: { text: rule.description },
      help: { text: rule.help, markdown: rule.help },
      helpUri: rule.helpUri,
      defaultConfiguration: { level: 'warning' },
      properties: { tags: ['redis', 'locking', 'correctness'] },
    };
  });
  const ruleIndex = new Map(RULE_CODES.map((code, index) => [code, index]));
  const results = report.files.flatMap((file) =>
    file.problems.map((problem) => ({
      ruleId: problem.code,
      ruleIndex: ruleIndex.get(problem.code)!,
      level: LEVEL[problem.severity],
      message: { text: problem.message },
      locations: [location(report, file.path, problem.start, problem.end)],
      properties: { fixable: problem.fixable, suggestions: problem.suggestions },
    })),
  );
  const log = {
    $schema: SCHEMA,
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: about.displayName,
            informationUri: about.repository,
            version: about.version,
            semanticVersion: about.version,
            rules,
          },
        },
        invocations: [
          {
            executionSuccessful: errors.length === 0,
            toolExecutionNotifications: [
              ...errors.map((error) => notification(report, error, 'error')),
              ...report.notices.map((notice) => notification(report, notice, 'warning')),
            ],
          },
        ],
        originalUriBaseIds: { [ROOT]: { uri: `${pathToFileURL(report.cwd).href.replace(/\/?$/, '/')}` } },
        columnKind: 'utf16CodeUnits',
        results,
      },
    ],
  };
  return `${JSON.stringify(log, null, 2)}\n`;
}
