import { parseArgs } from 'node:util'
import {
  CLI_OPTIONS,
  type CliOption,
  type IntegerOptionName,
  type OptionRow,
  type Row,
} from '../cli-options.js'

/** `parseArgs`'s description of each option of a table: its type, short form and default. */
export type ParseOptions<R extends OptionRow> = {
  readonly [O in R as O['name']]: O extends { type: 'string' }
    ? O extends { default: string }
      ? { readonly type: 'string'; readonly default: string }
      : O extends { multiple: true }
        ? { readonly type: 'string'; readonly multiple: true }
        : { readonly type: 'string' }
    : { readonly type: 'boolean'; readonly default: boolean; readonly short?: string }
}

/** The options of `table` as `parseArgs` takes them. */
export function parseOptionsOf<const T extends readonly OptionRow[]>(table: T): ParseOptions<T[number]> {
  const entries = table.map((option: OptionRow) => [
    option.name,
    {
      type: option.type,
      ...(option.short !== undefined && { short: option.short }),
      ...(option.multiple && { multiple: true }),
      ...(option.type === 'boolean'
        ? { default: false }
        : option.default !== undefined && { default: option.default }),
    },
  ])
  return Object.fromEntries(entries) as ParseOptions<T[number]>
}

/** The options of `dsh-acp` as `parseArgs` takes them. */
export function parseOptions(): ParseOptions<Row> {
  return parseOptionsOf(CLI_OPTIONS)
}

/**
 * The command line read against the table: the options' values, the positionals and the tokens
 * (which options were given). Throws a TypeError for an unknown option or a missing value.
 */
export function readArgv(argv: readonly string[]) {
  return parseArgs({ args: [...argv], allowPositionals: true, options: parseOptions(), tokens: true })
}

/** The smallest value `--name` accepts. */
export function minimumOf(name: IntegerOptionName): number {
  const option: CliOption | undefined = CLI_OPTIONS.find((o) => o.name === name)
  if (option?.minimum === undefined) throw new Error(`--${name} is not an integer option`)
  return option.minimum
}

/**
 * An integer option of at least its table minimum, or undefined when it was not given. Throws a
 * TypeError naming the minimum.
 */
export function integerOption(
  values: { readonly [N in IntegerOptionName]?: string },
  name: IntegerOptionName,
) {
  const raw = values[name]
  if (raw === undefined) return undefined
  const value = Number(raw)
  const min = minimumOf(name)
  if (!Number.isSafeInteger(value) || value < min)
    throw new TypeError(`--${name} must be an integer of at least ${min}`)
  return value
}
