/** The timer functions {@link createStatusPacer} uses (Node's globals by default; a test passes a fake clock). */
export interface PacerTimers {
  setTimeout(run: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** What {@link createStatusPacer} paces. */
export interface StatusPacerOptions<T> {
  /** How long a stage must last before it is shown, in milliseconds. */
  afterMs: number;
  /** Write one status (for the App: one status-comment write). */
  write(status: T): Promise<void>;
  /** A progress write that failed, and the stage it wrote (logged by the caller; the run goes on). */
  onProgressError(error: unknown, status: T): void;
  timers?: PacerTimers;
}

/** The pacer of one run's statuses: see {@link createStatusPacer}. */
export interface StatusPacer<T> {
  /** A stage began: it is written only if neither a newer stage nor the final status comes within `afterMs`. */
  stage(status: T): void;
  /**
   * The final status: drops the stage still waiting, waits for a stage write already under way (so the final one is
   * always the last write), then writes `status`. Stages given afterwards are ignored.
   * @throws what `write` throws for the final status.
   */
  final(status: T): Promise<void>;
}

const NODE_TIMERS: PacerTimers = {
  setTimeout(run, ms) {
    const handle = setTimeout(run, ms);
    handle.unref?.();
    return handle;
  },
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/**
 * Hold back progress writes unless a stage is slow: a run whose every stage ends within `afterMs` writes its status
 * once, at the end (on GitHub: one status comment write instead of one per stage, so a fast run costs two REST calls
 * for its status, the comment lookup and the write). A stage that lasts longer than `afterMs` is written when that
 * time has passed, so a person watching a slow run sees where it is. Writes never overlap and never reorder: each
 * waits for the one before it.
 */
export function createStatusPacer<T>(options: StatusPacerOptions<T>): StatusPacer<T> {
  const timers = options.timers ?? NODE_TIMERS;
  let pending: unknown;
  let writing: Promise<void> = Promise.resolve();
  let done = false;
  const cancel = () => {
    if (pending !== undefined) timers.clearTimeout(pending);
    pending = undefined;
  };
  return {
    stage(status) {
      if (done) return;
      cancel();
      pending = timers.setTimeout(() => {
        pending = undefined;
        writing = writing
          .then(() => options.write(status))
          .catch((error: unknown) => options.onProgressError(error, status));
      }, options.afterMs);
    },
    async final(status) {
      done = true;
      cancel();
      await writing;
      await options.write(status);
    },
  };
}
