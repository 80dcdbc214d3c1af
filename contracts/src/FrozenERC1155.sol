// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {FreezableMetadata} from "./base/FreezableMetadata.sol";
import {PlatformBase} from "./base/PlatformBase.sol";
import {PlatformERC1155} from "./base/PlatformERC1155.sol";

/**
 * @title FrozenERC1155
 * @notice Platform ERC1155 collection whose base URI and contract URI the admin can change until
 * `freezeMetadata()`; after that they are fixed for good.
 */
contract FrozenERC1155 is PlatformERC1155, FreezableMetadata {
    constructor(
        string memory name_,
        string memory symbol_,
        string memory baseURI_,
        string memory contractURI_,
        address admin,
        uint256 maxSupply_,
        address royaltyReceiver,
        uint96 royaltyBps
    ) PlatformERC1155(name_, symbol_, baseURI_, contractURI_, admin, maxSupply_, royaltyReceiver, royaltyBps) {}

    function supportsInterface(bytes4 interfaceId) public view override(PlatformERC1155, PlatformBase) returns (bool) {
        return PlatformERC1155.supportsInterface(interfaceId);
    }

    function _checkMetadataMutable() internal view override(PlatformBase, FreezableMetadata) {
        FreezableMetadata._checkMetadataMutable();
    }
}
