import type { SessionError } from '../../../session/errors.js'
import { databaseError } from '../rows.js'

/**
 * A session writer's tasks, run one at a time in order. The first failure of a task run with
 * `run` is the session's (`fail` is told, and every later task is refused with it); a task run
 * with `serial` may fail alone.
 */
export class WriteQueue {
  private tail: Promise<void>
  /** The session's write failure: nothing more is written. */
  failure: SessionError | undefined

  constructor(
    ready: Promise<void>,
    private readonly id: string,
    private readonly fail: (error: SessionError) => void,
  ) {
    this.tail = ready
  }

  /** Runs `task` after the others; its failure (`op` names it) fails the session. */
  run(op: string, task: () => Promise<void>): Promise<void> {
    return this.serial(async () => {
      try {
        await task()
      } catch (error) {
        const failure = databaseError(this.id, op, error)
        this.failure ??= failure
        this.fail(failure)
        throw failure
      }
    })
  }

  /** Runs `task` after the others, without failing the session when it fails. */
  serial<T>(task: () => Promise<T>): Promise<T> {
    const run = this.tail.then(() => {
      if (this.failure) throw this.failure
      return task()
    })
    this.tail = run.then(
      () => {},
      () => {},
    )
    return run
  }
}
