/*
 * vpn_aead.h: examples/vpn.c's AEAD, sealing and opening in place.
 *
 * AES-256-GCM or ChaCha20-Poly1305 through OpenSSL's EVP, or through
 * Intel's ipsec-mb when vpn is built with it (HAVE_IPSEC_MB: Debian's
 * libipsec-mb-dev, amd64; the Makefile defines it when it finds the header)
 * and the CPU has AES-NI.  The two give the same bytes.  Why both: Debian
 * 12's OpenSSL 3.0 has no VAES code for GCM and pays its provider calls per
 * packet (README.md, one Zen 5 core, a 1452-byte packet: AES-256-GCM 830
 * ns by EVP against 153 ns by ipsec-mb; ChaCha20-Poly1305 980 against 630).
 *
 * One struct aead per thread and direction; the calls are not thread-safe
 * on one struct aead.  Only vpn.c includes this file (the functions are
 * static).
 */
#ifndef VPN_AEAD_H
#define VPN_AEAD_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#ifdef HAVE_IPSEC_MB
#include <intel-ipsec-mb.h>
#endif

#define AEAD_KEY	32
#define AEAD_NONCE	12
#define AEAD_TAG	16

struct aead {
	EVP_CIPHER_CTX *evp;	/* keyed once per key; per packet only the nonce */
	int enc;		/* 1: seals, 0: opens */
#ifdef HAVE_IPSEC_MB
	IMB_MGR *mb;		/* NULL: EVP.  Only its function pointers are used */
	_Alignas(64) struct gcm_key_data mbk;	/* AES: expanded key, GHASH table */
	struct gcm_context_data mbc;
	uint8_t mbkey[AEAD_KEY];	/* ChaCha20-Poly1305: the key as it is */
	struct chacha20_poly1305_context_data mbcc;
#endif
};

static const EVP_CIPHER *aead_cipher;	/* set by aead_pick() */
static int aead_aes;			/* 1: AES-256-GCM, 0: ChaCha20-Poly1305 */
static int aead_mb;			/* 1: by ipsec-mb */

/* Chooses the code for @cipher ("aes-256-gcm", "chacha20-poly1305"): @want
 * "openssl", "ipsec-mb", or NULL for ipsec-mb where it can serve.  @return
 * what runs ("OpenSSL EVP", "ipsec-mb AVX-512", ...), or NULL with a
 * message when @cipher or @want cannot be had. */
static const char *
aead_pick(const char *cipher, const char *want)
{
	const char *path = NULL;
	int aes = !strcmp(cipher, "aes-256-gcm");

	if (!aes && strcmp(cipher, "chacha20-poly1305"))
		return NULL;
	aead_cipher = aes ? EVP_aes_256_gcm() : EVP_chacha20_poly1305();
	aead_aes = aes;
#ifdef HAVE_IPSEC_MB
	static const char *const name[] = { [IMB_ARCH_SSE] = "ipsec-mb SSE",
		[IMB_ARCH_AVX] = "ipsec-mb AVX", [IMB_ARCH_AVX2] = "ipsec-mb AVX2",
		[IMB_ARCH_AVX512] = "ipsec-mb AVX-512" };
	IMB_MGR *m = alloc_mb_mgr(0);
	IMB_ARCH arch = IMB_ARCH_NONE;

	if (m) {
		init_mb_mgr_auto(m, &arch);
		free_mb_mgr(m);
	}
	/* IMB_ARCH_NOAESNI is its software AES: slower than OpenSSL's */
	if (arch >= IMB_ARCH_SSE && arch <= IMB_ARCH_AVX512)
		path = name[arch];
#endif
	if (want && !strcmp(want, "ipsec-mb") && !path) {
		fprintf(stderr, "vpn: --crypto ipsec-mb: on x86-64 with AES-NI, built with "
			"libipsec-mb-dev only\n");
		return NULL;
	}
	aead_mb = path && !(want && !strcmp(want, "openssl"));
	return aead_mb ? path : "OpenSSL EVP";
}

/* Readies @a to seal (@enc 1) or open (@enc 0), without a key.  @return 1,
 * or 0 when the library could not allocate or refused the cipher. */
static int
aead_init(struct aead *a, int enc)
{
	memset(a, 0, sizeof(*a));
	a->enc = enc;
#ifdef HAVE_IPSEC_MB
	if (aead_mb) {
		IMB_ARCH arch;

		if (!(a->mb = alloc_mb_mgr(0)))
			return 0;
		init_mb_mgr_auto(a->mb, &arch);
		return 1;
	}
#endif
	return (a->evp = EVP_CIPHER_CTX_new()) &&
	       EVP_CipherInit_ex(a->evp, aead_cipher, NULL, NULL, NULL, enc) == 1;
}

