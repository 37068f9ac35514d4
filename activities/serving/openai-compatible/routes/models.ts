// GET /v1/models and GET /v1/models/{model} (OpenAI API reference, "Models"): the one served model, owned by the
// simulator so nobody mistakes its answers for a model's.
import { jsonRoute, type RouteHandler } from '../json-http';

export function modelsRoutes(modelName: string): Record<string, RouteHandler> {
  const models = { object: 'list', data: [{ id: modelName, object: 'model', created: 0, owned_by: 'collab-loop-simulator' }] };
  return {
    'GET /v1/models': jsonRoute(() => models),
    [`GET /v1/models/${modelName}`]: jsonRoute(() => models.data[0]),
  };
}
