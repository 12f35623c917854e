/*
 * The sparse linear step of bench/run.ts written directly in C, single-threaded, as a floor for
 * what the machine allows: no framework, no dispatch, no validation. Same shapes and the same kind
 * of rows as src/data.ts (256 rows of 100 distinct ids, half from 10,000 frequent ids, half from
 * 1,000,000), logistic loss, plain SGD. Per step:
 *   forward  z = sigmoid(X·W) - y: a gather of one W row per nonzero (both paths do this);
 *   sparse   gradient rows accumulated in first-seen order through an id -> slot map (a valid
 *            row_sparse gradient would also sort its ids, so this favours the sparse side), then
 *            SGD on those rows only;
 *   dense    zero a [features, outputs] gradient, scatter into it, SGD over every row.
 * Usage: native-floor <outputs>; prints one JSON line of medians in ms. bench/run.ts compiles it
 * with the system C compiler when there is one and reports it beside our figures.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define FEATURES 1000000
#define FREQUENT 10000
#define BATCH 256
#define NNZ 100
#define BATCHES 16

static uint32_t state = 11;
/* mulberry32, as src/data.ts */
static double rnd(void) {
  state += 0x6d2b79f5u;
  uint32_t t = state;
  t = (t ^ (t >> 15)) * (t | 1);
  t ^= t + (t ^ (t >> 7)) * (t | 61);
  return (t ^ (t >> 14)) / 4294967296.0;
}
static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}
static int cmp_int(const void *a, const void *b) { return (*(const int *)a > *(const int *)b) - (*(const int *)a < *(const int *)b); }
static int cmp_dbl(const void *a, const void *b) { return (*(const double *)a > *(const double *)b) - (*(const double *)a < *(const double *)b); }

static int O;
static int ids[BATCHES][BATCH * NNZ];
static float *labels, *w, *g, *slots, *dz;
static int *slot_of, touched[BATCH * NNZ];

static void forward(int k) {
  float acc[1024];
  for (int r = 0; r < BATCH; r++) {
    memset(acc, 0, sizeof(float) * O);
    for (int j = 0; j < NNZ; j++) {
      const float *row = w + (size_t)ids[k][r * NNZ + j] * O;
      for (int o = 0; o < O; o++) acc[o] += row[o];
    }
    for (int o = 0; o < O; o++) dz[r * O + o] = 1.f / (1.f + expf(-acc[o])) - labels[((size_t)k * BATCH + r) * O + o];
  }
}

static void sparse_step(int k) {
  const float lr = 0.5f / BATCH;
  forward(k);
  int n = 0;
  for (int r = 0; r < BATCH; r++)
    for (int j = 0; j < NNZ; j++) {
      int c = ids[k][r * NNZ + j], s = slot_of[c];
      if (s < 0) {
        s = slot_of[c] = n;
        touched[n++] = c;
        memset(slots + (size_t)s * O, 0, sizeof(float) * O);
      }
      float *gr = slots + (size_t)s * O;
      for (int o = 0; o < O; o++) gr[o] += dz[r * O + o];
    }
  for (int i = 0; i < n; i++) {
    float *wr = w + (size_t)touched[i] * O;
    const float *gr = slots + (size_t)i * O;
    for (int o = 0; o < O; o++) wr[o] -= lr * gr[o];
    slot_of[touched[i]] = -1;
  }
}

static void dense_step(int k) {
  const float lr = 0.5f / BATCH;
  const size_t size = (size_t)FEATURES * O;
  forward(k);
  memset(g, 0, size * sizeof(float));
  for (int r = 0; r < BATCH; r++)
    for (int j = 0; j < NNZ; j++) {
      float *gr = g + (size_t)ids[k][r * NNZ + j] * O;
      for (int o = 0; o < O; o++) gr[o] += dz[r * O + o];
    }
  for (size_t i = 0; i < size; i++) w[i] -= lr * g[i];
}

int main(int argc, char **argv) {
  O = argc > 1 ? atoi(argv[1]) : 1;
  if (O < 1 || O > 1024) return 2;
  const size_t size = (size_t)FEATURES * O;
  w = calloc(size, sizeof(float));
  g = calloc(size, sizeof(float));
  slots = calloc((size_t)BATCH * NNZ * O, sizeof(float));
  dz = calloc((size_t)BATCH * O, sizeof(float));
  labels = calloc((size_t)BATCHES * BATCH * O, sizeof(float));
  slot_of = malloc(sizeof(int) * FEATURES);
  if (!w || !g || !slots || !dz || !labels || !slot_of) return 3;
  for (int i = 0; i < FEATURES; i++) slot_of[i] = -1;
  for (int k = 0; k < BATCHES; k++)
    for (int r = 0; r < BATCH; r++) {
      int *row = &ids[k][r * NNZ], count = 0;
      while (count < NNZ) {
        int id = (int)floor(rnd() * (rnd() < 0.5 ? FREQUENT : FEATURES)), dup = 0;
        for (int q = 0; q < count && !dup; q++) dup = row[q] == id;
        if (!dup) row[count++] = id;
      }
      qsort(row, NNZ, sizeof(int), cmp_int);
      for (int o = 0; o < O; o++) labels[((size_t)k * BATCH + r) * O + o] = rnd() < 0.5f;
    }
  /* Turns as in run.ts: 8 sparse steps (time per step), one dense step, one forward. */
  enum { SAMPLES = 60, PIPELINE = 8 };
  double ts[SAMPLES], td[SAMPLES], tf[SAMPLES];
  for (int it = 0, step = 0; it < SAMPLES + 5; it++) {
    double t0 = now_ms();
    for (int q = 0; q < PIPELINE; q++, step++) sparse_step(step % BATCHES);
    double t1 = now_ms();
    dense_step(it % BATCHES);
    double t2 = now_ms();
    forward(it % BATCHES);
    double t3 = now_ms();
    if (it >= 5) { /* warm-up */
      ts[it - 5] = (t1 - t0) / PIPELINE;
      td[it - 5] = t2 - t1;
      tf[it - 5] = t3 - t2;
    }
  }
  qsort(ts, SAMPLES, sizeof(double), cmp_dbl);
  qsort(td, SAMPLES, sizeof(double), cmp_dbl);
  qsort(tf, SAMPLES, sizeof(double), cmp_dbl);
  printf("{\"outputs\":%d,\"sparseMs\":%.5f,\"denseMs\":%.5f,\"forwardMs\":%.5f}\n", O, ts[SAMPLES / 2],
         td[SAMPLES / 2], tf[SAMPLES / 2]);
  return 0;
}
