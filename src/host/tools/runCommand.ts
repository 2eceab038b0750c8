/**
 * run_command: a shell command in the workspace, off unless the user enabled it, run only
 * after the user approved it, in its own process group so that a timeout or Stop kills
 * everything it started; output capped head+tail.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { stat } from 'node:fs/promises';
import { StringDecoder } from 'node:string_decoder';
import { formatCount } from '../../core/text/counts';
import { toolError, toolOk, type ToolResult } from '../../core/tools/result';
import type { RunCommandInput } from '../../core/tools/builtin/runCommandSpec';
import { declinedMessage, type Approver } from '../approvals/approval';
import { childEnv } from './childEnv';
import { OutputCollector } from './outputCollector';
import { resolveToolPath } from './paths';
import { realTimeout, type ToolContext } from './toolContext';

/** The setting that enables run_command. */
export const RUN_COMMAND_SETTING = 'contextPipeline.enableRunCommand';

/** How long to wait for the output pipes to close after the shell exited (background children may hold them). */
const CLOSE_GRACE_MS = 500;

/** How a run ended. */
interface Ended {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly why: 'exit' | 'timeout' | 'aborted' | 'spawn-error';
  readonly error?: string;
  readonly pipesHeld?: boolean;
}

/**
 * Runs `input.command` with `shell: true` in the workspace root (or `input.cwd`), when
 * `enabled` and approved by `approver`. Reports the capped output, the exit code and the
 * duration; a non-zero exit, a timeout or Stop is an error result. Never leaves the
 * command's process group running after a timeout or Stop. The child's environment has no
 * ANTHROPIC_API_KEY / ANTHROPIC_AUTH_TOKEN and no variable holding one of `secrets` (childEnv.ts).
 */
export async function runCommandTool(
  input: RunCommandInput,
  ctx: ToolContext,
  enabled: boolean,
  approver: Approver,
  secrets: readonly string[] = [],
): Promise<ToolResult> {
  if (!enabled) {
    return toolError(
      `run_command is disabled. The user can enable it with the setting \`${RUN_COMMAND_SETTING}\` (Settings → Context Pipeline → Enable Run Command); until then, use read_file, list_files and search, or ask the user to run the command.`,
    );
  }
  const where = await resolveToolPath(ctx, input.cwd ?? ctx.roots[0] ?? '.', 'write');
  if (!where.ok) return toolError(`run_command: ${where.error}`);
  if (!where.exists || !(await stat(where.path)).isDirectory())
    return toolError(`run_command: cwd ${where.display} is not an existing folder.`);
  if (ctx.signal.aborted) return toolError('run_command: stopped by the user; the command did not run.');

  const decision = await approver.approveCommand(
    { command: input.command, cwd: where.path, displayCwd: where.display, rootName: where.root.name },
    ctx.signal,
  );
  if (ctx.signal.aborted) return toolError('run_command: stopped by the user; the command did not run.');
  if (!decision.approved)
    return toolError(
      `${declinedMessage('to run this command', decision)}\nIt did not run. Do not run it again unchanged; adjust to the user's reason or ask them.`,
    );

  const timeoutMs = Math.min(input.timeout_ms ?? ctx.limits.commandDefaultTimeoutMs, ctx.limits.commandMaxTimeoutMs);
  const output = new OutputCollector(ctx.limits.commandOutputChars);
  const started = Date.now();
  const ended = await execute(input.command, where.path, timeoutMs, ctx, output, secrets);
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  const text = output.length > 0 ? output.text().replace(/(\r?\n)+$/, '') : '(no output)';

  switch (ended.why) {
    case 'spawn-error':
      return toolError(`run_command: the command could not be started (${ended.error ?? 'unknown error'}).`);
    case 'timeout':
      return toolError(
        `${text}\n\n[Timed out after ${formatCount(timeoutMs / 1000)} s: the command and its process group were killed. Give a larger timeout_ms (at most ${formatCount(ctx.limits.commandMaxTimeoutMs)}) or a quicker command.]`,
      );
    case 'aborted':
      return toolError(
        `${text}\n\n[Stopped by the user after ${seconds} s: the command and its process group were killed.]`,
      );
    case 'exit': {
      const status = ended.code !== null ? `exit code ${ended.code}` : `killed by signal ${ended.signal ?? 'unknown'}`;
      const held = ended.pipesHeld
        ? ' Processes it started in the background kept running; their later output is not shown.'
        : '';
      const footer = `[${status}, ${seconds} s.${held}]`;
      return ended.code === 0 ? toolOk(`${text}\n\n${footer}`) : toolError(`${text}\n\n${footer}`);
    }
  }
}

