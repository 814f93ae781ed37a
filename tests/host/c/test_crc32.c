/*
 * tests/host/c/test_crc32.c - unit tests for lib/crc32.c against known
 * check values and an independent bit-at-a-time CRC-32.
 */
#include "tests/host/c/check.h"
#include "lib/crc32.h"

/* Reference: one bit per step, straight from the polynomial. */
static uint32_t crc_bitwise(const uint8_t *p, size_t n)
{
	uint32_t c = 0xffffffffu;

	while (n--) {
		c ^= *p++;
		for (int k = 0; k < 8; k++)
			c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1)));
	}
	return ~c;
}

static void test_check_values(void)
{
	CHECK_EQ_U64(crc32_update(0, "123456789", 9), 0xcbf43926u);
	CHECK_EQ_U64(crc32_update(0, "", 0), 0);
	CHECK_EQ_U64(crc32_update(0, NULL, 0), 0);
	CHECK_EQ_U64(crc32_update(0, "a", 1), 0xe8b7be43u);
	CHECK_EQ_U64(crc32_update(0, "The quick brown fox jumps over the lazy dog", 43),
		     0x414fa339u);
	CHECK_EQ_U64(crc32_update(0x12345678u, "", 0), 0x12345678u);
}

static void test_chaining(void)
{
	const char *s = "123456789";

	for (size_t cut = 0; cut <= 9; cut++) {
		uint32_t c = crc32_update(0, s, cut);

		c = crc32_update(c, s + cut, 9 - cut);
		CHECKF(c == 0xcbf43926u, "split at %zu gives %08x", cut, c);
	}
}

static void test_vs_bitwise(void)
{
	uint8_t buf[4096];
	uint32_t x = 1;

	for (size_t i = 0; i < sizeof(buf); i++) {
		x = x * 1103515245u + 12345u;
		buf[i] = (uint8_t)(x >> 16);
	}
	for (size_t n = 0; n < sizeof(buf); n += 1 + n / 3)
		CHECKF(crc32_update(0, buf, n) == crc_bitwise(buf, n), "len %zu", n);
	for (int b = 0; b < 256; b++) {
		uint8_t c = (uint8_t)b;

		CHECKF(crc32_update(0, &c, 1) == crc_bitwise(&c, 1), "byte %d", b);
	}
}

/* Eight bytes a step: every start offset within a word and every tail
 * length, chained at every cut of a 40-byte message. */
static void test_offsets_and_tails(void)
{
	uint8_t buf[64 + 8];
	uint32_t x = 7;

	for (size_t i = 0; i < sizeof(buf); i++) {
		x = x * 1103515245u + 12345u;
		buf[i] = (uint8_t)(x >> 16);
	}
	for (size_t off = 0; off < 8; off++)
		for (size_t n = 0; n <= 64; n++)
			CHECKF(crc32_update(0, buf + off, n) == crc_bitwise(buf + off, n),
			       "offset %zu len %zu", off, n);
	for (size_t cut = 0; cut <= 40; cut++) {
		uint32_t c = crc32_update(crc32_update(0, buf + 3, cut), buf + 3 + cut, 40 - cut);

		CHECKF(c == crc_bitwise(buf + 3, 40), "40 bytes split at %zu", cut);
	}
}

int main(void)
{
	RUN(test_check_values, "crc32: known check values");
	RUN(test_chaining, "crc32: zlib-style chaining");
	RUN(test_vs_bitwise, "crc32: table vs bitwise reference");
	RUN(test_offsets_and_tails, "crc32: unaligned starts, tails, chaining");
	return check_summary();
}
