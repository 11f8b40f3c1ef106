// The client libraries snippets exist for. Each one's code lives in templates/<id>/<pattern>.<ext>.
export interface ClientInfo {
  id: string;
  library: string;
  language: string;
  /** Extension of its template files. */
  extension: string;
  /** VS Code language ids whose files this client's snippets are for. */
  languageIds: string[];
  /** One line for the client picker. */
  description: string;
  /** A string literal of `text` in the client's language. */
  quote(text: string): string;
  /** What the body slot shows until the user types the guarded code. */
  defaultBody: string;
}

const doubleQuoted = (text: string) => JSON.stringify(text);
const singleQuoted = (text: string) => `'${text.replace(/[\\']/g, (char) => `\\${char}`)}'`;
const JS_IDS = ['javascript', 'javascriptreact', 'typescript', 'typescriptreact'];

export const CLIENTS: readonly ClientInfo[] = [
  {
    id: 'ioredis',
    library: 'ioredis',
    language: 'JavaScript/TypeScript',
    extension: 'js',
    languageIds: JS_IDS,
    description: 'ioredis: defineCommand runs the scripts with EVALSHA and reloads them on NOSCRIPT',
    quote: singleQuoted,
    defaultBody: '// critical section: only one holder runs this at a time',
  },
  {
    id: 'redis-py',
    library: 'redis-py',
    language: 'Python',
    extension: 'py',
    languageIds: ['python'],
    description: 'redis-py: register_script (EVALSHA, loads on NOSCRIPT); asyncio works the same with await',
    quote: doubleQuoted,
    defaultBody: 'pass  # critical section: only one holder runs this at a time',
  },
];
