// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// A minimal smart-contract wallet for tests of EIP-1271 sign-in: a signature is valid when it
/// is its owner's 65-byte ECDSA signature (r, s, v) of the hash the caller asks about. Real
/// wallets (a Safe, an ERC-4337 account) decide differently; callers only see the same
/// isValidSignature answer.
contract ERC1271Wallet {
    /// bytes4(keccak256("isValidSignature(bytes32,bytes)")): "valid" under EIP-1271.
    bytes4 internal constant MAGIC_VALUE = 0x1626ba7e;
    bytes4 internal constant INVALID = 0xffffffff;
    /// Upper bound of s on the secp256k1 curve's lower half: higher values are malleable copies.
    uint256 internal constant MAX_S = 0x7FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF5D576E7357A4501DDFE92F46681B20A0;

    address public immutable owner;

    constructor(address owner_) {
        owner = owner_;
    }

    function isValidSignature(bytes32 hash, bytes calldata signature) external view returns (bytes4) {
        if (signature.length != 65) return INVALID;
        bytes32 r = bytes32(signature[0:32]);
        bytes32 s = bytes32(signature[32:64]);
        uint8 v = uint8(signature[64]);
        if (v < 27) v += 27;
        if (uint256(s) > MAX_S || (v != 27 && v != 28)) return INVALID;
        address signer = ecrecover(hash, v, r, s);
        return signer != address(0) && signer == owner ? MAGIC_VALUE : INVALID;
    }
}
