// Kept apart from steering-methods.ts: the answer to `initialize` given before the server is built
// (process/early-start) imports this, and must not load the methods, their validators or the agent.
/** What `initialize` answers in `_meta` about steering and the queue. */
export function steeringInitializeMeta(): Record<string, unknown> {
  return {
    steering: { supported: true, method: '_session/steering' },
    runtime: {
      controlMethod: '_session/runtime/control',
      readMethod: '_session/runtime/read',
      actions: ['cancelQueuedMessage'],
      resources: ['queuedMessages'],
    },
  }
}
