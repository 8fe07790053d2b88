/** Calls `calls` one after another, each awaited; the first failure rejects, after all ran. */
export async function callInOrder(calls: Iterable<() => Promise<void>>): Promise<void> {
  let failure: { error: unknown } | undefined
  for (const call of calls) {
    try {
      await call()
    } catch (error) {
      failure ??= { error }
    }
  }
  if (failure) throw failure.error
}
