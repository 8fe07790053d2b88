import type { ModelTerms } from '../providers/model-table.js'
import { unusedModelTerms } from '../providers/model-terms.js'
import type { ModelProvider } from '../types.js'
import type { Notice } from './notice.js'

/**
 * The usage settings this run ignores, as configuration notices: windows and prices for the
 * `echo` model (which reports no token usage, so nothing is measured or priced), and
 * `modelContextWindows` or `modelPrices` entries naming a model the provider does not offer.
 */
export function ignoredUsageSettings(provider: ModelProvider, terms: ModelTerms): Notice[] {
  const notices: Notice[] = []
  const flat = [
    ...(terms.contextWindow !== undefined ? ['--context-window'] : []),
    ...(terms.prices !== undefined ? ['--price-*'] : []),
  ]
  if (provider.name === 'echo' && flat.length > 0) {
    notices.push({
      severity: 'warning',
      title: `${flat.join(' and ')} ignored`,
      description: 'The echo model reports no token usage: nothing is measured or priced.',
    })
  }
  const unused = unusedModelTerms(provider, terms)
  if (unused.length > 0) {
    notices.push({
      severity: 'warning',
      title: 'Context windows or prices configured for models not offered',
      description: `${unused.map((id) => JSON.stringify(id)).join(', ')}: not among the models this server offers (--model-name); those entries are ignored.`,
    })
  }
  return notices
}
