import { strict as assert } from 'node:assert';
import { fork, type ChildProcess } from 'node:child_process';
import { promises as fsp, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { SessionLockedError, SessionWriter } from '../../src/host/sessions/sessionFile';
import { acquireLock, releaseLock, stillHeld, takeOverStale } from '../../src/host/sessions/sessionLock';
import { sampleHeader } from './support/sessionSamples';

const ROOT = resolve(__dirname, '..', '..');
/** Above any pid_max: `kill(pid, 0)` always says ESRCH, so a lock naming it is stale. */
const DEAD_PID = 999_999_999;

/** Messages between the test and a racer process. */
type ToRacer =
  | { readonly type: 'open'; readonly round: number; readonly file: string }
  | { readonly type: 'close'; readonly round: number };
type FromRacer =
  | { readonly type: 'ready' }
  | {
      readonly type: 'opened';
      readonly round: number;
      readonly won: boolean;
      readonly error?: string;
      readonly locked?: boolean;
    }
  | { readonly type: 'closed'; readonly round: number };

const RACER = `
import { SessionLockedError, SessionWriter } from ${JSON.stringify(join(ROOT, 'src/host/sessions/sessionFile'))};
let writer: SessionWriter | undefined;
const send = (m: unknown) => process.send?.(m);
process.on('message', async (m: { type: string; round: number; file?: string }) => {
  if (m.type === 'open') {
    try {
      writer = await SessionWriter.open(m.file as string);
      send({ type: 'opened', round: m.round, won: true });
    } catch (e) {
      send({ type: 'opened', round: m.round, won: false, locked: e instanceof SessionLockedError, error: String(e) });
    }
  } else if (m.type === 'close') {
    await writer?.close();
    writer = undefined;
    send({ type: 'closed', round: m.round });
  }
});
process.on('disconnect', () => process.exit(0));
send({ type: 'ready' });
`;

/** A racer process and a way to wait for its next message of a kind (no sleeps: messages are the gate). */
class Racer {
  private readonly inbox: FromRacer[] = [];
  private wake: (() => void) | undefined;
  private exit: string | undefined;
  constructor(readonly child: ChildProcess) {
    child.on('message', (m: FromRacer) => {
      this.inbox.push(m);
      this.wake?.();
    });
    child.on('exit', (code, signal) => {
      this.exit = `racer exited (${code ?? signal})`;
      this.wake?.();
    });
  }
  send(m: ToRacer): void {
    this.child.send(m);
  }
  async next<K extends FromRacer['type']>(type: K): Promise<Extract<FromRacer, { type: K }>> {
    for (;;) {
      const i = this.inbox.findIndex((m) => m.type === type);
      if (i >= 0) return this.inbox.splice(i, 1)[0] as Extract<FromRacer, { type: K }>;
      if (this.exit) throw new Error(this.exit);
      await new Promise<void>((r) => (this.wake = r));
    }
  }
}

describe('session lock', () => {
  let dir: string;
  let file: string;
  beforeEach(async () => {
    dir = await fsp.mkdtemp(join(tmpdir(), 'cp-lock-'));
    file = join(dir, 's.jsonl');
  });
  afterEach(async () => {
    await fsp.rm(dir, { recursive: true, force: true });
  });

  it('takeOverStale removes the lock it judged stale, and only that one', async () => {
    const lock = `${file}.lock`;
    await fsp.writeFile(lock, `${DEAD_PID}\n`);
    await takeOverStale(lock, `${DEAD_PID}\n`);
    assert.deepEqual(await fsp.readdir(dir), [], 'the stale lock is gone, nothing left aside');
    // A racer judged the same stale lock, but another process took it over first and made its own.
    await fsp.writeFile(lock, `${process.pid}\nnew-owner-token\n`);
    await takeOverStale(lock, `${DEAD_PID}\n`);
    assert.equal(
      readFileSync(lock, 'utf8'),
      `${process.pid}\nnew-owner-token\n`,
      'the new lock is put back, untouched',
    );
    assert.deepEqual(await fsp.readdir(dir), ['s.jsonl.lock']);
    // Nothing there (a faster taker moved it): nothing to do.
    await fsp.rm(lock);
    await takeOverStale(lock, `${DEAD_PID}\n`);
    assert.deepEqual(await fsp.readdir(dir), []);
  });

  it('each lock is told apart by a token; release removes only our own', async () => {
    const a = await acquireLock(file, () => false);
    assert.match(a.content, new RegExp(`^${process.pid}\\n[0-9a-f]{16}\\n$`));
    assert.ok(await stillHeld(a));
    await fsp.writeFile(a.path, `${process.pid}\nsomeone-else\n`);
    assert.equal(await stillHeld(a), false, 'same pid, other token: not ours');
    await releaseLock(a);
    assert.equal(
      readFileSync(a.path, 'utf8'),
      `${process.pid}\nsomeone-else\n`,
      'release leaves a lock that is not ours',
    );
    await fsp.rm(a.path);
    assert.ok(await stillHeld(a), 'a lock moved aside for a moment is re-created');
    assert.equal(readFileSync(a.path, 'utf8'), a.content);
  });

  it('a writer whose lock was taken over refuses to write, so it can never overwrite the other window', async () => {
    const w = await SessionWriter.open(file);
    await w.append(sampleHeader());
    const before = readFileSync(file, 'utf8');
    await fsp.writeFile(`${file}.lock`, `${DEAD_PID}\nother-window\n`);
    await assert.rejects(
      w.rewrite([sampleHeader()]),
      (e: unknown) => e instanceof SessionLockedError && /taken over by another VS Code window/.test(e.message),
    );
    await assert.rejects(w.append(sampleHeader()), SessionLockedError);
    assert.equal(readFileSync(file, 'utf8'), before, 'nothing was written');
    await w.close();
    assert.equal(
      readFileSync(`${file}.lock`, 'utf8'),
      `${DEAD_PID}\nother-window\n`,
      "close leaves the other window's lock",
    );
  });

  it('two processes racing for the same stale lock: exactly one wins, every round (30 rounds)', async function () {
    this.timeout(120_000);
    const script = join(dir, 'racer.ts');
    await fsp.writeFile(script, RACER);
    const racers = [0, 1].map(
      () =>
        new Racer(
          fork(script, [], {
            cwd: ROOT,
            execArgv: ['--import', 'tsx'],
            stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
          }),
        ),
    );
    try {
      await Promise.all(racers.map((r) => r.next('ready')));
      const rounds = 30;
      const doubleWins: number[] = [];
      for (let round = 0; round < rounds; round++) {
        const f = join(dir, `round-${round}.jsonl`);
        await fsp.writeFile(`${f}.lock`, `${DEAD_PID}\n`); // left by a window that crashed
        for (const r of racers) r.send({ type: 'open', round, file: f });
        const results = await Promise.all(racers.map((r) => r.next('opened')));
        const winners = results.filter((x) => x.won);
        if (winners.length !== 1) doubleWins.push(round);
        for (const x of results)
          if (!x.won)
            assert.ok(x.locked, `a loser is told the session is open elsewhere, not something else: ${x.error}`);
        for (const [i, r] of racers.entries()) {
          if (!results[i]?.won) continue;
          r.send({ type: 'close', round });
          await r.next('closed');
        }
        assert.deepEqual(
          (await fsp.readdir(dir)).filter((n) => n.startsWith(`round-${round}.jsonl.`)),
          [],
          'no lock or aside file is left',
        );
      }
      assert.deepEqual(doubleWins, [], `rounds where both processes (or neither) took the lock`);
    } finally {
      for (const r of racers) r.child.disconnect();
      await Promise.all(
        racers.map((r) => (r.child.exitCode !== null ? undefined : new Promise((done) => r.child.once('exit', done)))),
      );
    }
  });
});
