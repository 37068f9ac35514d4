// The `llm.sharedLimits:` section: one Redis that every worker process of every run reaches, so an endpoint's
// `maxConcurrency` and `tokensPerMinute` bound all of them together (activities/llm/shared-limiter.ts) instead of each
// process on its own. The config enters the workflow history, so the Redis password never goes in it: the worker
// reads it from the environment variable COLLAB_LOOP_REDIS_PASSWORD.
import { z } from 'zod';

export const REDIS_PASSWORD_ENV = 'COLLAB_LOOP_REDIS_PASSWORD';

const redisUrl = z.string().superRefine((s, ctx) => {
  let url: URL;
  try {
    url = new URL(s);
  } catch {
    url = new URL('invalid:');
  }
  if ((url.protocol !== 'redis:' && url.protocol !== 'rediss:') || !url.hostname)
    ctx.addIssue({ code: 'custom', message: `must be a Redis URL such as redis://redis-host:6379/0, not "${s}"` });
  else if (url.password)
    ctx.addIssue({
      code: 'custom',
      message: `must not hold a password (the config enters the workflow history): set ${REDIS_PASSWORD_ENV} on every worker instead`,
    });
  else if (url.pathname.length > 1 && !/^\/\d+$/.test(url.pathname))
    ctx.addIssue({ code: 'custom', message: `the path must be a database number such as /0, not "${url.pathname}"` });
});

export const sharedLimitsSchema = z.strictObject({
  redis: redisUrl.meta({ description: 'redis://host:port/db (rediss:// for TLS); every worker host must reach it.' }),
  leaseSeconds: z.number().min(0.3).max(3600).default(15).meta({
    description: 'How long a permit outlives a process that stopped renewing it (a killed worker): its holders renew every third.',
  }),
});

export type SharedLimitsConfig = z.infer<typeof sharedLimitsSchema>;
