import { describe, expectTypeOf, it } from 'vitest'
import type { ModelPricing, SubagentConfig } from '../agent/index.js'
import type { SandboxMode } from '../agent/tools/command/sandbox-mode.js'
import type { CliOptions } from './cli-args.js'
import type { LogLevelName } from './log-levels.js'

/** `npm run typecheck` checks these: the configuration's type is inferred from its schema, not written by hand. */
describe('CliOptions, inferred from the configuration schema', () => {
  it('types each property as its schema says', () => {
    expectTypeOf<CliOptions['command']>().toEqualTypeOf<
      'serve' | 'sessions' | 'config' | 'help' | 'version'
    >()
    expectTypeOf<CliOptions['sandbox']>().toEqualTypeOf<SandboxMode>()
    expectTypeOf<CliOptions['logLevel']>().toEqualTypeOf<LogLevelName>()
    expectTypeOf<CliOptions['fork']>().toEqualTypeOf<boolean>()
    expectTypeOf<CliOptions['storeDir']>().toEqualTypeOf<string | null | undefined>()
    expectTypeOf<CliOptions['compactAt']>().toEqualTypeOf<number | false | undefined>()
    expectTypeOf<CliOptions['imageInput']>().toEqualTypeOf<true | undefined>()
    expectTypeOf<NonNullable<CliOptions['prices']>>().toExtend<ModelPricing>()
    expectTypeOf<Exclude<CliOptions['subagents'], false>>().toExtend<SubagentConfig>()
    expectTypeOf<CliOptions>().not.toBeAny()
  })
})
