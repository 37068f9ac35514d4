// Entry point the worker bundles: every workflow type the project registers.
export { trainingLoop } from './loop';
export { iterationWorkflow } from './iteration';
