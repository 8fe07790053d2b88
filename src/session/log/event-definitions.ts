import {
  boolean,
  contentBlocks,
  cost,
  count,
  described,
  type EventDefinition,
  instructionFiles,
  json,
  nonEmptyString,
  planEntries,
  positiveInt,
  string,
  stringList,
  stringOrBoolean,
  tokenUsage,
  toolCallContents,
  toolCallLocations,
  turnEndReason,
} from './event-fields.js'

/**
 * The one definition of every event type's data. The types (`EventDataMap`,
 * `ExtensionEventDataMap`), the check on append and on load (`assertEventShape`) and
 * `schemas/events.schema.json` (scripts/generate-event-schema.mjs) all come from here. Order
 * matters: it is the order of `CORE_EVENT_TYPES` and of the schema.
 */
export const CORE_EVENTS = {
  'turn/start': {
    description:
      "A turn opens. Turns do not nest. `command`: the turn runs that slash command, answered by the agent; it is replayed, but is no part of the model's conversation.",
    required: { turn: positiveInt },
    optional: { command: nonEmptyString },
  },
  'user/message': {
    description:
      "The user's prompt of the open turn. steered: a message the user sent while the turn ran (`_session/steering`), given to the model between two steps. An older reader ignores steered.",
    required: { turn: positiveInt, content: contentBlocks },
    optional: { steered: boolean },
  },
  'step/start': {
    description: 'One model call of the open turn begins.',
    required: { turn: positiveInt, step: positiveInt },
  },
  'assistant/message': {
    description:
      'What the model said in a step, with its reasoning and token usage when known. cost: what the step cost, priced when it ran (absent: no price was configured for the model). An older reader ignores cost.',
    required: { turn: positiveInt, step: positiveInt, content: string },
    optional: { thought: string, usage: tokenUsage, cost },
  },
  'tool/call': {
    description: 'The model asked for a tool; a tool/result with the same callId answers it.',
    required: {
      turn: positiveInt,
      step: positiveInt,
      callId: nonEmptyString,
      name: nonEmptyString,
      input: described(json, 'Any JSON value.'),
    },
    optional: { title: string, kind: string, locations: toolCallLocations },
  },
  'tool/result': {
    description: 'The answer to an open tool/call.',
    required: {
      turn: positiveInt,
      step: positiveInt,
      callId: nonEmptyString,
      output: described(json, 'Any JSON value: what the model read (cut with a note when it was very long).'),
    },
    optional: { isError: boolean, content: toolCallContents },
  },
  'step/end': {
    description: 'The step closes.',
    required: { turn: positiveInt, step: positiveInt },
  },
  'turn/end': {
    description:
      "The open turn closes; its seq is a boundary a fork may use. cost: the session's own cost so far (the assistant/message costs after its seed, in the currency of the latest), so a listing reads it from the log's tail; absent when no step of the session was priced. An older reader ignores cost.",
    required: { turn: positiveInt, reason: turnEndReason },
    optional: { message: string, cost },
  },
  'session/title': {
    description: "Standalone, between turns: the session's title changed.",
    required: { title: string },
  },
  'context/note': {
    description: "Standalone, between turns: a note added to the model's context.",
    required: { text: string },
  },
  'config/set': {
    description:
      'Standalone, anywhere (also inside a turn): a session configuration option got a new value. The current configuration is the last value per option; a fork child inherits the values of its prefix. Options dsh-acp sets: mode (ask, accept-edits, read-only), model (a model id the server offers), thought_level (a reasoning effort).',
    required: { option: nonEmptyString, value: stringOrBoolean },
  },
  'session/directories': {
    description:
      "Standalone, anywhere: the session's additional workspace directories (ACP additionalDirectories) are now these absolute paths; the file tools may work inside them as inside cwd. The last one holds.",
    required: { directories: stringList },
  },
  'session/archived': {
    description:
      'Standalone, between turns: the session was archived (true) or unarchived (false). An archived session is left out of session/list unless the request asks for archived ones; it still loads and forks. The last one holds; a fork child does not inherit it. A dsh-acp older than 0.3 refuses a file holding it (an unknown core type, CORRUPT_SESSION naming its seq) rather than misread it.',
    required: { archived: boolean },
  },
  'context/compaction': {
    description:
      'Standalone, anywhere (also inside a turn): the conversation through seq `through` (a closed turn boundary before this event) was summarized as `summary` by `model`. From here on the model is sent the system prompt, this summary and the events after `through`; nothing is deleted, so a fork at a boundary before this event has no summary and one after inherits it. `compactionId` names it on the wire (ACP compaction_update); tokensBefore and tokensAfter are the estimated request sizes before and after; trigger is auto, command or context-length; droppedToolOutputs counts the oldest tool outputs left out of the summary request to make it fit, droppedMessages the oldest messages left out when that was not enough. A core type on purpose: a dsh-acp older than this event refuses to open the file (unknown event type, CORRUPT_SESSION naming the seq) instead of sending the model the uncompacted history.',
    required: {
      compactionId: nonEmptyString,
      summary: string,
      through: positiveInt,
      model: string,
      tokensBefore: count,
      tokensAfter: count,
    },
    optional: {
      trigger: nonEmptyString,
      instructions: string,
      droppedToolOutputs: count,
      droppedMessages: count,
    },
  },
} as const satisfies Readonly<Record<string, EventDefinition>>

