// The command line: `redis-locksmith lint [options] [paths...]`, read strictly: an unknown
// command, option, rule, severity or format is a usage error that names what was wrong and what
// is accepted (exit 2 before anything is read).
import { availableParallelism } from 'node:os';
import { parseArgs } from 'node:util';
import { RULE_CODES, SEVERITIES, type RuleCode, type Severity } from '../catalogue';
import { LANGUAGE_EXTENSIONS, LINTED_LANGUAGES } from '../languages';
import type { RuleOverrides } from './config';

export const FORMATS = ['stylish', 'json', 'sarif'] as const;
export type Format = (typeof FORMATS)[number];

/** What `--fix` applies: fixes (kept meaning), suggestions (changed behaviour, asked for by name). */
export const FIX_TYPES = ['fix', 'suggestion'] as const;
export type FixType = (typeof FIX_TYPES)[number];

export interface LintOptions {
  /** As given; `.` when none. */
  paths: string[];
  format: Format;
  /** The report goes there instead of to stdout. */
  outputFile?: string;
  rules: RuleOverrides;
  /** Warnings allowed before the exit code is 1; -1 for no limit. */
  maxWarnings: number;
  fix: 'no' | 'apply' | 'dry-run';
  /** What --fix and --fix-dry-run apply; fixes only unless --fix-type says otherwise. */
  fixTypes: FixType[];
  /** Threads that analyse files at once. */
  jobs: number;
}

export type Command = { kind: 'help' } | { kind: 'version' } | { kind: 'lint'; options: LintOptions };

export class UsageError extends Error {}

/** The file extensions of the linted languages, as the help and the notices list them. */
export const EXTENSIONS = LINTED_LANGUAGES.flatMap((language) => LANGUAGE_EXTENSIONS[language].map((ext) => `.${ext}`));

export const USAGE = `Usage: redis-locksmith lint [options] [paths...]

Checks Redis lock code in JavaScript, TypeScript, Python, Java, Go, PHP, C#, Ruby and Lua files
with the rules of the Redis Locksmith extension (LOCK001 to LOCK010). Folders are walked for
${EXTENSIONS.join(' ')} files, skipping what
.gitignore lists, .git and node_modules. Default path: the current folder.

Options:
  -f, --format <name>     stylish (default), json or sarif
  -o, --output-file <f>   write the report to a file instead of stdout
  --rule <RULE=severity>  set a rule's severity: error, warning, information, hint or off;
                          repeatable, or comma-separated (--rule LOCK006=off,LOCK003=error);
                          wins over .vscode/settings.json's redisLocksmith.lint.rules
  --max-warnings <n>      exit 1 only when there are more than n warnings (default 0; -1: never)
  --fix                   apply the fixes (each keeps what the code does, minus the race),
                          then report what remains
  --fix-dry-run           print the fixes as a unified diff, change nothing, report as lint does
  --fix-type <types>      what --fix applies: fix (default), suggestion (edits that change
                          behaviour: a lease where there was none, waiting instead of skipping,
                          the project's lock helper, created once), or both: fix,suggestion
  -j, --jobs <n>          analyse on n threads (default: one per processor, at most 8)
  -h, --help              show this help
  -v, --version           print the version

Exit codes: 0 no errors and no more warnings than allowed; 1 errors, or too many warnings;
2 a usage error, a missing path, a broken .vscode/settings.json, or an internal error.
`;

const list = (values: readonly string[]) => `${values.slice(0, -1).join(', ')} or ${values.at(-1)}`;

function parseRules(specs: readonly string[]): RuleOverrides {
  const rules: RuleOverrides = {};
  for (const spec of specs.flatMap((each) => each.split(','))) {
    const match = /^\s*([^=:\s]+)\s*[=:]\s*(\S+)\s*$/.exec(spec);
    if (!match) throw new UsageError(`--rule ${spec}: write RULE=severity, e.g. --rule LOCK006=off`);
    const code = match[1].toUpperCase();
    const severity = match[2].toLowerCase();
    if (!(RULE_CODES as readonly string[]).includes(code))
      throw new UsageError(
        `--rule ${spec}: unknown rule ${match[1]} (the rules are ${RULE_CODES[0]} to ${RULE_CODES.at(-1)})`,
      );
    if (!(SEVERITIES as readonly string[]).includes(severity))
      throw new UsageError(`--rule ${spec}: unknown severity ${match[2]} (use ${list(SEVERITIES)})`);
    rules[code as RuleCode] = severity as Severity;
  }
  return rules;
}

