#ifndef MARGINALIA_CCRYPTO_SHIM_H
#define MARGINALIA_CCRYPTO_SHIM_H

// The system's libcrypto (OpenSSL), for SHA-256 through its EVP digest interface on Linux; also X25519, scrypt and
// ChaCha20-Poly1305 for age files. https://www.openssl.org/docs/man3.0/man3/EVP_DigestInit.html
#include <openssl/evp.h>

// HKDF through EVP_PKEY_HKDF, for age's keys. https://www.openssl.org/docs/man3.0/man3/EVP_PKEY_CTX_set_hkdf_md.html
#include <openssl/kdf.h>

// HMAC-SHA-256 in one call, for age's header MAC. https://www.openssl.org/docs/man3.0/man3/HMAC.html
#include <openssl/hmac.h>

// The CSPRNG, for age's file keys, nonces and ephemeral secrets. https://www.openssl.org/docs/man3.0/man3/RAND_bytes.html
#include <openssl/rand.h>

// CRYPTO_memcmp, a comparison whose time does not depend on the bytes compared.
// https://www.openssl.org/docs/man3.0/man3/CRYPTO_memcmp.html
#include <openssl/crypto.h>

#endif
