import { parseOptionsOf } from '../cli/parse-options.js'
import { optionLines } from '../cli/usage-text.js'
import type { OptionRow } from '../cli-options.js'

/** The options of `dsh-acp store`, in the order its usage text lists them. */
export const STORE_OPTIONS = [
  {
    name: 'grace-ms',
    type: 'string',
    value: 'MS',
    minimum: 0,
    help: ['gc: spare blobs put less than MS ago (default 3600000: an hour)'],
  },
  { name: 'help', type: 'boolean', short: 'h', help: ['this text'] },
] as const satisfies readonly OptionRow[]

/** The options of `dsh-acp store` as `parseArgs` takes them. */
export const STORE_PARSE_OPTIONS = parseOptionsOf(STORE_OPTIONS)

/** `dsh-acp store --help`. */
export const STORE_USAGE = `Usage: dsh-acp store copy FROM TO   copy every session between stores, either way
       dsh-acp store gc STORE        remove the checkpoint blobs no session names

A store is a JSONL directory or a PostgreSQL URL (postgres://user@host:port/database; the
password from PGPASSWORD). copy copies each session whole (events, titles, archive state, cost,
forks, rewind branches, checkpoint blobs), reads it back and checks its SHA-256 against the
source's. Run again after an interruption, it skips the sessions already copied and verified and
copies the rest. A session the target holds with other content is reported and left alone (exit 1).
Stop the agents writing FROM first: a session written meanwhile is copied as it was when read.

Options:
${optionLines(STORE_OPTIONS)}`
