/*
 * lib/crc32.h - CRC-32 (IEEE 802.3, reflected polynomial 0xEDB88320),
 * bit-for-bit compatible with zlib's crc32().
 */
#ifndef LIB_CRC32_H
#define LIB_CRC32_H

#include "lib/types.h"

/*
 * Continue a CRC over len more bytes.  Start with crc = 0; chaining
 * works like zlib: crc32_update(crc32_update(0, a, n), b, m) equals the
 * CRC of a followed by b.  crc32_update(0, "123456789", 9) == 0xCBF43926.
 */
u32 crc32_update(u32 crc, const void *data, size_t len);

#endif
