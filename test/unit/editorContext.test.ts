import { strict as assert } from 'node:assert';
import { renderInjection } from '../../src/core/conversation/injections';
import {
  isExcluded,
  isPanelScheme,
  looksLikeSecret,
  MAX_SELECTION_CHARS,
  nameDocument,
  sameSelection,
  selectionInjection,
} from '../../src/host/editorContext';

const file = (rel: string | undefined, fsPath = `/w/${rel ?? 'outside.ts'}`) => ({
  scheme: 'file',
  uriPath: fsPath,
  fsPath,
  ...(rel === undefined ? {} : { workspaceRelative: rel }),
});

describe('editor context helpers', () => {
  it("never takes the Output panel or the extension's own documents (a proposed diff, an original) for the user's editor", () => {
    for (const scheme of ['output', 'context-pipeline-proposed', 'context-pipeline-record'])
      assert.equal(isPanelScheme(scheme), true, scheme);
    for (const scheme of ['file', 'untitled', 'vscode-remote']) assert.equal(isPanelScheme(scheme), false, scheme);
  });

  describe('looksLikeSecret', () => {
    for (const p of [
      '.env',
      '.env.local',
      'config/.env.production',
      'id_rsa',
      'home/.ssh/id_ed25519',
      'certs/server.pem',
      'a\\b\\tls.key',
      'store.p12',
      '.npmrc',
      '.netrc',
      'keys/app.JKS',
    ]) {
      it(`flags ${p}`, () => assert.ok(looksLikeSecret(p)));
    }
    for (const p of [
      'src/env.ts',
      'environment.md',
      'src/keyboard.ts',
      'id_rsa.pub.md',
      'docs/.envrc.md',
      'monkey.ts',
      'Untitled-1 (unsaved)',
    ]) {
      it(`lets ${p} through`, () => assert.ok(!looksLikeSecret(p)));
    }
  });

  describe('isExcluded (files.exclude)', () => {
    const exclude = {
      '**/node_modules': true,
      '**/*.log': true,
      'build/': true,
      dist: true,
      'secret/**': true,
      '**/*.tmp': false,
      '**/*.js': { when: '$(basename).ts' },
    };
    it('matches files by glob', () => {
      assert.ok(isExcluded('debug.log', exclude, false));
      assert.ok(isExcluded('logs/deep/x.log', exclude, false));
      assert.ok(isExcluded('secret/a/b.txt', exclude, false));
    });
    it('hides everything below an excluded folder', () => {
      assert.ok(isExcluded('node_modules/pkg/index.js', exclude, false));
      assert.ok(isExcluded('packages/a/node_modules/x.ts', exclude, false));
      assert.ok(isExcluded('dist/main.js', exclude, false));
    });
    it('ignores disabled entries and when-clauses, and matches case as told', () => {
      assert.ok(!isExcluded('a.tmp', exclude, false));
      assert.ok(!isExcluded('src/greet.js', exclude, false));
      assert.ok(!isExcluded('distribution/x.ts', exclude, false));
      assert.ok(!isExcluded('DEBUG.LOG'.replace('.LOG', '.Log'), { '**/*.log': true }, false));
      assert.ok(isExcluded('DEBUG.Log', { '**/*.log': true }, true));
      assert.ok(!isExcluded('anything.ts', {}, false));
    });
    it('treats dot-files like other files', () => assert.ok(isExcluded('.cache/x', { '.cache': true }, false)));
  });

  describe('nameDocument', () => {
    it('names workspace files by their relative path and outside files by their full path', () => {
      assert.deepEqual(nameDocument(file('src/greet.js')), { ok: true, path: 'src/greet.js' });
      assert.deepEqual(nameDocument(file(undefined, '/etc/hosts')), { ok: true, path: '/etc/hosts' });
    });
    it('names untitled documents as unsaved', () => {
      assert.deepEqual(nameDocument({ scheme: 'untitled', uriPath: 'Untitled-1', fsPath: 'Untitled-1' }), {
        ok: true,
        path: 'Untitled-1 (unsaved)',
      });
      assert.deepEqual(nameDocument({ scheme: 'untitled', uriPath: '/w/notes.md', fsPath: '/w/notes.md' }), {
        ok: true,
        path: 'notes.md (unsaved)',
      });
    });
    it('skips non-file editors, secrets and excluded files', () => {
      for (const scheme of ['output', 'git', 'vscode-userdata', 'vscode-settings', 'walkThrough']) {
        assert.deepEqual(nameDocument({ scheme, uriPath: '/x', fsPath: '/x' }), {
          ok: false,
          reason: 'non-file editor',
        });
      }
      assert.deepEqual(nameDocument(file('.env')), { ok: false, reason: 'secret-looking file' });
      assert.deepEqual(nameDocument(file(undefined, '/home/u/.ssh/id_rsa')), {
        ok: false,
        reason: 'secret-looking file',
      });
      assert.deepEqual(nameDocument({ scheme: 'untitled', uriPath: '/w/.env', fsPath: '/w/.env' }), {
        ok: false,
        reason: 'secret-looking file',
      });
      assert.deepEqual(nameDocument(file('node_modules/a/index.js'), { '**/node_modules': true }), {
        ok: false,
        reason: 'excluded by files.exclude',
      });
      assert.deepEqual(
        nameDocument(file(undefined, '/elsewhere/node_modules/a.js'), { '**/node_modules': true }),
        { ok: true, path: '/elsewhere/node_modules/a.js' },
        'files.exclude applies inside the workspace only',
      );
    });
  });

  describe('selectionInjection', () => {
    it('uses 1-based inclusive lines; a selection ending at column 0 does not count that line', () => {
      assert.deepEqual(selectionInjection('a.ts', { startLine: 0, endLine: 2, endCharacter: 0, text: 'l1\nl2\n' }), {
        kind: 'ide_selection',
        path: 'a.ts',
        startLine: 1,
        endLine: 2,
        text: 'l1\nl2\n',
      });
      assert.equal(selectionInjection('a.ts', { startLine: 4, endLine: 4, endCharacter: 3, text: 'abc' })?.endLine, 5);
      assert.equal(selectionInjection('a.ts', { startLine: 4, endLine: 4, endCharacter: 0, text: 'x' })?.endLine, 5);
    });
    it('drops empty and whitespace-only selections', () => {
      assert.equal(selectionInjection('a.ts', { startLine: 0, endLine: 0, endCharacter: 0, text: '' }), undefined);
      assert.equal(
        selectionInjection('a.ts', { startLine: 0, endLine: 1, endCharacter: 2, text: '  \n\t' }),
        undefined,
      );
    });
    it('truncates beyond the limit and says how much is missing', () => {
      const text = 'x'.repeat(MAX_SELECTION_CHARS + 1234);
      const inj = selectionInjection('big.ts', { startLine: 0, endLine: 9, endCharacter: 1, text });
      assert.ok(inj);
      assert.equal(inj.text.length, MAX_SELECTION_CHARS);
      assert.equal(inj.truncatedChars, 1234);
      assert.match(renderInjection(inj), /\[Selection truncated: 1,234 more characters not shown\.\]/);
      const small = selectionInjection(
        's.ts',
        { startLine: 0, endLine: 0, endCharacter: 5, text: 'hello' },
        { maxChars: 3 },
      );
      assert.deepEqual([small?.text, small?.truncatedChars], ['hel', 2]);
      assert.ok(
        !(
          'truncatedChars' in
          (selectionInjection('s.ts', { startLine: 0, endLine: 0, endCharacter: 5, text: 'hello' }) ?? {})
        ),
      );
    });
    it('marks pins, and compares selections regardless of the mark', () => {
      const pin = selectionInjection(
        'a.ts',
        { startLine: 0, endLine: 0, endCharacter: 2, text: 'ab' },
        { pinned: true },
      );
      const plain = selectionInjection('a.ts', { startLine: 0, endLine: 0, endCharacter: 2, text: 'ab' });
      assert.ok(pin && plain);
      assert.equal(pin.pinned, true);
      assert.ok(!('pinned' in plain));
      assert.ok(sameSelection(pin, plain));
      assert.ok(!sameSelection(pin, { ...plain, endLine: 2 }));
      assert.ok(!sameSelection({ kind: 'ide_opened_file', path: 'a.ts' }, plain));
    });
  });
});
