// Walks the config schema beside a config value: the path fields it declares (contracts/config-fields.ts
// existingPath), and the object schema at a field path (for the known keys beside an unknown one). Unions are
// followed into the option the value takes (a discriminated union by its discriminator: zod's `propValues`).
import type { z } from 'zod';
import { localPaths, type LocalPathMeta } from '../contracts/config-fields';

type Schema = z.core.$ZodType;
type Key = string | number;

interface Def {
  type: string;
  innerType?: Schema;
  in?: Schema;
  shape?: Record<string, Schema>;
  valueType?: Schema;
  element?: Schema;
  options?: Schema[];
  discriminator?: string;
}

const defOf = (s: Schema) => s._zod.def as unknown as Def;
const isMapping = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The schema under wrappers (optional, default, prefault, …) and, for a union, the option `value` takes. */
function unwrap(schema: Schema, value: unknown): Schema | undefined {
  const def = defOf(schema);
  if (def.innerType) return unwrap(def.innerType, value);
  if (def.type === 'pipe' && def.in) return unwrap(def.in, value);
  if (def.type !== 'union') return schema;
  const disc = def.discriminator;
  const option = disc
    ? def.options!.find((o) => isMapping(value) && o._zod.propValues?.[disc]?.has(value[disc] as never))
    : def.options!.find((o) => (o as z.ZodType).safeParse(value).success);
  return option && unwrap(option, value);
}

/** The schemas of the fields one level under `schema` for `value`, by key. */
function children(schema: Schema, value: unknown): Array<[Key, Schema, unknown]> {
  const s = unwrap(schema, value);
  const def = s && defOf(s);
  if (def?.type === 'object' && isMapping(value))
    return Object.entries(def.shape!)
      .filter(([k]) => k in value)
      .map(([k, c]) => [k, c, value[k]]);
  if (def?.type === 'record' && isMapping(value)) return Object.entries(value).map(([k, v]) => [k, def.valueType!, v]);
  if (def?.type === 'array' && Array.isArray(value)) return value.map((v, i) => [i, def.element!, v]);
  return [];
}

export interface PathField {
  field: Key[];
  value: string;
  meta: LocalPathMeta;
}

/** Every declared path field that `value` sets, with its field path. */
export function pathFields(schema: Schema, value: unknown, field: Key[] = []): PathField[] {
  for (let s: Schema | undefined = schema; s; s = defOf(s).innerType) {
    const meta = localPaths.get(s);
    if (meta) return typeof value === 'string' ? [{ field, value, meta }] : [];
  }
  return children(schema, value).flatMap(([k, c, v]) => pathFields(c, v, [...field, k]));
}

/** The keys an object field at `field` knows (for `raw`, the config as written), or [] when it is not an object. */
export function knownKeys(schema: Schema, raw: unknown, field: readonly PropertyKey[]): string[] {
  let s: Schema | undefined = schema;
  let v = raw;
  for (const key of field) {
    const u: Schema | undefined = s && unwrap(s, v);
    const def: Def | undefined = u && defOf(u);
    s =
      def?.type === 'object'
        ? def.shape![String(key)]
        : def?.type === 'record'
          ? def.valueType
          : def?.type === 'array'
            ? def.element
            : undefined;
    v = isMapping(v) || Array.isArray(v) ? (v as Record<string, unknown>)[String(key)] : undefined;
  }
  const u = s && unwrap(s, v);
  return u && defOf(u).type === 'object' ? Object.keys(defOf(u).shape!) : [];
}
