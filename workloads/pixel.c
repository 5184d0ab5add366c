// SPDX-License-Identifier: GPL-2.0-only
#include <math.h>

#include "workloads/pixel.h"

/*
 * From the luma weights Kr, Kb of the standard (Kg = 1 - Kr - Kb) and the
 * limited range (luma 16..235: 219 steps, chroma 16..240: 224 steps):
 *   R = 255/219 Y' + 255/112 (1 - Kr) Cr
 *   G = 255/219 Y' - 255/112 (1 - Kb) Kb/Kg Cb - 255/112 (1 - Kr) Kr/Kg Cr
 *   B = 255/219 Y' + 255/112 (1 - Kb) Cb
 */
struct lw_yuv_matrix lw_yuv_matrix(enum lw_yuv_std std)
{
	double kr = std == LW_BT709 ? 0.2126 : 0.299;
	double kb = std == LW_BT709 ? 0.0722 : 0.114;
	double kg = 1 - kr - kb, one = (double)(1 << LW_YUV_SHIFT), c = 255.0 / 112;

	return (struct lw_yuv_matrix){
		.y  = (int32_t)lround(255.0 / 219 * one),
		.rv = (int32_t)lround(c * (1 - kr) * one),
		.gu = (int32_t)lround(c * (1 - kb) * kb / kg * one),
		.gv = (int32_t)lround(c * (1 - kr) * kr / kg * one),
		.bu = (int32_t)lround(c * (1 - kb) * one),
	};
}

static inline unsigned clamp8(int32_t v)
{
	v = (v + (1 << (LW_YUV_SHIFT - 1))) >> LW_YUV_SHIFT;
	return v < 0 ? 0 : v > 255 ? 255 : (unsigned)v;
}

static inline uint32_t px(const struct lw_yuv_matrix *m, int32_t yy, int32_t r, int32_t g,
			  int32_t b)
{
	return lw_xrgb(clamp8(yy + r), clamp8(yy - g), clamp8(yy + b));
}

uint32_t lw_yuv_to_xrgb(const struct lw_yuv_matrix *m, int y, int u, int v)
{
	u -= 128;
	v -= 128;
	return px(m, m->y * (y - 16), m->rv * v, m->gu * u + m->gv * v, m->bu * u);
}

void lw_nv12_to_xrgb(const uint8_t *y, size_t ystride, const uint8_t *uv, size_t uvstride,
		     unsigned w, unsigned h, uint32_t *dst, size_t dstride,
		     const struct lw_yuv_matrix *m)
{
	for (unsigned row = 0; row < h; row++) {
		const uint8_t *yl = y + row * ystride, *c = uv + (row / 2) * uvstride;
		uint32_t *o = dst + row * dstride;

		for (unsigned x = 0; x < w; x += 2, c += 2) {
			int32_t u = c[0] - 128, v = c[1] - 128;
			int32_t r = m->rv * v, g = m->gu * u + m->gv * v, b = m->bu * u;

			o[x] = px(m, m->y * (yl[x] - 16), r, g, b);
			o[x + 1] = px(m, m->y * (yl[x + 1] - 16), r, g, b);
		}
	}
}

void lw_yuyv_to_xrgb(const uint8_t *src, size_t stride, unsigned w, unsigned h, uint32_t *dst,
		     size_t dstride, const struct lw_yuv_matrix *m)
{
	for (unsigned row = 0; row < h; row++) {
		const uint8_t *s = src + row * stride;
		uint32_t *o = dst + row * dstride;

		for (unsigned x = 0; x < w; x += 2, s += 4) {
			int32_t u = s[1] - 128, v = s[3] - 128;
			int32_t r = m->rv * v, g = m->gu * u + m->gv * v, b = m->bu * u;

			o[x] = px(m, m->y * (s[0] - 16), r, g, b);
			o[x + 1] = px(m, m->y * (s[2] - 16), r, g, b);
		}
	}
}

/* Source coordinate of destination pixel @i in 24.8 fixed point, clamped. */
static inline uint32_t src_pos(unsigned i, unsigned sn, unsigned dn)
{
	/* centre of i in the source: (i + 0.5) * sn / dn - 0.5 */
	int64_t p = ((int64_t)(2 * i + 1) * sn * 256) / (2 * (int64_t)dn) - 128;
	int64_t max = (int64_t)(sn - 1) * 256;

	return (uint32_t)(p < 0 ? 0 : p > max ? max : p);
}

static inline uint32_t lerp2(uint32_t p00, uint32_t p01, uint32_t p10, uint32_t p11,
			     uint32_t fx, uint32_t fy)
{
	uint32_t w00 = (256 - fx) * (256 - fy), w01 = fx * (256 - fy);
	uint32_t w10 = (256 - fx) * fy, w11 = fx * fy, out = 0xff000000u;

	for (int sh = 0; sh < 24; sh += 8) {
		uint32_t c = ((p00 >> sh) & 255) * w00 + ((p01 >> sh) & 255) * w01 +
			     ((p10 >> sh) & 255) * w10 + ((p11 >> sh) & 255) * w11;

		out |= ((c + 32768) >> 16) << sh;
	}
	return out;
}

void lw_scale_xrgb(const uint32_t *src, unsigned sw, unsigned sh, size_t sstride,
		   uint32_t *dst, unsigned dw, unsigned dh, size_t dstride)
{
	for (unsigned y = 0; y < dh; y++) {
		uint32_t py = src_pos(y, sh, dh), y0 = py >> 8, fy = py & 255;
		uint32_t y1 = y0 + 1 < sh ? y0 + 1 : y0;
		const uint32_t *r0 = src + y0 * sstride, *r1 = src + y1 * sstride;
		uint32_t *o = dst + y * dstride;

		for (unsigned x = 0; x < dw; x++) {
			uint32_t pxx = src_pos(x, sw, dw), x0 = pxx >> 8, fx = pxx & 255;
			uint32_t x1 = x0 + 1 < sw ? x0 + 1 : x0;

			o[x] = lerp2(r0[x0], r0[x1], r1[x0], r1[x1], fx, fy);
		}
	}
}

size_t lw_frame_bytes(int format, unsigned w, unsigned h)
{
	return format == LW_FMT_YUYV ? (size_t)w * h * 2 : (size_t)w * h * 3 / 2;
}
