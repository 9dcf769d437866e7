/* Description: every error code of error.h has its own message.
 * code_known() below lists every enumerator of enum sofl_err in a switch
 * on the enum type, so -Wswitch (-Wall -Werror) stops the build when
 * error.h gains a code this test does not list; src/base/error.c switches on the
 * enum type too, so a code without a case there does not build either.
 * At run time: each listed code gets a message that is not "unknown error",
 * no two codes share a message, every int outside the enum gets exactly
 * "unknown error", and every code is 0 or negative as the conventions say. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>
#include "softoffload/error.h"

#define UNKNOWN "unknown error"

#define CODES(X) \
	X(SOFL_OK) \
	X(SOFL_E_INVAL) \
	X(SOFL_E_NOSPC) \
	X(SOFL_E_NOMEM) \
	X(SOFL_E_NOTSUP) \
	X(SOFL_E_TRUNC_L2) \
	X(SOFL_E_TRUNC_L3) \
	X(SOFL_E_IP_VERSION) \
	X(SOFL_E_IPV4_IHL) \
	X(SOFL_E_IPV4_HDR_TRUNC) \
	X(SOFL_E_IPV4_TOTLEN_SHORT) \
	X(SOFL_E_IPV4_TOTLEN_LONG) \
	X(SOFL_E_IPV6_PLEN_LONG) \
	X(SOFL_E_IPV6_JUMBO) \
	X(SOFL_E_EXTHDR_TRUNC) \
	X(SOFL_E_EXTHDR_CHAIN) \
	X(SOFL_E_TCP_TRUNC) \
	X(SOFL_E_TCP_DOFF_SMALL) \
	X(SOFL_E_TCP_DOFF_LONG) \
	X(SOFL_E_UDP_TRUNC) \
	X(SOFL_E_UDP_LEN) \
	X(SOFL_E_NOT_IP) \
	X(SOFL_E_NOT_TCPUDP) \
	X(SOFL_E_FRAGMENT) \
	X(SOFL_E_CSUM) \
	X(SOFL_E_VNET_SHORT) \
	X(SOFL_E_VNET_GSO_TYPE) \
	X(SOFL_E_VNET_GSO_SIZE) \
	X(SOFL_E_VNET_CSUM_START) \
	X(SOFL_E_VNET_CSUM_OFFSET) \
	X(SOFL_E_VNET_NO_CSUM) \
	X(SOFL_E_VNET_PROTO) \
	X(SOFL_E_VNET_TOO_MANY) \
	X(SOFL_E_VNET_ECN) \
	X(SOFL_E_VNET_FLAGS) \
	X(SOFL_E_VNET_L4_TRUNC) \
	X(SOFL_E_VNET_TNL_FEATURE) \
	X(SOFL_E_VNET_TNL_CSUM) \
	X(SOFL_E_VNET_TNL_FAMILY) \
	X(SOFL_E_VNET_TNL_OFFSET) \
	X(SOFL_E_VNET_DATA_VALID) \
	X(SOFL_E_GSO_SIZE) \
	X(SOFL_E_GSO_TOO_MANY) \
	X(SOFL_E_GSO_PROTO) \
	X(SOFL_E_GSO_HDR) \
	X(SOFL_E_GSO_DF) \
	X(SOFL_E_GSO_TUNNEL) \
	X(SOFL_E_GSO_TUNNEL_LEN) \
	X(SOFL_E_SYS) \
	X(SOFL_E_PORT_KIND) \
	X(SOFL_E_GRO_BATCH) \
	X(SOFL_E_GRO_HELD) \
	X(SOFL_E_CFG_SIZE) \
	X(SOFL_E_CFG_LINK) \
	X(SOFL_E_CFG_POLICY) \
	X(SOFL_E_CFG_TABLE) \
	X(SOFL_E_CFG_MAX_FLOWS) \
	X(SOFL_E_CFG_MAX_SIZE) \
	X(SOFL_E_CFG_MAX_BATCH) \
	X(SOFL_E_CFG_MAX_HELD) \
	X(SOFL_E_CFG_MAX_SEGS) \
	X(SOFL_E_CFG_RULES) \
	X(SOFL_E_CFG_RX_MODE) \
	X(SOFL_E_CFG_ROOM) \
	X(SOFL_E_CFG_NAME) \
	X(SOFL_E_CFG_BATCH) \
	X(SOFL_E_CFG_ADDR) \
	X(SOFL_E_PORT_HELD) \
	X(SOFL_E_PORT_KEEP_OFF) \
	X(SOFL_E_PORT_KEEP_BUSY) \
	X(SOFL_E_TUN_MTU) \
	X(SOFL_E_CFG_FLUSH_TIMEOUT)

/* @return the enumerator's name, or NULL for an int that is not one */
static const char *
code_name(int v)
{
#define NAME(x) case x: return #x;
	switch ((enum sofl_err)v) {
	CODES(NAME)
	}
#undef NAME
	return NULL;
}

#define VALUE(x) x,
static const int codes[] = { CODES(VALUE) };
#undef VALUE

/* every code lies in [LO, 0]; the scan goes well past both ends */
#define LO (-1000)
#define HI 1000

static void
test_every_code_named(void **state)
{
	const char *msg[HI - LO + 1];
	int v, w, n = 0;

	(void)state;
	for (v = LO; v <= HI; v++) {
		const char *m = sofl_strerror(v), *name = code_name(v);

		assert_non_null(m);
		msg[v - LO] = m;
		if (!name) {
			if (strcmp(m, UNKNOWN) != 0)
				fail_msg("%d is no enum sofl_err code but reads \"%s\"", v, m);
			continue;
		}
		n++;
		if (v > 0)
			fail_msg("%s is %d: codes are 0 or negative", name, v);
		if (m[0] == '\0' || strcmp(m, UNKNOWN) == 0)
			fail_msg("%s (%d) has no message in sofl_strerror()", name, v);
		for (w = LO; w < v; w++)
			if (code_name(w) && strcmp(msg[w - LO], m) == 0)
				fail_msg("%s and %s share the message \"%s\"",
					 code_name(w), name, m);
	}
	/* the scan saw every enumerator */
	for (v = 0; v < (int)(sizeof(codes) / sizeof(codes[0])); v++)
		if (codes[v] < LO || codes[v] > HI)
			fail_msg("%s (%d) outside the scanned range", code_name(codes[v]), codes[v]);
	assert_int_equal(n, (int)(sizeof(codes) / sizeof(codes[0])));
	assert_string_equal(sofl_strerror(-2147483647 - 1), UNKNOWN);
	assert_string_equal(sofl_strerror(2147483647), UNKNOWN);
	printf("summary: %d codes, each with its own message\n", n);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_code_named),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
