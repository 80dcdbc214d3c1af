// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {PlatformBase} from "./PlatformBase.sol";

/**
 * @title FreezableMetadata
 * @notice The admin may change the base URI and the contract URI until it calls
 * `freezeMetadata()`; from then on every change reverts, for good.
 */
abstract contract FreezableMetadata is PlatformBase {
    bool private _metadataFrozen;

    /// @notice The base URI and contract URI can no longer change.
    event MetadataFrozen();

    error MetadataIsFrozen();

    function metadataFrozen() public view returns (bool) {
        return _metadataFrozen;
    }

    function freezeMetadata() external onlyRole(DEFAULT_ADMIN_ROLE) {
        _checkMetadataMutable();
        _metadataFrozen = true;
        emit MetadataFrozen();
    }

    function _checkMetadataMutable() internal view virtual override {
        if (_metadataFrozen) revert MetadataIsFrozen();
    }
}
