// docs/configuration.md, the configuration reference, rendered from the config schema itself: zod's JSON Schema of
// it (z.toJSONSchema, input side: what a file may leave out) carries each field's type, bounds, default and its
// `.meta({ description })`, so the page cannot say other than what the loader accepts. Fields are named by their full
// path, as the loader's errors name them; a discriminated union gets one section per variant.
import { z } from 'zod';
import { loopConfigSchema } from './schema';

/** The parts of a JSON Schema (draft 2020-12) that zod writes for the config. */
interface Json {
  type?: string;
  description?: string;
  deprecated?: boolean;
  default?: unknown;
  const?: unknown;
  enum?: unknown[];
  format?: string;
  minimum?: number;
  exclusiveMinimum?: number;
  maximum?: number;
  exclusiveMaximum?: number;
  minItems?: number;
  properties?: Record<string, Json>;
  required?: string[];
  additionalProperties?: Json | boolean;
  propertyNames?: Json;
  items?: Json;
  oneOf?: Json[];
  anyOf?: Json[];
}

export interface FieldDoc {
  path: string;
  type: string;
  default?: string;
  required: boolean;
  description?: string;
}

/** A section of the page: an object's fields (nested objects flattened into its table), then its unions' variants. */
export interface SectionDoc {
  title: string;
  description?: string;
  fields: FieldDoc[];
  sections: SectionDoc[];
}

/** The placeholder of a map's keys in a field path (`models.<name>.from`). */
const KEY = '<name>';

/** The options of a discriminated union and the key that tells them apart (a `const` in every option). */
function variantsOf(s: Json): { key: string; options: Json[] } | undefined {
  const options = s.oneOf ?? s.anyOf;
  if (!options?.every((o) => o.properties)) return undefined;
  const key = Object.keys(options[0].properties!).find((k) => options.every((o) => o.properties![k]?.const !== undefined));
  return key === undefined ? undefined : { key, options };
}

const mapValues = (s: Json): Json | undefined =>
  s.type === 'object' && !s.properties && typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined;

const code = (v: unknown) => `\`${typeof v === 'string' && v !== '' ? v : JSON.stringify(v)}\``;

function bounds(s: Json): string {
  const low = s.exclusiveMinimum ?? (s.minimum === Number.MIN_SAFE_INTEGER ? undefined : s.minimum);
  const high = s.exclusiveMaximum ?? (s.maximum === Number.MAX_SAFE_INTEGER ? undefined : s.maximum);
  if (low !== undefined && high !== undefined)
    return ` in ${s.exclusiveMinimum !== undefined ? '(' : '['}${low}, ${high}${s.exclusiveMaximum !== undefined ? ')' : ']'}`;
  if (low !== undefined) return ` ${s.exclusiveMinimum !== undefined ? '>' : '≥'} ${low}`;
  if (high !== undefined) return ` ${s.exclusiveMaximum !== undefined ? '<' : '≤'} ${high}`;
  return '';
}

function typeOf(s: Json): string {
  if (s.const !== undefined) return code(s.const);
  if (s.enum) return s.enum.map(code).join(' \\| ');
  const variants = variantsOf(s);
  if (variants)
    return `object by \`${variants.key}\`: ${variants.options.map((o) => code(o.properties![variants.key].const)).join(' \\| ')}`;
  const options = s.oneOf ?? s.anyOf;
  if (options) return options.map(typeOf).join(' or ');
  const values = mapValues(s);
  if (values) return `map of ${s.propertyNames?.enum ? `(${typeOf(s.propertyNames)})` : 'name'} → ${typeOf(values)}`;
  switch (s.type) {
    case 'string':
      return s.format === 'uri' ? 'URL' : 'string';
    case 'integer':
    case 'number':
      return `${s.type}${bounds(s)}`;
    case 'array':
      return `list of ${s.items ? typeOf(s.items) : 'any'}${s.minItems ? ` (at least ${s.minItems})` : ''}`;
    case 'object':
      return 'object';
    case undefined:
      return 'any';
    default:
      return s.type;
  }
}

/** The schema under a field whose own fields are documented too: an object, a union, or a list or map of them. */
function structured(s: Json): boolean {
  if (s.properties || variantsOf(s)) return true;
  const inner = s.type === 'array' ? s.items : mapValues(s);
  return !!inner && structured(inner);
}

