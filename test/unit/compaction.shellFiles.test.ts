import { strict as assert } from 'node:assert';
import { shellFileTouches } from '../../src/core/compaction/shellFiles';

const paths = (command: string) => shellFileTouches(command).map((t) => `${t.path}${t.edited ? ' (edited)' : ''}`);

describe('compaction: files a shell command read or wrote', () => {
  it('takes the file operands of readers, after their options and their options’ values', () => {
    assert.deepEqual(paths('cat src/a.ts'), ['src/a.ts']);
    assert.deepEqual(paths('head -n 40 src/a.ts src/b.ts'), ['src/a.ts', 'src/b.ts']);
    assert.deepEqual(paths('tail -30 /tmp/out/b7b23b2.output'), ['/tmp/out/b7b23b2.output']);
    assert.deepEqual(paths('wc -l README.md'), ['README.md']);
    assert.deepEqual(paths('nl -ba Makefile'), ['Makefile']);
  });

  it('skips the pattern or script of grep, sed and awk, unless an option gives it', () => {
    assert.deepEqual(paths("sed -n '796,825p' /ws/coding-agent/README.md"), ['/ws/coding-agent/README.md']);
    assert.deepEqual(paths('grep -n "^## \\|^### " /ws/README.md | head -80'), ['/ws/README.md']);
    assert.deepEqual(paths('grep -A 30 "### Custom Tools" docs/README.md'), ['docs/README.md']);
    assert.deepEqual(paths('grep -e foo -e bar a.ts b.ts'), ['a.ts', 'b.ts']);
    assert.deepEqual(paths("awk -F: '{print $1}' /etc/passwd.txt"), ['/etc/passwd.txt']);
    assert.deepEqual(paths('grep -c TODO src/x.ts'), ['src/x.ts'], "grep's -c counts, it takes no value");
  });

  it('marks sed -i and output redirections as edits, never /dev/null or a descriptor', () => {
    assert.deepEqual(paths("sed -i 's/a/b/' src/c.ts"), ['src/c.ts (edited)']);
    assert.deepEqual(paths('echo hi > notes.txt 2>/dev/null'), ['notes.txt (edited)']);
    assert.deepEqual(paths('make test >> build.log 2>&1'), ['build.log (edited)']);
    assert.deepEqual(paths('cat a.md >/dev/null'), ['a.md']);
  });

  it('joins paths to a cd before them, and reads every segment of && ; | chains', () => {
    assert.deepEqual(paths('cd /ws/app && cat lib/x.ex && grep -n def lib/y.ex'), [
      '/ws/app/lib/x.ex',
      '/ws/app/lib/y.ex',
    ]);
    assert.deepEqual(paths('cd packages/tui; head -5 /abs/z.ts'), ['/abs/z.ts']);
    assert.deepEqual(paths('FOO=1 cat a.ts'), ['a.ts'], 'leading assignments are skipped');
  });

  it('takes no folder of a recursive search, and only file-like operands of rg/ag', () => {
    assert.deepEqual(paths('grep -rn "MarkdownTheme" packages/tui/src'), []);
    assert.deepEqual(paths('grep -rn "MarkdownTheme" packages/tui/src/markdown.ts'), ['packages/tui/src/markdown.ts']);
    assert.deepEqual(paths('rg -n toolResults src'), []);
    assert.deepEqual(paths('rg -n toolResults src/agent.ts'), ['src/agent.ts']);
  });

  it('names nothing it does not understand: variables, globs, substitutions, heredocs, other commands', () => {
    for (const command of [
      'cat $FILE',
      'cat src/*.ts',
      'cat "$(git rev-parse --show-toplevel)/x.ts"',
      'cat `which node`',
      "cat <<'EOF' > x.ts\nhello\nEOF",
      'cat ~/notes.md',
      'ls -la src/',
      'git diff src/a.ts',
      'find . -name "*.ts"',
      'mix test test/foo_test.exs',
      'cat "unclosed',
      'cd $HOME && cat a.ts',
    ])
      assert.deepEqual(paths(command), [], command);
  });

  it('keeps a quoted path with spaces as one operand', () => {
    assert.deepEqual(paths('cat "docs/My Notes.md"'), ['docs/My Notes.md']);
  });
});
