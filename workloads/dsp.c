// SPDX-License-Identifier: GPL-2.0-only
#include <math.h>

#include "workloads/dsp.h"

/*
 * Analog prototypes mapped with the bilinear transform, prewarped at f0:
 * w0 = 2 pi f0 / fs, alpha = sin(w0) / (2 q); coefficients normalised by a0.
 */
static struct lw_biquad norm(double b0, double b1, double b2, double a0, double a1, double a2)
{
	return (struct lw_biquad){
		.b0 = (float)(b0 / a0), .b1 = (float)(b1 / a0), .b2 = (float)(b2 / a0),
		.a1 = (float)(a1 / a0), .a2 = (float)(a2 / a0),
	};
}

struct lw_biquad lw_biquad_lowpass(double fs, double f0, double q)
{
	double w0 = 2 * M_PI * f0 / fs, c = cos(w0), alpha = sin(w0) / (2 * q);

	return norm((1 - c) / 2, 1 - c, (1 - c) / 2, 1 + alpha, -2 * c, 1 - alpha);
}

struct lw_biquad lw_biquad_highpass(double fs, double f0, double q)
{
	double w0 = 2 * M_PI * f0 / fs, c = cos(w0), alpha = sin(w0) / (2 * q);

	return norm((1 + c) / 2, -(1 + c), (1 + c) / 2, 1 + alpha, -2 * c, 1 - alpha);
}

struct lw_biquad lw_biquad_peaking(double fs, double f0, double q, double gain_db)
{
	double a = pow(10, gain_db / 40), w0 = 2 * M_PI * f0 / fs, c = cos(w0);
	double alpha = sin(w0) / (2 * q);

	return norm(1 + alpha * a, -2 * c, 1 - alpha * a, 1 + alpha / a, -2 * c, 1 - alpha / a);
}

double lw_biquad_dc_gain(const struct lw_biquad *c)
{
	return ((double)c->b0 + c->b1 + c->b2) / (1.0 + c->a1 + c->a2);
}

void lw_biquad_cascade(const struct lw_biquad *c, size_t nstages, struct lw_biquad_state *st,
		       float *buf, size_t frames, unsigned channels)
{
	for (size_t s = 0; s < nstages; s++) {
		const float b0 = c[s].b0, b1 = c[s].b1, b2 = c[s].b2, a1 = c[s].a1, a2 = c[s].a2;

		for (unsigned ch = 0; ch < channels; ch++) {
			struct lw_biquad_state *z = &st[s * channels + ch];
			float z1 = z->z1, z2 = z->z2;
			float *p = buf + ch;

			for (size_t i = 0; i < frames; i++, p += channels) {
				float x = *p, y = b0 * x + z1;

				z1 = b1 * x - a1 * y + z2;
				z2 = b2 * x - a2 * y;
				*p = y;
			}
			z->z1 = z1;
			z->z2 = z2;
		}
	}
}

void lw_mix(float *out, const float *in, size_t n, float gain)
{
	for (size_t i = 0; i < n; i++)
		out[i] += gain * in[i];
}
