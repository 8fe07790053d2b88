import type {
  AcpClientMethods,
  AcpClientRequestName,
  ResponseValidator,
} from '../schema/acp-client-methods.gen.js'
import { explainIssues, type SchemaIssue } from '../validate-params.js'

/**
 * Sends one request to the client and resolves with its result as received (not yet checked), or
 * rejects with the client's error. With `signal`: nothing is sent if it has aborted, and the
 * promise rejects with its reason as soon as it aborts (the request is left to the client to
 * finish; its late answer is dropped). The connection's `request` is one.
 */
export type ClientRequestSender = (method: string, params: unknown, signal?: AbortSignal) => Promise<unknown>

/** The client answered a request with a result its ACP schema rejects. */
export class ClientResponseError extends Error {
  override name = 'ClientResponseError'

  /** `field`: the offending field of the result (`result` for the result itself), e.g. `content`. */
  constructor(
    readonly method: AcpClientRequestName,
    readonly field: string,
    problems: string,
  ) {
    super(`the editor answered ${method} with an invalid response: ${problems}`)
  }

  static of(method: AcpClientRequestName, issues: readonly SchemaIssue[]): ClientResponseError {
    const { field, problems } = explainIssues(issues, 'result')
    return new ClientResponseError(method, field, problems)
  }
}

type Validators = {
  readonly [M in AcpClientRequestName]: ResponseValidator<AcpClientMethods[M]['result']>
}

/**
 * The response validators, loaded when the first request is sent (while it is on its way): many
 * connections send none, and starting the server need not parse them.
 */
let validators: Promise<Validators> | undefined

function loadValidators(): Promise<Validators> {
  if (!validators) {
    validators = Promise.all([
      import('../schema/acp-client-stable.gen.js'),
      import('../schema/acp-client-unstable.gen.js'),
    ]).then(([stable, unstable]) => ({ ...stable.RESPONSE_VALIDATORS, ...unstable.RESPONSE_VALIDATORS }))
    validators.catch(() => {}) // handled here too: a request whose send fails never awaits it
  }
  return validators
}

/**
 * Sends `method` and resolves with its result, checked against the official ACP schema of the
 * method's response. An absent or `null` result counts as `{}` (as the SDK takes it for the
 * responses with no required field). A result the schema rejects rejects with
 * {@link ClientResponseError}. `signal` goes to the sender (see {@link ClientRequestSender}).
 */
export async function sendClientRequest<M extends AcpClientRequestName>(
  send: ClientRequestSender,
  method: M,
  params: AcpClientMethods[M]['params'],
  signal?: AbortSignal,
): Promise<AcpClientMethods[M]['result']> {
  const loading = loadValidators()
  const result = await send(method, params, signal)
  const value = result ?? {}
  const validate = (await loading)[method]
  if (validate(value)) return value
  throw ClientResponseError.of(method, validate.errors ?? [])
}
