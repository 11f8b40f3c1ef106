// Where a call site's import goes in a user's file, and how a file imports an existing helper.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { planImports, unusedGoImports } from '../snippets/imports';
import { helperImportFor } from '../snippets/paths';
import { findClient } from '../snippets/render';

const apply = (source: string, clientId: string, lines: string[]) => {
  const insertion = planImports(findClient(clientId), source, lines);
  return insertion ? source.slice(0, insertion.offset) + insertion.text + source.slice(insertion.offset) : source;
};

describe('planImports', () => {
  test('after the last import; before the first line of code', () => {
    assert.equal(
      apply("import Redis from 'ioredis';\nimport { x } from './x';\n\nconst redis = new Redis();\n", 'ioredis', [
        "import { withLock } from './locksmith';",
      ]),
      "import Redis from 'ioredis';\nimport { x } from './x';\nimport { withLock } from './locksmith';\n\nconst redis = new Redis();\n",
    );
    assert.equal(
      apply('import redis\n\nr = redis.Redis()\nimport late\n', 'redis-py', ['from locksmith import lock']),
      'import redis\nfrom locksmith import lock\n\nr = redis.Redis()\nimport late\n',
      'an import far below the code is not where imports go',
    );
  });

  test('Go: after the import block, or after the package clause', () => {
    assert.equal(
      apply('package jobs\n\nimport (\n\t"context"\n)\n\nfunc Run() {}\n', 'go-redis', [
        'import "example.com/app/internal/locksmith"',
      ]),
      'package jobs\n\nimport (\n\t"context"\n)\nimport "example.com/app/internal/locksmith"\n\nfunc Run() {}\n',
    );
    assert.equal(
      apply('package jobs\n\nfunc Run() {}\n', 'redigo', ['import "m/internal/locksmith"']),
      'package jobs\nimport "m/internal/locksmith"\n\nfunc Run() {}\n',
    );
  });

  test('nothing when the file already imports it; at the top when it imports nothing; CRLF kept', () => {
    assert.equal(
      planImports(findClient('redis-py'), 'from locksmith import lock\nx = 1\n', ['from locksmith import lock']),
      undefined,
    );
    assert.equal(apply('x = 1\n', 'redis-py', ['from locksmith import lock']), 'from locksmith import lock\nx = 1\n');
    assert.equal(
      apply('<?php\r\nuse Redis;\r\n$x = 1;\r\n', 'phpredis', ["require_once __DIR__ . '/Locksmith.php';"]),
      "<?php\r\nuse Redis;\r\nrequire_once __DIR__ . '/Locksmith.php';\r\n$x = 1;\r\n",
    );
  });
});

describe('helperImportFor', () => {
  const input = (path: string, text = '', manifests: { path: string; text: string }[] = []) => ({
    file: { path, text },
    manifests,
  });

  test('JS: a relative specifier, .js for ES modules', () => {
    const helper = { path: 'src/lib/locksmith.ts', text: '' };
    assert.deepEqual(helperImportFor('ioredis', helper, input('src/jobs/report.ts')), {
      helperImport: '../lib/locksmith',
      flavor: 'ts',
    });
    assert.deepEqual(
      helperImportFor(
        'ioredis',
        { path: 'lib/locksmith.js', text: '' },
        input('bin/run.js', '', [{ path: 'package.json', text: '{"type": "module"}' }]),
      ),
      { helperImport: '../lib/locksmith.js', flavor: 'esm' },
    );
  });

  test('Python, Java, Go, C#, PHP, Ruby', () => {
    assert.equal(
      helperImportFor('redis-py', { path: 'app/locksmith.py', text: '' }, input('app/jobs/report.py')).helperImport,
      'app.locksmith',
    );
    assert.equal(
      helperImportFor('redis-py', { path: 'jobs/locksmith.py', text: '' }, input('jobs/report.py')).helperImport,
      'locksmith',
    );
    assert.equal(
      helperImportFor(
        'jedis',
        { path: 'src/a/Locksmith.java', text: 'package com.acme.locks;\n' },
        input('src/b/Job.java', 'package com.acme.jobs;\n'),
      ).helperImport,
      'com.acme.locks',
    );
    assert.equal(
      helperImportFor(
        'jedis',
        { path: 'src/a/Locksmith.java', text: 'package com.acme;\n' },
        input('src/a/Job.java', 'package com.acme;\n'),
      ).helperImport,
      '',
    );
    assert.equal(
      helperImportFor(
        'go-redis',
        { path: 'svc/internal/locksmith/locksmith.go', text: '' },
        input('svc/cmd/run.go', '', [{ path: 'svc/go.mod', text: 'module example.com/svc\n' }]),
      ).helperImport,
      'example.com/svc/internal/locksmith',
    );
    assert.equal(
      helperImportFor(
        'stackexchange',
        { path: 'RedisLock.cs', text: 'namespace Acme.Locks;\n' },
        input('Jobs/Report.cs'),
      ).helperImport,
      'Acme.Locks',
    );
    assert.equal(
      helperImportFor('phpredis', { path: 'lib/Locksmith.php', text: '' }, input('jobs/report.php')).helperImport,
      '../lib/Locksmith.php',
    );
    assert.equal(
      helperImportFor('redis-rb', { path: 'lib/locksmith.rb', text: '' }, input('app/job.rb')).helperImport,
      '../lib/locksmith',
    );
  });
});

describe('unusedGoImports', () => {
  const before = [
    'package jobs',
    '',
    'import (',
    '\t"context"',
    '\t_ "embed"',
    '\tyaml "gopkg.in/yaml.v3"',
    '',
    '\t"github.com/google/uuid"',
    '\t"github.com/redis/go-redis/v9"',
    ')',
    'import "strings"',
    '',
    'func Run(ctx context.Context, rdb *redis.Client) error {',
    '\ttoken := uuid.NewString()',
    '\t_ = yaml.Marshal',
    '\treturn rdb.Set(ctx, strings.ToLower("k"), token, 0).Err()',
    '}',
    '',
  ].join('\n');
  const lines = (text: string, ranges: { start: number; end: number }[]) =>
    ranges.map(({ start, end }) => text.slice(start, end));

  test('the lines of packages only the removed code used, with their line breaks', () => {
    const after = before.replace(/\ttoken := .*\n/, '').replace(/strings\.ToLower\("k"\), token/, '"k", "t"');
    assert.deepEqual(lines(before, unusedGoImports(before, after)), [
      '\t"github.com/google/uuid"\n',
      'import "strings"\n',
    ]);
  });

  test('packages still used (by version suffix, alias or path), blank imports and unchanged files stay', () => {
    assert.deepEqual(unusedGoImports(before, before), []);
    const after = before.replace('\t_ = yaml.Marshal\n', '\t_ = yaml.Unmarshal\n');
    assert.deepEqual(unusedGoImports(before, after), []);
  });
});
