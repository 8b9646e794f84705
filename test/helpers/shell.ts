/**
 * Test support: one bash session fed a line at a time, as a reader types them, so that exports
 * and background jobs (`npm start &`) carry from one line to the next as they would for them.
 * The session is a process group of its own: close() ends it and everything it started.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { until } from './until.js';

export interface LineResult { code: number; stdout: string; stderr: string }

export class Shell {
  private readonly proc: ChildProcess;
  private stdout = '';
  private stderr = '';
  private lines = 0;

  constructor(cwd: string, env: NodeJS.ProcessEnv, prelude = '') {
    this.proc = spawn('bash', [], { cwd, env, detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
    this.proc.stdout!.on('data', (c: Buffer) => { this.stdout += c.toString(); });
    this.proc.stderr!.on('data', (c: Buffer) => { this.stderr += c.toString(); });
    if (prelude) this.proc.stdin!.write(prelude + '\n');
  }

  /** Runs one line and answers its exit status (`$?`) and what the session printed meanwhile. */
  async run(line: string): Promise<LineResult> {
    const mark = `__shell_line_${++this.lines}_status__`;
    const [out, err] = [this.stdout.length, this.stderr.length];
    this.proc.stdin!.write(`${line}\nprintf '\\n${mark} %s\\n' "$?"\n`);
    const done = new RegExp(`\\n${mark} (\\d+)\\n`);
    const m = await until(`${JSON.stringify(line)} to finish`, () => {
      if (this.proc.exitCode !== null) throw new Error(`the shell exited (${this.proc.exitCode}) during ${JSON.stringify(line)}:\n${this.output()}`);
      return done.exec(this.stdout.slice(out)) ?? undefined;
    });
    return { code: Number(m[1]), stdout: this.stdout.slice(out, out + m.index), stderr: this.stderr.slice(err) };
  }

  /** Everything printed so far, for failure messages. */
  output(): string {
    return `stdout:\n${this.stdout}\nstderr:\n${this.stderr}`;
  }

  /** SIGTERM to the whole session (background servers drain and exit), then waits until all are gone. */
  async close(): Promise<void> {
    const group = -this.proc.pid!;
    const alive = () => {
      try {
        process.kill(group, 0);
        return true;
      } catch {
        return false;
      }
    };
    if (alive()) process.kill(group, 'SIGTERM');
    await until('every process of the shell session to exit', () => !alive());
  }
}
