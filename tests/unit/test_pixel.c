// SPDX-License-Identifier: GPL-2.0-only
/* Pixel kernels: YUV -> RGB of known pixels (BT.601, BT.709), scaling of known patterns. */
#include <stdlib.h>

#include "tests/unit/lw_test.h"
#include "workloads/pixel.h"

#define R(p) (((p) >> 16) & 255)
#define G(p) (((p) >> 8) & 255)
#define B(p) ((p) & 255)

static void expect_rgb(uint32_t p, int r, int g, int b, int tol)
{
	if (abs((int)R(p) - r) > tol || abs((int)G(p) - g) > tol || abs((int)B(p) - b) > tol)
		fail_msg("got (%u,%u,%u), expected (%d,%d,%d) +-%d", R(p), G(p), B(p), r, g, b, tol);
	assert_int_equal(p >> 24, 0xff);
}

/* Limited-range YCbCr of pure colours, from the standards' luma weights. */
static const struct known { int y, u, v, r, g, b; } bt601[] = {
	{ 16, 128, 128, 0, 0, 0 },	/* black */
	{ 235, 128, 128, 255, 255, 255 },	/* white */
	{ 126, 128, 128, 128, 128, 128 },	/* mid grey (125.5) */
	{ 81, 90, 240, 255, 0, 0 },	/* red */
	{ 145, 54, 34, 0, 255, 0 },	/* green */
	{ 41, 240, 110, 0, 0, 255 },	/* blue */
}, bt709[] = {
	{ 16, 128, 128, 0, 0, 0 },
	{ 235, 128, 128, 255, 255, 255 },
	{ 63, 102, 240, 255, 0, 0 },
	{ 173, 42, 26, 0, 255, 0 },
	{ 32, 240, 118, 0, 0, 255 },
};

static void test_known_pixels(void **state)
{
	struct lw_yuv_matrix m6 = lw_yuv_matrix(LW_BT601), m7 = lw_yuv_matrix(LW_BT709);

	for (size_t i = 0; i < sizeof(bt601) / sizeof(bt601[0]); i++)
		expect_rgb(lw_yuv_to_xrgb(&m6, bt601[i].y, bt601[i].u, bt601[i].v),
			   bt601[i].r, bt601[i].g, bt601[i].b, 2);
	for (size_t i = 0; i < sizeof(bt709) / sizeof(bt709[0]); i++)
		expect_rgb(lw_yuv_to_xrgb(&m7, bt709[i].y, bt709[i].u, bt709[i].v),
			   bt709[i].r, bt709[i].g, bt709[i].b, 2);
	/* the matrices differ: BT.601 red read as BT.709 is not red */
	assert_true(G(lw_yuv_to_xrgb(&m7, 81, 90, 240)) > 20 || R(lw_yuv_to_xrgb(&m7, 81, 90, 240)) < 235);
	/* out-of-range input clamps, never wraps */
	expect_rgb(lw_yuv_to_xrgb(&m6, 255, 128, 128), 255, 255, 255, 0);
	assert_int_equal(R(lw_yuv_to_xrgb(&m6, 235, 128, 255)), 255);
	assert_int_equal(B(lw_yuv_to_xrgb(&m6, 16, 255, 128)), 255);
	assert_int_equal(G(lw_yuv_to_xrgb(&m6, 16, 255, 255)), 0);
	expect_rgb(lw_yuv_to_xrgb(&m6, 0, 128, 128), 0, 0, 0, 0);
	/* Q14 coefficients of BT.601: 255/219 = 1.16438, 1.596, 0.392, 0.813, 2.017 */
	assert_true(abs(m6.y - 19077) <= 1 && abs(m6.rv - 26149) <= 4 && abs(m6.gu - 6419) <= 4 &&
		    abs(m6.gv - 13320) <= 4 && abs(m6.bu - 33050) <= 4);
}

