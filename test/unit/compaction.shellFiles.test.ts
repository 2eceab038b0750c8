import { strict as assert } from 'node:assert';
import { shellFileTouches } from '../../src/core/tools/shellFiles';

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

  it('takes the file a heredoc writes, never anything from its body', () => {
    assert.deepEqual(paths("cat <<'EOF' > x.ts\nhello\nEOF"), ['x.ts (edited)']);
    assert.deepEqual(
      paths('cd /ws && cat > lib/a.ex << "EOF"\ndefmodule A do\n  @x $(rm -rf /)\n  cat b.ts\nend\nEOF'),
      ['/ws/lib/a.ex (edited)'],
    );
    assert.deepEqual(paths('cat >> notes.md <<-END && wc -l notes.md\n- item `x`\nEND'), [
      'notes.md (edited)',
      'notes.md',
    ]);
    assert.deepEqual(paths('grep x <<< "$input"'), [], 'a here-string is not a heredoc');
  });

  it('reads the source of cp and writes the destination file of cp, mv and tee', () => {
    assert.deepEqual(paths('cp src/theme/dark.json ~/.pi/custom.json'), [], 'a home path is never taken');
    assert.deepEqual(paths('cp src/theme/dark.json themes/custom.json'), [
      'src/theme/dark.json',
      'themes/custom.json (edited)',
    ]);
    assert.deepEqual(paths('mv old/a.ts new/a.ts'), ['new/a.ts (edited)']);
    assert.deepEqual(paths('cp a.ts dir/'), [], 'a folder destination');
    assert.deepEqual(paths('cp -r src out.d'), [], 'a recursive copy');
    assert.deepEqual(paths('cp a.ts b.ts dir/c.ts'), [], 'several sources');
    assert.deepEqual(paths('npm test 2>&1 | tee -a test.log'), ['test.log (edited)']);
  });

  it('names nothing it does not understand: variables, globs, substitutions, heredocs, other commands', () => {
    for (const command of [
      'cat $FILE',
      'cat src/*.ts',
      'cat "$(git rev-parse --show-toplevel)/x.ts"',
      'cat `which node`',
      "cat <<'EOF'\nhello > x.ts\nEOF",
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
