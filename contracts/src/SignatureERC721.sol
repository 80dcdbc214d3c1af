// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {Address} from "@openzeppelin/contracts/utils/Address.sol";
import {Nonces} from "@openzeppelin/contracts/utils/Nonces.sol";
import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";
import {EIP712} from "@openzeppelin/contracts/utils/cryptography/EIP712.sol";
import {PlatformERC721} from "./base/PlatformERC721.sol";

/**
 * @title SignatureERC721
 * @notice Platform ERC-721 collection (flexible metadata, every admin mint path) that buyers mint
 * themselves with a voucher signed by a VOUCHER_SIGNER_ROLE key, paying the price to the contract,
 * which splits it between the seller's payout address and the platform fee (capability MINT_VOUCHER).
 *
 * Voucher rules:
 * - EIP-712 typed data, domain {name: "SignatureERC721", version: "1", chainId, verifyingContract}:
 *   a voucher is valid on one contract on one chain only.
 * - Only `minter` may redeem it (msg.sender), and the tokens go to `minter`.
 * - `nonce` must equal `nonces(minter)`, which then increments: each voucher is redeemable once,
 *   and a minter's vouchers are redeemed in nonce order.
 * - Valid while `block.timestamp <= expiry` (unix seconds).
 * - `tokenId == 0` mints `quantity` sequential ids; any other `tokenId` mints exactly that id and
 *   requires `quantity == 1`.
 * - Payment of exactly `price` in `currency` (address(0) = native coin: `msg.value == price`; else
 *   an ERC-20 the minter has approved, and `msg.value == 0`). `price - feeAmount` goes to
 *   `netRecipient` and `feeAmount` to `feeRecipient`, in the same transaction; the contract keeps
 *   nothing. A recipient that refuses native coin makes the redeem revert.
 */
contract SignatureERC721 is PlatformERC721, EIP712, Nonces {
    using SafeERC20 for IERC20;

    struct MintVoucher {
        address minter;
        uint256 tokenId;
        uint256 quantity;
        uint256 price;
        address currency;
        address netRecipient;
        address feeRecipient;
        uint256 feeAmount;
        uint256 nonce;
        uint256 expiry;
    }

    bytes32 public constant MINT_VOUCHER_TYPEHASH =
        keccak256(
            "MintVoucher(address minter,uint256 tokenId,uint256 quantity,uint256 price,address currency,"
            "address netRecipient,address feeRecipient,uint256 feeAmount,uint256 nonce,uint256 expiry)"
        );

    /// @param digest the EIP-712 digest of the voucher (what the signer signed; the rest of the
    /// voucher is known to whoever issued it)
    /// @param firstTokenId the first id minted; sequential mints list every id in their Transfer events
    event VoucherRedeemed(
        address indexed minter,
        uint256 indexed nonce,
        bytes32 indexed digest,
        uint256 firstTokenId,
        uint256 quantity
    );

    error VoucherMinterMismatch(address minter, address sender);
    error VoucherExpired(uint256 expiry);
    error VoucherSignerUnauthorized(address signer);
    error VoucherFeeExceedsPrice(uint256 feeAmount, uint256 price);
    error VoucherPaymentRecipientMissing();
    error IncorrectPayment(uint256 expected, uint256 received);

    constructor(
        string memory name_,
        string memory symbol_,
        string memory baseURI_,
        string memory contractURI_,
        address admin,
        uint256 maxSupply_,
        address royaltyReceiver,
        uint96 royaltyBps
    )
        PlatformERC721(name_, symbol_, baseURI_, contractURI_, admin, maxSupply_, royaltyReceiver, royaltyBps)
        EIP712("SignatureERC721", "1")
    {}

    /// @notice Redeems a voucher signed by a VOUCHER_SIGNER_ROLE holder; see the contract notes.
    function mintWithVoucher(MintVoucher calldata voucher, bytes calldata signature) external payable nonReentrant {
        address sender = _msgSender();
        if (voucher.minter != sender) revert VoucherMinterMismatch(voucher.minter, sender);
        if (block.timestamp > voucher.expiry) revert VoucherExpired(voucher.expiry);
        if (voucher.feeAmount > voucher.price) revert VoucherFeeExceedsPrice(voucher.feeAmount, voucher.price);
        bool missingNet = voucher.netRecipient == address(0) && voucher.price != voucher.feeAmount;
        bool missingFee = voucher.feeRecipient == address(0) && voucher.feeAmount != 0;
        if (missingNet || missingFee) revert VoucherPaymentRecipientMissing();

        bytes32 digest = hashVoucher(voucher);
        address signer = ECDSA.recover(digest, signature);
        if (!hasRole(VOUCHER_SIGNER_ROLE, signer)) revert VoucherSignerUnauthorized(signer);
        _useCheckedNonce(voucher.minter, voucher.nonce);

        uint256 firstTokenId;
        if (voucher.tokenId == 0) {
            firstTokenId = _mintSequential(voucher.minter, voucher.quantity);
        } else {
            if (voucher.quantity != 1) revert InvalidQuantity();
            _reserve(1);
            _mintId(voucher.minter, voucher.tokenId);
            firstTokenId = voucher.tokenId;
        }

        _collectPayment(voucher);
        emit VoucherRedeemed(voucher.minter, voucher.nonce, digest, firstTokenId, voucher.quantity);
    }

    /// @notice The EIP-712 digest a voucher signer signs for `voucher` on this contract and chain.
    function hashVoucher(MintVoucher calldata voucher) public view returns (bytes32) {
        // Every field is a static type, so abi.encode(struct) is the field-by-field encoding EIP-712 asks for.
        return _hashTypedDataV4(keccak256(abi.encode(MINT_VOUCHER_TYPEHASH, voucher)));
    }

    function _collectPayment(MintVoucher calldata voucher) private {
        uint256 net = voucher.price - voucher.feeAmount;
        if (voucher.currency == address(0)) {
            if (msg.value != voucher.price) revert IncorrectPayment(voucher.price, msg.value);
            if (net != 0) Address.sendValue(payable(voucher.netRecipient), net);
            if (voucher.feeAmount != 0) Address.sendValue(payable(voucher.feeRecipient), voucher.feeAmount);
        } else {
            if (msg.value != 0) revert IncorrectPayment(0, msg.value);
            IERC20 token = IERC20(voucher.currency);
            if (net != 0) token.safeTransferFrom(voucher.minter, voucher.netRecipient, net);
            if (voucher.feeAmount != 0) token.safeTransferFrom(voucher.minter, voucher.feeRecipient, voucher.feeAmount);
        }
    }
}
