// Failure types a retry cannot fix, by name: activities raise them, workflows' retry policies stop on them and the
// CLI prints them as one line. One list, so the three can never disagree.

/** Mistakes in inputs the user controls (the config, a task or prompt file, a command template, trainer data):
 *  activities turn errors of these names into non-retryable failures (activities/index.ts). */
export const USER_INPUT_ERRORS = ['ConfigError', 'TaskFileError', 'PromptFileError', 'TemplateError', 'TrainerConfigError'] as const;

/** A model server the loop deployed no longer listens (a new worker reaped it): only a new deploy brings it back
 *  (activities/llm/served-gone.ts raises it, workflows/redeploy.ts deploys again). */
export const SERVED_ENDPOINT_GONE = 'ServedEndpointGone';

/** What no retry can fix: a user's input, an endpoint that refuses the request itself (bad key, unknown model,
 *  malformed request; activities/llm/errors.ts), or a loop-served endpoint that is gone. Every activity retry
 *  policy stops on these. */
export const NON_RETRYABLE_ERRORS = [...USER_INPUT_ERRORS, 'LlmAuthentication', 'LlmNotFound', 'LlmBadRequest', SERVED_ENDPOINT_GONE];