function execute(
  command: string,
  cwd: string,
  timeoutMs: number,
  ctx: ToolContext,
  output: OutputCollector,
  secrets: readonly string[],
): Promise<Ended> {
  return new Promise<Ended>((resolve) => {
    let child: ChildProcess;
    try {
      child = spawn(command, {
        cwd,
        shell: true,
        detached: process.platform !== 'win32', // its own process group, so the whole group can be killed
        stdio: ['ignore', 'pipe', 'pipe'],
        windowsHide: true,
        env: childEnv(process.env, secrets, { GIT_TERMINAL_PROMPT: '0', GIT_PAGER: 'cat', PAGER: 'cat' }),
      });
    } catch (e) {
      resolve({ code: null, signal: null, why: 'spawn-error', error: e instanceof Error ? e.message : String(e) });
      return;
    }
    let reason: 'timeout' | 'aborted' | undefined;
    let settled = false;
    let closeTimer: NodeJS.Timeout | undefined;
    let killTimer: NodeJS.Timeout | undefined;
    const finish = (ended: Ended) => {
      if (settled) return;
      settled = true;
      cancelTimeout();
      clearTimeout(closeTimer);
      ctx.signal.removeEventListener('abort', onAbort);
      // SIGKILL stays scheduled after a stop: a group that ignores SIGTERM still dies.
      if (reason === undefined) clearTimeout(killTimer);
      resolve(ended);
    };
    const stop = (why: 'timeout' | 'aborted') => {
      if (reason !== undefined || settled) return;
      reason = why;
      killGroup(child, 'SIGTERM');
      killTimer = setTimeout(() => killGroup(child, 'SIGKILL'), ctx.limits.commandKillGraceMs);
      killTimer.unref();
    };
    const onAbort = () => stop('aborted');
    const cancelTimeout = (ctx.startTimeout ?? realTimeout)(timeoutMs, () => stop('timeout'));
    ctx.signal.addEventListener('abort', onAbort, { once: true });

    for (const stream of [child.stdout, child.stderr]) {
      const decoder = new StringDecoder('utf8');
      stream?.on('data', (chunk: Buffer) => output.push(decoder.write(chunk)));
      stream?.on('end', () => output.push(decoder.end()));
    }
    child.on('error', (e) => finish({ code: null, signal: null, why: 'spawn-error', error: e.message }));
    child.on('exit', (code, signal) => {
      // The pipes normally close right after; background children that inherited them may not.
      closeTimer = setTimeout(
        () => {
          child.stdout?.destroy();
          child.stderr?.destroy();
          finish({ code, signal, why: reason ?? 'exit', pipesHeld: true });
        },
        reason === undefined ? CLOSE_GRACE_MS : ctx.limits.commandKillGraceMs + CLOSE_GRACE_MS,
      );
    });
    child.on('close', (code, signal) => finish({ code, signal, why: reason ?? 'exit' }));
  });
}

/** Sends `signal` to the child's whole process group (on Windows: kills its process tree). */
function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  const pid = child.pid;
  if (pid === undefined) return;
  try {
    if (process.platform === 'win32')
      spawn('taskkill', ['/pid', String(pid), '/T', '/F'], { windowsHide: true, stdio: 'ignore' });
    else process.kill(-pid, signal);
  } catch {
    // The group is already gone.
  }
}
