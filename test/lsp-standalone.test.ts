// The language server from the npm package, driven over stdio the way Neovim or Helix drive it:
// raw JSON-RPC with Content-Length headers, settings pushed (no workspace/configuration),
// didOpen, the publishDiagnostics that follow, codeAction for the fix and Explain, and
// window/showDocument answered by the client.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { after, before, test } from 'node:test';
import { ensureNpmPackage, installNpmPackage, removeInstalls } from '../harness/npmPackage';

interface Message {
  id?: number;
  method?: string;
  params?: unknown;
  result?: unknown;
  error?: { message: string };
}

/** A minimal LSP client: what an editor's client does on the wire, and nothing from VS Code. */
class WireClient {
  private buffer = Buffer.alloc(0);
  private nextId = 1;
  private readonly pending = new Map<number, (message: Message) => void>();
  private readonly notifications: Message[] = [];
  private readonly listeners: Array<() => void> = [];
  readonly requests: Message[] = [];

  constructor(readonly server: ChildProcess) {
    server.stdout!.on('data', (chunk: Buffer) => {
      this.buffer = Buffer.concat([this.buffer, chunk]);
      for (;;) {
        const end = this.buffer.indexOf('\r\n\r\n');
        if (end < 0) return;
        const length = Number(/Content-Length: (\d+)/i.exec(this.buffer.subarray(0, end).toString('ascii'))?.[1]);
        if (this.buffer.length < end + 4 + length) return;
        const message = JSON.parse(this.buffer.subarray(end + 4, end + 4 + length).toString('utf8')) as Message;
        this.buffer = this.buffer.subarray(end + 4 + length);
        this.receive(message);
      }
    });
  }

  private receive(message: Message): void {
    if (message.method && message.id !== undefined) {
      // A request from the server: showDocument succeeds, anything else is not supported here.
      this.requests.push(message);
      const reply = message.method === 'window/showDocument' ? { result: { success: true } } : { result: null };
      this.write({ id: message.id, ...reply });
    } else if (message.method) {
      this.notifications.push(message);
    } else if (message.id !== undefined) {
      this.pending.get(message.id)?.(message);
      this.pending.delete(message.id);
    }
    for (const listener of this.listeners.splice(0)) listener();
  }

  private write(message: object): void {
    const body = Buffer.from(JSON.stringify({ jsonrpc: '2.0', ...message }), 'utf8');
    this.server.stdin!.write(Buffer.concat([Buffer.from(`Content-Length: ${body.length}\r\n\r\n`, 'ascii'), body]));
  }

  request<T>(method: string, params: unknown): Promise<T> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, (message) =>
        message.error ? reject(new Error(`${method}: ${message.error.message}`)) : resolve(message.result as T),
      );
      this.write({ id, method, params });
    });
  }

  notify(method: string, params: unknown): void {
    this.write({ method, params });
  }

  /** The first notification (from now on, or already received and not yet taken) that `matches`. */
  async notification(matches: (message: Message) => boolean): Promise<Message> {
    for (;;) {
      const at = this.notifications.findIndex(matches);
      if (at >= 0) return this.notifications.splice(at, 1)[0];
      await new Promise<void>((resolve) => this.listeners.push(resolve));
    }
  }
}

interface Diagnostic {
  range: { start: { line: number; character: number }; end: { line: number; character: number } };
  severity: number;
  code: string;
  codeDescription?: { href: string };
  source: string;
}

interface CodeAction {
  title: string;
  kind: string;
  edit?: { documentChanges?: Array<{ kind?: string; uri?: string; textDocument?: { uri: string } }> };
  command?: { command: string; arguments: unknown[] };
}

/** SETNX, then EXPIRE, then a blind DEL, with a constant value: LOCK001, LOCK006 and LOCK003. */
const UNSAFE = readFileSync(join(__dirname, 'fixtures', 'report_job.py'), 'utf8');

let project: string;
let client: WireClient;
let exited: Promise<number | null>;

