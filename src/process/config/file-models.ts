import { modelNameList } from '../../agent/providers/index.js'
import type { ConfiguredModel as ServerConfiguredModel } from '../../agent/providers/openai/index.js'
import type { CliOptions } from '../cli-args.js'
import type { ModelEntry, ProviderEntry } from './file-types.js'

/** One model a session may choose, from the configuration files (what the provider is made of). */
export interface ConfiguredModel extends ServerConfiguredModel {
  readonly provider: ProviderEntry
  readonly model: ModelEntry
}

/**
 * Whether the command line names another model server, replacing the file's providers: `--base-url`,
 * or `--model` naming a provider other than `openai` (echo, script:FILE). The other model options
 * (`--model openai`, `--model-name`, `--image-input`, `--context-window`, `--price-*`) apply over the
 * file's models, field by field.
 */
export function namesAnotherServer(
  given: ReadonlyMap<keyof CliOptions, string>,
  options: CliOptions,
): boolean {
  return given.has('baseUrl') || (given.has('model') && options.model !== 'openai')
}

/** Every model of `providers` not disabled, in the file's order, as `provider/name`. */
export function configuredModels(providers: Readonly<Record<string, ProviderEntry>>): ConfiguredModel[] {
  return Object.entries(providers).flatMap(([providerId, provider]) =>
    (provider.disabled === true ? [] : provider.models).map((model) => ({
      id: `${providerId}/${model.name}`,
      providerId,
      provider,
      model,
    })),
  )
}

/**
 * The models `--model-name NAMES` picks from the file's: each name is a configured model's id
 * (`provider/name`), else the name of a model some provider lists (the default's provider first),
 * else a model of that name on the default model's provider, with that provider's server and key.
 */
export function namedModels(
  names: string,
  all: readonly ConfiguredModel[],
  fileDefault: ConfiguredModel,
): ConfiguredModel[] {
  const sameProviderFirst = [
    ...all.filter((m) => m.providerId === fileDefault.providerId),
    ...all.filter((m) => m.providerId !== fileDefault.providerId),
  ]
  const picked = new Map<string, ConfiguredModel>()
  for (const name of modelNameList(names)) {
    const found = all.find((m) => m.id === name) ?? sameProviderFirst.find((m) => m.model.name === name)
    const model = found ?? {
      id: `${fileDefault.providerId}/${name}`,
      providerId: fileDefault.providerId,
      provider: fileDefault.provider,
      model: { name },
    }
    if (!picked.has(model.id)) picked.set(model.id, model)
  }
  return [...picked.values()]
}

/** `--image-input`: every chosen model accepts images. */
export function withImageInput(models: readonly ConfiguredModel[]): ConfiguredModel[] {
  return models.map((m) => ({ ...m, model: { ...m.model, imageInput: true } }))
}
