import type * as acp from '@agentclientprotocol/sdk/unstable'

// The shared set-up of the tests of questions answered once (in one process: shared-questions;
// across processes: cross-questions, cross-url-elicitation): a turn whose tool asks permission,
// the client's ways of answering, and what the clients are shown of questions and presence.

/** How a test client answers `session/request_permission`. */
export type Answer = (
  params: acp.RequestPermissionRequest,
  signal: AbortSignal,
) => Promise<acp.RequestPermissionResponse>

/** How a test client answers `elicitation/create`. */
export type Elicit = (
  params: acp.CreateElicitationRequest,
  signal: AbortSignal,
) => Promise<acp.CreateElicitationResponse>

/** The scripted model's turns: one write (it asks permission), then 'done'. */
export const WRITE_TURNS = [
  [
    [{ toolCall: { name: 'write_text_file', input: { path: 'made.txt', content: 'made\n' } } }],
    [{ text: 'done' }],
  ],
]

/** Picks the option of this kind. */
export const choose = (kind: string) => (params: acp.RequestPermissionRequest) => {
  const option = params.options.find((o) => o.kind === kind)
  if (!option) throw new Error(`no ${kind} option`)
  return { outcome: { outcome: 'selected' as const, optionId: option.optionId } }
}

/** An answer never given: resolves `cancelled` once the agent withdraws the request (counted). */
export const never =
  (withdrawn: { count: number }) =>
  <T>(_params: unknown, signal: AbortSignal, cancelled: T): Promise<T> =>
    new Promise((resolve) => {
      signal.addEventListener('abort', () => {
        withdrawn.count++
        resolve(cancelled)
      })
    })

/** A permission request never answered (see {@link never}). */
export const neverAnswer =
  (withdrawn: { count: number }): Answer =>
  (params, signal) =>
    never(withdrawn)(params, signal, { outcome: { outcome: 'cancelled' as const } })

export interface QuestionShown {
  toolCallId?: string
  state: string
  optionId?: string
  action?: string
  answeredBy?: string
}
export interface PresenceShown {
  attached: number
  clients: string[]
  state: string
}

const dshOf = (u: acp.SessionNotification) =>
  (u.update as { _meta?: { dsh?: { question?: QuestionShown; presence?: PresenceShown } } })._meta?.dsh ?? {}
/** The outcomes of questions (`_meta.dsh.question`) a client was shown, in order. */
export const outcomes = (c: { updates: acp.SessionNotification[] }) =>
  c.updates.flatMap((u) => dshOf(u).question ?? [])
/** The presences (`_meta.dsh.presence`) a client was shown, in order. */
export const presences = (c: { updates: acp.SessionNotification[] }) =>
  c.updates.flatMap((u) => dshOf(u).presence ?? [])

/**
 * Answers that wait until two clients were asked, then both answer in the same turn of the
 * event loop (the race of two answers): `answer(kind)` for each client; `asked` counts them.
 */
export function answeredTogether(): { asked: Array<() => void>; answer: (kind: string) => Answer } {
  const asked: Array<() => void> = []
  const answer =
    (kind: string): Answer =>
    (params) =>
      new Promise((resolve) => {
        asked.push(() => resolve(choose(kind)(params)))
        if (asked.length === 2) for (const go of asked) go()
      })
  return { asked, answer }
}
