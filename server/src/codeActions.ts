// The code actions of a range of a checked document: each finding's fix (a quick fix marked
// preferred, so "Fix all" and fix-on-save take it), its suggestions (quick fixes that are not
// preferred, named for what they change), and "Explain LOCK00N". The edits follow the document's
// line breaks. LSP shapes only; what to do comes from fixes/plan.ts.
import type { CodeAction, Diagnostic, Range, WorkspaceEdit } from 'vscode-languageserver';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import { pathToFileURL } from 'node:url';
import type { Finding } from './analysis';
import { EXPLAIN_COMMAND } from './catalogue';
import { classAt, convertClass } from './fixes/classRefactor';
import { planRemedies, type FixEnvironment } from './fixes/plan';
import type { Remedy } from './fixes/remedy';
import type { FileChange } from './lockFix';

/** The LSP kinds (CodeActionKind.QuickFix, RefactorRewrite), spelled out to keep this module free of the server runtime. */
const QUICK_FIX = 'quickfix';
const REFACTOR_REWRITE = 'refactor.rewrite';

export interface CodeActionRequest {
  document: TextDocument;
  /** The document's findings (of its current version). */
  findings: readonly Finding[];
  range: Range;
  /** The diagnostics the client sent with the request (ours and others'). */
  diagnostics: readonly Diagnostic[];
  /** The diagnostics' source: only ours are answered. */
  source: string;
  environment: FixEnvironment;
  /** A client command run after a fix was applied (the extension's walkthrough step). */
  fixAppliedCommand?: string;
}

const before = (a: Range['start'], b: Range['start']) =>
  a.line < b.line || (a.line === b.line && a.character < b.character);
const overlaps = (a: Range, b: Range) => !(before(a.end, b.start) || before(b.end, a.start));

export async function codeActionsFor(request: CodeActionRequest): Promise<CodeAction[]> {
  const { document, range, source } = request;
  const rangeOf = (start: number, end: number): Range => ({
    start: document.positionAt(start),
    end: document.positionAt(end),
  });
  const ours = request.diagnostics.filter((diagnostic) => diagnostic.source === source);
  const wanted = new Set(ours.map((diagnostic) => String(diagnostic.code)));
  const findings = request.findings.filter(
    (finding) =>
      overlaps(rangeOf(finding.start, finding.end), range) && (wanted.size === 0 || wanted.has(finding.code)),
  );
  const refactor = await classConversion(request);
  if (!findings.length) return refactor;
  const remedies = await planRemedies(document.languageId, document.getText(), findings, request.environment);
  const actions: CodeAction[] = [];
  const offered = new Set<string>();
  for (const { finding, fix, suggestions } of remedies) {
    const diagnostic = ours.find(
      (each) => each.code === finding.code && overlaps(each.range, rangeOf(finding.start, finding.end)),
    );
    const attach = diagnostic ? { diagnostics: [diagnostic] } : {};
    for (const remedy of [...(fix ? [fix] : []), ...suggestions]) {
      if (offered.has(remedy.id)) continue;
      offered.add(remedy.id);
      actions.push({
        title: remedy.title,
        kind: QUICK_FIX,
        isPreferred: remedy.kind === 'fix',
        ...attach,
        edit: toWorkspaceEdit(remedy, document),
        ...(request.fixAppliedCommand && {
          command: { title: 'Lock fix applied', command: request.fixAppliedCommand },
        }),
      });
    }
    actions.push({
      title: `Explain ${finding.code}`,
      kind: QUICK_FIX,
      ...attach,
      command: { title: `Explain ${finding.code}`, command: EXPLAIN_COMMAND, arguments: [finding.code] },
    });
  }
  return [...actions, ...refactor];
}

/** "Convert this lock class to the lock helper", on a class that has findings. */
async function classConversion({ document, range, findings, environment }: CodeActionRequest): Promise<CodeAction[]> {
  const text = document.getText();
  const name = findings.length ? await classAt(document.languageId, text, document.offsetAt(range.start)) : undefined;
  const converted = name && (await convertClass(document.languageId, text, name, environment));
  if (!converted) return [];
  const remedy: Remedy = { kind: 'suggestion', title: converted.title, id: 'class', changes: () => converted.changes };
  return [{ title: converted.title, kind: REFACTOR_REWRITE, edit: toWorkspaceEdit(remedy, document) }];
}

const eolOf = (text: string) => (text.includes('\r\n') ? '\r\n' : '\n');
/** Inserted text with the document's line breaks (VS Code adapts them; other editors write what they get). */
const withEol = (text: string, eol: string) => (eol === '\n' ? text : text.replace(/\r?\n/g, eol));

/** A remedy as an LSP edit: new files (the helper) first, then the document's edits. */
function toWorkspaceEdit(remedy: Remedy, document: TextDocument): WorkspaceEdit {
  const eol = eolOf(document.getText());
  const documentEdits = (edits: { start: number; end: number; text: string }[]) =>
    edits.map((edit) => ({
      range: { start: document.positionAt(edit.start), end: document.positionAt(edit.end) },
      newText: withEol(edit.text, eol),
    }));
  const changes: FileChange[] = remedy.changes();
  const created = changes.flatMap((change) => ('create' in change ? [change] : []));
  const own = changes.flatMap((change) => ('edits' in change ? change.edits : []));
  if (!created.length) return { changes: { [document.uri]: documentEdits(own) } };
  return {
    documentChanges: [
      ...created.flatMap((change) => {
        const target = pathToFileURL(change.path).href;
        return [
          { kind: 'create' as const, uri: target, options: { overwrite: false, ignoreIfExists: false } },
          {
            textDocument: { uri: target, version: null },
            edits: [
              { range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, newText: change.create },
            ],
          },
        ];
      }),
      { textDocument: { uri: document.uri, version: document.version }, edits: documentEdits(own) },
    ],
  };
}