/**
 * The registry of the namespaced (`namespace:name`) events dsh-acp itself writes: every agent
 * event. The store keeps any extension event's data as the JSON object it was given; readers take
 * a registered one's data through `extensionData`, which checks it against this definition.
 */
export const EXTENSION_EVENTS = {
  'permission:always': {
    description:
      'The user answered a permission request with allow_always or reject_always: calls in scope (a tool name, or run_command:<command line>) are allowed or refused from now on without asking. Load keeps it; a fork child inherits it at its boundary.',
    required: { tool: nonEmptyString, scope: nonEmptyString, allow: boolean },
    closed: true,
  },
  'mcp:connected': {
    description:
      "An MCP server of the session connected; its tools (registered names mcp__<server>__<tool>) are offered. Appended only when the log's last mcp:connected or mcp:failed for that server says otherwise (so a load with the same servers adds none). Never holds the server's command, env, url or headers.",
    required: { server: string, tools: stringList },
    closed: true,
  },
  'mcp:failed': {
    description:
      "An MCP server of the session failed to start, timed out or stopped working; its tools were withdrawn and the user was told. The reason never holds the server's secrets.",
    required: { server: string, reason: string },
    closed: true,
  },
  'subagent:spawned': {
    description:
      "A delegate call of turn spawned the subagent session sessionId (a fork of this session marked with the call) to do task; title is the child's. Replays show the call in progress with the child's id.",
    required: {
      turn: positiveInt,
      callId: nonEmptyString,
      sessionId: string,
      title: string,
      task: string,
    },
    closed: true,
  },
  'checkpoint:file': {
    description:
      'A built-in file tool (call callId of turn) changed the file at path (absolute, its real path): before is what it held just before ("absent": there was no file; else "sha256:<hex>" of its bytes, which are inline in beforeText when small and UTF-8, else in the store\'s content-addressed blob directory, made durable before this event), after is the sha256 of the bytes written ("absent": the change removed the file). A restore of files to a boundary records each change it makes the same way, with callId "restore" and turn the session\'s last; it refuses a file whose content is no longer the last after. Forks copy it (the blobs are shared). An older reader ignores it.',
    required: {
      turn: positiveInt,
      callId: nonEmptyString,
      path: nonEmptyString,
      before: nonEmptyString,
      after: nonEmptyString,
    },
    optional: { beforeText: string },
    closed: true,
  },
  'plan:updated': {
    description:
      "The model's plan (its update_plan tool) is now entries, the whole list; an empty list clears it. Written inside the turn, between the call and its result. Load replays it as an ACP plan update at its place; a fork child inherits the plan of its prefix. An older reader ignores it (the tool call and result still show).",
    required: { entries: planEntries },
    closed: true,
  },
  'instructions:set': {
    description:
      "What the session's system prompt is built from, fixed when it was recorded: the environment (platform, shell, cwd, the git repository root and branch, additionalDirectories) and the AGENTS.md files read, in prompt order. The date is this event's time. Written when a session is created for a model that takes a system prompt (or before the first turn of a session without one), and again by /reload-instructions; the last one holds. An older reader ignores it.",
    required: {
      platform: nonEmptyString,
      shell: string,
      cwd: nonEmptyString,
      directories: stringList,
      files: instructionFiles,
    },
    optional: { gitRoot: string, gitBranch: string },
    closed: true,
  },
  'rewind:marker': {
    description:
      "Written by a rewind right after the events it kept (seq boundary + 1): the session went back to boundary; what followed is kept in the archived branch session branch. generation counts the session's rewinds (1 for the first): a message recorded after this event is named msg_<seq>_r<generation> (msg_<seq> before any rewind), so no id of a message the rewind removed is ever given to another. cost: what the session had spent when it was rewound (its own cost then, never lowered by a rewind; later turn/end totals go on from it). An older reader ignores it (its ids and costs are then those of 0.3).",
    required: { generation: positiveInt, branch: nonEmptyString, boundary: count },
    optional: { cost },
    closed: true,
  },
  'instructions:client': {
    description:
      'The client\'s own system prompt for this session (ACP `systemPrompt` on session/new, load, resume or fork): mode "append" adds content after dsh-acp\'s system prompt, "override" replaces it; content is the text of its blocks. The last one holds; a fork child and a subagent inherit it with the prefix. A reader that does not know the mode ignores the event; an older reader ignores it.',
    required: { mode: nonEmptyString, content: string },
    closed: true,
  },
  'goal:updated': {
    description:
      "The session's goal (`_session/goal`) is now this: objective, status (active, paused, blocked, limited, complete), iterations (the turns worked toward it), createdAt (when it was set, ISO 8601; absent: this event is the set, and its time is when), lastReason (why the status is what it is), budgetFrom (the iterations when it was last set or resumed: the iteration limit counts from there). Written by the goal control (anywhere), by the goal_status tool (inside a turn, between the call and its result) and after a turn worked toward it. The last goal event holds; a fork child inherits the goal of its prefix. An older reader ignores it.",
    required: { objective: nonEmptyString, status: nonEmptyString, iterations: count },
    optional: { createdAt: nonEmptyString, lastReason: string, budgetFrom: count },
    closed: true,
  },
  'goal:cleared': {
    description:
      "The session's goal was cleared (`_session/goal clear`): from here on it has none. An older reader ignores it.",
    required: {},
    closed: true,
  },
} as const satisfies Readonly<Record<`${string}:${string}`, EventDefinition>>
