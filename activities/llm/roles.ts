// The model roles a recipe declares besides the served agent (CoRal's extractor, ColBench's human and critic), each
// played by the endpoint the config names for it or, by default, by the served agent.
import type { LoopConfig } from '../../configs/schema';
import { recipeOf } from '../recipes/runtime';
import { externalEndpointRef, type EndpointRef } from './client';
import type { Chat } from './types';

/** The endpoint of each role the recipe declares: the one its config names, else the served agent's. */
export function roleEndpoints(config: LoopConfig, agent: EndpointRef): Record<string, EndpointRef> {
  return Object.fromEntries(
    Object.entries(recipeOf(config).roles(config.recipe)).map(([role, e]) => [role, e ? externalEndpointRef(e) : agent]),
  );
}

/** A chat per role, each through the durable request cache. */
export function roleChats(endpoints: Record<string, EndpointRef>, make: (e: EndpointRef) => Chat): Record<string, Chat> {
  return Object.fromEntries(Object.entries(endpoints).map(([role, e]) => [role, make(e)]));
}
