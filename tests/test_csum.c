/* Description: checksum vectors (RFC 1071, RFC 1624, UDP/TCP zero rules) and
 * every implementation (generic/AVX2/AVX-512) against a naive reference. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "helpers.h"
#include "csum_impl.h"

/* naive RFC 1071 reference: big-endian 16-bit words, 64-bit accumulator */
static uint16_t
ref_fold(const uint8_t *b, size_t len)
{
	uint64_t s = 0;
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		s += (uint32_t)b[i] << 8 | b[i + 1];
	if (len & 1)
		s += (uint32_t)b[len - 1] << 8;
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)s;
}

static void
test_rfc1071(void **state)
{
	static const uint8_t v[8] = { 0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7 };
	(void)state;
	assert_int_equal(sofl_csum(v, 8), 0x220d);
	assert_int_equal(sofl_csum_fold(sofl_csum_add(0, v, 8)), 0xddf2);
}

static void
test_rfc1624(void **state)
{
	(void)state;
	assert_int_equal(sofl_csum_replace16(0xDD2F, 0x5555, 0x3285), 0x0000);
	/* equal values: unchanged (erratum 4782) */
	assert_int_equal(sofl_csum_replace16(0x0000, 0x1234, 0x1234), 0x0000);
}

static void
check_all_impls(const uint8_t *buf, size_t len)
{
	uint16_t want = ref_fold(buf, len);
	int i;

	for (i = SOFL_CSUM_GENERIC; i <= SOFL_CSUM_AVX512; i++) {
		uint8_t dst[70000];
		if (!sofl_csum_impl_available((enum sofl_csum_impl)i))
			continue;
		assert_int_equal(sofl_csum_set_impl((enum sofl_csum_impl)i), 0);
		if (sofl_csum_fold(sofl_csum_add(0, buf, len)) != want) {
			fprintf(stderr, "impl %s len %zu\n", sofl_csum_impl_name(), len);
			fail();
		}
		memset(dst, 0xa5, len + 1);
		assert_int_equal(sofl_csum_fold(sofl_csum_copy(dst, buf, len, 0)), want);
		assert_memory_equal(dst, buf, len);
		assert_int_equal(dst[len], 0xa5);
	}
}

static void
test_impls_lengths_alignments(void **state)
{
	uint8_t *big = malloc(4096 + 64 + 64);
	uint64_t r = 42;
	size_t i, len, al;
	(void)state;

	for (i = 0; i < 4096 + 128; i++)
		big[i] = (uint8_t)t_rand(&r);
	for (al = 0; al < 64; al += 7)
		for (len = 0; len <= 4096; len++)
			check_all_impls(big + al, len);
	free(big);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rfc1071),
		cmocka_unit_test(test_rfc1624),
		cmocka_unit_test(test_impls_lengths_alignments),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
