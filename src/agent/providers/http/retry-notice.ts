import type { Notice } from '../../notices/notice.js'
import type { ModelServerError } from './model-server-error.js'

/**
 * The notice for retry number `retry` (1-based) of `maxRetries` after `failure` (a 429, a 5xx or a
 * connection lost before the answer began), waiting `delayMs` first: a warning, since the turn goes
 * on. It names neither the server's address nor its words (the log has both, redacted).
 */
export function retryNotice(
  failure: ModelServerError,
  retry: number,
  maxRetries: number,
  delayMs: number,
): Notice {
  const what =
    failure.status === 429
      ? 'The model server is rate-limiting requests'
      : failure.status !== undefined
        ? `The model server answered ${failure.status}`
        : 'The connection to the model server failed'
  const seconds = Math.max(0, Math.round(delayMs / 100) / 10)
  return {
    severity: 'warning',
    title: `${what}: retrying (${retry} of ${maxRetries})`,
    description: `Trying again in ${seconds} s; the turn goes on. If every retry fails, the turn ends with the server's answer.`,
  }
}
