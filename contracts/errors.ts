// Failure types a retry cannot fix, by name: activities raise them, workflows' retry policies stop on them and the
// CLI prints them as one line. One list, so the three can never disagree.

/** Mistakes in inputs the user controls (the config, a task or prompt file, a command template, trainer data):
 *  activities turn errors of these names into non-retryable failures (activities/index.ts). */
export const USER_INPUT_ERRORS = ['ConfigError', 'TaskFileError', 'PromptFileError', 'TemplateError', 'TrainerConfigError'] as const;

/** What no retry can fix: a user's input, or an endpoint that refuses the request itself (bad key, unknown model,
 *  malformed request; activities/llm/errors.ts). Every activity retry policy stops on these. */
export const NON_RETRYABLE_ERRORS = [...USER_INPUT_ERRORS, 'LlmAuthentication', 'LlmNotFound', 'LlmBadRequest'];
