// The walkthrough's lint step: an unsaved Python file with the two mistakes the seed articles
// start from (SETNX then EXPIRE, and a blind DEL), for the linter to flag and fix.
import * as vscode from 'vscode';
import type { Cmd } from '../ctx';

const EXAMPLE = `import redis

r = redis.Redis()


def rebuild_report(report_id):
    key = f"lock:report:{report_id}"
    # SETNX, then EXPIRE in a second round trip: a crash in between leaves the lock forever.
    if r.setnx(key, "1"):
        r.expire(key, 30)
        build(report_id)
        # A blind DEL: if the lease ran out and another worker took the lock, this deletes theirs.
        r.delete(key)


def build(report_id):
    print("building", report_id)
`;

export function showLintExample(): Cmd {
  return async () => {
    const document = await vscode.workspace.openTextDocument({ language: 'python', content: EXAMPLE });
    await vscode.window.showTextDocument(document);
    return document.uri.toString();
  };
}
