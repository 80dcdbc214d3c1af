import { PUBLIC } from '../../../../access/access.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { ContractMetadata, ContractMetadataParams } from '../metadata.schemas.ts';
import { getContractMetadata } from '../metadata.service.ts';
import { sendDocument } from './send-document.ts';

export const getContractMetadataRoute: RouteModule = (app, ctx) =>
  app.get(
    '/v1/metadata/:collection_id',
    {
      config: { access: PUBLIC },
      schema: {
        operationId: 'getContractMetadata',
        tags: ['Metadata'],
        summary: "Contract metadata (the contracts' contractURI)",
        description:
          "Public. ERC-7572 contract-level metadata: name, symbol (once a deployment is requested), image (the collection's image_url) and, when royalty_info is set, OpenSea's seller_fee_basis_points and fee_recipient. Cache-Control: public, max-age=60, with an ETag.",
        params: ContractMetadataParams,
        response: { 200: ContractMetadata },
      },
    },
    async (request, reply) =>
      sendDocument(request, reply, await getContractMetadata(ctx.db, request.params.collection_id)),
  );
