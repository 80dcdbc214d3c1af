// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {PlatformERC1155} from "./base/PlatformERC1155.sol";

/**
 * @title FlexibleERC1155
 * @notice Platform ERC1155 collection whose base URI and contract URI the admin can always change.
 */
contract FlexibleERC1155 is PlatformERC1155 {
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
}