static void test_nv12_frame(void **state)
{
	/* 4x2 frame: left 2x2 block BT.601 red, right 2x2 block blue */
	uint8_t f[4 * 2 + 4 * 1] = {
		81, 81, 41, 41,
		81, 81, 41, 41,
		90, 240, 240, 110,	/* UV of the two blocks */
	};
	uint32_t out[4 * 2];
	struct lw_yuv_matrix m = lw_yuv_matrix(LW_BT601);

	lw_nv12_to_xrgb(f, 4, f + 8, 4, 4, 2, out, 4, &m);
	for (int y = 0; y < 2; y++) {
		expect_rgb(out[y * 4 + 0], 255, 0, 0, 2);
		expect_rgb(out[y * 4 + 1], 255, 0, 0, 2);
		expect_rgb(out[y * 4 + 2], 0, 0, 255, 2);
		expect_rgb(out[y * 4 + 3], 0, 0, 255, 2);
	}
	/* a destination stride wider than the frame leaves the gap alone */
	uint32_t wide[6 * 2];

	for (int i = 0; i < 12; i++)
		wide[i] = 0x12345678;
	lw_nv12_to_xrgb(f, 4, f + 8, 4, 4, 2, wide, 6, &m);
	assert_int_equal(wide[4], 0x12345678);
	assert_int_equal(wide[5], 0x12345678);
	expect_rgb(wide[6], 255, 0, 0, 2);
}

static void test_yuyv_frame(void **state)
{
	/* one row: two BT.709 green pixels, two white */
	uint8_t f[8] = { 173, 42, 173, 26, 235, 128, 235, 128 };
	uint32_t out[4];
	struct lw_yuv_matrix m = lw_yuv_matrix(LW_BT709);

	lw_yuyv_to_xrgb(f, 8, 4, 1, out, 4, &m);
	expect_rgb(out[0], 0, 255, 0, 2);
	expect_rgb(out[1], 0, 255, 0, 2);
	expect_rgb(out[2], 255, 255, 255, 1);
	expect_rgb(out[3], 255, 255, 255, 1);
	assert_int_equal(lw_frame_bytes(LW_FMT_YUYV, 1920, 1080), 1920 * 1080 * 2);
	assert_int_equal(lw_frame_bytes(LW_FMT_NV12, 1920, 1080), 1920 * 1080 * 3 / 2);
}

static void test_scale(void **state)
{
	uint32_t src[8 * 8], dst[16 * 16];

	/* 1-pixel checkerboard halved: every output pixel averages 2x2 = mid grey */
	for (int y = 0; y < 8; y++)
		for (int x = 0; x < 8; x++)
			src[y * 8 + x] = (x + y) & 1 ? lw_xrgb(255, 255, 255) : lw_xrgb(0, 0, 0);
	lw_scale_xrgb(src, 8, 8, 8, dst, 4, 4, 4);
	for (int i = 0; i < 16; i++)
		expect_rgb(dst[i], 128, 128, 128, 1);

	/* same size: an exact copy */
	for (int i = 0; i < 64; i++)
		src[i] = lw_xrgb((unsigned)i * 3, 255 - (unsigned)i, (unsigned)i);
	lw_scale_xrgb(src, 8, 8, 8, dst, 8, 8, 8);
	assert_memory_equal(src, dst, sizeof(src));

	/* a horizontal ramp doubled stays a ramp: dst(x) = 16x - 8 inside */
	for (int y = 0; y < 2; y++)
		for (int x = 0; x < 8; x++)
			src[y * 8 + x] = lw_xrgb((unsigned)x * 32, 0, 255 - (unsigned)x * 32);
	lw_scale_xrgb(src, 8, 2, 8, dst, 16, 4, 16);
	for (int y = 0; y < 4; y++) {
		expect_rgb(dst[y * 16], 0, 0, 255, 0);		/* clamped edge */
		expect_rgb(dst[y * 16 + 15], 224, 0, 31, 0);
		for (int x = 1; x < 15; x++)
			expect_rgb(dst[y * 16 + x], 16 * x - 8, 0, 255 - (16 * x - 8), 1);
	}

	/* a constant image stays constant at any size */
	for (int i = 0; i < 9; i++)
		src[i] = lw_xrgb(10, 200, 77);
	lw_scale_xrgb(src, 3, 3, 3, dst, 7, 5, 7);
	for (int i = 0; i < 35; i++)
		expect_rgb(dst[i], 10, 200, 77, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_known_pixels),
		cmocka_unit_test(test_nv12_frame),
		cmocka_unit_test(test_yuyv_frame),
		cmocka_unit_test(test_scale),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