before(async () => {
  project = await installNpmPackage(await ensureNpmPackage());
  mkdirSync(join(project, 'src'));
  writeFileSync(join(project, 'requirements.txt'), 'redis\n');
  const server = spawn(join(project, 'node_modules', '.bin', 'redis-locksmith-language-server'), ['--stdio'], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  exited = new Promise((resolve) => server.once('exit', resolve));
  client = new WireClient(server);
});

after(() => {
  client.server.kill();
  removeInstalls();
});

const root = () => pathToFileURL(project).href;
const job = () => pathToFileURL(join(project, 'src', 'report_job.py')).href;

test('initialize: the server names itself and offers incremental sync, quick fixes and Explain', async () => {
  const result = await client.request<{
    serverInfo: { name: string };
    capabilities: {
      textDocumentSync: { change: number };
      codeActionProvider: { codeActionKinds: string[] };
      executeCommandProvider: { commands: string[] };
    };
  }>('initialize', {
    processId: process.pid,
    clientInfo: { name: 'a plain LSP client' },
    rootUri: root(),
    workspaceFolders: [{ uri: root(), name: 'project' }],
    capabilities: {
      workspace: { workspaceEdit: { documentChanges: true, resourceOperations: ['create'] } },
      textDocument: { publishDiagnostics: {}, codeAction: {} },
      window: { showDocument: { support: true } },
    },
  });
  assert.equal(result.serverInfo.name, 'redis-locksmith');
  assert.equal(result.capabilities.textDocumentSync.change, 2);
  assert.deepEqual(result.capabilities.codeActionProvider.codeActionKinds, ['quickfix', 'refactor.rewrite']);
  assert.deepEqual(result.capabilities.executeCommandProvider.commands, ['locksmith.server.explainRule']);
  client.notify('initialized', {});
  // An editor without workspace/configuration pushes the settings.
  client.notify('workspace/didChangeConfiguration', {
    settings: { redisLocksmith: { lint: { rules: { LOCK006: 'error' } } } },
  });
});

let diagnostics: Diagnostic[];

test('didOpen: the diagnostics follow, with the pushed severity and links into the installed rules page', async () => {
  client.notify('textDocument/didOpen', {
    textDocument: { uri: job(), languageId: 'python', version: 1, text: UNSAFE },
  });
  const published = await client.notification(
    (message) =>
      message.method === 'textDocument/publishDiagnostics' &&
      (message.params as { uri: string; diagnostics: unknown[] }).uri === job() &&
      (message.params as { diagnostics: unknown[] }).diagnostics.length > 0,
  );
  diagnostics = (published.params as { diagnostics: Diagnostic[] }).diagnostics;
  assert.deepEqual(
    diagnostics.map((d) => `${d.range.start.line}:${d.range.start.character} ${d.code} ${d.severity}`),
    ['7:9 LOCK001 2', '7:9 LOCK006 1', '10:10 LOCK003 2'],
  );
  const page = join(project, 'node_modules', 'redis-locksmith', 'docs', 'rules.md');
  const lines = readFileSync(page, 'utf8').split('\n');
  for (const diagnostic of diagnostics) {
    assert.equal(diagnostic.source, 'Redis Locksmith');
    const [uri, line] = diagnostic.codeDescription!.href.split('#L');
    assert.equal(fileURLToPath(uri), page);
    assert.match(lines[Number(line) - 1], new RegExp(`^## ${diagnostic.code}: `));
  }
});

test('codeAction: the lock fix as one edit that creates the helper, and Explain', async () => {
  const lock001 = diagnostics.find((d) => d.code === 'LOCK001')!;
  const actions = await client.request<CodeAction[]>('textDocument/codeAction', {
    textDocument: { uri: job() },
    range: lock001.range,
    context: { diagnostics: [lock001] },
  });
  const fix = actions.find((action) => action.title.startsWith('Replace with'));
  assert.ok(fix, actions.map((action) => action.title).join(', '));
  assert.equal(fix.kind, 'quickfix');
  const changes = fix.edit?.documentChanges ?? [];
  const helper = pathToFileURL(join(project, 'src', 'locksmith.py')).href;
  assert.deepEqual(changes[0], { kind: 'create', uri: helper, options: { overwrite: false, ignoreIfExists: false } });
  assert.ok(
    changes.some((change) => change.textDocument?.uri === job()),
    'the job itself is edited in the same edit',
  );
  const explain = actions.find((action) => action.title === 'Explain LOCK001');
  assert.deepEqual(explain?.command, {
    title: 'Explain LOCK001',
    command: 'locksmith.server.explainRule',
    arguments: ['LOCK001'],
  });
});

test('Explain asks the editor to show the rule at its heading', async () => {
  await client.request('workspace/executeCommand', { command: 'locksmith.server.explainRule', arguments: ['LOCK003'] });
  const shown = client.requests.find((message) => message.method === 'window/showDocument');
  const params = shown?.params as { uri: string; selection: { start: { line: number } } };
  const page = join(project, 'node_modules', 'redis-locksmith', 'docs', 'rules.md');
  assert.equal(fileURLToPath(params.uri), page);
  assert.match(readFileSync(page, 'utf8').split('\n')[params.selection.start.line], /^## LOCK003: /);
});

test('shutdown and exit: the server leaves with code 0', async () => {
  await client.request('shutdown', null);
  client.notify('exit', null);
  assert.equal(await exited, 0);
});
