import type * as acp from '@agentclientprotocol/sdk/unstable'

// What the URL elicitation tests (shared-url-elicitation, cross-url-elicitation) add to the
// questions set-up of cross-questions.ts: answering an MCP elicitation, or never answering any
// question.

/** How a test client answers `elicitation/create`. */
export type Elicit = (
  params: acp.CreateElicitationRequest,
  signal: AbortSignal,
) => Promise<acp.CreateElicitationResponse>

/**
 * An answer never given: resolves `cancelled` once the agent withdraws the request (counted), also
 * when the withdrawal came before the handler ran (the client read both in one go).
 */
export const never =
  (withdrawn: { count: number }) =>
  <T>(_params: unknown, signal: AbortSignal, cancelled: T): Promise<T> =>
    new Promise((resolve) => {
      const withdraw = () => {
        withdrawn.count++
        resolve(cancelled)
      }
      if (signal.aborted) withdraw()
      else signal.addEventListener('abort', withdraw, { once: true })
    })
