import { readArgv } from '../cli/parse-options.js'
import type { CliOptions } from '../cli-args.js'
import { CLI_OPTIONS } from '../cli-options.js'

/**
 * The configuration properties the command line sets explicitly (an option given, whatever its
 * value): these win over the configuration files. `argv` has already passed `parseCli`.
 */
export function givenProperties(argv: readonly string[]): Map<keyof CliOptions, string> {
  const given = new Map<keyof CliOptions, string>()
  for (const token of readArgv(argv).tokens) {
    if (token.kind !== 'option') continue
    // The table's own type: each `sets` is checked to be a property of the configuration here.
    const option = CLI_OPTIONS.find((o) => o.name === token.name)
    if (option) given.set(option.sets, `--${option.name}`)
  }
  return given
}
