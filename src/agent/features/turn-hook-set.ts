import type { UpdateSender } from '../notices/notice.js'
import type { TurnHooks, TurnScope } from '../turn/turn-scope.js'

/** The hooks of one turn, every feature's together, each point calling them in list order. */
export class TurnHookSet implements TurnHooks {
  constructor(
    private readonly hooks: readonly TurnHooks[],
    readonly beforeStep: (send: UpdateSender, signal: AbortSignal) => void | Promise<void>,
  ) {}

  betweenSteps(scope: TurnScope): void {
    for (const hook of this.hooks) hook.betweenSteps?.(scope)
  }

  wantsStep(): boolean {
    return this.hooks.some((hook) => hook.wantsStep?.() === true)
  }

  close(): void {
    for (const hook of this.hooks) hook.close?.()
  }

  settled(): void {
    for (const hook of this.hooks) hook.settled?.()
  }
}