/** Adds the fields of object `s` (under `prefix`) to `into`, leaving out `skip` (a variant's discriminator). */
function addFields(s: Json, prefix: string, into: SectionDoc, skip?: string): void {
  for (const [key, field] of Object.entries(s.properties ?? {})) {
    // A field that moved elsewhere is declared only to reject it with a message saying where (movedToModels).
    if (key === skip || field.deprecated) continue;
    const path = prefix ? `${prefix}.${key}` : key;
    into.fields.push({
      path,
      type: typeOf(field),
      default: field.default === undefined ? undefined : code(field.default),
      required: !!s.required?.includes(key),
      description: field.description,
    });
    expand(field, path, into);
  }
}

/** Documents what is under a field at `path`: an object's fields in the same table, a union's variants as sections. */
function expand(s: Json, path: string, into: SectionDoc): void {
  const variants = variantsOf(s);
  if (variants)
    for (const option of variants.options)
      into.sections.push(section(`${path}.${variants.key}: ${option.properties![variants.key].const}`, option, path, variants.key));
  else if (s.properties) addFields(s, path, into);
  else if (s.type === 'array' && s.items) expand(s.items, `${path}[]`, into);
  else if (mapValues(s)) expand(mapValues(s)!, `${path}.${KEY}`, into);
}

function section(title: string, s: Json, path: string, skip?: string): SectionDoc {
  const doc: SectionDoc = { title, description: s.description, fields: [], sections: [] };
  addFields(s, path, doc, skip);
  return doc;
}

/** The config schema as the page's sections: the top-level fields, then one section per structured top-level field. */
export function configSections(schema: z.ZodType = loopConfigSchema): { top: SectionDoc; sections: SectionDoc[] } {
  const root = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Json;
  const top: SectionDoc = { title: 'Top-level fields', fields: [], sections: [] };
  const sections: SectionDoc[] = [];
  for (const [key, field] of Object.entries(root.properties ?? {})) {
    if (field.deprecated) continue;
    top.fields.push({
      path: key,
      type: typeOf(field),
      default: field.default === undefined ? undefined : code(field.default),
      required: !!root.required?.includes(key),
      description: field.description,
    });
    if (structured(field)) {
      const doc: SectionDoc = { title: key, description: field.description, fields: [], sections: [] };
      expand(field, key, doc);
      sections.push(doc);
    }
  }
  return { top, sections };
}

/** Every documented field and variant that has no description, by path or title. */
export function undescribed(sections: { top: SectionDoc; sections: SectionDoc[] }): string[] {
  const walk = (s: SectionDoc, isVariant: boolean): string[] => [
    ...(isVariant && !s.description ? [s.title] : []),
    ...s.fields.filter((f) => !f.description).map((f) => f.path),
    ...s.sections.flatMap((c) => walk(c, true)),
  ];
  return [...walk(sections.top, false), ...sections.sections.flatMap((s) => walk(s, false))];
}

const cell = (text: string) => text.replace(/\s*\n\s*/g, ' ').replace(/\|/g, '\\|');

function table(fields: FieldDoc[]): string[] {
  if (fields.length === 0) return [];
  return [
    '| field | type | default | required | description |',
    '|---|---|---|---|---|',
    ...fields.map(
      (f) =>
        `| \`${f.path}\` | ${f.type} | ${f.default ? cell(f.default) : ''} | ${f.required ? 'required' : 'optional'} | ${cell(f.description ?? '')} |`,
    ),
    '',
  ];
}

function renderSection(s: SectionDoc, level: number, isTop = false): string[] {
  return [
    `${'#'.repeat(level)} ${isTop ? s.title : `\`${s.title}\``}`,
    '',
    ...(s.description && !isTop ? [s.description, ''] : []),
    ...table(s.fields),
    ...s.sections.flatMap((c) => renderSection(c, level + 1)),
  ];
}

export const CONFIG_DOC_COMMAND = 'npm run docs:config';

export function renderConfigDoc(schema: z.ZodType = loopConfigSchema): string {
  const { top, sections } = configSections(schema);
  return [
    '# Configuration reference',
    '',
    `Generated from the config schema (\`configs/schema.ts\` and the sections it composes) by \`${CONFIG_DOC_COMMAND}\`; edit the descriptions there, not this page.`,
    '',
    'One YAML file per experiment. Fields are named by their path, as the error for a bad one names them; `<name>` is a',
    'key of your choosing (a model role, a policy), `[]` an item of a list. Relative paths are relative to the config file. A field with a default may be left out.',
    '',
    ...renderSection(top, 2, true),
    ...sections.flatMap((s) => renderSection(s, 2)),
  ].join('\n');
}
