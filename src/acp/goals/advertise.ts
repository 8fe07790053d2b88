// Kept apart from goal-method.ts: the answer to `initialize` given before the server is built
// (process/early-start) imports this, and must not load the method, its validator or the agent.
/** What `initialize` answers in `_meta` about goals (on v1 and v2 alike). */
export function goalInitializeMeta(): Record<string, unknown> {
  return {
    goal: { version: 1, controlMethod: '_session/goal', actions: ['set', 'pause', 'resume', 'clear'] },
  }
}
