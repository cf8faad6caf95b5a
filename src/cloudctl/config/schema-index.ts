// cloudctl's schema read as data (src/lib/schema-walk.ts), built once: the unknown-key suggestions
// and the generated reference come from it.
import { indexSchema, type SchemaIndex } from '../../lib/schema-walk.ts';
import { cloudctlConfigSchema } from './schema/cloudctl-config.ts';

let index: SchemaIndex | undefined;

export function cloudctlSchemaIndex(): SchemaIndex {
  index ??= indexSchema(cloudctlConfigSchema);
  return index;
}
