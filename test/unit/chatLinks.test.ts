import { strict as assert } from 'node:assert';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isAllowedLinkHref, MAX_LINK_HREF, parseChatToHost, parseWorkspaceLink } from '../../src/protocol/chat';

describe('chat links (openLink / copy protocol)', () => {
  it('allows http(s) URLs and workspace-relative paths', () => {
    for (const href of [
      'https://www.anthropic.com',
      'http://127.0.0.1:8080/x?y=1#z',
      'HTTPS://example.com/a%20b',
      'src/greet.js',
      './README.md',
      'docs/a%20b.md',
      'src/a.ts#L12',
    ]) {
      assert.ok(isAllowedLinkHref(href), href);
      assert.ok(parseChatToHost({ type: 'openLink', href }).ok, href);
    }
  });

  it('refuses every other scheme, absolute paths, traversal and control characters', () => {
    const bad = [
      '',
      'javascript:alert(1)',
      'JaVaScRiPt:alert(1)',
      'javascript%3Aalert(1)',
      'vbscript:msgbox(1)',
      'data:text/html,<script>alert(1)</script>',
      'file:///etc/passwd',
      'command:workbench.action.terminal.new',
      'vscode://file/etc/passwd',
      'mailto:a@b.c',
      '//evil.example.com/x',
      '/etc/passwd',
      'C:/Windows/win.ini',
      'C:\\Windows\\win.ini',
      '..\\secret',
      '../secret.txt',
      'src/../../secret.txt',
      'src/%2e%2e/%2e%2e/secret',
      'a\u0000b',
      'src/a.ts\n',
      'https://user:pass@example.com/',
      'https://',
      'https:',
      'src/a.ts?x=1',
      `https://example.com/${'a'.repeat(MAX_LINK_HREF)}`,
    ];
    for (const href of bad) {
      assert.equal(isAllowedLinkHref(href), false, JSON.stringify(href));
      const parsed = parseChatToHost({ type: 'openLink', href });
      assert.ok(!parsed.ok, JSON.stringify(href));
      assert.match(parsed.error, /href/);
    }
  });

  it('splits a workspace link into segments and an optional line', () => {
    assert.deepEqual(parseWorkspaceLink('src/greet.js'), { segments: ['src', 'greet.js'] });
    assert.deepEqual(parseWorkspaceLink('./src//a%20b.ts#L7'), { segments: ['src', 'a b.ts'], line: 7 });
    assert.deepEqual(parseWorkspaceLink('a.ts#L0'), { segments: ['a.ts'] });
    assert.equal(parseWorkspaceLink('a.ts#section'), undefined);
    assert.equal(parseWorkspaceLink('./'), undefined);
  });

  it('rejects malformed openLink and copy messages', () => {
    assert.ok(!parseChatToHost({ type: 'openLink' }).ok);
    assert.ok(!parseChatToHost({ type: 'openLink', href: 42 }).ok);
    assert.ok(!parseChatToHost({ type: 'openLink', href: 'https://a.b', extra: 1 }).ok);
    assert.ok(parseChatToHost({ type: 'copy', text: 'const x = 1;' }).ok);
    assert.ok(!parseChatToHost({ type: 'copy', text: null }).ok);
  });
});

describe('resolveWorkspaceLink (host side)', () => {
  // linkHandler imports `vscode`, which only exists in the extension host; load it with a stub.
  let resolveWorkspaceLink: (segments: readonly string[], roots: readonly string[]) => Promise<string | undefined>;
  before(async () => {
    const Module = (await import('node:module')).default as unknown as {
      _load: (request: string, ...rest: unknown[]) => unknown;
    };
    const original = Module._load;
    Module._load = (request: string, ...rest: unknown[]) => (request === 'vscode' ? {} : original(request, ...rest));
    try {
      ({ resolveWorkspaceLink } = await import('../../src/host/chat/linkHandler'));
    } finally {
      Module._load = original;
    }
  });

  it('finds files inside a workspace folder and refuses ones that escape it', async () => {
    const base = mkdtempSync(join(tmpdir(), 'cp-links-'));
    try {
      const ws = join(base, 'ws');
      mkdirSync(join(ws, 'src'), { recursive: true });
      writeFileSync(join(ws, 'src', 'a.ts'), 'x');
      writeFileSync(join(base, 'secret.txt'), 'secret');
      symlinkSync(join(base, 'secret.txt'), join(ws, 'link.txt'));
      assert.ok((await resolveWorkspaceLink(['src', 'a.ts'], [ws]))?.endsWith(join('src', 'a.ts')));
      assert.equal(await resolveWorkspaceLink(['..', 'secret.txt'], [ws]), undefined);
      assert.equal(
        await resolveWorkspaceLink(['link.txt'], [ws]),
        undefined,
        'a symlink out of the workspace is refused',
      );
      assert.equal(await resolveWorkspaceLink(['missing.ts'], [ws]), undefined);
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  });
});
