/**
 * How model servers say "the prompt does not fit the context window" (looked up in their code and
 * issue trackers, late 2026):
 * - OpenAI: HTTP 400, `error.code: "context_length_exceeded"`, "This model's maximum context length
 *   is N tokens. However, your messages resulted in M tokens…";
 * - DeepSeek and vLLM: HTTP 400, "This model's maximum context length is N tokens. However, you
 *   requested M tokens (… in the messages, … in the completion). Please reduce the length of the
 *   messages or completion." (vLLM also: "… is longer than the maximum model length of N");
 * - llama.cpp's server: `error.type: "exceed_context_size_error"` (with `n_prompt_tokens`, `n_ctx`),
 *   "the request exceeds the available context size, try increasing it", sent as 400 or, by some
 *   versions, 500 (ggml-org/llama.cpp#15780, #19774; older: "Context size has been exceeded.");
 * - Ollama's OpenAI endpoint truncates an overlong prompt silently to `num_ctx` (ollama/ollama#4967)
 *   and says nothing: only the estimate before a request (compaction's automatic trigger) helps there;
 *   its native errors ("input length exceeds the context length") match too.
 */
const CONTEXT_LENGTH_TEXT =
  /context[ _-]?length|context[ _-]?window|context size|maximum (model|context) length|too many tokens|prompt is too long|exceeds? (the )?(available |maximum )?context|input length exceeds|reduce the length|n_ctx/i

const CONTEXT_LENGTH_CODES = /"(context_length_exceeded|exceed_context_size_error|string_above_max_length)"/

/**
 * Whether a non-2xx answer says the request is too long for the model's context window: 413, or a
 * 400, 422 or 5xx whose body says so in any of the wordings above.
 */
export function isContextLengthAnswer(status: number, body: string): boolean {
  if (status === 413) return true
  if (status !== 400 && status !== 422 && status < 500) return false
  return CONTEXT_LENGTH_CODES.test(body) || CONTEXT_LENGTH_TEXT.test(body)
}
