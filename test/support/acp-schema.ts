/** The official ACP schema validation lives with the replay tool (one implementation for both). */
export {
  acpDefinitionNames,
  acpMethod,
  type MessageOptions,
  validateAcpDefinition,
  validateAcpMessage,
} from '../../src/replay/acp-schema.js'
