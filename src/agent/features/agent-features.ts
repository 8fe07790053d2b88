import type { Session } from '../../session/index.js'
import type { UpdateSender } from '../notices/notice.js'
import type { ToolRegistry } from '../tools/registry.js'
import { helpCommand, parseCommand, type SlashCommand } from '../turn/commands.js'
import type { ContentBlock } from '../types.js'
import type { AgentFeature, Feature, FeatureHost } from './agent-feature.js'

/**
 * The features an agent runs with, built once from its {@link FeatureHost}: their commands (then
 * `/help`, which lists them all), their tools (registered in `tools` in list order) and their hooks.
 */
export class AgentFeatures {
  /** Every slash command, in the order `available_commands_update` lists them. */
  readonly commands: readonly SlashCommand[]
  private readonly built: readonly AgentFeature[]

  constructor(host: FeatureHost, features: readonly Feature[], tools: ToolRegistry) {
    this.built = features.flatMap((feature) => feature(host) ?? [])
    const own = this.built.flatMap((feature) => feature.commands ?? [])
    this.commands = [...own, helpCommand(() => this.commands)]
    for (const tool of this.built.flatMap((feature) => feature.tools ?? [])) tools.register(tool)
  }

  /** The command `prompt` invokes, if any (see `parseCommand`). */
  command(prompt: readonly ContentBlock[]): ReturnType<typeof parseCommand> {
    return parseCommand(prompt, this.commands)
  }

  /** Runs every feature's `afterTurn` in list order; the first failure rejects, after all ran. */
  async afterTurn(session: Session, completed: boolean): Promise<void> {
    let failure: { error: unknown } | undefined
    // Only the features that have the hook: the first is called in this tick.
    for (const hook of this.built.flatMap((feature) => feature.afterTurn ?? [])) {
      try {
        await hook(session, completed)
      } catch (error) {
        failure ??= { error }
      }
    }
    if (failure) throw failure.error
  }

  /**
   * Every feature's `beforeStep`; undefined, at once, when none returned a promise (a step with
   * nothing to wait for starts in the same tick).
   */
  beforeStep(session: Session, send: UpdateSender, signal: AbortSignal): Promise<void> | undefined {
    const waits = this.built.flatMap((feature) => feature.beforeStep?.(session, send, signal) ?? [])
    return waits.length === 0 ? undefined : Promise.all(waits).then(() => {})
  }

  /** Every feature's `forget`, for a session this process disposed. */
  forget(sessionId: string): void {
    for (const feature of this.built) feature.forget?.(sessionId)
  }
}
