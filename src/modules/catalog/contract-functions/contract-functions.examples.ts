import type { OperationExample } from '../../../http/openapi-examples.ts';
import { ids, NEXT_CURSOR, page } from '../../../http/openapi-story.ts';

const nameFunction = {
  id: '06fdde03',
  abi: {
    type: 'function',
    name: 'name',
    inputs: [],
    outputs: [{ internalType: 'string', name: '', type: 'string' }],
    stateMutability: 'view',
  },
  enabled: false,
};

const setBaseUriFunction = {
  id: '55f804b3',
  abi: {
    type: 'function',
    name: 'setBaseURI',
    inputs: [{ internalType: 'string', name: 'newBaseURI', type: 'string' }],
    outputs: [],
    stateMutability: 'nonpayable',
  },
  enabled: true,
};

/** The functions of the collection's contract: a view one and an admin one. */
export const contractFunctionsExamples: Readonly<Record<string, OperationExample>> = {
  listContractFunctions: {
    params: { collection_id: ids.collection },
    response: page([nameFunction, setBaseUriFunction], { cursor: NEXT_CURSOR, total_results: 41 }),
  },
  getContractFunction: {
    params: { collection_id: ids.collection, function_id: nameFunction.id },
    response: nameFunction,
  },
  editContractFunction: {
    params: { collection_id: ids.collection, function_id: setBaseUriFunction.id },
    request: { enabled: true },
    response: { contract_func: setBaseUriFunction },
  },
  callContractFunction: {
    params: { collection_id: ids.collection, function_id: nameFunction.id },
    request: { arguments: [] },
    response: { result: 'Northwind Genesis' },
  },
  executeContractFunction: {
    params: { collection_id: ids.collection, function_id: setBaseUriFunction.id },
    request: { arguments: ['https://meta.northwind.example/genesis/'] },
    response: { transaction_id: ids.mintTransaction },
  },
};