function parseFixTypes(specs: readonly string[]): FixType[] {
  const types = specs.flatMap((each) => each.split(',')).map((each) => each.trim().toLowerCase());
  for (const type of types)
    if (!(FIX_TYPES as readonly string[]).includes(type))
      throw new UsageError(`--fix-type ${type}: unknown type (use ${list(FIX_TYPES)}, or both: fix,suggestion)`);
  return types.length ? [...new Set(types as FixType[])] : ['fix'];
}

function parseJobs(value: string | undefined): number {
  if (value === undefined) return availableParallelism();
  if (!/^[1-9]\d*$/.test(value.trim())) throw new UsageError(`--jobs ${value}: give a number of threads, 1 or more`);
  return Number(value);
}

function parseMaxWarnings(value: string | undefined): number {
  if (value === undefined) return 0;
  if (!/^(-1|\d+)$/.test(value.trim()))
    throw new UsageError(`--max-warnings ${value}: give a whole number of warnings, or -1 for no limit`);
  return Number(value);
}

const OPTIONS = {
  format: { type: 'string', short: 'f' },
  'output-file': { type: 'string', short: 'o' },
  rule: { type: 'string', multiple: true },
  'max-warnings': { type: 'string' },
  fix: { type: 'boolean' },
  'fix-dry-run': { type: 'boolean' },
  'fix-type': { type: 'string', multiple: true },
  jobs: { type: 'string', short: 'j' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'v' },
} as const;

/** Node's parseArgs errors, said the way the rest of the CLI says things. */
function explain(error: NodeJS.ErrnoException): UsageError {
  const quoted = /'([^']+)'/.exec(error.message)?.[1] ?? '';
  switch (error.code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION':
      return new UsageError(`unknown option ${quoted} (redis-locksmith lint --help lists them)`);
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE':
      // "Option '-f, --format <value>' argument missing": name the long form.
      return new UsageError(
        `option ${/--[\w-]+/.exec(quoted)?.[0] ?? quoted} needs a value (redis-locksmith lint --help)`,
      );
    default:
      return new UsageError(error.message);
  }
}

export function parseCommand(argv: readonly string[]): Command {
  const [command, ...rest] = argv;
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') return { kind: 'help' };
  if (command === '--version' || command === '-v') return { kind: 'version' };
  if (command !== 'lint')
    throw new UsageError(`unknown command ${command}: the command is lint (redis-locksmith lint --help)`);
  // `--max-warnings -1`: parseArgs would take the -1 for an option.
  const args = rest.flatMap((arg, i) =>
    arg === '--max-warnings' && /^-\d+$/.test(rest[i + 1] ?? '')
      ? [`${arg}=${rest[i + 1]}`]
      : i > 0 && rest[i - 1] === '--max-warnings' && /^-\d+$/.test(arg)
        ? []
        : [arg],
  );
  let parsed;
  try {
    parsed = parseArgs({ args, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    throw explain(error as NodeJS.ErrnoException);
  }
  const { values, positionals } = parsed;
  if (values.help) return { kind: 'help' };
  if (values.version) return { kind: 'version' };
  const format = values.format ?? 'stylish';
  if (!(FORMATS as readonly string[]).includes(format))
    throw new UsageError(`--format ${format}: unknown format (use ${list(FORMATS)})`);
  if (values.fix && values['fix-dry-run'])
    throw new UsageError('--fix and --fix-dry-run together: choose one (--fix-dry-run only shows what --fix would do)');
  const fixTypes = parseFixTypes(values['fix-type'] ?? []);
  if (values['fix-type'] && !values.fix && !values['fix-dry-run'])
    throw new UsageError('--fix-type says what --fix applies: give --fix or --fix-dry-run with it');
  if (values['fix-dry-run'] && format !== 'stylish' && !values['output-file'])
    throw new UsageError(
      `--fix-dry-run prints the diff on stdout: send the ${format} report to a file with --output-file`,
    );
  return {
    kind: 'lint',
    options: {
      paths: positionals.length ? positionals : ['.'],
      format: format as Format,
      ...(values['output-file'] !== undefined && { outputFile: values['output-file'] }),
      rules: parseRules(values.rule ?? []),
      maxWarnings: parseMaxWarnings(values['max-warnings']),
      fix: values.fix ? 'apply' : values['fix-dry-run'] ? 'dry-run' : 'no',
      fixTypes,
      jobs: parseJobs(values.jobs),
    },
  };
}
