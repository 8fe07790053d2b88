import type { Session } from '../../session/index.js'
import type { UpdateSender } from '../notices/notice.js'
import { callInOrder } from '../shared/call-in-order.js'
import type { ToolRegistry } from '../tools/registry.js'
import { helpCommand, parseCommand, type SlashCommand } from '../turn/commands/commands.js'
import type { TurnHooks } from '../turn/turn-scope.js'
import type { ContentBlock, TurnRequest } from '../types.js'
import type { AgentFeature, Feature, FeatureHost } from './agent-feature.js'
import { TurnHookSet } from './turn-hook-set.js'

/** A class whose instances a feature offers as its `api` (what {@link AgentFeatures.get} looks for). */
export type FeatureApi<T extends object> = abstract new (...args: never[]) => T

/**
 * The features an agent runs with, built once from its {@link FeatureHost}: their commands (then
 * `/help`, which lists them all), their tools (registered in `tools` in list order), their hooks and
 * the objects the protocol layer reaches them by.
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

  /**
   * The object a feature offers the protocol layer, by its class (`get(SessionGoals)`). Throws
   * when no feature of this agent offers one (it is switched off or not listed).
   */
  get<T extends object>(type: FeatureApi<T>): T {
    for (const feature of this.built) if (feature.api instanceof type) return feature.api
    throw new Error(`no feature of this agent offers ${type.name}`)
  }

  /** The command `prompt` invokes, if any (see `parseCommand`). */
  command(prompt: readonly ContentBlock[]): ReturnType<typeof parseCommand> {
    return parseCommand(prompt, this.commands)
  }

  /** The hooks of one turn of `session` that starts now: every feature's, in list order. */
  turn(session: Session, request: TurnRequest, signal: AbortSignal): TurnHooks {
    const own = this.built.flatMap((feature) => feature.turn?.(session, request, signal) ?? [])
    return new TurnHookSet(own, (send, stepSignal) => this.beforeStep(session, send, stepSignal))
  }

  /** Runs every feature's `afterTurn` in list order; the first failure rejects, after all ran. */
  async afterTurn(session: Session, completed: boolean): Promise<void> {
    // Only the features that have the hook: the first is called in this tick.
    const hooks = this.built.flatMap((feature) => feature.afterTurn ?? [])
    await callInOrder(hooks.map((hook) => () => hook(session, completed)))
  }

  /**
   * Every feature's `beforeStep`; undefined, at once, when none returned a promise (a step with
   * nothing to wait for starts in the same tick).
   */
  beforeStep(session: Session, send: UpdateSender, signal: AbortSignal): Promise<void> | undefined {
    const waits = this.built.flatMap((feature) => feature.beforeStep?.(session, send, signal) ?? [])
    return waits.length === 0 ? undefined : Promise.all(waits).then(() => {})
  }

  /** Every feature's `cancel`: the session's work was cancelled. */
  cancel(sessionId: string): void {
    for (const feature of this.built) feature.cancel?.(sessionId)
  }

  /** Every feature's `forget`, for a session this process disposed. */
  forget(sessionId: string): void {
    for (const feature of this.built) feature.forget?.(sessionId)
  }

  /** Every feature's `dispose`, at once; rejects with the first failure. */
  async dispose(): Promise<void> {
    await Promise.all(this.built.flatMap((feature) => feature.dispose?.() ?? []))
  }
}
