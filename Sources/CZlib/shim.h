#ifndef MARGINALIA_CZLIB_SHIM_H
#define MARGINALIA_CZLIB_SHIM_H

#include <zlib.h>

// deflateInit2 is a macro that passes ZLIB_VERSION and sizeof(z_stream); Swift cannot import macros.
static inline int marginalia_deflateInit2(z_streamp strm, int level, int method, int windowBits, int memLevel,
                                          int strategy) {
    return deflateInit2(strm, level, method, windowBits, memLevel, strategy);
}

// inflateInit2 is a macro for the same reason.
static inline int marginalia_inflateInit2(z_streamp strm, int windowBits) {
    return inflateInit2(strm, windowBits);
}

#endif
