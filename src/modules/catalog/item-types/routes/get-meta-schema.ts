import { needs } from '../../../../access/access.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { ItemTypeMetaSchema } from '../item-types.schemas.ts';
import { metaSchema } from '../item-types.service.ts';

export const getMetaSchemaRoute: RouteModule = (app) =>
  app.get(
    '/v1/item-types/meta-schema',
    {
      // The meta schema is for admins only (item_types:write, as for listing).
      config: { access: needs('item_types:write') },
      schema: {
        operationId: 'getItemTypeMetaSchema',
        tags: ['Item types'],
        summary: 'The meta schema every item type json_schema must pass, and an example (admins only)',
        response: { 200: ItemTypeMetaSchema },
      },
    },
    async () => metaSchema(),
  );
