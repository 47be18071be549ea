/* An N-API addon for bench/live_sample_cost.mjs: spins on the thread that calls it, reading
 * CLOCK_MONOTONIC back to back (~30-40 ns apart), and records every gap between two reads of
 * THRESHOLD microseconds or more: time the thread did not run its own code (an interrupt, a VM
 * exit, a preemption). A sampler's interrupt shows as such a gap around the sample's timestamp.
 * Native code, so that nothing of the thread's own (a GC, a JIT compile) opens gaps of its own. */
#include <node_api.h>
#include <time.h>

static double now_us(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

/* spin(ms, thresholdUs, gaps: Float64Array, used) -> used: loops ms milliseconds, appending
   [start, end] pairs (microseconds, CLOCK_MONOTONIC) to gaps from index used while there is room */
static napi_value spin(napi_env env, napi_callback_info info) {
    size_t argc = 4, len;
    napi_value argv[4], result;
    double ms, threshold, used;
    void *data;
    napi_typedarray_type type;
    if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 4 ||
        napi_get_value_double(env, argv[0], &ms) != napi_ok || napi_get_value_double(env, argv[1], &threshold) != napi_ok ||
        napi_get_typedarray_info(env, argv[2], &type, &len, &data, NULL, NULL) != napi_ok || type != napi_float64_array ||
        napi_get_value_double(env, argv[3], &used) != napi_ok) {
        napi_throw_type_error(env, NULL, "spin(ms, thresholdUs, Float64Array, used)");
        return NULL;
    }
    double *gaps = data, prev = now_us(), end = prev + ms * 1000;
    size_t n = (size_t)used;
    for (;;) {
        double t = now_us();
        if (t - prev >= threshold && n + 2 <= len) gaps[n++] = prev, gaps[n++] = t;
        prev = t;
        if (t >= end) break;
    }
    napi_create_double(env, (double)n, &result);
    return result;
}

NAPI_MODULE_INIT() {
    napi_value f;
    napi_create_function(env, "spin", NAPI_AUTO_LENGTH, spin, NULL, &f);
    napi_set_named_property(env, exports, "spin", f);
    return exports;
}
