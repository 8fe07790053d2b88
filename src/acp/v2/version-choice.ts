/**
 * Which ACP version a connection speaks, as plain values: no error class, so the answer given to
 * `initialize` before the server is built (process/early-start/) loads no JSON-RPC engine;
 * protocol-choice.ts turns a refusal into the protocol's error.
 */

/** `--protocol`: the ACP versions a server serves (`auto`: v1 and the v2 draft). */
export type ProtocolChoice = 'auto' | 'v1' | 'v2'

/** The one version `--protocol` pins, or undefined for `auto`. */
export function pinnedVersion(choice: ProtocolChoice | undefined): number | undefined {
  if (choice === 'v1') return 1
  if (choice === 'v2') return 2
  return undefined
}

/**
 * The version a connection's first `initialize` selects, as the SDK's protocol router does: with
 * both served, the highest at or below the requested one (v1 for anything below 2, as v1 answers
 * every client); v1 alone serves every client v1; v2 alone serves a client asking for 2 or more,
 * and refuses (undefined) one asking for less.
 */
export function chosenVersion(requested: number, pinned: number | undefined): number | undefined {
  if (pinned === 1) return 1
  if (pinned === 2) return requested >= 2 ? 2 : undefined
  return requested >= 2 ? 2 : 1
}
