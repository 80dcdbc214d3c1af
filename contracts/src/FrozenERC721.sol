// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {FreezableMetadata} from "./base/FreezableMetadata.sol";
import {PlatformBase} from "./base/PlatformBase.sol";
import {PlatformERC721} from "./base/PlatformERC721.sol";

/**
 * @title FrozenERC721
 * @notice Platform ERC721 collection whose base URI and contract URI the admin can change until
 * `freezeMetadata()`; after that they are fixed for good.
 */
contract FrozenERC721 is PlatformERC721, FreezableMetadata {
    constructor(
        string memory name_,
        string memory symbol_,
        string memory baseURI_,
        string memory contractURI_,
        address admin,
        uint256 maxSupply_,
        address royaltyReceiver,
        uint96 royaltyBps
    ) PlatformERC721(name_, symbol_, baseURI_, contractURI_, admin, maxSupply_, royaltyReceiver, royaltyBps) {}

    function supportsInterface(bytes4 interfaceId) public view override(PlatformERC721, PlatformBase) returns (bool) {
        return PlatformERC721.supportsInterface(interfaceId);
    }

    function _checkMetadataMutable() internal view override(PlatformBase, FreezableMetadata) {
        FreezableMetadata._checkMetadataMutable();
    }
}
