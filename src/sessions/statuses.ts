/** A session is `active` until it is ended (by the caller, or by the idle timeout). */
export const SESSION_STATUSES = ['active', 'ended'] as const;
export type SessionStatus = (typeof SESSION_STATUSES)[number];

/** Why a session ended. */
export const SESSION_END_REASONS = ['ended', 'idle_timeout'] as const;
export type SessionEndReason = (typeof SESSION_END_REASONS)[number];

/** How the agent answered a turn. */
export const TURN_ROUTES = ['workflow', 'llm', 'refusal', 'fallback'] as const;
export type TurnRoute = (typeof TURN_ROUTES)[number];
