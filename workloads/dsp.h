/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Audio DSP kernels of the audio simulator: second-order IIR sections
 * (biquads, transposed direct form II, single precision as audio drivers and
 * DSP firmware run them) designed with the usual bilinear-transform formulas
 * (low-pass, high-pass, peaking EQ), cascades over interleaved frames, and a
 * mix.  Pure functions, unit-tested against closed forms.
 */
#ifndef LW_DSP_H
#define LW_DSP_H

#include <stddef.h>

/* y[n] = b0 x[n] + b1 x[n-1] + b2 x[n-2] - a1 y[n-1] - a2 y[n-2] */
struct lw_biquad {
	float b0, b1, b2, a1, a2;
};

/* Per-channel state of one section. */
struct lw_biquad_state {
	float z1, z2;
};

/* Designs at sample rate @fs, corner/centre @f0 (0 < f0 < fs/2), quality @q. */
struct lw_biquad lw_biquad_lowpass(double fs, double f0, double q);
struct lw_biquad lw_biquad_highpass(double fs, double f0, double q);
struct lw_biquad lw_biquad_peaking(double fs, double f0, double q, double gain_db);
/* Gain of the section at DC: (b0 + b1 + b2) / (1 + a1 + a2). */
double lw_biquad_dc_gain(const struct lw_biquad *c);

/*
 * Filter @frames interleaved frames of @channels channels in place through
 * @nstages sections; @st holds nstages * channels states (stage-major).
 */
void lw_biquad_cascade(const struct lw_biquad *c, size_t nstages, struct lw_biquad_state *st,
		       float *buf, size_t frames, unsigned channels);

/* out[i] += gain * in[i] for @n samples. */
void lw_mix(float *out, const float *in, size_t n, float gain);

#endif
