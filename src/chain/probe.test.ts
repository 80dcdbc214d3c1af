import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type Abi, type Hex, toFunctionSelector } from 'viem';
import mockErc20 from '../../contracts/artifacts/test/MockERC20.json' with { type: 'json' };
import { platformContracts } from './artifacts.ts';
import { capabilitiesOf, functionSelector } from './capabilities.ts';
import { capabilitiesFromEvidence, dispatchedSelectors, registryAbi } from './probe.ts';

const selectorsOf = (abi: Abi) =>
  abi.flatMap((item) => (item.type === 'function' ? [functionSelector(item)] : []));

describe('dispatchedSelectors', () => {
  it("finds every public function's selector in a compiled contract's code", () => {
    for (const artifact of Object.values(platformContracts)) {
      const found = dispatchedSelectors(artifact.bytecode);
      for (const selector of selectorsOf(artifact.abi as Abi))
        assert.ok(found.has(selector), `${artifact.contractName}: ${selector}`);
    }
  });

  it('reads PUSH1..PUSH4 values left-padded to 4 bytes, and never the data of a longer PUSH as code', () => {
    // PUSH4 0x12345678, PUSH3 0xfdd58e (a selector with a leading zero byte),
    // PUSH5 0x63aabbccdd (PUSH4-looking data), PUSH32 of 0x63 bytes, JUMPDEST.
    const code: Hex = `0x6312345678 62fdd58e 6463aabbccdd 7f${'63'.repeat(32)} 5b`.replaceAll(' ', '') as Hex;
    const found = dispatchedSelectors(code);
    assert.ok(found.has('0x12345678'));
    assert.ok(found.has('0x00fdd58e'));
    assert.ok(!found.has('0xaabbccdd'));
    assert.ok(![...found].some((s) => s.includes('6363')));
  });

  it('ignores a PUSH cut short by the end of the code', () => {
    assert.deepEqual([...dispatchedSelectors('0x631234')], []);
  });
});

describe('capabilitiesFromEvidence', () => {
  const flexible721 = platformContracts.FlexibleERC721;
  const flexible1155 = platformContracts.FlexibleERC1155;

  it("gives a platform contract's code alone the capabilities of its ABI", () => {
    for (const artifact of [flexible721, flexible1155]) {
      const tokenType = artifact === flexible721 ? 'ERC721' : 'ERC1155';
      const { capabilities, abi } = capabilitiesFromEvidence(
        { selectors: dispatchedSelectors(artifact.bytecode), interfaces: new Set() },
        tokenType,
      );
      assert.deepEqual(capabilities, capabilitiesOf(artifact.abi as Abi));
      // The ABI kept is the registry's fragments, in the contract's form.
      assert.deepEqual(capabilitiesOf(abi), capabilities);
      assert.deepEqual(abi, registryAbi(capabilities, tokenType));
    }
  });

  it('counts the functions of a capability declared through ERC-165 without their selectors in the code', () => {
    const { capabilities } = capabilitiesFromEvidence(
      { selectors: new Set(), interfaces: new Set(['ERC721', 'ERC2981']) },
      'ERC721',
    );
    assert.deepEqual(capabilities, ['ERC721', 'ERC2981']);
  });

  it('finds no token standard in an ERC-20, whose mint(address,uint256) is no NFT mint', () => {
    const { capabilities } = capabilitiesFromEvidence(
      { selectors: dispatchedSelectors(mockErc20.bytecode as Hex), interfaces: new Set() },
      'ERC721',
    );
    assert.ok(!capabilities.includes('ERC721') && !capabilities.includes('ERC1155'));
    assert.ok(!capabilities.includes('ADMIN_MINT_SINGLE'));
  });

  it('with an ABI: keeps it, counting only the functions whose selectors the code dispatches', () => {
    const extra = {
      type: 'function',
      name: 'mintBatchNoId',
      inputs: [
        { name: 'to', type: 'address' },
        { name: 'quantity', type: 'uint256' },
      ],
      outputs: [],
      stateMutability: 'nonpayable',
    } as const;
    const given = [...(platformContracts.FlexibleERC1155.abi as Abi), extra];
    const code = flexible1155.bytecode;
    assert.ok(!dispatchedSelectors(code).has(toFunctionSelector('mintBatchNoId(address,uint256)')));
    const { capabilities, abi } = capabilitiesFromEvidence(
      { selectors: dispatchedSelectors(code), interfaces: new Set() },
      'ERC1155',
      given,
    );
    assert.equal(abi, given);
    assert.deepEqual(capabilities, capabilitiesOf(flexible1155.abi as Abi));
  });

  it('builds the registry ABI in the form of the token type, each function once', () => {
    const abi = registryAbi(['ERC2981', 'CONTRACT_ROYALTY', 'ADMIN_MINT_SINGLE'], 'ERC1155');
    const names = abi.map((f) => (f.type === 'function' ? `${f.name}/${f.inputs.length}` : ''));
    assert.deepEqual(names, ['royaltyInfo/2', 'setDefaultRoyalty/2', 'mint/3']);
  });
});
