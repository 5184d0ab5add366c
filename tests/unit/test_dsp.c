// SPDX-License-Identifier: GPL-2.0-only
/* Audio DSP kernels against closed forms. */
#include <complex.h>
#include <math.h>

#include "tests/unit/lw_test.h"
#include "workloads/dsp.h"

#define N 256

/* Impulse response of 1 / (1 + a1 z^-1 + a2 z^-2) with complex poles r e^{±jθ}:
 * g[n] = r^n sin((n+1)θ) / sin θ. */
static double g_closed(double r, double th, int n)
{
	return n < 0 ? 0 : pow(r, n) * sin((n + 1) * th) / sin(th);
}

static double h_closed(const struct lw_biquad *c, int n)
{
	double r = sqrt(c->a2), th = acos(-c->a1 / (2 * r));

	return c->b0 * g_closed(r, th, n) + c->b1 * g_closed(r, th, n - 1) +
	       c->b2 * g_closed(r, th, n - 2);
}

static void impulse(const struct lw_biquad *c, float *y, size_t n)
{
	struct lw_biquad_state st = { 0, 0 };

	memset(y, 0, n * sizeof(*y));
	y[0] = 1;
	lw_biquad_cascade(c, 1, &st, y, n, 1);
}

static void test_resonator_impulse(void **state)
{
	const double r = 0.9, th = 0.3;
	struct lw_biquad c = { 1, 0, 0, (float)(-2 * r * cos(th)), (float)(r * r) };
	float y[N];

	impulse(&c, y, N);
	for (int n = 0; n < N; n++)
		assert_true(fabs(y[n] - h_closed(&c, n)) < 1e-5);
	/* and it is not trivially zero */
	assert_true(fabs(y[1] - 2 * r * cos(th)) < 1e-6);
}

static void test_lowpass_impulse_and_step(void **state)
{
	struct lw_biquad c = lw_biquad_lowpass(48000, 1000, M_SQRT1_2);
	float y[N], step[4096];
	double sum = 0;

	impulse(&c, y, N);
	for (int n = 0; n < N; n++)
		assert_true(fabs(y[n] - h_closed(&c, n)) < 1e-5);

	/* step response: the running sum of the impulse response, settling at the DC gain 1 */
	struct lw_biquad_state st = { 0, 0 };

	for (size_t i = 0; i < 4096; i++)
		step[i] = 1;
	lw_biquad_cascade(&c, 1, &st, step, 4096, 1);
	for (int n = 0; n < N; n++) {
		sum += h_closed(&c, n);
		assert_true(fabs(step[n] - sum) < 1e-4);
	}
	/* unity in double; the float coefficients are within 1e-3 of it */
	assert_true(fabs(lw_biquad_dc_gain(&c) - 1) < 1e-3);
	assert_true(fabs(step[4095] - lw_biquad_dc_gain(&c)) < 1e-4);
}

static double mag(const struct lw_biquad *c, double w)
{
	double complex z1 = cexp(-I * w), z2 = z1 * z1;

	return cabs((c->b0 + c->b1 * z1 + c->b2 * z2) / (1 + c->a1 * z1 + c->a2 * z2));
}

static void test_designs(void **state)
{
	const double fs = 48000;
	struct lw_biquad hp = lw_biquad_highpass(fs, 100, M_SQRT1_2);
	struct lw_biquad lp = lw_biquad_lowpass(fs, 5000, M_SQRT1_2);
	struct lw_biquad pk = lw_biquad_peaking(fs, 1000, 1.0, 6.0);

	assert_true(fabs(lw_biquad_dc_gain(&hp)) < 1e-6);		/* blocks DC */
	assert_true(fabs(mag(&hp, M_PI) - 1) < 1e-4);			/* passes Nyquist */
	assert_true(fabs(mag(&lp, M_PI)) < 1e-4);			/* zero at Nyquist */
	/* -3 dB at the corner for Q = 1/sqrt(2) */
	assert_true(fabs(mag(&lp, 2 * M_PI * 5000 / fs) - M_SQRT1_2) < 1e-3);
	assert_true(fabs(mag(&hp, 2 * M_PI * 100 / fs) - M_SQRT1_2) < 1e-3);
	/* peaking: +6 dB at its centre, unity far away */
	assert_true(fabs(20 * log10(mag(&pk, 2 * M_PI * 1000 / fs)) - 6) < 1e-3);
	assert_true(fabs(mag(&pk, 0) - 1) < 1e-4);
}

static void test_cascade_channels_and_blocks(void **state)
{
	struct lw_biquad c[2] = { lw_biquad_highpass(48000, 40, M_SQRT1_2),
				  lw_biquad_peaking(48000, 1000, 1, 3) };
	struct lw_biquad_state st2[4] = { { 0 } }, sa[2] = { { 0 } }, sb[2] = { { 0 } };
	float inter[2 * 64], mono[64], halves[64];

	/* channel 0: an impulse, channel 1: silence */
	memset(inter, 0, sizeof(inter));
	memset(mono, 0, sizeof(mono));
	inter[0] = mono[0] = 1;
	memcpy(halves, mono, sizeof(mono));
	lw_biquad_cascade(c, 2, st2, inter, 64, 2);
	lw_biquad_cascade(c, 2, sa, mono, 64, 1);
	/* the same signal in two blocks: the state carries over */
	lw_biquad_cascade(c, 2, sb, halves, 32, 1);
	lw_biquad_cascade(c, 2, sb, halves + 32, 32, 1);
	for (int i = 0; i < 64; i++) {
		assert_true(inter[2 * i] == mono[i]);
		assert_true(inter[2 * i + 1] == 0);
		assert_true(halves[i] == mono[i]);
	}
	/* a cascade is the product of its sections: impulse through both */
	float y1[64];
	struct lw_biquad_state s1 = { 0 }, s2 = { 0 };

	memset(y1, 0, sizeof(y1));
	y1[0] = 1;
	lw_biquad_cascade(&c[0], 1, &s1, y1, 64, 1);
	lw_biquad_cascade(&c[1], 1, &s2, y1, 64, 1);
	for (int i = 0; i < 64; i++)
		assert_true(fabs(y1[i] - mono[i]) < 1e-6);
}

static void test_mix(void **state)
{
	float out[4] = { 1, 2, 3, 4 }, in[4] = { 4, 3, 2, 1 };

	lw_mix(out, in, 4, 0.5f);
	assert_true(out[0] == 3 && out[1] == 3.5f && out[2] == 4 && out[3] == 4.5f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_resonator_impulse),
		cmocka_unit_test(test_lowpass_impulse_and_step),
		cmocka_unit_test(test_designs),
		cmocka_unit_test(test_cascade_channels_and_blocks),
		cmocka_unit_test(test_mix),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
