import { describe, expect, it } from 'vitest'
import { PROVIDER_PRESETS } from './presets.js'
import { SETUP_USAGE } from './setup-options.js'

describe('dsh-acp setup --help', () => {
  it('lists every option of the setup table, as the main usage text lists its own', () => {
    expect(SETUP_USAGE.slice(SETUP_USAGE.indexOf('Options:\n'))).toBe(`Options:
  --provider ID        ${PROVIDER_PRESETS.map((p) => p.id).join(', ')} (or your own id, with --base-url)
  --base-url URL       the OpenAI-compatible API root (default: the provider's)
  --models NAMES       comma-separated model names, the first the default (default: the provider's)
  --key-stdin          read the API key from stdin and store it in credentials.json
  --key-env NAME       the key stays in $NAME: the configuration names the variable, nothing is stored
  --no-key             the server needs no key
  --no-check           do not send the check request
  -h, --help           this text
`)
  })
})
