// Package auth holds kgmem's API keys: generation, parsing, hashed storage and
// the namespace scopes and rights that decide what a key may touch.
//
// A key looks like "kgm_<id>_<secret>": the id (12 hex digits) names the key in
// listings and logs, the secret (32 random bytes, base32) is shown once at
// creation and never stored — the store keeps the SHA-256 of the whole key and
// compares digests in constant time. SHA-256 without a salt or a slow KDF is
// sound here because the secret carries 256 bits of entropy: there is nothing
// to guess.
//
// A key is scoped to namespace prefixes, segment-aware: prefix "acme" covers
// "acme" and "acme/users/u42", never "acmex". It carries one right over all its
// prefixes: read, or write (which includes read). The admin key, set by the
// operator through the environment, may do everything, including purges and
// key management.
package auth
