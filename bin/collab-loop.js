#!/usr/bin/env node
// The collab-loop CLI. Sources are TypeScript, run through tsx so there is no build step to forget.
import { register } from 'tsx/esm/api';

register();
await import('../cli/main.ts');
