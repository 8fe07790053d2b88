import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { parseOptions } from './cli/parse-options.js'
import { optionForm } from './cli/usage-text.js'
import { parseCli, usage } from './cli-args.js'
import { CLI_OPTIONS, type CliOption } from './cli-options.js'
import { configSchema } from './config-schema.js'

const options: readonly CliOption[] = CLI_OPTIONS

describe('the command-line options table', () => {
  it('is what schemas/config.schema.json says (npm run generate:config writes it)', () => {
    const committed = JSON.parse(
      readFileSync(new URL('../../schemas/config.schema.json', import.meta.url), 'utf8'),
    )
    // Stringified, so the order of every key counts too.
    expect(JSON.stringify(committed)).toBe(JSON.stringify(configSchema()))
  })

  it('is what the usage text lists: every option once, in table order, with its value name and help lines', () => {
    const text = usage()
    const listed = text.slice(text.indexOf('\nOptions:\n') + '\nOptions:\n'.length)
    const expected = options.flatMap((option) => {
      const form = `${option.short === undefined ? '' : `-${option.short}, `}${optionForm(option)}`
      return [...(option.section === undefined ? [] : [option.section]), form, ...option.help]
    })
    const words = listed
      .split('\n')
      .filter((line) => line !== '')
      .flatMap((line) => {
        const form = /^ {2}(\S.*?)(?: {2,}|$)(.*)$/.exec(line)
        if (!form) return [line.trim()]
        return form[2] === '' ? [form[1]] : [form[1], form[2]]
      })
    expect(words).toEqual(expected)
  })

  it('is what parseArgs reads: each option with its type, short form and default', () => {
    const parsed = parseOptions()
    expect(Object.keys(parsed)).toEqual(options.map((option) => option.name))
    for (const option of options) {
      expect(parsed[option.name as keyof typeof parsed], option.name).toEqual({
        type: option.type,
        ...(option.short !== undefined && { short: option.short }),
        ...(option.multiple && { multiple: true }),
        ...(option.type === 'boolean'
          ? { default: false }
          : option.default !== undefined && { default: option.default }),
      })
    }
  })

  it('refuses an integer option below its table minimum, naming the minimum', () => {
    for (const option of options) {
      const minimum = option.minimum
      if (minimum === undefined) continue
      // The remote options go with --listen.
      const listen = option.sets === 'remote' ? ['--listen', '0'] : []
      expect(() => parseCli([...listen, `--${option.name}=${minimum - 1}`]), option.name).toThrow(
        `--${option.name} must be an integer of at least ${minimum}`,
      )
      expect(() => parseCli([...listen, `--${option.name}`, String(minimum)]), option.name).not.toThrow()
    }
  })

  it('lets every property of the configuration be set from the command line', () => {
    const properties = configSchema().properties as Record<string, { 'x-cli': string[] }>
    for (const [name, property] of Object.entries(properties)) expect(property['x-cli'], name).not.toEqual([])
  })
})
