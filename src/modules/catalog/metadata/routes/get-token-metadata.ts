import { PUBLIC } from '../../../../access/access.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { TokenMetadata, TokenMetadataParams } from '../metadata.schemas.ts';
import { getTokenMetadata } from '../metadata.service.ts';
import { sendDocument } from './send-document.ts';

export const getTokenMetadataRoute: RouteModule = (app, ctx) =>
  app.get(
    '/v1/metadata/:collection_id/:token_id',
    {
      config: { access: PUBLIC },
      schema: {
        operationId: 'getTokenMetadata',
        tags: ['Metadata'],
        summary: "Token metadata (the contracts' tokenURI / uri)",
        description:
          "Public. The contracts' base URI is {PUBLIC_BASE_URL}/v1/metadata/{collection_id}/ and they append the decimal token id. 404 unless the collection has an item with this token id whose token is minted (ERC1155: any supply minted). Cache-Control: public, max-age=60 once revealed, no-store while a DELAYED collection hides its reveal; an ETag allows conditional requests (304).",
        params: TokenMetadataParams,
        response: { 200: TokenMetadata },
      },
    },
    async (request, reply) => {
      const { collection_id, token_id } = request.params;
      return sendDocument(request, reply, await getTokenMetadata(ctx.db, collection_id, token_id));
    },
  );
