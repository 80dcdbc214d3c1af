// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {PlatformERC721} from "./base/PlatformERC721.sol";

/**
 * @title FlexibleERC721
 * @notice Platform ERC721 collection whose base URI and contract URI the admin can always change.
 */
contract FlexibleERC721 is PlatformERC721 {
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
}
