import type { ModelEntry } from '../config/file-types.js'

/** A provider `dsh-acp setup` knows: where it is and which models it usually has. */
export interface ProviderPreset {
  /** The provider id in the configuration (the part of model ids before `/`). */
  readonly id: string
  readonly title: string
  /** Empty for `custom`: asked. */
  readonly baseUrl: string
  /** The server refuses requests without a key. */
  readonly keyRequired: boolean
  /** The environment variable its key is commonly kept in (offered, never required). */
  readonly keyEnv?: string
  /** Suggested models (the first the default); the server's own list is offered when it has one. */
  readonly models: readonly ModelEntry[]
  /** Where its keys are made, said when asking for one. */
  readonly keyHint?: string
}

/** The short list the set-up offers, in its order. */
export const PROVIDER_PRESETS: readonly ProviderPreset[] = [
  {
    id: 'deepseek',
    title: 'DeepSeek',
    baseUrl: 'https://api.deepseek.com/v1',
    keyRequired: true,
    keyEnv: 'DEEPSEEK_API_KEY',
    keyHint: 'https://platform.deepseek.com/api_keys',
    models: [
      { name: 'deepseek-chat', contextWindow: 128_000 },
      { name: 'deepseek-reasoner', contextWindow: 128_000 },
    ],
  },
  {
    id: 'openai',
    title: 'OpenAI',
    baseUrl: 'https://api.openai.com/v1',
    keyRequired: true,
    keyEnv: 'OPENAI_API_KEY',
    keyHint: 'https://platform.openai.com/api-keys',
    models: [
      { name: 'gpt-4.1', contextWindow: 1_047_576, imageInput: true },
      { name: 'gpt-4.1-mini', contextWindow: 1_047_576, imageInput: true },
      { name: 'gpt-4o', contextWindow: 128_000, imageInput: true },
    ],
  },
  {
    id: 'openrouter',
    title: 'OpenRouter',
    baseUrl: 'https://openrouter.ai/api/v1',
    keyRequired: true,
    keyEnv: 'OPENROUTER_API_KEY',
    keyHint: 'https://openrouter.ai/settings/keys',
    models: [{ name: 'deepseek/deepseek-chat' }, { name: 'openai/gpt-4.1' }],
  },
  {
    id: 'ollama',
    title: 'Ollama (this machine)',
    baseUrl: 'http://127.0.0.1:11434/v1',
    keyRequired: false,
    models: [{ name: 'qwen2.5-coder' }],
  },
  {
    id: 'llamacpp',
    title: 'llama.cpp server (this machine)',
    baseUrl: 'http://127.0.0.1:8080/v1',
    keyRequired: false,
    models: [{ name: 'default' }],
  },
  {
    id: 'vllm',
    title: 'vLLM (this machine)',
    baseUrl: 'http://127.0.0.1:8000/v1',
    keyRequired: false,
    models: [],
  },
  { id: 'custom', title: 'Another OpenAI-compatible server', baseUrl: '', keyRequired: true, models: [] },
]

export function presetById(id: string): ProviderPreset | undefined {
  return PROVIDER_PRESETS.find((p) => p.id === id)
}
