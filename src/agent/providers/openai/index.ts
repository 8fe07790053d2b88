export { ModelServerError } from '../http/model-server-error.js'
export {
  type ChatMessage,
  type ChatTool,
  toChatMessages,
  toChatTools,
} from './chat-messages.js'
export {
  type ConfiguredModel,
  createConfiguredProvider,
  type LiveServer,
  type ModelServer,
  ProviderDisabledError,
  type RequestLimits,
  type ServerModel,
} from './configured.js'
export { type ModelTables, openAiProviderFromOptions } from './from-options.js'
export { missingKeyNotice } from './key-notice.js'
export { buildRequestBody, createOpenAiProvider, type OpenAiProviderOptions } from './provider.js'
