#!/usr/bin/env node
// The collab-loop CLI. Sources are TypeScript, run from a build kept while they are unchanged (bin/kept-build.js),
// so there is no build step to forget.
import { importEntry } from './kept-build.js';

// On Node 20 the AWS SDK prints a multi-line NodeVersionSupportWarning on every command that builds an S3 client.
// It is about SDK releases after January 2027, which need Node 22; the SDK is pinned (package.json), so this one
// works on 20. `node bin/setup.js` says once that Node 22 is recommended; the CLI (and the workers and stages it
// spawns, which inherit the variable) stays quiet. Set to false to see the SDK's text again.
if (Number(process.versions.node.split('.')[0]) < 22) process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

await importEntry('cli/main.ts');
