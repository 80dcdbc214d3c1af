import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type AbiParameter, parseAbi } from 'viem';
import { platformContracts } from '../../../chain/artifacts.ts';
import { ApiError } from '../../../lib/errors.ts';
import { abiValuesFromJson, parseAbiJson } from './abi-json.ts';

function fieldsOf(fn: () => unknown): { path: string; message: string }[] {
  try {
    fn();
  } catch (error) {
    assert.ok(error instanceof ApiError, String(error));
    assert.equal(error.code, 'VALIDATION_FAILED');
    return error.options.fields ?? [];
  }
  assert.fail('expected VALIDATION_FAILED');
}

const pathsOf = (fn: () => unknown) => fieldsOf(fn).map((f) => f.path);

const ADDRESS = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';

describe('parseAbiJson', () => {
  it('accepts the platform ABIs as solc writes them, unchanged but for dropped extra keys', () => {
    for (const artifact of Object.values(platformContracts)) {
      const parsed = parseAbiJson(artifact.abi, '/abi');
      assert.deepEqual(parsed, artifact.abi);
    }
  });

  it('spells type aliases out and drops keys outside the ABI specification', () => {
    const parsed = parseAbiJson(
      [
        {
          type: 'function',
          name: 'f',
          inputs: [{ name: 'a', type: 'uint[]', gas: 1 }],
          outputs: [{ name: '', type: 'int' }],
          stateMutability: 'view',
          constant: true,
        },
      ],
      '/abi',
    );
    assert.deepEqual(parsed, [
      {
        type: 'function',
        name: 'f',
        inputs: [{ name: 'a', type: 'uint256[]' }],
        outputs: [{ name: '', type: 'int256' }],
        stateMutability: 'view',
      },
    ]);
  });

  it('rejects unknown entry and parameter types with their paths', () => {
    assert.deepEqual(
      pathsOf(() =>
        parseAbiJson(
          [
            { type: 'method', name: 'f' },
            { type: 'function', name: 'g', inputs: [{ type: 'uint257' }], outputs: [] },
            { type: 'function', name: 'h', inputs: [{ type: 'bytes33' }, { type: 'uint256 indexed' }] },
            'function x()',
          ],
          '/abi',
        ),
      ),
      ['/abi/0/type', '/abi/1/inputs/0/type', '/abi/2/inputs/0/type', '/abi/2/inputs/1/type', '/abi/3'],
    );
  });

  it('requires names that are identifiers, inputs arrays and known mutabilities', () => {
    assert.deepEqual(
      pathsOf(() =>
        parseAbiJson(
          [
            { type: 'function', inputs: [] },
            { type: 'function', name: 'a b', inputs: [] },
            { type: 'event', name: 'E' },
            { type: 'function', name: 'f', inputs: [], stateMutability: 'constant' },
            { type: 'function', name: 'g', inputs: [{ type: 'uint256', name: 5 }] },
          ],
          '/abi',
        ),
      ),
      ['/abi/0/name', '/abi/1/name', '/abi/2/inputs', '/abi/3/stateMutability', '/abi/4/inputs/0/name'],
    );
  });

  it('requires components on tuples, and only there', () => {
    assert.deepEqual(
      pathsOf(() =>
        parseAbiJson(
          [
            { type: 'constructor', inputs: [{ type: 'tuple', name: 'a' }] },
            { type: 'function', name: 'f', inputs: [{ type: 'address', components: [] }] },
            {
              type: 'function',
              name: 'g',
              inputs: [{ type: 'tuple[]', components: [{ type: 'tuple', components: [{ type: 'nope' }] }] }],
            },
          ],
          '/custom/abi',
        ),
      ),
      [
        '/custom/abi/0/inputs/0/components',
        '/custom/abi/1/inputs/0/components',
        '/custom/abi/2/inputs/0/components/0/components/0/type',
      ],
    );
  });

  it('refuses tuples nested without end', () => {
    let parameter: Record<string, unknown> = { type: 'uint256' };
    for (let i = 0; i < 40; i++) parameter = { type: 'tuple', components: [parameter] };
    const fields = fieldsOf(() =>
      parseAbiJson([{ type: 'function', name: 'f', inputs: [parameter] }], '/abi'),
    );
    assert.equal(fields.length, 1);
    assert.match(fields[0]!.message, /nested more than/);
  });

  it('refuses a second constructor', () => {
    const entry = { type: 'constructor', inputs: [], stateMutability: 'nonpayable' };
    assert.deepEqual(
      pathsOf(() => parseAbiJson([entry, entry], '/abi')),
      ['/abi/1'],
    );
  });

  it('reports at most 50 faults', () => {
    const bad = Array.from({ length: 500 }, () => ({ type: 'function', name: '1', inputs: [] }));
    assert.equal(fieldsOf(() => parseAbiJson(bad, '/abi')).length, 50);
  });
});

