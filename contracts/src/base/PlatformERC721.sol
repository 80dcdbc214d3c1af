// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC721} from "@openzeppelin/contracts/token/ERC721/ERC721.sol";
import {ReentrancyGuardTransient} from "@openzeppelin/contracts/utils/ReentrancyGuardTransient.sol";
import {BitMaps} from "@openzeppelin/contracts/utils/structs/BitMaps.sol";
import {PlatformBase} from "./PlatformBase.sol";

/**
 * @title PlatformERC721
 * @notice ERC-721 collection of the platform: admin mints with explicit ids, with a per-token URI,
 * in batches with ids (one recipient per id, so one call delivers to many buyers), and in batches
 * without ids (sequential ids, for EXTERNAL token id assignment: the service reads the assigned
 * ids from the Transfer events of the receipt); transfers to many recipients in one call.
 *
 * Supply rules:
 * - `maxSupply()` caps the number of tokens ever minted (0 = unbounded); burning never frees room.
 * - A token id can be minted once: a burned id cannot be minted again.
 * - Sequential ids start at 1 and skip ids already minted explicitly, so id 0 is only ever minted
 *   explicitly (vouchers use tokenId 0 to mean "the next sequential id").
 *
 * Every mint uses `_safeMint`, so contract recipients must accept ERC-721 tokens; all mint entry
 * points are `nonReentrant` against the receiver callback.
 */
abstract contract PlatformERC721 is ERC721, PlatformBase, ReentrancyGuardTransient {
    using BitMaps for BitMaps.BitMap;

    /// @notice Cap on tokens ever minted; 0 means unbounded.
    uint256 public immutable maxSupply;

    uint256 private _totalMinted;
    uint256 private _totalBurned;
    uint256 private _nextSequentialId = 1;
    BitMaps.BitMap private _mintedIds;
    mapping(uint256 tokenId => string) private _tokenURIs;

    error TokenAlreadyMinted(uint256 tokenId);

    constructor(
        string memory name_,
        string memory symbol_,
        string memory baseURI_,
        string memory contractURI_,
        address admin,
        uint256 maxSupply_,
        address royaltyReceiver,
        uint96 royaltyBps
    ) ERC721(name_, symbol_) PlatformBase(baseURI_, contractURI_, admin, royaltyReceiver, royaltyBps) {
        maxSupply = maxSupply_;
    }

    // ---------------------------------------------------------------- admin mints

    /// @notice Mints `tokenId` to `to` (capability ADMIN_MINT_SINGLE).
    function mint(address to, uint256 tokenId) external onlyRole(MINTER_ROLE) nonReentrant {
        _reserve(1);
        _mintId(to, tokenId);
    }

    /// @notice Mints `tokenId` with its own complete token URI, which `tokenURI` returns instead of
    /// `baseURI() + id` (capability ADMIN_MINT_SINGLE_URI).
    function mintWithURI(address to, uint256 tokenId, string calldata uri) external onlyRole(MINTER_ROLE) nonReentrant {
        _reserve(1);
        _tokenURIs[tokenId] = uri;
        emit MetadataUpdate(tokenId);
        _mintId(to, tokenId);
    }

    /// @notice Mints `tokenIds[i]` to `to[i]` for every i, in one transaction (capability
    /// ADMIN_MINT_BATCH): one recipient per id, so one call can serve several mint requests.
    function mintBatch(address[] calldata to, uint256[] calldata tokenIds) external onlyRole(MINTER_ROLE) nonReentrant {
        if (to.length != tokenIds.length) revert ArrayLengthMismatch(to.length, tokenIds.length);
        if (to.length == 0) revert InvalidQuantity();
        _reserve(tokenIds.length);
        for (uint256 i = 0; i < tokenIds.length; ++i) {
            _mintId(to[i], tokenIds[i]);
        }
    }

    /// @notice Mints `quantity` tokens with the next sequential ids to `to` (capability
    /// ADMIN_MINT_MULTIPLE_NO_ID); one Transfer event per assigned id.
    function mintBatchNoId(address to, uint256 quantity) external onlyRole(MINTER_ROLE) nonReentrant {
        _mintSequential(to, quantity);
    }

    // ---------------------------------------------------------------- transfers

    /// @notice Transfers `tokenIds[i]` from `from` to `to[i]` for every i, in one transaction
    /// (capability BATCH_TRANSFER): the caller owns each token or is approved for it, exactly as
    /// for `safeTransferFrom`, and a contract recipient must accept its token.
    function transferToMany(address from, address[] calldata to, uint256[] calldata tokenIds) external nonReentrant {
        if (to.length != tokenIds.length) revert ArrayLengthMismatch(to.length, tokenIds.length);
        if (to.length == 0) revert InvalidQuantity();
        for (uint256 i = 0; i < tokenIds.length; ++i) {
            safeTransferFrom(from, to[i], tokenIds[i]);
        }
    }

    // ---------------------------------------------------------------- burn

    /// @notice Burns `tokenId`; the caller must own it or be approved for it (capability BURN_TOKEN).
    function burn(uint256 tokenId) external {
        _update(address(0), tokenId, _msgSender());
        ++_totalBurned;
    }

    // ---------------------------------------------------------------- views

    function totalMinted() external view returns (uint256) {
        return _totalMinted;
    }

    /// @notice Tokens in existence: minted minus burned.
    function totalSupply() external view returns (uint256) {
        return _totalMinted - _totalBurned;
    }

    /// @notice The id the next sequential mint would assign.
    function nextTokenId() external view returns (uint256 id) {
        id = _nextSequentialId;
        while (_mintedIds.get(id)) ++id;
    }

    function exists(uint256 tokenId) external view returns (bool) {
        return _ownerOf(tokenId) != address(0);
    }

    /// @notice The per-token URI given at mint, else `baseURI() + decimal id`.
    function tokenURI(uint256 tokenId) public view virtual override returns (string memory) {
        _requireOwned(tokenId);
        string memory own = _tokenURIs[tokenId];
        return bytes(own).length != 0 ? own : _uriOf(tokenId);
    }

    function supportsInterface(bytes4 interfaceId) public view virtual override(ERC721, PlatformBase) returns (bool) {
        return ERC721.supportsInterface(interfaceId) || PlatformBase.supportsInterface(interfaceId);
    }

    // ---------------------------------------------------------------- internals

    /// @dev Counts `quantity` new tokens against `maxSupply`, before any of them is minted.
    function _reserve(uint256 quantity) internal {
        uint256 minted = _totalMinted;
        uint256 cap = maxSupply;
        if (cap != 0 && quantity > cap - minted) revert MaxSupplyExceeded(quantity, cap - minted);
        _totalMinted = minted + quantity;
    }

    /// @dev Mints `quantity` sequential ids, skipping ids already minted; returns the first one.
    function _mintSequential(address to, uint256 quantity) internal returns (uint256 firstId) {
        if (quantity == 0) revert InvalidQuantity();
        _reserve(quantity);
        uint256 id = _nextSequentialId;
        for (uint256 i = 0; i < quantity; ++i) {
            while (_mintedIds.get(id)) ++id;
            if (i == 0) firstId = id;
            _mintId(to, id);
            ++id;
        }
        _nextSequentialId = id;
    }

    /// @dev Supply must already be reserved.
    function _mintId(address to, uint256 tokenId) internal {
        if (_mintedIds.get(tokenId)) revert TokenAlreadyMinted(tokenId);
        _mintedIds.set(tokenId);
        _safeMint(to, tokenId);
    }
}
