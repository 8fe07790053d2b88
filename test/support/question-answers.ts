import type * as acp from '@agentclientprotocol/sdk/unstable'

// What the URL elicitation tests (shared-url-elicitation, cross-url-elicitation) add to the
// questions set-up of cross-questions.ts: answering an MCP elicitation, or never answering any
// question.

/** How a test client answers `elicitation/create`. */
export type Elicit = (
  params: acp.CreateElicitationRequest,
  signal: AbortSignal,
) => Promise<acp.CreateElicitationResponse>

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
