export { DELEGATE_TOOL, type DelegateDeps, delegateTool } from './delegate-tool.js'
export { finalAnswer } from './final-answer.js'
export { idleState, subagentAnnouncement, subagentStateUpdate } from './subagent-updates.js'
