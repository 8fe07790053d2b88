/** How the agent works toward session goals (`AgentConfig.goals`). */
export interface GoalOptions {
  /**
   * Turns the agent works toward a session goal (`_session/goal`) from its last set or resume
   * before the goal is `limited`. Default 20.
   */
  readonly maxIterations?: number
}
