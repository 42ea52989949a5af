#ifndef MARGINALIA_CCRYPTO_SHIM_H
#define MARGINALIA_CCRYPTO_SHIM_H

// The system's libcrypto (OpenSSL), for SHA-256 through its EVP digest interface on Linux.
// https://www.openssl.org/docs/man3.0/man3/EVP_DigestInit.html
#include <openssl/evp.h>

#endif
