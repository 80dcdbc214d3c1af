import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type AbiParameter, decodeAbiParameters, encodeAbiParameters, parseAbiParameters } from 'viem';
import { abiValuesFromJson } from '../contracts/abi-json.ts';
import { abiOutputsToJson, abiValueToJson } from './abi-to-json.ts';

const ADDRESS = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';

/** What eth_call answers go through: JSON → ABI values → bytes → decoded by viem → JSON. */
function roundTrip(parameters: readonly AbiParameter[], json: unknown[]): unknown[] {
  const values = abiValuesFromJson(parameters, json, '/arguments');
  const decoded = decodeAbiParameters(parameters, encodeAbiParameters(parameters, values));
  return parameters.map((p, i) => abiValueToJson(p, decoded[i]));
}

describe('abiValueToJson', () => {
  it('writes every integer as a decimal string, whatever its size or sign', () => {
    const parameters = parseAbiParameters('uint8 a, uint48 b, uint256 c, int256 d, int8 e');
    assert.deepEqual(
      roundTrip(parameters, [255, '281474976710655', (2n ** 256n - 1n).toString(), '-5', -128]),
      ['255', '281474976710655', (2n ** 256n - 1n).toString(), '-5', '-128'],
    );
  });

  it('checksums addresses and keeps bytes as lowercase hex, bool and string as they are', () => {
    const parameters = parseAbiParameters('address a, bytes b, bytes4 c, bool d, string e');
    assert.deepEqual(roundTrip(parameters, [ADDRESS.toLowerCase(), '0xABCDEF', '0x80AC58CD', true, 'hé']), [
      ADDRESS,
      '0xabcdef',
      '0x80ac58cd',
      true,
      'hé',
    ]);
  });

  it('writes named tuples as objects, unnamed ones as arrays, arrays recursively', () => {
    const parameters: AbiParameter[] = [
      {
        name: 'pair',
        type: 'tuple[]',
        components: [
          { name: 'owner', type: 'address' },
          { name: 'ids', type: 'uint256[2]' },
        ],
      },
      {
        name: 'anon',
        type: 'tuple',
        components: [{ type: 'uint16' }, { name: 'flag', type: 'bool' }],
      },
    ];
    assert.deepEqual(roundTrip(parameters, [[{ owner: ADDRESS, ids: ['1', 2] }], [7, false]]), [
      [{ owner: ADDRESS, ids: ['1', '2'] }],
      ['7', false],
    ]);
  });
});

describe('abiOutputsToJson', () => {
  it('is null without outputs, the value itself for one output', () => {
    assert.equal(abiOutputsToJson([], []), null);
    assert.equal(abiOutputsToJson(parseAbiParameters('uint256'), [3n]), '3');
  });

  it('keys several outputs by name, or gives an array when one is unnamed or names repeat', () => {
    assert.deepEqual(
      abiOutputsToJson(parseAbiParameters('address receiver, uint256 amount'), [ADDRESS, 5n]),
      {
        receiver: ADDRESS,
        amount: '5',
      },
    );
    assert.deepEqual(abiOutputsToJson(parseAbiParameters('address receiver, uint256'), [ADDRESS, 5n]), [
      ADDRESS,
      '5',
    ]);
    assert.deepEqual(abiOutputsToJson(parseAbiParameters('uint8 x, uint8 x'), [1, 2]), ['1', '2']);
  });
});
