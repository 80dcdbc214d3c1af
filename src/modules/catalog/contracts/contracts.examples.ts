import type { OperationExample } from '../../../http/openapi-examples.ts';
import { NEXT_CURSOR, page } from '../../../http/openapi-story.ts';

const customContract = {
  abi: [
    {
      type: 'function',
      name: 'mint',
      stateMutability: 'nonpayable',
      inputs: [
        { name: 'to', type: 'address' },
        { name: 'tokenId', type: 'uint256' },
      ],
      outputs: [],
    },
    {
      type: 'function',
      name: 'supportsInterface',
      stateMutability: 'view',
      inputs: [{ name: 'interfaceId', type: 'bytes4' }],
      outputs: [{ name: '', type: 'bool' }],
    },
  ],
  bytecode: '0x608060405234801561001057600080fd5b50610150806100206000396000f3fe',
  constructor_args: ['Harbor Tickets', 'HBT'],
  token_type: 'ERC721',
};

/** Contracts and capabilities: what a custom contract can do. */
export const contractsExamples: Readonly<Record<string, OperationExample>> = {
  verifyCapabilities: {
    request: customContract,
    response: { capabilities: ['ERC721', 'ADMIN_MINT_SINGLE'] },
  },
  listCapabilities: {
    response: page(
      [
        {
          name: 'ADMIN_MINT_BATCH',
          description: 'Admin mint of several tokens in one transaction',
          abi: [
            {
              type: 'function',
              name: 'mintBatch',
              inputs: [
                { type: 'address', name: 'to' },
                { type: 'uint256[]', name: 'tokenIds' },
              ],
              outputs: [],
              stateMutability: 'nonpayable',
            },
          ],
        },
      ],
      { cursor: NEXT_CURSOR, total_results: 19 },
    ),
  },
};
