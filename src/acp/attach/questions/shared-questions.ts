import type { SessionUpdateNotification } from '../../../session/index.js'
import type { ClientRequestSender } from '../../client/client-bridge.js'

/**
 * The questions every attached client that can answer is asked (the first answer settles them):
 * permission requests, and elicitations in a form (`ask_user`, an MCP server's form) or by URL (an
 * MCP server's sign-in page; its completion is told to every client asked, see
 * {@link SharedQuestion.tellAsked}).
 */
export function isSharedQuestion(method: string, params: unknown): boolean {
  if (method === 'session/request_permission') return true
  const mode = (params as { mode?: unknown } | undefined)?.mode
  return method === 'elicitation/create' && (mode === 'form' || mode === 'url')
}

/** The `elicitationId` of a URL elicitation's params; undefined for any other question. */
export function urlElicitationId(method: string, params: unknown): string | undefined {
  if (method !== 'elicitation/create') return undefined
  const { mode, elicitationId } = (params ?? {}) as { mode?: unknown; elicitationId?: unknown }
  return mode === 'url' && typeof elicitationId === 'string' ? elicitationId : undefined
}

/**
 * Why a client's copy of a shared question was taken back (another client answered it, or the
 * client detached): the one abort reason that cancels a permission request on the wire.
 */
export class QuestionWithdrawn extends Error {}

/** The owner of an answer given in another process. */
const ELSEWHERE = {}

/** An attached connection as a question sees it. */
export interface Answerer {
  /** The connection (its call scope). */
  readonly owner: object
  /** Sends a request to it; aborting `signal` sends it `$/cancel_request`. */
  readonly ask: ClientRequestSender
  readonly notify: (update: SessionUpdateNotification) => Promise<void>
  /** Its `clientInfo.name`, when it gave one. */
  readonly name?: string
  /** Whether it can answer `method` with `params` (an elicitation: only in a mode it advertised). */
  readonly canAnswer?: (method: string, params: unknown) => boolean
  /** Sends it a notification that is not a session update (`elicitation/complete`). */
  readonly tell?: (method: string, params: unknown) => void
}

/** What a shared question asks, of which session. */
export interface QuestionAsked {
  readonly sessionId: string
  readonly method: string
  readonly params: unknown
}

/** Who hears how a shared question ended. */
export interface QuestionEnds {
  readonly resolve: (result: unknown) => void
  readonly reject: (error: unknown) => void
  /** Called once, when it is settled (answered, failed or withdrawn). */
  readonly done: (question: SharedQuestion, answer?: { result: unknown; by: Answerer }) => void
}

/**
 * One question of a session put to every attached connection: each gets its own request; the
 * first answer settles it, and every other connection then gets `$/cancel_request` for its
 * request and sees the outcome as a `session_info_update` with `_meta.dsh.question` (so does the
 * one that answered). A connection attached while it is open is asked too. A connection that fails
 * or goes away only drops out: the question fails only when no connection asked is left to answer.
 */
export class SharedQuestion {
  private settled = false
  private readonly asked = new Map<object, AbortController>()
  /** Every connection asked, in order (told of a URL elicitation's completion). */
  private readonly askedAnswerers: Answerer[] = []
  private open = 0
  private lastError: unknown
  /** Whether more than one connection was ever asked (only then is its outcome shown to all). */
  askedOthers = false
  /** The `clientInfo.name` of the client whose answer settled it, when it gave one. */
  answeredBy: string | undefined

  readonly sessionId: string
  readonly method: string
  readonly params: unknown

  constructor(
    asked: QuestionAsked,
    private readonly ends: QuestionEnds,
  ) {
    this.sessionId = asked.sessionId
    this.method = asked.method
    this.params = asked.params
  }

  /** Asks `answerer` too (once), unless it is settled. */
  askOf(answerer: Answerer): void {
    if (this.settled || this.asked.has(answerer.owner)) return
    const controller = new AbortController()
    this.asked.set(answerer.owner, controller)
    this.askedAnswerers.push(answerer)
    if (this.asked.size > 1) this.askedOthers = true
    this.open++
    answerer.ask(this.method, this.params, controller.signal).then(
      (result) => this.answered(result, answerer),
      (error) => this.failed(error),
    )
  }

  /**
   * Sends `method` (a notification: `elicitation/complete`) to every connection this question was
   * asked of that is still attached (`attached` tells), once each.
   */
  tellAsked(method: string, params: unknown, attached: (owner: object) => boolean): void {
    for (const answerer of this.askedAnswerers) if (attached(answerer.owner)) answerer.tell?.(method, params)
  }

  /** `owner` detached: its request is withdrawn (`$/cancel_request`), the others stay asked. */
  withdraw(owner: object): void {
    this.asked.get(owner)?.abort(new QuestionWithdrawn('the client detached'))
  }

  /** The turn asking gave up (cancelled): every request is withdrawn and the question rejects. */
  cancel(reason: unknown): void {
    if (this.settled) return
    this.settled = true
    for (const controller of this.asked.values()) controller.abort(reason)
    this.ends.reject(reason)
    this.ends.done(this)
  }

  /**
   * A client of another process answered first (offered on the store's board): settles it as
   * that answer says; every connection asked here is withdrawn and shown the outcome.
   */
  answerElsewhere(result: unknown, name: string | undefined): void {
    this.askedOthers = true
    this.answered(result, {
      owner: ELSEWHERE,
      ask: () => Promise.reject(new Error('answered in another process')),
      notify: () => Promise.resolve(),
      ...(typeof name === 'string' && { name }),
    })
  }

  private answered(result: unknown, by: Answerer): void {
    if (this.settled) return
    this.settled = true
    this.answeredBy = by.name
    for (const [owner, controller] of this.asked) {
      if (owner !== by.owner) controller.abort(new QuestionWithdrawn('answered by another client'))
    }
    this.ends.resolve(result)
    this.ends.done(this, { result, by })
  }

  private failed(error: unknown): void {
    this.lastError = error
    if (this.settled || --this.open > 0) return
    this.settled = true
    this.ends.reject(this.lastError)
    this.ends.done(this)
  }
}

/** What every attached connection is shown once a question is settled. */
export function questionOutcome(
  sessionId: string,
  params: unknown,
  answer: { result: unknown; by: Answerer } | undefined,
): SessionUpdateNotification {
  // A permission request names its tool call in `toolCall`, an elicitation in `toolCallId`.
  const asked = params as { toolCall?: { toolCallId?: string }; toolCallId?: unknown }
  const named = asked.toolCall?.toolCallId ?? asked.toolCallId
  const toolCallId = typeof named === 'string' ? named : undefined
  const result = answer?.result as
    | { outcome?: { outcome?: string; optionId?: string }; action?: string }
    | undefined
  const outcome = result?.outcome
  return {
    sessionId,
    update: {
      sessionUpdate: 'session_info_update',
      _meta: {
        dsh: {
          question: {
            ...(toolCallId !== undefined && { toolCallId }),
            state: answer ? 'answered' : 'withdrawn',
            ...(outcome?.outcome === 'selected' && { optionId: outcome.optionId }),
            ...(outcome?.outcome === 'cancelled' && { cancelled: true }),
            ...(typeof result?.action === 'string' && { action: result.action }),
            ...(answer?.by.name !== undefined && { answeredBy: answer.by.name }),
          },
        },
      },
    },
  }
}
