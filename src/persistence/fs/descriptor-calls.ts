import { close } from 'node:fs'

/** The error a call on a closed descriptor gets, as Node words it. */
export function badDescriptor(syscall: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`EBADF: bad file descriptor, ${syscall}`), {
    code: 'EBADF',
    errno: -9,
    syscall,
  })
}

/**
 * The calls on one bare descriptor, as a `FileHandle` keeps them: `close` happens once and waits
 * for the calls in flight; nothing is done through the descriptor after `close` began (EBADF), so
 * a descriptor number the kernel reuses is never touched by mistake.
 */
export class DescriptorCalls {
  private inFlight = 0
  private idle: (() => void) | undefined
  private closed: Promise<void> | undefined

  constructor(private readonly fd: number) {}

  /** Throws EBADF for `syscall` once `close` began. */
  assertOpen(syscall: string): void {
    if (this.closed) throw badDescriptor(syscall)
  }

  /** Runs one callback call on the descriptor, counted in flight (so `close` waits for it). */
  call<T>(syscall: string, start: (done: (error: Error | null, value: T) => void) => void): Promise<T> {
    if (this.closed) return Promise.reject(badDescriptor(syscall))
    this.inFlight++
    return new Promise<T>((resolve, reject) => {
      start((error, value) => {
        if (--this.inFlight === 0) this.idle?.()
        if (error) reject(error)
        else resolve(value)
      })
    })
  }

  /** Closes the descriptor once, after the calls in flight. */
  close(): Promise<void> {
    this.closed ??= (async () => {
      if (this.inFlight > 0) await new Promise<void>((resolve) => (this.idle = resolve))
      await new Promise<void>((resolve, reject) =>
        close(this.fd, (error) => (error ? reject(error) : resolve())),
      )
    })()
    return this.closed
  }
}
