/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Pixel kernels of the video simulator: YUV to XRGB8888 conversion of the
 * capture formats NV12 (planar Y, interleaved half-resolution UV) and YUYV
 * (packed 4:2:2), limited ("video") range, BT.601 or BT.709 matrices in
 * fixed point as display pipelines do, and bilinear scaling of XRGB8888.
 * Pure functions, unit-tested against known pixels.
 */
#ifndef LW_PIXEL_H
#define LW_PIXEL_H

#include <stddef.h>
#include <stdint.h>

enum lw_yuv_std { LW_BT601 = 0, LW_BT709 = 1 };

/* Fixed-point coefficients, Q14, of
 *   R = y (Y-16) + rv (V-128)
 *   G = y (Y-16) - gu (U-128) - gv (V-128)
 *   B = y (Y-16) + bu (U-128)                                           */
struct lw_yuv_matrix {
	int32_t y, rv, gu, gv, bu;
};
#define LW_YUV_SHIFT 14

struct lw_yuv_matrix lw_yuv_matrix(enum lw_yuv_std std);

static inline uint32_t lw_xrgb(unsigned r, unsigned g, unsigned b)
{
	return 0xff000000u | (r << 16) | (g << 8) | b;
}

/* One pixel (for tests and edges). */
uint32_t lw_yuv_to_xrgb(const struct lw_yuv_matrix *m, int y, int u, int v);

/* NV12 @w x @h (even) to XRGB8888; strides in bytes (src) and pixels (dst). */
void lw_nv12_to_xrgb(const uint8_t *y, size_t ystride, const uint8_t *uv, size_t uvstride,
		     unsigned w, unsigned h, uint32_t *dst, size_t dstride,
		     const struct lw_yuv_matrix *m);
/* YUYV (Y0 U Y1 V) @w (even) x @h to XRGB8888; @stride in bytes. */
void lw_yuyv_to_xrgb(const uint8_t *src, size_t stride, unsigned w, unsigned h, uint32_t *dst,
		     size_t dstride, const struct lw_yuv_matrix *m);

/* Bilinear scaling of XRGB8888, pixel centres aligned, edges clamped. */
void lw_scale_xrgb(const uint32_t *src, unsigned sw, unsigned sh, size_t sstride,
		   uint32_t *dst, unsigned dw, unsigned dh, size_t dstride);

/* Bytes of one frame of @w x @h: NV12 w*h*3/2, YUYV w*h*2. */
size_t lw_frame_bytes(int format, unsigned w, unsigned h);
enum lw_pixfmt { LW_FMT_NV12 = 0, LW_FMT_YUYV = 1 };

#endif
