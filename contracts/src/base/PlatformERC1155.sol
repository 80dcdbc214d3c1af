// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC1155} from "@openzeppelin/contracts/token/ERC1155/ERC1155.sol";
import {ERC1155Burnable} from "@openzeppelin/contracts/token/ERC1155/extensions/ERC1155Burnable.sol";
import {ReentrancyGuardTransient} from "@openzeppelin/contracts/utils/ReentrancyGuardTransient.sol";
import {PlatformBase} from "./PlatformBase.sol";

/**
 * @title PlatformERC1155
 * @notice ERC-1155 collection of the platform: admin mints of one id, of many ids with amounts to
 * one recipient, and of many (recipient, id, amount) entries in one call; transfers to many
 * recipients in one call.
 *
 * `uri(id)` returns `baseURI() + decimal id` (not the `{id}` hex template of the standard), so
 * every token resolves straight to the service's metadata URL.
 *
 * Supply rules (units ever minted; burning never frees room):
 * - `maxSupply()`: cap over all ids together, set at deployment (0 = unbounded).
 * - `tokenMaxSupply(id)`: cap of one id, set by the admin with `setMaxSupply` (0 = unbounded);
 *   it can be lowered, but never below what is already minted of that id.
 * (No ERC1155Supply: its burn-aware counters would cost another fresh storage slot per minted id,
 * and the service tracks holdings itself.)
 */
abstract contract PlatformERC1155 is ERC1155Burnable, PlatformBase, ReentrancyGuardTransient {
    /// @notice Cap on units ever minted over all ids; 0 means unbounded.
    uint256 public immutable maxSupply;

    string public name;
    string public symbol;

    uint256 private _totalMinted;
    mapping(uint256 id => uint256) private _tokenMaxSupply;
    mapping(uint256 id => uint256) private _tokenMinted;

    event TokenMaxSupplySet(uint256 indexed id, uint256 maxSupply);

    error MaxSupplyBelowMinted(uint256 id, uint256 minted);

    constructor(
        string memory name_,
        string memory symbol_,
        string memory baseURI_,
        string memory contractURI_,
        address admin,
        uint256 maxSupply_,
        address royaltyReceiver,
        uint96 royaltyBps
    ) ERC1155("") PlatformBase(baseURI_, contractURI_, admin, royaltyReceiver, royaltyBps) {
        name = name_;
        symbol = symbol_;
        maxSupply = maxSupply_;
    }

    // ---------------------------------------------------------------- admin mints

    /// @notice Mints `amount` of `id` to `to` (capability ADMIN_MINT_SINGLE for ERC-1155).
    function mint(address to, uint256 id, uint256 amount) external onlyRole(MINTER_ROLE) nonReentrant {
        _reserve(id, amount);
        _mint(to, id, amount, "");
    }

    /// @notice Mints `amounts[i]` of `ids[i]` to `to` in one transaction (capability ADMIN_MINT_MULTIPLE).
    function mintBatch(
        address to,
        uint256[] calldata ids,
        uint256[] calldata amounts
    ) external onlyRole(MINTER_ROLE) nonReentrant {
        if (ids.length != amounts.length) revert ArrayLengthMismatch(ids.length, amounts.length);
        if (ids.length == 0) revert InvalidQuantity();
        for (uint256 i = 0; i < ids.length; ++i) {
            _reserve(ids[i], amounts[i]);
        }
        _mintBatch(to, ids, amounts, "");
    }

    /// @notice Mints `amounts[i]` of `ids[i]` to `to[i]` for every i, in one transaction (capability
    /// ADMIN_MINT_BATCH for ERC-1155): one recipient per entry, so one call can serve several mint
    /// requests. One TransferSingle per entry.
    function mintToMany(
        address[] calldata to,
        uint256[] calldata ids,
        uint256[] calldata amounts
    ) external onlyRole(MINTER_ROLE) nonReentrant {
        if (to.length != ids.length) revert ArrayLengthMismatch(to.length, ids.length);
        if (ids.length != amounts.length) revert ArrayLengthMismatch(ids.length, amounts.length);
        if (ids.length == 0) revert InvalidQuantity();
        for (uint256 i = 0; i < ids.length; ++i) {
            _reserve(ids[i], amounts[i]);
            _mint(to[i], ids[i], amounts[i], "");
        }
    }

    // ---------------------------------------------------------------- transfers

    /// @notice Transfers `amounts[i]` of `ids[i]` from `from` to `to[i]` for every i, in one
    /// transaction (capability BATCH_TRANSFER): the caller is `from` or approved for all of its
    /// tokens, exactly as for `safeTransferFrom`, and a contract recipient must accept its units.
    function transferToMany(
        address from,
        address[] calldata to,
        uint256[] calldata ids,
        uint256[] calldata amounts
    ) external nonReentrant {
        if (to.length != ids.length) revert ArrayLengthMismatch(to.length, ids.length);
        if (ids.length != amounts.length) revert ArrayLengthMismatch(ids.length, amounts.length);
        if (ids.length == 0) revert InvalidQuantity();
        for (uint256 i = 0; i < ids.length; ++i) {
            safeTransferFrom(from, to[i], ids[i], amounts[i], "");
        }
    }

    // ---------------------------------------------------------------- supply

    /// @notice Sets the cap of one id (0 = unbounded); reverts below the amount already minted.
    function setMaxSupply(uint256 id, uint256 max) external onlyRole(DEFAULT_ADMIN_ROLE) {
        uint256 minted = _tokenMinted[id];
        if (max != 0 && max < minted) revert MaxSupplyBelowMinted(id, minted);
        _tokenMaxSupply[id] = max;
        emit TokenMaxSupplySet(id, max);
    }

    function tokenMaxSupply(uint256 id) external view returns (uint256) {
        return _tokenMaxSupply[id];
    }

    function tokenMinted(uint256 id) external view returns (uint256) {
        return _tokenMinted[id];
    }

    function totalMinted() external view returns (uint256) {
        return _totalMinted;
    }

    // ---------------------------------------------------------------- metadata

    function uri(uint256 id) public view virtual override returns (string memory) {
        return _uriOf(id);
    }

    function supportsInterface(
        bytes4 interfaceId
    ) public view virtual override(ERC1155, PlatformBase) returns (bool) {
        return ERC1155.supportsInterface(interfaceId) || PlatformBase.supportsInterface(interfaceId);
    }

    // ---------------------------------------------------------------- internals

    function _reserve(uint256 id, uint256 amount) internal {
        if (amount == 0) revert InvalidQuantity();
        uint256 minted = _tokenMinted[id];
        uint256 cap = _tokenMaxSupply[id];
        if (cap != 0 && amount > cap - minted) revert MaxSupplyExceeded(amount, cap - minted);
        uint256 total = _totalMinted;
        uint256 collectionCap = maxSupply;
        if (collectionCap != 0 && amount > collectionCap - total) {
            revert MaxSupplyExceeded(amount, collectionCap - total);
        }
        _tokenMinted[id] = minted + amount;
        _totalMinted = total + amount;
    }
}