describe('abiValuesFromJson', () => {
  const [ctor] = parseAbi([
    'constructor(uint8 small, int16 signed, uint256 big, address owner, bool flag, string label, bytes data, bytes4 tag, uint256[2] pair, (address to, uint96 bps)[] splits)',
  ]);
  const inputs = (ctor as { inputs: readonly AbiParameter[] }).inputs;
  const good = [
    255,
    '-32768',
    '115792089237316195423570985008687907853269984665640564039457584007913129639935',
    ADDRESS.toLowerCase(),
    true,
    'x',
    '0x',
    '0x01020304',
    ['1', 2],
    [{ to: ADDRESS, bps: 500 }, [ADDRESS, '0']],
  ];

  it('converts JSON values to what viem encodes: integers to bigint, addresses checksummed, tuples to arrays', () => {
    assert.deepEqual(abiValuesFromJson(inputs, good, '/constructor_args'), [
      255n,
      -32768n,
      2n ** 256n - 1n,
      ADDRESS,
      true,
      'x',
      '0x',
      '0x01020304',
      [1n, 2n],
      [
        [ADDRESS, 500n],
        [ADDRESS, 0n],
      ],
    ]);
  });

  it('rejects a wrong number of arguments', () => {
    const fields = fieldsOf(() => abiValuesFromJson(inputs, good.slice(1), '/constructor_args'));
    assert.deepEqual(
      fields.map((f) => f.path),
      ['/constructor_args'],
    );
    assert.match(fields[0]!.message, /expects 10 arguments .*got 9/);
  });

  it('rejects each value of the wrong type, with its path', () => {
    const bad = [
      256,
      '-32769',
      '1e18',
      '0x5AAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
      'true',
      5,
      'zz',
      '0x0102',
      ['1'],
      [{ to: ADDRESS }, { to: ADDRESS, bps: 1, extra: 2 }, 7],
    ];
    assert.deepEqual(
      pathsOf(() => abiValuesFromJson(inputs, bad, '/constructor_args')),
      [
        '/constructor_args/0',
        '/constructor_args/1',
        '/constructor_args/2',
        '/constructor_args/3',
        '/constructor_args/4',
        '/constructor_args/5',
        '/constructor_args/6',
        '/constructor_args/7',
        '/constructor_args/8',
        '/constructor_args/9/0/bps',
        '/constructor_args/9/1/extra',
        '/constructor_args/9/2',
      ],
    );
  });

  it('refuses unsafe JSON numbers and negative unsigned integers', () => {
    const [param] = parseAbi(['function f(uint256 a)'])[0]!.inputs;
    assert.deepEqual(
      pathsOf(() => abiValuesFromJson([param!], [2 ** 60], '')),
      ['/0'],
    );
    assert.deepEqual(
      pathsOf(() => abiValuesFromJson([param!], ['-1'], '')),
      ['/0'],
    );
    assert.deepEqual(
      pathsOf(() => abiValuesFromJson([param!], ['01'], '')),
      ['/0'],
    );
  });

  it('refuses argument types it cannot encode', () => {
    assert.deepEqual(
      pathsOf(() => abiValuesFromJson([{ type: 'function', name: 'f' }], ['0x'], '')),
      ['/0'],
    );
  });
});