/* Keys @a with @key (AEAD_KEY bytes; the caller may wipe it after).  @return 1. */
static int
aead_key(struct aead *a, const uint8_t *key)
{
#ifdef HAVE_IPSEC_MB
	if (a->mb) {
		if (aead_aes)
			IMB_AES256_GCM_PRE(a->mb, key, &a->mbk);
		else
			memcpy(a->mbkey, key, AEAD_KEY);
		return 1;
	}
#endif
	return EVP_CipherInit_ex(a->evp, NULL, NULL, key, NULL, a->enc) == 1;
}

/* Seals @len bytes at @p in place under @nonce, @ad (@adlen bytes)
 * authenticated, the tag to @tag.  @return 1.  EVP: the tag is read as a
 * provider parameter; OpenSSL 3's EVP_CIPHER_CTX_ctrl() would translate to
 * the same parameter on every call. */
static int
aead_seal(struct aead *a, const uint8_t *nonce, const uint8_t *ad, int adlen, uint8_t *p,
	  int len, uint8_t *tag)
{
#ifdef HAVE_IPSEC_MB
	if (a->mb) {
		if (aead_aes) {
			IMB_AES256_GCM_ENC(a->mb, &a->mbk, &a->mbc, p, p, (uint64_t)len, nonce,
					   ad, (uint64_t)adlen, tag, AEAD_TAG);
		} else {
			IMB_CHACHA20_POLY1305_INIT(a->mb, a->mbkey, &a->mbcc, nonce, ad,
						   (uint64_t)adlen);
			IMB_CHACHA20_POLY1305_ENC_UPDATE(a->mb, a->mbkey, &a->mbcc, p, p,
							 (uint64_t)len);
			IMB_CHACHA20_POLY1305_ENC_FINALIZE(a->mb, &a->mbcc, tag, AEAD_TAG);
		}
		return 1;
	}
#endif
	/* EVP only: the tag parameter is built here, not on ipsec-mb's path */
	OSSL_PARAM tp[2] = {
		OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, tag, AEAD_TAG),
		OSSL_PARAM_construct_end(),
	};
	int l, l2;

	return EVP_EncryptInit_ex2(a->evp, NULL, NULL, nonce, NULL) == 1 &&
	       EVP_EncryptUpdate(a->evp, NULL, &l, ad, adlen) == 1 &&
	       EVP_EncryptUpdate(a->evp, p, &l, p, len) == 1 &&
	       EVP_EncryptFinal_ex(a->evp, p + l, &l2) == 1 &&
	       EVP_CIPHER_CTX_get_params(a->evp, tp) == 1;
}

/* Opens @len bytes at @p in place, as aead_seal()'s arguments.  @return 1
 * authentic; 0: not (@p's bytes are then garbage).  EVP: the expected tag
 * goes in with the nonce; ipsec-mb: the one it computes is compared in
 * constant time. */
static int
aead_open(struct aead *a, const uint8_t *nonce, const uint8_t *ad, int adlen, uint8_t *p,
	  int len, const uint8_t *tag)
{
#ifdef HAVE_IPSEC_MB
	if (a->mb) {
		uint8_t t[AEAD_TAG];

		if (aead_aes) {
			IMB_AES256_GCM_DEC(a->mb, &a->mbk, &a->mbc, p, p, (uint64_t)len, nonce,
					   ad, (uint64_t)adlen, t, AEAD_TAG);
		} else {
			IMB_CHACHA20_POLY1305_INIT(a->mb, a->mbkey, &a->mbcc, nonce, ad,
						   (uint64_t)adlen);
			IMB_CHACHA20_POLY1305_DEC_UPDATE(a->mb, a->mbkey, &a->mbcc, p, p,
							 (uint64_t)len);
			IMB_CHACHA20_POLY1305_DEC_FINALIZE(a->mb, &a->mbcc, t, AEAD_TAG);
		}
		return CRYPTO_memcmp(t, tag, AEAD_TAG) == 0;
	}
#endif
	OSSL_PARAM tp[2] = {
		OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, (void *)tag,
						  AEAD_TAG),
		OSSL_PARAM_construct_end(),
	};
	int l, l2;

	return EVP_DecryptInit_ex2(a->evp, NULL, NULL, nonce, tp) == 1 &&
	       EVP_DecryptUpdate(a->evp, NULL, &l, ad, adlen) == 1 &&
	       EVP_DecryptUpdate(a->evp, p, &l, p, len) == 1 &&
	       EVP_DecryptFinal_ex(a->evp, p + l, &l2) == 1;
}

/* Frees what aead_init() took and wipes the key. */
static void
aead_free(struct aead *a)
{
	EVP_CIPHER_CTX_free(a->evp);
#ifdef HAVE_IPSEC_MB
	if (a->mb)
		free_mb_mgr(a->mb);
#endif
	OPENSSL_cleanse(a, sizeof(*a));
}

#endif
