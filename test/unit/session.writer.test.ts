import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import { promises as fsp, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { type MessageEntry, type SessionEntry } from '../../src/core/session/entries';
import { decodeLine } from '../../src/core/session/lineCodec';
import { SessionLockedError, SessionWriter, writeFileAtomic } from '../../src/host/sessions/sessionFile';
import { loadSession } from '../../src/host/sessions/sessionLoader';
import { Build } from './support/builders';
import { sampleHeader } from './support/sessionSamples';

const ROOT = resolve(__dirname, '..', '..');

function messageEntry(i: number, text = `message number ${i}`): SessionEntry {
  const b = new Build(`w${i}x`);
  return {
    type: 'message',
    at: i,
    message: {
      ...b.message(i % 2 === 0 ? 'user' : 'assistant', [b.text(text, i % 2 === 0 ? 'user' : 'assistant')], i),
    },
  };
}

function lines(file: string): string[] {
  return readFileSync(file, 'utf8').split('\n').slice(0, -1);
}

describe('session writer', () => {
  let dir: string;
  let file: string;
  beforeEach(async () => {
    dir = await fsp.mkdtemp(join(tmpdir(), 'cp-writer-'));
    file = join(dir, 's.jsonl');
  });
  afterEach(async () => {
    await fsp.rm(dir, { recursive: true, force: true });
  });

  it('500 overlapping appends give 500 complete lines, in call order', async () => {
    const w = await SessionWriter.open(file);
    const big = 'z'.repeat(20_000);
    await Promise.all(Array.from({ length: 500 }, (_, i) => w.append(messageEntry(i, i % 50 === 0 ? big : `m${i}`))));
    await w.close();
    const got = lines(file);
    assert.equal(got.length, 500);
    got.forEach((l, i) => {
      const d = decodeLine(l);
      assert.ok(d.ok && d.entry.type === 'message' && d.entry.at === i, `line ${i + 1}`);
    });
  });

  it('refuses a second writer in this process, and a lock of another live process; takes over a dead one', async () => {
    const w = await SessionWriter.open(file);
    await assert.rejects(
      SessionWriter.open(file),
      (e: unknown) => e instanceof SessionLockedError && /already open in this window/.test(e.message),
    );
    await w.close();
    assert.equal(await fsp.stat(`${file}.lock`).catch(() => 'gone'), 'gone', 'close removes the lock');
    await fsp.writeFile(`${file}.lock`, '424242\n');
    await assert.rejects(
      SessionWriter.open(file, { isAlive: () => true }),
      (e: unknown) =>
        e instanceof SessionLockedError && e.holderPid === 424242 && /another VS Code window/.test(e.message),
    );
    const w2 = await SessionWriter.open(file, { isAlive: () => false });
    assert.equal(
      readFileSync(`${file}.lock`, 'utf8').split('\n')[0],
      String(process.pid),
      'the lock names its process (then a token of its own)',
    );
    await w2.close();
  });

  it('rejects appends after close and entries that would not read back, writing nothing', async () => {
    const w = await SessionWriter.open(file);
    await assert.rejects(w.append({ ...(messageEntry(0) as MessageEntry), at: Number.NaN }), /would not read back/);
    await w.close();
    await assert.rejects(w.append(messageEntry(1)), /closed/);
    assert.equal(readFileSync(file, 'utf8'), '');
  });

  it('never writes a secret: the API key is redacted from every line', async () => {
    const key = 'sk-ant-api03-SECRETSECRETSECRET';
    const w = await SessionWriter.open(file, { secrets: () => [key] });
    await w.append(messageEntry(0, `my key is ${key} oops`));
    await w.rewrite([sampleHeader(), messageEntry(0, `again ${key}`)]);
    await w.close();
    const text = readFileSync(file, 'utf8');
    assert.ok(!text.includes(key));
    assert.match(text, /again \[redacted\]/);
  });

  it('rewrites atomically and keeps appending to the new file; starts a new line after a torn one', async () => {
    await fsp.writeFile(file, '{"type":"mess');
    const w = await SessionWriter.open(file);
    await w.append(messageEntry(0));
    assert.deepEqual(
      lines(file).map((l) => decodeLine(l).ok),
      [false, true],
      'the torn line stays separate',
    );
    await w.rewrite([sampleHeader(), messageEntry(1)]);
    await w.append(messageEntry(2));
    await w.close();
    assert.deepEqual(
      lines(file).map((l) => (decodeLine(l) as { entry: SessionEntry }).entry.type),
      ['header', 'message', 'message'],
    );
    assert.deepEqual((await fsp.readdir(dir)).sort(), ['s.jsonl'], 'no temp or lock file is left');
    await writeFileAtomic(join(dir, 'x.txt'), 'hello');
    assert.equal(readFileSync(join(dir, 'x.txt'), 'utf8'), 'hello');
  });

  it('measures the cost of an fsync per append', async function () {
    this.timeout(120_000); // an upper bound for a disk busy with other work, not a wait
    const w = await SessionWriter.open(file);
    const n = 200;
    const took: number[] = [];
    for (let i = 0; i < n; i++) {
      const t0 = process.hrtime.bigint();
      await w.append(messageEntry(i));
      took.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
    await w.close();
    const sorted = [...took].sort((a, b) => a - b);
    const median = sorted[Math.floor(n / 2)] ?? 0;
    const mean = took.reduce((a, b) => a + b, 0) / n;
    console.log(
      `      sequential append + fdatasync: ${mean.toFixed(3)} ms per entry, median ${median.toFixed(3)} ms (${tmpdir()})`,
    );
    // The median: a burst of slow fsyncs while another process floods the disk does not fail it.
    assert.ok(median < 50, `median ${median.toFixed(1)} ms per append`);
  });

  it('a writer killed with SIGKILL mid-stream loses no line whose append had resolved', async function () {
    this.timeout(60_000); // an upper bound for starting a tsx child on a busy machine, not a wait
    const script = join(dir, 'child.ts');
    await fsp.writeFile(
      script,
      `import { SessionWriter } from ${JSON.stringify(join(ROOT, 'src/host/sessions/sessionFile'))};
       (async () => {
         const w = await SessionWriter.open(process.argv[2] as string);
         await w.append(${JSON.stringify(sampleHeader())});
         const pad = 'p'.repeat(4000);
         for (let i = 0; ; i++) {
           const role = i % 2 === 0 ? 'user' : 'assistant';
           await w.append({ type: 'message', at: i, message: { id: 'msg_' + i, role, turn: i, blocks: [{ type: 'text', text: 'entry ' + i + ' ' + pad, meta: { id: 'blk_' + i, tier: 1, source: role, createdAt: i, pinned: false, compactable: role !== 'user' } }] } });
           process.stdout.write(i + '\\n');
         }
       })();`,
    );
    const child = spawn(process.execPath, ['--import', 'tsx', script, file], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let confirmed = -1;
    await new Promise<void>((done, fail) => {
      child.stdout.setEncoding('utf8');
      child.stdout.on('data', (chunk: string) => {
        for (const l of chunk.split('\n')) if (l) confirmed = Math.max(confirmed, Number(l));
        if (confirmed >= 60 && !child.killed) child.kill('SIGKILL');
      });
      child.on('exit', (_code, signal) =>
        signal === 'SIGKILL' ? done() : fail(new Error(`child exited by itself (${signal})`)),
      );
    });
    const r = await loadSession(file);
    assert.ok(r.ok, r.ok ? '' : r.error);
    const ids = new Set(r.session.messages.map((m) => m.id));
    for (let i = 0; i <= confirmed; i++) assert.ok(ids.has(`msg_${i}`), `msg_${i} survived`);
    // The dead child's lock is stale: a new writer takes it over.
    const w = await SessionWriter.open(file);
    await w.close();
  });
});
