#ifndef MARGINALIA_CSTEMMER_SHIM_H
#define MARGINALIA_CSTEMMER_SHIM_H

// Snowball's stemmers (Debian's libstemmer-dev): https://snowballstem.org/
#include <libstemmer.h>

#endif
