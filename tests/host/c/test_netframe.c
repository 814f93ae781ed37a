/*
 * tests/host/c/test_netframe.c - kernel/suites/netframe.c: the streamed payload
 * checksum equals the one-shot checksum however a payload is cut into
 * pieces (the mergeable receive path splits frames after a 12-byte
 * header, then every 512 bytes), and it sees changed, moved and missing
 * bytes.
 */
#include "tests/host/c/check.h"
#include "kernel/suites/netframe.h"

#define PAYLOAD 1488            /* a 1514-byte frame minus its test header */

static u8 data[PAYLOAD];

static void fill(void)
{
	for (u32 i = 0; i < PAYLOAD; i++)
		data[i] = (u8)(i * 13 + (i >> 7) + 0xa5);
}

static u32 streamed(const u32 *cuts, u32 ncuts, u32 len)
{
	struct netframe_csum c;
	u32 at = 0;

	netframe_csum_init(&c, len);
	for (u32 i = 0; i < ncuts && at < len; i++) {
		u32 n = cuts[i] < len - at ? cuts[i] : len - at;
		netframe_csum_feed(&c, data + at, n);
		at += n;
	}
	netframe_csum_feed(&c, data + at, len - at);
	return netframe_csum_final(&c);
}

static void test_any_split(void)
{
	/* mergeable: 512-byte buffers after the 12-byte virtio and 26-byte test headers */
	static const u32 mrg[] = { 512 - 12 - 26, 512, 512 };
	static const u32 odd[] = { 1, 7, 3, 9, 0, 15, 8, 1, 100 };
	static const u32 ones[] = { 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1 };
	u32 len;

	fill();
	for (len = 0; len <= PAYLOAD; len += len < 40 ? 1 : 37) {
		u32 whole = netframe_csum(data, len);

		CHECK_EQ_U64(streamed(mrg, 3, len), whole);
		CHECK_EQ_U64(streamed(odd, 9, len), whole);
		CHECK_EQ_U64(streamed(ones, 13, len), whole);
	}
	for (u32 cut = 0; cut <= 64; cut++) {
		u32 one[] = { cut };

		CHECK_EQ_U64(streamed(one, 1, 200), netframe_csum(data, 200));
	}
}

static void test_sees_damage(void)
{
	u32 whole, i;

	fill();
	whole = netframe_csum(data, PAYLOAD);
	for (i = 0; i < PAYLOAD; i += 97) {
		data[i] ^= 0x10;
		CHECK(netframe_csum(data, PAYLOAD) != whole);
		data[i] ^= 0x10;
	}
	/* two bytes swapped: position matters */
	CHECK(netframe_csum(data, PAYLOAD) == whole);
	{
		u8 t = data[3];

		data[3] = data[700];
		data[700] = t;
		CHECK(netframe_csum(data, PAYLOAD) != whole);
		data[700] = data[3];
		data[3] = t;
	}
	/* a lost tail byte, or one too many */
	CHECK(netframe_csum(data, PAYLOAD - 1) != whole);
	CHECK(netframe_csum(data, PAYLOAD - 1) != netframe_csum(data, PAYLOAD - 2));
}

int main(void)
{
	RUN(test_any_split, "netframe: streamed over any pieces = one shot");
	RUN(test_sees_damage, "netframe: changed, swapped and missing bytes change the sum");
	return check_summary();
}
