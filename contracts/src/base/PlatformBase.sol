// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {AccessControl} from "@openzeppelin/contracts/access/AccessControl.sol";
import {ERC2981} from "@openzeppelin/contracts/token/common/ERC2981.sol";
import {Strings} from "@openzeppelin/contracts/utils/Strings.sol";

/**
 * @title PlatformBase
 * @notice What every platform collection shares, whatever its token standard: roles, ERC-2981
 * royalties and the metadata URIs that point at the issuing service.
 *
 * Roles (OpenZeppelin AccessControl):
 * - DEFAULT_ADMIN_ROLE: grants and revokes roles, sets URIs, royalties and supply limits.
 * - MINTER_ROLE: admin mints.
 * - VOUCHER_SIGNER_ROLE: signs mint vouchers (only variants with voucher minting read it).
 * The constructor grants all three to `admin`, so the deploying organization wallet can mint and
 * sign at once; the admin can hand any role to other keys and revoke its own.
 *
 * Token metadata lives at `baseURI() + decimal token id`: the service sets the base URI to
 * `<service>/v1/metadata/<collection_id>/`, where it applies its reveal rules.
 */
abstract contract PlatformBase is AccessControl, ERC2981 {
    bytes32 public constant MINTER_ROLE = keccak256("MINTER_ROLE");
    bytes32 public constant VOUCHER_SIGNER_ROLE = keccak256("VOUCHER_SIGNER_ROLE");

    /// @dev ERC-4906 defines events only; this is the interface id the standard asks to report.
    bytes4 private constant ERC4906_INTERFACE_ID = 0x49064906;

    string private _baseTokenURI;
    string private _contractMetadataURI;

    /// @notice ERC-4906: the metadata of one token changed.
    event MetadataUpdate(uint256 _tokenId);
    /// @notice ERC-4906: the metadata of a range of tokens changed (all tokens on a base URI change).
    event BatchMetadataUpdate(uint256 _fromTokenId, uint256 _toTokenId);
    /// @notice ERC-7572: `contractURI()` changed.
    event ContractURIUpdated();

    error InvalidAdmin();
    error InvalidQuantity();
    error ArrayLengthMismatch(uint256 left, uint256 right);
    /// @param requested units asked for by the call
    /// @param remaining units that could still be minted under the limit that was hit
    error MaxSupplyExceeded(uint256 requested, uint256 remaining);

    constructor(
        string memory baseURI_,
        string memory contractURI_,
        address admin,
        address royaltyReceiver,
        uint96 royaltyBps
    ) {
        if (admin == address(0)) revert InvalidAdmin();
        _grantRole(DEFAULT_ADMIN_ROLE, admin);
        _grantRole(MINTER_ROLE, admin);
        _grantRole(VOUCHER_SIGNER_ROLE, admin);
        _baseTokenURI = baseURI_;
        _contractMetadataURI = contractURI_;
        // No receiver and no rate means "no default royalty"; a rate without a receiver reverts.
        if (royaltyReceiver != address(0) || royaltyBps != 0) _setDefaultRoyalty(royaltyReceiver, royaltyBps);
    }

    // ---------------------------------------------------------------- metadata

    function baseURI() public view returns (string memory) {
        return _baseTokenURI;
    }

    /// @notice Collection-level metadata (ERC-7572), served by the service.
    function contractURI() public view returns (string memory) {
        return _contractMetadataURI;
    }

    /// @notice Changes the base of every token URI; emits ERC-4906 BatchMetadataUpdate over all ids.
    function setBaseURI(string calldata newBaseURI) external onlyRole(DEFAULT_ADMIN_ROLE) {
        _checkMetadataMutable();
        _baseTokenURI = newBaseURI;
        emit BatchMetadataUpdate(0, type(uint256).max);
    }

    function setContractURI(string calldata newContractURI) external onlyRole(DEFAULT_ADMIN_ROLE) {
        _checkMetadataMutable();
        _contractMetadataURI = newContractURI;
        emit ContractURIUpdated();
    }

    /// @dev Reverts when URIs may no longer change; flexible collections never revert.
    function _checkMetadataMutable() internal view virtual {}

    /// @dev `baseURI() + decimal id`, or "" while no base URI is set (the ERC-721 convention).
    function _uriOf(uint256 tokenId) internal view returns (string memory) {
        string memory base = _baseTokenURI;
        return bytes(base).length == 0 ? "" : string.concat(base, Strings.toString(tokenId));
    }

    // ---------------------------------------------------------------- royalties (ERC-2981)

    /// @param feeBps royalty in basis points of the sale price (10000 = 100%)
    function setDefaultRoyalty(address receiver, uint96 feeBps) external onlyRole(DEFAULT_ADMIN_ROLE) {
        _setDefaultRoyalty(receiver, feeBps);
    }

    function deleteDefaultRoyalty() external onlyRole(DEFAULT_ADMIN_ROLE) {
        _deleteDefaultRoyalty();
    }

    /// @notice Overrides the default royalty for one token id.
    function setTokenRoyalty(uint256 tokenId, address receiver, uint96 feeBps) external onlyRole(DEFAULT_ADMIN_ROLE) {
        _setTokenRoyalty(tokenId, receiver, feeBps);
    }

    /// @notice Makes one token id fall back to the default royalty.
    function resetTokenRoyalty(uint256 tokenId) external onlyRole(DEFAULT_ADMIN_ROLE) {
        _resetTokenRoyalty(tokenId);
    }

    // ---------------------------------------------------------------- ERC-165

    function supportsInterface(bytes4 interfaceId) public view virtual override(AccessControl, ERC2981) returns (bool) {
        return interfaceId == ERC4906_INTERFACE_ID || super.supportsInterface(interfaceId);
    }
}
