import { parseArgs } from 'node:util'
import type { CliOptions } from '../cli-args.js'
import { CLI_OPTIONS, type CliOption, parseOptions } from '../cli-options.js'

/**
 * The configuration properties the command line sets explicitly (an option given, whatever its
 * value): these win over the configuration files. `argv` has already passed `parseCli`.
 */
export function givenProperties(argv: readonly string[]): Map<keyof CliOptions, string> {
  const { tokens } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: parseOptions(),
    tokens: true,
  })
  const given = new Map<keyof CliOptions, string>()
  for (const token of tokens) {
    if (token.kind !== 'option') continue
    const option = (CLI_OPTIONS as readonly CliOption[]).find((o) => o.name === token.name)
    if (option) given.set(option.sets, `--${option.name}`)
  }
  return given
}
