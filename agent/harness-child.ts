// The agent's side of one harness child (shared/harness-contract.ts): starts it under the
// machine's isolation, passes its events on, answers its quiet windows, and says once how it
// ended. A cancel and a stop are told apart here, because both reach the harness as SIGTERM
// and come back as the same exit code.
import { spawn, type ChildProcess } from 'node:child_process';
import { createLogger } from '../shared/log.ts';
import {
  harnessArgs,
  harnessOutcome,
  isHarnessEvent,
  isolatedCommand,
  type HarnessDoneEvent,
  type HarnessFailedEvent,
  type HarnessLaunch,
  type HarnessOutcome,
  type HarnessProgressEvent,
  type HarnessRecordEvent,
  type HarnessResumeMessage,
  type IsolationOptions,
} from '../shared/harness-contract.ts';

const log = createLogger('agent:harness');

export interface HarnessChildHandlers {
  /** A record line the harness has just written to the spool. */
  onRecord(event: HarnessRecordEvent): void;
  onProgress(event: HarnessProgressEvent): void;
  /** Nothing is being timed: stream now; the harness goes on when this settles (or its pause runs out). */
  onQuiet(): Promise<void>;
  /** Called once, after the process has exited. */
  onExit(outcome: HarnessOutcome): void;
}

export class HarnessChild {
  readonly pid: number | undefined;
  private readonly child: ChildProcess;
  private cancelRequested = false;

  constructor(launch: HarnessLaunch, isolation: IsolationOptions, handlers: HarnessChildHandlers) {
    const [file, argv] = isolatedCommand(harnessArgs(launch), isolation);
    // taskset and nice exec: this pid is the harness itself, so a signal to it is never lost in a wrapper.
    const child = spawn(file, argv, { stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
    this.child = child;
    this.pid = child.pid;
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-4000);
    });
    let last: HarnessDoneEvent | HarnessFailedEvent | null = null;
    child.on('message', (message: unknown) => {
      if (!isHarnessEvent(message)) {
        log.warn(`ignoring a malformed message from the harness: ${JSON.stringify(message).slice(0, 200)}`);
        return;
      }
      switch (message.type) {
        case 'record':
          handlers.onRecord(message);
          break;
        case 'progress':
          handlers.onProgress(message);
          break;
        case 'quiet': {
          const resume = (): void => {
            const go: HarnessResumeMessage = { type: 'resume' };
            if (child.connected) child.send(go);
          };
          void handlers.onQuiet().then(resume, resume);
          break;
        }
        default:
          last = message;
      }
    });
    let reported = false;
    const report = (outcome: HarnessOutcome): void => {
      if (reported) return;
      reported = true;
      handlers.onExit(outcome);
    };
    child.on('error', (error) => report({ kind: 'failed', message: `could not start the harness (${file}): ${error.message}` }));
    child.on('exit', (code, signal) => {
      const tail = stderr.trim().split('\n').pop() ?? '';
      report(harnessOutcome({ code, signal, last, cancelRequested: this.cancelRequested, stderrTail: tail }));
    });
  }

  /** The run is no longer wanted: stop the harness; it ends as "cancelled". */
  cancel(): void {
    this.cancelRequested = true;
    this.child.kill('SIGTERM');
  }

  /** The agent is stopping: stop the harness; it ends as "interrupted" and resumes when the agent starts again. */
  stop(): void {
    this.child.kill('SIGTERM');
  }
}
