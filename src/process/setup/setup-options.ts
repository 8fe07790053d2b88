import { parseOptionsOf } from '../cli/parse-options.js'
import { optionLines } from '../cli/usage-text.js'
import type { OptionRow } from '../cli-options.js'
import { PROVIDER_PRESETS } from './presets.js'

/** The options of `dsh-acp setup`, in the order its usage text lists them. */
export const SETUP_OPTIONS = [
  {
    name: 'provider',
    type: 'string',
    value: 'ID',
    help: [`${PROVIDER_PRESETS.map((p) => p.id).join(', ')} (or your own id, with --base-url)`],
  },
  {
    name: 'base-url',
    type: 'string',
    value: 'URL',
    help: ["the OpenAI-compatible API root (default: the provider's)"],
  },
  {
    name: 'models',
    type: 'string',
    value: 'NAMES',
    help: ["comma-separated model names, the first the default (default: the provider's)"],
  },
  {
    name: 'key-stdin',
    type: 'boolean',
    help: ['read the API key from stdin and store it in credentials.json'],
  },
  {
    name: 'key-env',
    type: 'string',
    value: 'NAME',
    help: ['the key stays in $NAME: the configuration names the variable, nothing is stored'],
  },
  { name: 'no-key', type: 'boolean', help: ['the server needs no key'] },
  { name: 'no-check', type: 'boolean', help: ['do not send the check request'] },
  /** Ask on piped input as on a terminal (tests). */
  { name: 'interactive', type: 'boolean', help: [] },
  { name: 'help', type: 'boolean', short: 'h', help: ['this text'] },
] as const satisfies readonly OptionRow[]

/** The options of `dsh-acp setup` as `parseArgs` takes them. */
export const SETUP_PARSE_OPTIONS = parseOptionsOf(SETUP_OPTIONS)

/** `dsh-acp setup --help`. */
export const SETUP_USAGE = `Usage: dsh-acp setup                       interactive: choose a provider, enter its key, pick models
       dsh-acp setup --provider ID [options]  the same from flags (for scripts)

Writes the provider to $XDG_CONFIG_HOME/dsh-acp/config.json (else ~/.config/dsh-acp/) as the
default model, and a key to credentials.json beside it (mode 0600), after one small request checks
that the server answers.

Options:
${optionLines(SETUP_OPTIONS)}`
